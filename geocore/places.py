"""City searches over the gazetteer beyond :func:`geocore.gazetteer.nearest_cities`: the country at or near a
point. Distances are haversine km on a sphere of R = 6371 km."""

from __future__ import annotations

from geocore import validation as check
from geocore.gazetteer import country_at, nearest_cities


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
