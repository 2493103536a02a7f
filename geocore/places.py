"""City searches over the gazetteer beyond :func:`geocore.gazetteer.nearest_cities`: cities within a radius, the
country at or near a point. Distances are haversine km on a sphere of R = 6371 km."""

from __future__ import annotations

import numpy as np

from geocore import validation as check
from geocore.gazetteer import City, cities, city_distances_km, country_at, nearest_cities


def cities_within_km(lat: float, lon: float, radius_km: float, min_population: int = 0) -> list[tuple[City, float]]:
    """All cities with population >= ``min_population`` within ``radius_km`` of (lat, lon), nearest first."""
    r = check.non_negative(radius_km, "radius_km")
    dist = city_distances_km(lat, lon)
    min_pop = check.integer(min_population, "min_population", 0)
    idx = np.flatnonzero(dist <= r)
    all_cities = cities()
    return [(all_cities[i], float(dist[i])) for i in idx[np.lexsort((idx, dist[idx]))]
            if all_cities[i].population >= min_pop]


def country_at_or_near(lat: float, lon: float, max_km: float = 10.0) -> tuple[str, str, str] | None:
    """(ISO code, country name, source) of the country at a point: ``"borders"`` when Natural Earth's borders
    contain it, else ``"nearest_city"`` from the nearest gazetteer city within ``max_km`` (the simplified
    coastlines miss many shore points), else None (open sea, or nothing near)."""
    found = country_at(lat, lon)
    if found is not None:
        return found[0], found[1], "borders"
    near = nearest_cities(lat, lon, 1)
    if near and near[0][1] <= check.non_negative(max_km, "max_km"):
        c = near[0][0]
        return c.country_code, c.country, "nearest_city"
    return None
