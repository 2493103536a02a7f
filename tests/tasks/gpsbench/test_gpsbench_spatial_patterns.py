"""GPSBench spatial patterns: 4 + 1 continents, the paper's clarity checks under both centroids."""

from __future__ import annotations

import math
import statistics

import numpy as np
from geopy.distance import great_circle
from gps_oracles import continent_of, latlon, raw_cities

from tasks import get_task

TASK = get_task("gpsbench.spatial_patterns")
ALL = TASK.generate(42, 60)


def spherical_centroid(pts: list[tuple[float, float]]) -> tuple[float, float]:
    v = sum(np.array([math.cos(math.radians(a)) * math.cos(math.radians(o)),
                      math.cos(math.radians(a)) * math.sin(math.radians(o)), math.sin(math.radians(a))]) for a, o in pts)
    return math.degrees(math.atan2(v[2], math.hypot(v[0], v[1]))), math.degrees(math.atan2(v[1], v[0]))


def test_gold_on_every_sample() -> None:
    for s in ALL:
        ids = s.payload["geonameids"]
        pts = [latlon(g) for g in ids]
        conts = [continent_of()[raw_cities()[g]["countrycode"]] for g in ids]
        outlier = s.target["index"]
        assert sorted(conts.count(c) for c in set(conts)) == [1, 4] and conts.count(conts[outlier]) == 1
        for centre in (spherical_centroid(pts), (sum(p[0] for p in pts) / 5, sum(p[1] for p in pts) / 5)):
            d = [great_circle(centre, p, radius=6371).km for p in pts]
            ranked = sorted(d, reverse=True)
            assert [k for k, x in enumerate(d) if x > 2 * statistics.median(d)] == [outlier]
            assert ranked[0] > 1.3 * ranked[1]
        assert all(name in s.prompt for name in s.choices or ())
