"""geocore.terrain: distance to the sea on the land mask, the natural-region atlas; geocore.places searches."""

from __future__ import annotations

import pytest
from geopy.distance import great_circle

from geocore.gazetteer import cities, nearest_cities
from geocore.terrain import NATURAL_REGIONS, REGION_KINDS, distance_to_sea_km, natural_regions_at


def test_distance_to_sea() -> None:
    assert distance_to_sea_km(0.0, -30.0) == 0.0  # mid-Atlantic
    assert distance_to_sea_km(43.1244, 5.9284) <= 2.0  # Toulon harbour
    assert distance_to_sea_km(48.8534, 2.3488) is None  # Paris, > 25 km from the sea
    assert distance_to_sea_km(42.0, -87.0, 5.0) is None  # Lake Michigan is land on this mask
    with pytest.raises(ValueError, match="lat"):
        distance_to_sea_km(95.0, 0.0)
    with pytest.raises(ValueError, match="max_km"):
        distance_to_sea_km(0.0, 0.0, 500.0)


def test_atlas() -> None:
    assert {r.kind for r in NATURAL_REGIONS} == set(REGION_KINDS)
    assert all(r.source and r.boxes for r in NATURAL_REGIONS)
    for s, n, w, e in (b for r in NATURAL_REGIONS for b in r.boxes):
        assert -90 <= s < n <= 90 and -180 <= w < e <= 180
    assert [r.name for r in natural_regions_at(27.9881, 86.925)] == ["Himalaya and Karakoram"]
    assert [r.kind for r in natural_regions_at(23.5, 0.0)] == ["desert"]
    assert natural_regions_at(0.0, -30.0) == []


def test_population_filtered_nearest_and_radius_against_brute_force() -> None:
    lat, lon = 48.2, 1.7
    got = nearest_cities(lat, lon, 3, 1_000_000)
    ref = sorted((great_circle((lat, lon), (c.lat, c.lon), radius=6371).km, c.geonameid)
                 for c in cities() if c.population >= 1_000_000)[:3]
    assert [c.geonameid for c, _ in got] == [g for _, g in ref]
    assert [d for _, d in got] == pytest.approx([d for d, _ in ref], abs=1e-6)
    assert nearest_cities(0, 0, 2, 10**12) == []
    with pytest.raises(ValueError, match="min_population"):
        nearest_cities(0, 0, 2, -1)


def test_country_at_or_near_falls_back_to_the_nearest_city_on_shores() -> None:
    from geocore.places import country_at_or_near

    assert country_at_or_near(43.14, 5.93) == ("FR", "France", "borders")
    assert country_at_or_near(43.1244, 5.9284) == ("FR", "France", "nearest_city")
    assert country_at_or_near(0.0, -30.0) is None
