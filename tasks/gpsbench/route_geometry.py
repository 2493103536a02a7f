"""GPSBench Pure GPS: route simplification with Ramer-Douglas-Peucker (App. B.1).

A path of 8-15 waypoints runs 20-120 km from a quota-drawn city (points along a great circle, pushed sideways by
random offsets of a few km); epsilon is drawn from 0.5-2.0 km (0.1 km steps). Gold is the sorted list of kept
indices by RDP with the spherical cross-track distance to each arc (the definition of
:func:`geocore.polygons.rdp`, computed by :func:`geocore.pointsets.rdp_with_margin`). Paths where some RDP
comparison lies within 3 % of epsilon (the result would change if epsilon moved by 3 %), or where RDP keeps only
the endpoints or every point, are redrawn. Exact set match; the error is the number of wrong indices.
"""

from __future__ import annotations

import math
import random

from geocore.pointsets import rdp_with_margin
from tasks.answers import extract
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.parsing import parse_index_list
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_global
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task

ROBUSTNESS = 0.03
TEMPLATE = (
    "Simplify this path with the Ramer-Douglas-Peucker algorithm using epsilon = {eps:.1f} km. Points are "
    "numbered from 0 (latitude, longitude in decimal degrees):\n{points}\n"
    "The distance of a point to a segment is its great-circle cross-track distance to the segment's arc (or the "
    "distance to the nearer end when the perpendicular falls outside the arc), on a sphere of radius 6371 km. "
    "Points farther than epsilon are kept; the first and last points are always kept.\n"
    "End your reply with the line FINAL ANSWER: [indices of the kept points, ascending]."
)


def _move(lat: float, lon: float, bearing: float, km: float) -> tuple[float, float]:
    """Destination after ``km`` along a great circle (sphere R = 6371 km); negative km go backwards."""
    d = km / 6371.0
    p1, l1, th = math.radians(lat), math.radians(lon), math.radians(bearing)
    p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(th))
    l2 = l1 + math.atan2(math.sin(th) * math.sin(d) * math.cos(p1), math.cos(d) - math.sin(p1) * math.sin(p2))
    return math.degrees(p2), (math.degrees(l2) + 540.0) % 360.0 - 180.0


def make_path(rng: random.Random, start_lat: float, start_lon: float) -> list[tuple[float, float]]:
    """8-15 points along a random bearing with random sideways offsets (km), rounded as printed."""
    n = rng.randint(8, 15)
    length = rng.uniform(20.0, 120.0)
    bearing = rng.uniform(0.0, 360.0)
    spread = rng.uniform(0.4, 2.5)
    pts = []
    along = [0.0] + sorted(rng.uniform(0.0, length) for _ in range(n - 2)) + [length]
    for k in range(n):
        offset = 0.0 if k in (0, n - 1) else rng.gauss(0.0, spread)
        base = _move(start_lat, start_lon, bearing, along[k])
        lat, lon = _move(base[0], base[1], bearing + 90.0, offset)
        pts.append(rounded(lat, lon))
    return pts


@register_task("gpsbench.route_geometry")
class RouteGeometryTask(GpsTask):
    name = "gpsbench.route_geometry"
    toolsets = ("shapes",)

    def generate(self, seed: int, size: int) -> list[Sample]:
        rng = self.rng(seed)
        out = []
        for i in range(size):
            while True:
                city = sample_global(rng, 1, 0.0)[0]
                pts = make_path(rng, city.lat, city.lon)
                eps = round(rng.uniform(0.5, 2.0), 1)
                kept, margin = rdp_with_margin(pts, eps * 1000.0)
                if margin > ROBUSTNESS and 2 < len(kept) < len(pts):
                    break
            listing = "\n".join(f"{k}: {fmt_point(*p)}" for k, p in enumerate(pts))
            out.append(self.make(
                i, size, TEMPLATE.format(eps=eps, points=listing), {"kept": kept},
                {"points": [list(p) for p in pts], "epsilon_km": eps, "start_city": city.name},
                place_meta(city, n_points=len(pts)),
            ))
        return out

    def parse(self, text: str, sample: Sample) -> Parsed:
        """The integer list of the committed answer; two different lists are hedged."""
        return extract(text, parse_index_list, prompt=sample.prompt)

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        if not parsed.ok:
            return failed(parsed, "indices")
        gold, got = set(sample.target["kept"]), set(parsed.value)
        wrong = len(gold ^ got)
        return graded(wrong == 0, float(wrong), "indices", f"answer {sorted(got)}, gold {sorted(gold)}")
