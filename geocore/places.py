"""City searches over the gazetteer that :mod:`geocore.gazetteer` does not offer: nearest cities above a
population, cities within a radius. Distances are haversine km on a sphere of R = 6371 km."""

from __future__ import annotations

from functools import cache

import numpy as np

from geocore import _validate as check
from geocore.gazetteer import City, cities, country_at
from geocore.geodesy import EARTH_RADIUS_KM


@cache
def _arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    all_cities = cities()
    lat = np.radians(np.fromiter((c.lat for c in all_cities), dtype=float, count=len(all_cities)))
    lon = np.radians(np.fromiter((c.lon for c in all_cities), dtype=float, count=len(all_cities)))
    pop = np.fromiter((c.population for c in all_cities), dtype=np.int64, count=len(all_cities))
    return lat, lon, pop


def _distances(lat: float, lon: float) -> np.ndarray:
    lats, lons, _ = _arrays()
    la, lo = np.radians(check.lat(lat, "lat")), np.radians(check.lon(lon, "lon"))
    h = np.sin((lats - la) / 2.0) ** 2 + np.cos(la) * np.cos(lats) * np.sin((lons - lo) / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))


def _min_pop(min_population: int) -> int:
    if isinstance(min_population, bool) or not isinstance(min_population, (int, np.integer)) or min_population < 0:
        raise ValueError(f"min_population must be an integer >= 0, got {min_population!r}")
    return int(min_population)


def nearest_cities_min_population(lat: float, lon: float, k: int = 5, min_population: int = 0) -> list[tuple[City, float]]:
    """The ``k`` cities with population >= ``min_population`` nearest to (lat, lon), as (city, km), nearest first
    (ties by gazetteer order)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    dist = _distances(lat, lon)
    idx = np.flatnonzero(_arrays()[2] >= _min_pop(min_population))
    if idx.size == 0:
        return []
    order = idx[np.lexsort((idx, dist[idx]))][: int(k)]
    all_cities = cities()
    return [(all_cities[i], float(dist[i])) for i in order]


def cities_within_km(lat: float, lon: float, radius_km: float, min_population: int = 0) -> list[tuple[City, float]]:
    """All cities with population >= ``min_population`` within ``radius_km`` of (lat, lon), nearest first."""
    r = check.non_negative(radius_km, "radius_km")
    dist = _distances(lat, lon)
    idx = np.flatnonzero((dist <= r) & (_arrays()[2] >= _min_pop(min_population)))
    order = idx[np.lexsort((idx, dist[idx]))]
    all_cities = cities()
    return [(all_cities[i], float(dist[i])) for i in order]


def country_at_or_near(lat: float, lon: float, max_km: float = 10.0) -> tuple[str, str, str] | None:
    """(ISO code, country name, source) of the country at a point: ``"borders"`` when Natural Earth's borders
    contain it, else ``"nearest_city"`` from the nearest gazetteer city within ``max_km`` (the simplified
    coastlines miss many shore points), else None (open sea, or nothing near)."""
    found = country_at(lat, lon)
    if found is not None:
        return found[0], found[1], "borders"
    near = nearest_cities_min_population(lat, lon, 1)
    if near and near[0][1] <= check.non_negative(max_km, "max_km"):
        c = near[0][0]
        return c.country_code, c.country, "nearest_city"
    return None
