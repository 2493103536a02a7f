"""STBench point-region relationship detection (PRRD, §4.3, Table 10), on city blocks instead of EULUC parcels.

2–5 adjacent blocks of a jittered street grid at a real city (4–8 vertices each, separated by streets, so
they never overlap) are the regions; the point is drawn inside one of them at least 5 m from its boundary.
Boundary convention: the gold is the one region whose interior holds the point; because the point is 5 m
clear of every boundary, counting boundary points as inside or outside gives the same single region.
Sub-datasets by the number of regions (meta ``n_regions``) cycle 2, 3, 4, 5 as in App. B.2.
"""

from __future__ import annotations

import random

import numpy as np
import shapely
from shapely.geometry import Point

from geocore.regions import boundary_distances_m, regions_containing
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, OptionTarget, OptionTask
from tasks.stbench.prompts import Fmt, num, number_instruction
from tasks.stbench.world import Blocks, city_blocks, connected_blocks

MIN_CLEARANCE_M = 5.0
DECIMALS = 6


def point_inside(rng: random.Random, blocks: Blocks, key: tuple[int, int]) -> tuple[float, float]:
    """A uniformly random (lat, lon), rounded, inside block ``key`` (metres → degrees)."""
    shape = shapely.polygons(np.array(blocks.polygons[key]))  # Polygon(...) of those vertices, built directly
    x0, y0, x1, y1 = shape.bounds
    while True:
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        if shape.contains(Point(x, y)):
            lat, lon = blocks.frame.to_latlon(x, y)
            return (round(lat, DECIMALS), round(lon, DECIMALS))


def render_regions(regions: list[list[list[float]]], fmt: Fmt) -> str:
    return " ".join(f"Region {i}: {fmt.path(r, DECIMALS)}" for i, r in enumerate(regions, 1))


@register_task("stbench.point_region", variants=(COMPLETION,))
class PointRegionTask(OptionTask[OptionTarget]):
    """Which of 2–5 regions contains a point."""

    toolsets = ("geometry",)
    paper_size = 10_000

    def make(self, rng: random.Random, index: int) -> Item[OptionTarget]:
        k = 2 + index % 4
        return self.retry(lambda: self._draw(rng, k))

    def _draw(self, rng: random.Random, k: int) -> Item[OptionTarget] | None:
        blocks = city_blocks(rng, 3, 3)
        if len(blocks.polygons) < k:
            return None
        group = connected_blocks(rng, blocks, k)
        regions = blocks.rings(group, DECIMALS)
        target = rng.randrange(k)
        lat, lon = point_inside(rng, blocks, group[target])
        inside = regions_containing(lat, lon, regions, boundary="include")
        strictly = regions_containing(lat, lon, regions, boundary="exclude")
        if inside != [target] or strictly != [target]:
            return None
        if min(boundary_distances_m(lat, lon, regions)) < MIN_CLEARANCE_M:
            return None
        return Item(
            payload={"regions": regions, "point": [lat, lon]},
            target={"option": target + 1, "label": f"Region {target + 1}"},
            meta={"n_regions": k},
            options=[(i + 1, f"Region {i + 1}") for i in range(k)],
        )

    def render(self, item: Item[OptionTarget], fmt: Fmt) -> str:
        lat, lon = item.payload["point"]
        if fmt.lonlat:
            return (
                "Question: Below are several regions, each given by its boundary as a list of "
                f"{fmt.pair_name} vertices: {render_regions(item.payload['regions'], fmt)} A point lies at longitude {num(lon, DECIMALS)} and "
                f"latitude {num(lat, DECIMALS)}. Answer with the number of the region that contains the point."
                "\nAnswer: The point falls in Region"
            )
        return (
            f"Below are several regions, each given by its boundary as a list of {fmt.pair_name} vertices:\n"
            + "\n".join(f"Region {i}: {fmt.path(r, DECIMALS)}" for i, r in enumerate(item.payload["regions"], 1))
            + f"\nA point lies at latitude {num(lat, DECIMALS)}, longitude {num(lon, DECIMALS)}. "
            "Which region contains it?\n" + number_instruction("region")
        )
