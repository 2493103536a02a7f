"""GPSBench Applied: route analysis, is a city on the way between two others, by name only (App. B.2).

Start, end and query cities are unambiguously named and at least 200 km apart. The query is "on route" when
the detour through it, (d(A,C) + d(C,B) - d(A,B)) / d(A,B) on a sphere of R = 6371 km, is below 10 % (the
paper's rule in B.2). Uniform draws make "No" the answer to most items, so here labels alternate: for a "Yes"
item the query is drawn among cities with a detour below 9 %, for a "No" item among globally balanced cities
with a detour above 11 % (the 1-point band around the threshold is left out in both).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TypedDict

import numpy as np

from geocore.gazetteer import City
from geocore.geodesy import haversine_km
from geocore.sphere import EARTH_RADIUS_KM, central_angle_np, unit_vector
from tasks.answers import extract, yes_no
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.sampling import (
    city_columns,
    city_vectors,
    is_unambiguous,
    sample_global_where,
)
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task

THRESHOLD = 0.10
BAND = 0.01
MIN_SEPARATION_KM = 200.0
PREFILTER_MARGIN_KM = 1.0
TEMPLATE = (
    "A trip goes from {a} to {b} along the shortest (great-circle) route. Is {c} on the way, meaning that going "
    "through {c} makes the trip less than 10 % longer than the direct route?\n"
    "End your reply with the line FINAL ANSWER: Yes or No."
)


def detour(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
    """(d(a,c) + d(c,b) - d(a,b)) / d(a,b) on the sphere R = 6371 km."""
    direct = haversine_km(*a, *b)
    return (haversine_km(*a, *c) + haversine_km(*c, *b) - direct) / direct


def on_route_candidates(vec: np.ndarray, a: City, b: City, direct: float) -> np.ndarray:
    """Indices of pool cities (:func:`city_vectors` order) at least 200 km from a and b whose detour is below
    9 %."""
    reach = (1.0 + THRESHOLD - BAND) * direct - MIN_SEPARATION_KM  # farthest either leg can be
    cos_reach = math.cos(min(math.pi, reach / EARTH_RADIUS_KM))
    dot_a, dot_b = vec @ unit_vector(a.lat, a.lon), vec @ unit_vector(b.lat, b.lon)
    near = np.flatnonzero((dot_a >= cos_reach) & (dot_b >= cos_reach))
    # Angles from the dot products (two arccos instead of two haversines) keep a superset of the answer: they
    # are within metres of the haversine distances, far inside the margin. The exact test follows on the rest.
    ra = EARTH_RADIUS_KM * np.arccos(np.clip(dot_a[near], -1.0, 1.0))
    rb = EARTH_RADIUS_KM * np.arccos(np.clip(dot_b[near], -1.0, 1.0))
    near = near[(ra + rb < (1.0 + THRESHOLD - BAND) * direct + 2 * PREFILTER_MARGIN_KM)
                & (ra > MIN_SEPARATION_KM - PREFILTER_MARGIN_KM) & (rb > MIN_SEPARATION_KM - PREFILTER_MARGIN_KM)]
    lats, lons = (column[near] for column in city_columns())
    da = EARTH_RADIUS_KM * central_angle_np(a.lat, a.lon, lats, lons)
    db = EARTH_RADIUS_KM * central_angle_np(b.lat, b.lon, lats, lons)
    ok = ((da + db - direct) / direct < THRESHOLD - BAND) & (da >= MIN_SEPARATION_KM) & (db >= MIN_SEPARATION_KM)
    return near[ok]


class RouteTarget(TypedDict):
    on_route: bool
    answer: str
    detour_pct: float


@register_task("gpsbench.route_analysis")
class RouteAnalysisTask(GpsTask[RouteTarget, bool]):
    track = "applied"
    toolsets = ("gazetteer",)
    answer_kind = "option"
    answer_options = "choices"

    def draw(self, seed: int, size: int) -> Iterator[Sample[RouteTarget]]:
        rng = self.rng(seed)
        pool, vec = city_vectors()
        for i in range(size):
            want_on = i % 2 == 0
            while True:
                a, b = sample_global_where(rng, 2, MIN_SEPARATION_KM, is_unambiguous)
                if want_on:
                    direct = haversine_km(a.lat, a.lon, b.lat, b.lon)
                    idx = on_route_candidates(vec, a, b, direct)
                    c = None
                    for _ in range(min(30, idx.size)):
                        cand = pool[int(idx[rng.randrange(idx.size)])]
                        if is_unambiguous(cand) and cand.name not in (a.name, b.name):
                            c = cand
                            break
                    if c is None:
                        continue
                else:
                    c = sample_global_where(rng, 1, 0.0, is_unambiguous)[0]
                    if min(haversine_km(c.lat, c.lon, a.lat, a.lon), haversine_km(c.lat, c.lon, b.lat, b.lon)) < \
                            MIN_SEPARATION_KM or c.name in (a.name, b.name):
                        continue
                d = detour((a.lat, a.lon), (b.lat, b.lon), (c.lat, c.lon))
                if (d < THRESHOLD - BAND) if want_on else (d > THRESHOLD + BAND):
                    break
            yield self.make(
                i, size, TEMPLATE.format(a=a.name, b=b.name, c=c.name),
                {"on_route": d < THRESHOLD, "answer": "Yes" if d < THRESHOLD else "No", "detour_pct": round(d * 100, 3)},
                {"cities": [a.name, b.name, c.name], "geonameids": [a.geonameid, b.geonameid, c.geonameid],
                 "points": [[a.lat, a.lon], [b.lat, b.lon], [c.lat, c.lon]]},
                place_meta(a, label="yes" if d < THRESHOLD else "no"), choices=["Yes", "No"],
            )

    def example_replies(self, sample: Sample[RouteTarget]) -> Replies:
        return examples.yes_no(sample)

    def parse(self, text: str, sample: Sample[RouteTarget]) -> Parsed[bool]:
        """A whole-word Yes or No in the committed answer; both are hedged, the template echoed is unparsed."""
        return extract(text, yes_no, prompt=sample.prompt)

    def score(self, parsed: Parsed[bool], sample: Sample[RouteTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed)
        gold = sample.target["on_route"]
        return graded(parsed.answer == gold, None, None, f"answer {'Yes' if parsed.answer else 'No'}, gold "
                                                        f"{sample.target['answer']} (detour {sample.target['detour_pct']:.1f} %)")
