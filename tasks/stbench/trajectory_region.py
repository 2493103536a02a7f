"""STBench trajectory-region relationship detection (TRRD, §4.3, Table 11).

Five adjacent city blocks are the regions; a random walk of L points (L = 2, 4, 6, 8, 10 in turn, the
paper's sub-datasets) moves 60–250 m per step around them, straight between points. The gold is the ordered
list of regions whose interior the walk passes through (:func:`geocore.regions.regions_crossed`; immediate
repeats merged). A walk is kept only when the gold cannot depend on the boundary convention: every point is
3 m or more from every region boundary, every piece of a segment inside a region is 5 m or longer, and no
segment passes within 3 m of a region it does not enter. Four distractors are distinct region sequences:
edits of the gold (drop, insert, replace, swap) and random sequences.
"""

from __future__ import annotations

import math
import random

import numpy as np
import shapely
from numpy.typing import NDArray

from geocore.regions import regions_crossed
from geocore.sphere import FloatArray
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, OptionTarget, OptionTask
from tasks.stbench.point_region import DECIMALS, point_inside, render_regions
from tasks.stbench.prompts import OPTION_INSTRUCTION, Fmt, options_inline, options_lines
from tasks.stbench.world import city_blocks, connected_blocks, round_point

N_REGIONS = 5
N_OPTIONS = 5
LENGTHS = (2, 4, 6, 8, 10)
CLEARANCE_M = 3.0
MIN_PIECE_M = 5.0


def _merge(seq: list[int]) -> list[int]:
    out: list[int] = []
    for r in seq:
        if not out or out[-1] != r:
            out.append(r)
    return out


def distractors(rng: random.Random, gold: list[int], n_regions: int, count: int) -> list[list[int]]:
    """``count`` distinct region sequences, none equal to ``gold``, without immediate repeats."""
    seen = {tuple(gold)}
    out: list[list[int]] = []
    regions = list(range(1, n_regions + 1))
    while len(out) < count:
        cand = list(gold)
        move = rng.choice(("drop", "insert", "replace", "swap", "random"))
        if move == "drop" and len(cand) > 1:
            cand.pop(rng.randrange(len(cand)))
        elif move == "insert":
            cand.insert(rng.randrange(len(cand) + 1), rng.choice(regions))
        elif move == "replace":
            cand[rng.randrange(len(cand))] = rng.choice(regions)
        elif move == "swap" and len(cand) > 1:
            i = rng.randrange(len(cand) - 1)
            cand[i], cand[i + 1] = cand[i + 1], cand[i]
        else:
            cand = [rng.choice(regions) for _ in range(rng.randint(1, max(2, len(gold) + 1)))]
        cand = _merge(cand)
        if cand and tuple(cand) not in seen:
            seen.add(tuple(cand))
            out.append(cand)
    return out


def fmt_seq(seq: list[int]) -> str:
    return "[" + ", ".join(map(str, seq)) + "]"


class RegionsTarget(OptionTarget):
    regions: list[int]


@register_task("stbench.trajectory_region", variants=(COMPLETION,))
class TrajectoryRegionTask(OptionTask[RegionsTarget]):
    """Which regions does a trajectory pass through, in order."""

    toolsets = ("geometry",)
    paper_size = 12_500

    def make(self, rng: random.Random, index: int) -> Item[RegionsTarget]:
        length = LENGTHS[index % len(LENGTHS)]
        return self.retry(lambda: self._draw(rng, length))

    def _draw(self, rng: random.Random, length: int) -> Item[RegionsTarget] | None:
        blocks = city_blocks(rng, 3, 4)
        if len(blocks.polygons) < N_REGIONS:
            return None
        group = connected_blocks(rng, blocks, N_REGIONS)
        regions = blocks.rings(group, DECIMALS)
        corners = blocks.frame.xy_array([p for r in regions for p in r])
        lo, hi = corners.min(axis=0).tolist(), corners.max(axis=0).tolist()  # the bounds of all the regions
        x0, y0, x1, y1 = lo[0] - 15, lo[1] - 15, hi[0] + 15, hi[1] + 15
        path = [point_inside(rng, blocks, group[rng.randrange(N_REGIONS)])]
        x, y = blocks.frame.to_xy(*path[-1])  # the last point in metres, recomputed when a point is added
        while len(path) < length:
            d, a = rng.uniform(60, 250), rng.uniform(0, 2 * math.pi)
            nx, ny = x + d * math.cos(a), y + d * math.sin(a)
            if x0 <= nx <= x1 and y0 <= ny <= y1:
                path.append(round_point(blocks.frame.to_latlon(nx, ny), DECIMALS))
                x, y = blocks.frame.to_xy(*path[-1])
        rings_m = shapely.linearrings(corners, indices=np.repeat(np.arange(len(regions)), [len(r) for r in regions]))
        if not self._robust(blocks.frame.xy_array(path), rings_m):
            return None
        gold = [r + 1 for r in regions_crossed(path, regions)]
        if not gold:
            return None
        seqs = [gold, *distractors(rng, gold, N_REGIONS, N_OPTIONS - 1)]
        rng.shuffle(seqs)
        options = [(i + 1, fmt_seq(s)) for i, s in enumerate(seqs)]
        k = seqs.index(gold) + 1
        return Item(
            payload={"regions": regions, "path": [list(p) for p in path], "sequences": seqs},
            target={"option": k, "label": fmt_seq(gold), "regions": gold},
            meta={"length": length, "n_crossed": len(gold)},
            options=options,
        )

    @staticmethod
    def _robust(xy: FloatArray, rings: NDArray[np.object_]) -> bool:
        """Every point (``xy``, metres) 3 m or more from every boundary ``rings`` (metres), every piece of a
        segment inside a region a line of 5 m or more, no segment within 3 m of a region it does not enter.

        A (segment, region) pair whose bounding boxes are apart has an empty intersection (GEOS returns one
        without overlaying them), and one whose boxes are more than 3 m (plus 1 cm, far beyond GEOS's
        rounding) apart cannot be within 3 m: neither is sent to GEOS. The rest go one at a time (scalar GEOS
        calls are cheaper than array calls for so few pairs).
        """
        if (shapely.distance(rings[:, None], shapely.points(xy)[None, :]) < CLEARANCE_M).any():
            return False
        pad = CLEARANCE_M + 0.01
        boxes = list(zip(shapely.polygons(rings).tolist(), shapely.bounds(rings).tolist(), strict=True))
        pts = xy.tolist()
        segments = shapely.linestrings(np.stack([xy[:-1], xy[1:]], axis=1)).tolist() if len(pts) > 1 else []
        for seg, (ax, ay), (bx, by) in zip(segments, pts[:-1], pts[1:], strict=True):
            sx0, sx1, sy0, sy1 = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
            for region, (x0, y0, x1, y1) in boxes:
                if x0 > sx1 + pad or x1 < sx0 - pad or y0 > sy1 + pad or y1 < sy0 - pad:
                    continue
                entered = False
                if not (x0 > sx1 or x1 < sx0 or y0 > sy1 or y1 < sy0):
                    cut = seg.intersection(region)
                    for piece in getattr(cut, "geoms", (cut,)):  # shapely.get_parts of one geometry
                        if piece.is_empty:
                            continue
                        if piece.geom_type != "LineString" or piece.length < MIN_PIECE_M:
                            return False
                        entered = True
                if not entered and seg.distance(region) < CLEARANCE_M:
                    return False
        return True

    def render(self, item: Item[RegionsTarget], fmt: Fmt) -> str:
        path = fmt.path(item.payload["path"], DECIMALS)
        opts = item.options or []
        if fmt.lonlat:
            return (
                "Question: Below are several regions, each given by its boundary as a list of "
                f"{fmt.pair_name} vertices: {render_regions(item.payload['regions'], fmt)} A trajectory is given as a list of {fmt.pair_name} points: "
                f"{path}. Only some of its points are listed, but the trajectory is continuous and runs straight "
                "between them. Which regions does it pass through, in the order it enters them: "
                f"{options_inline(opts)}. Answer with one option only.\nAnswer: Option ("
            )
        return (
            f"Below are several regions, each given by its boundary as a list of {fmt.pair_name} vertices:\n"
            + "\n".join(f"Region {i}: {fmt.path(r, DECIMALS)}" for i, r in enumerate(item.payload["regions"], 1))
            + f"\nA trajectory, straight between its listed {fmt.pair_name} points: {path}\n"
            "Which regions does it pass through (through the interior, not just touching an edge), in the order "
            "it enters them, with immediate repeats merged?\n"
            f"{options_lines(opts)}\n{OPTION_INSTRUCTION}"
        )
