"""The ``gazetteer`` tool set: GeoNames cities by name (one with all namesakes, or several at once with distance
and bearing from a reference city) or near a point, what lies at a point (country, continent, land or sea,
distance to the sea) and which well-known natural region contains it."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import gazetteer as gz
from geocore import geodesy, places, terrain
from tools._common import Lat, Lon, make_tool, result
from tools.registry import toolset


class CityQuery(BaseModel):
    name: str = Field(min_length=1, max_length=120, description="City name, any common spelling, e.g. 'Munich'")
    country: str | None = Field(default=None, max_length=80, description=(
        "Optional country name or ISO code to restrict the search, e.g. 'Germany' or 'DE'"))


class CitiesQuery(BaseModel):
    names: list[str] = Field(min_length=1, max_length=10, description="City names, e.g. ['Lyon', 'Porto']")
    reference: str | None = Field(default=None, max_length=120, description=(
        "Optional city name: each result then also gives the great-circle distance and initial bearing from it"))


class NearQuery(BaseModel):
    lat: Lat
    lon: Lon
    k: int = Field(default=5, ge=1, le=20, description="How many cities to return, 1-20")
    min_population: int = Field(default=0, ge=0, description="Only cities with at least this many inhabitants")


class PointQuery(BaseModel):
    lat: Lat
    lon: Lon


def _city(c: gz.City, distance_km: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": c.name, "country": c.country, "country_code": c.country_code,
        "admin1": gz.admin1_name(c.country_code, c.admin1_code) if c.country_code else None,
        "continent": gz.CONTINENTS.get(c.continent, c.continent), "continent_code": c.continent,
        "lat": round(c.lat, 5), "lon": round(c.lon, 5), "population": c.population,
    }
    if distance_km is not None:
        out["distance_km"] = round(distance_km, 3)
    return out


def lookup_city(name: str, country: str | None = None) -> str:
    """Find cities (GeoNames, population >= 15,000) by name; spelling variants and accents are matched.
    Returns JSON {"count", "matches": [{"name", "country", "country_code", "admin1" (state/province name, or
    null where unknown), "continent", "continent_code", "lat", "lon", "population"}]}: at most 10 matches,
    most populous first."""
    found = gz.find_city(name, country)
    return result(count=len(found), matches=[_city(c) for c in found[:10]])


def lookup_cities(names: list[str], reference: str | None = None) -> str:
    """Look up several cities at once (each name's most populous GeoNames match). With a reference city, each
    match also gets its great-circle distance_km, bearing_deg and 8-point compass direction from the reference.
    Returns JSON {"reference": {...} or null, "cities": [{"query", "name", "country", "admin1", "continent",
    "lat", "lon", "population", ...} or {"query", "found": false}]}."""
    ref = None
    if reference is not None:
        found = gz.find_city(reference)
        if not found:
            raise ValueError(f"reference city {reference!r} not found")
        ref = found[0]
    rows: list[dict[str, Any]] = []
    for name in names:
        found = gz.find_city(name)
        if not found:
            rows.append({"query": name, "found": False})
            continue
        row = {"query": name, **_city(found[0])}
        if ref is not None:
            deg = geodesy.initial_bearing(ref.lat, ref.lon, found[0].lat, found[0].lon)
            row.update(distance_km=round(geodesy.haversine_km(ref.lat, ref.lon, found[0].lat, found[0].lon), 3),
                       bearing_deg=round(deg, 3), compass_8=geodesy.compass_point(deg, 8))
        rows.append(row)
    return result(reference=_city(ref) if ref is not None else None, cities=rows)


def nearest_cities(lat: float, lon: float, k: int = 5, min_population: int = 0) -> str:
    """The k GeoNames cities nearest to a point, optionally only those with at least min_population people.
    Returns JSON {"cities": [{"name", "country", "country_code", "admin1", "continent", "continent_code",
    "lat", "lon", "population", "distance_km"}]}, nearest first (great-circle km, R = 6371 km)."""
    found = gz.nearest_cities(lat, lon, k, min_population)
    return result(cities=[_city(c, d) for c, d in found])


def _continent(cc: str | None) -> str | None:
    if cc is None:
        return None
    try:
        return gz.continent_of_country(cc)
    except ValueError:
        return None


def point_info(lat: float, lon: float) -> str:
    """What lies at a point: country and continent (null at open sea), whether it is land (lakes count as
    land) and the distance in km to the nearest sea (0 at sea, null beyond 25 km). Returns JSON {"country",
    "country_code", "country_source", "continent", "continent_code", "is_land", "distance_to_sea_km",
    "within_5_km_of_sea"}: the country from simplified borders or, on a shore they miss, from the nearest city
    within 10 km ("country_source" says which); land from the 1 km land mask; the sea searched up to 25 km in
    0.5 km steps."""
    found = places.country_at_or_near(lat, lon)
    cc = found[0] if found else None
    cont = _continent(cc)
    sea = terrain.distance_to_sea_km(lat, lon, 25.0)
    return result(country=found[1] if found else None, country_code=cc, country_source=found[2] if found else None,
                  continent=gz.CONTINENTS.get(cont, cont) if cont else None, continent_code=cont,
                  is_land=sea != 0.0, distance_to_sea_km=sea, within_5_km_of_sea=sea is not None and sea <= 5.0)


def natural_region_at(lat: float, lon: float) -> str:
    """Which well-known natural regions (high mountain ranges, deserts, large forests, major farming regions;
    coarse boxes around each core) contain a point.
    Returns JSON {"regions": [{"name", "kind"}]} with kind one of mountain, desert, forest, agricultural;
    the list is empty when the point lies in none of them."""
    return result(regions=[{"name": r.name, "kind": r.kind} for r in terrain.natural_regions_at(lat, lon)])


@toolset("gazetteer", "City lookup by name (with distances/bearings between cities), nearest cities, "
                      "country/continent/sea at a point, natural regions")
def gazetteer_tools() -> list[BaseTool]:
    """City lookup by name (with distances/bearings between cities), nearest cities, country/continent/sea at a
    point, natural regions."""
    return [
        make_tool(lookup_city, CityQuery),
        make_tool(lookup_cities, CitiesQuery),
        make_tool(nearest_cities, NearQuery),
        make_tool(point_info, PointQuery),
        make_tool(natural_region_at, PointQuery),
    ]
