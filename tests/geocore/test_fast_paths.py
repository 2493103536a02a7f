"""The fast paths that sample generation leans on give what the plain computation gives, to the bit."""

from __future__ import annotations

import random

import numpy as np
import pytest

from geocore import gazetteer as gz
from geocore.regions import LocalFrame, region_polygon


def _full_scan(lat: float, lon: float, k: int, min_population: int) -> list[tuple[gz.City, float]]:
    """Every city's distance, sorted by (km, gazetteer position): what nearest_cities must return."""
    dist = gz.city_distances_km(lat, lon)
    pops = np.array([c.population for c in gz.cities()])
    idx = np.flatnonzero(pops >= min_population)
    order = idx[np.lexsort((idx, dist[idx]))][:k]
    return [(gz.cities()[i], float(dist[i])) for i in order]


def test_nearest_cities_equals_a_full_scan() -> None:
    rng = random.Random(11)
    towns = gz.cities()
    for n in range(300):
        if n % 2:
            town = towns[rng.randrange(len(towns))]
            lat, lon = town.lat, town.lon  # a city itself: distance 0 first
        else:
            lat, lon = rng.uniform(-90, 90), rng.uniform(-180, 180)  # open ocean and poles too
        k = rng.choice([1, 2, 5, 60, 700])
        floor = rng.choice([0, 0, 200_000, 5_000_000])
        assert gz.nearest_cities(lat, lon, k, floor) == _full_scan(lat, lon, k, floor), (lat, lon, k, floor)


def test_nearest_cities_when_few_cities_qualify() -> None:
    got = gz.nearest_cities(0.0, 0.0, 50, min_population=15_000_000)
    assert 0 < len(got) < 50  # every city of that size, nearest first
    assert [km for _, km in got] == sorted(km for _, km in got)
    assert gz.nearest_cities(0.0, 0.0, 5, min_population=10**10) == []


def test_frame_arrays_match_the_scalar_projection_to_the_bit() -> None:
    rng = random.Random(5)
    for _ in range(200):
        frame = LocalFrame(rng.uniform(-80, 80), rng.uniform(-179, 179))
        pts = [(frame.lat0 + rng.uniform(-0.05, 0.05), frame.lon0 + rng.uniform(-0.05, 0.05)) for _ in range(9)]
        assert frame.xy_array(pts).tolist() == [list(frame.to_xy(*p)) for p in pts]
        xy = [(rng.uniform(-4000, 4000), rng.uniform(-4000, 4000)) for _ in range(9)]
        assert frame.latlon_array(xy).tolist() == [list(frame.to_latlon(*p)) for p in xy]


def test_frame_arrays_refuse_what_the_scalar_forms_refuse() -> None:
    frame = LocalFrame(10.0, 20.0)
    with pytest.raises(ValueError, match="within"):
        frame.xy_array([(10.0, 20.0), (91.0, 20.0)])
    with pytest.raises(ValueError, match="finite"):
        frame.latlon_array([(0.0, float("nan"))])
    with pytest.raises(ValueError, match="off the globe"):
        frame.latlon_array([(0.0, 1e8)])


def test_region_polygon_reuses_a_ring_and_still_names_a_bad_one() -> None:
    ring = [[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]
    first = region_polygon(ring)
    assert region_polygon([list(p) for p in ring]) is first
    assert first.area.area == pytest.approx(1.0) and not first.repaired
    for _ in range(2):  # a failure is not kept: the second call names the argument again
        with pytest.raises(ValueError, match=r"regions\[3\]"):
            region_polygon([[0.0, 0.0], [95.0, 1.0], [1.0, 1.0]], "regions[3]")
