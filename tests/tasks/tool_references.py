"""Independent references for the formula tools (test helper): each tool result a tool-ceiling solver receives
is recomputed here with geopy, pyproj's Geod and Transformer, textbook formulas, an own RDP (vector geometry) and
own ray casting, never through geocore or shapely, so a ceiling test fails when a tool and the gold share a wrong
formula. Tools without an entry here are covered by their families' gold tests."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from geopy.distance import great_circle
from pyproj import Geod, Transformer

SPHERE = Geod(a=6_371_000, b=6_371_000)  # the gold's sphere, R = 6371 km
WEB_MERCATOR_R = 6_378_137.0  # EPSG:3857 sphere radius (WGS84 semi-major axis)
COMPASS_8 = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def _compass_8(deg: float) -> str:
    return COMPASS_8[int(((deg + 22.5) % 360) // 45)]


def _bearing(args: dict[str, Any], out: dict[str, Any]) -> None:
    az, _, _ = SPHERE.inv(args["lon1"], args["lat1"], args["lon2"], args["lat2"])
    deg = az % 360
    assert abs((out["bearing_deg"] - deg + 180) % 360 - 180) < 1e-6
    assert out["compass_8"] == _compass_8(deg)


def _distance(args: dict[str, Any], out: dict[str, Any]) -> None:
    km = great_circle((args["lat1"], args["lon1"]), (args["lat2"], args["lon2"]), radius=6371.0).km
    assert out["distance_km"] == pytest.approx(km, abs=1e-3)


def _interpolate(args: dict[str, Any], out: dict[str, Any]) -> None:
    az, _, dist = SPHERE.inv(args["lon1"], args["lat1"], args["lon2"], args["lat2"])
    lon, lat, _ = SPHERE.fwd(args["lon1"], args["lat1"], az, args["fraction"] * dist)
    assert out["lat"] == pytest.approx(lat, abs=1e-5) and abs((out["lon"] - lon + 180) % 360 - 180) < 1e-5


def _polygon_area(args: dict[str, Any], out: dict[str, Any]) -> None:
    v = args["vertices"]
    area, perimeter = SPHERE.polygon_area_perimeter([p[1] for p in v], [p[0] for p in v])
    assert out["area_km2"] == pytest.approx(abs(area) / 1e6, rel=1e-6)
    assert out["perimeter_km"] == pytest.approx(perimeter / 1000, rel=1e-6)


def _utm(zone: int, south: bool) -> Transformer:
    return Transformer.from_proj("+proj=longlat +datum=WGS84",
                                 f"+proj=utm +zone={zone} +datum=WGS84{' +south' if south else ''}", always_xy=True)


def _to_utm(args: dict[str, Any], out: dict[str, Any]) -> None:
    lat, lon = args["lat"], args["lon"]
    zone = args.get("zone") or math.floor((lon + 180) / 6) + 1
    assert out["zone"] == zone and out["hemisphere"] == ("N" if lat >= 0 else "S")
    e, n = _utm(zone, lat < 0).transform(lon, lat)
    assert out["easting_m"] == pytest.approx(e, abs=0.01) and out["northing_m"] == pytest.approx(n, abs=0.01)


def _from_utm(args: dict[str, Any], out: dict[str, Any]) -> None:
    lon, lat = _utm(args["zone"], args["hemisphere"] == "S").transform(args["easting_m"], args["northing_m"],
                                                                       direction="INVERSE")
    assert out["lat"] == pytest.approx(lat, abs=1e-6) and out["lon"] == pytest.approx(lon, abs=1e-6)


def _to_web_mercator(args: dict[str, Any], out: dict[str, Any]) -> None:
    x = WEB_MERCATOR_R * math.radians(args["lon"])
    y = WEB_MERCATOR_R * math.log(math.tan(math.pi / 4 + math.radians(args["lat"]) / 2))
    assert out["x_m"] == pytest.approx(x, abs=0.01) and out["y_m"] == pytest.approx(y, abs=0.01)


def _from_web_mercator(args: dict[str, Any], out: dict[str, Any]) -> None:
    lon = math.degrees(args["x_m"] / WEB_MERCATOR_R)
    lat = math.degrees(2 * math.atan(math.exp(args["y_m"] / WEB_MERCATOR_R)) - math.pi / 2)
    assert out["lat"] == pytest.approx(lat, abs=1e-6) and out["lon"] == pytest.approx(lon, abs=1e-6)


def _unit_vector(p: list[float]) -> np.ndarray:
    la, lo = np.radians(p)
    return np.array([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])


def segment_distance_m(p: list[float], a: list[float], b: list[float]) -> float:
    """Metres from p to the great-circle arc a-b (R = 6371 km), by vector geometry (cross products)."""
    vp, va, vb = _unit_vector(p), _unit_vector(a), _unit_vector(b)
    n = np.cross(va, vb)
    n /= np.linalg.norm(n)
    foot = vp - np.dot(vp, n) * n
    foot /= np.linalg.norm(foot)

    def ang(u: np.ndarray, v: np.ndarray) -> float:
        return math.atan2(float(np.linalg.norm(np.cross(u, v))), float(np.dot(u, v)))

    if abs(ang(va, foot) + ang(foot, vb) - ang(va, vb)) < 1e-12:
        return 6_371_000.0 * abs(math.asin(np.clip(np.dot(vp, n), -1, 1)))
    return 6_371_000.0 * min(ang(vp, va), ang(vp, vb))


def rdp_indices(pts: list[list[float]], eps_m: float) -> list[int]:
    """Indices Ramer-Douglas-Peucker keeps at tolerance eps_m (metres from great-circle arcs)."""
    def rec(i: int, j: int) -> list[int]:
        if j - i < 2:
            return [i, j]
        d = [segment_distance_m(pts[k], pts[i], pts[j]) for k in range(i + 1, j)]
        k = i + 1 + int(np.argmax(d))
        if max(d) > eps_m:
            return rec(i, k)[:-1] + rec(k, j)
        return [i, j]

    return rec(0, len(pts) - 1)


def _simplify(args: dict[str, Any], out: dict[str, Any]) -> None:
    assert out["kept_indices"] == rdp_indices(args["points"], args["epsilon_km"] * 1000)


def _lookup_cities(args: dict[str, Any], out: dict[str, Any]) -> None:
    """Distance and bearing from the reference to each city found, from the coordinates the tool printed
    (rounded to 1e-5 degrees, hence the tolerances; the compass only away from a sector boundary)."""
    ref = out["reference"]
    if ref is None:
        return
    for c in out["cities"]:
        if c.get("found") is False:
            continue
        km = great_circle((ref["lat"], ref["lon"]), (c["lat"], c["lon"]), radius=6371.0).km
        deg = SPHERE.inv(ref["lon"], ref["lat"], c["lon"], c["lat"])[0] % 360
        assert c["distance_km"] == pytest.approx(km, abs=0.01)
        assert abs((c["bearing_deg"] - deg + 180) % 360 - 180) < 0.02
        if abs((deg + 22.5) % 45 - 22.5) < 22.4:
            assert c["compass_8"] == _compass_8(deg)


def _bounding_box(args: dict[str, Any], out: dict[str, Any]) -> None:
    lats, lons = [p[0] for p in args["points"]], [p[1] for p in args["points"]]
    assert [out["min_lat"], out["max_lat"], out["min_lon"], out["max_lon"]] == [min(lats), max(lats), min(lons),
                                                                                 max(lons)]
    assert out["center"] == pytest.approx([(min(lats) + max(lats)) / 2, (min(lons) + max(lons)) / 2], abs=1e-6)
    assert out["centroid"] == pytest.approx([sum(lats) / len(lats), sum(lons) / len(lons)], abs=1e-6)
    km = great_circle((min(lats), min(lons)), (max(lats), max(lons)), radius=6371.0).km
    assert out["diagonal_km"] == pytest.approx(km, abs=1e-3)


def _centroid_distances(args: dict[str, Any], out: dict[str, Any]) -> None:
    """The normalised mean of the unit vectors, then geopy distances to it."""
    pts = args["points"]
    v = np.sum([[math.cos(math.radians(la)) * math.cos(math.radians(lo)),
                 math.cos(math.radians(la)) * math.sin(math.radians(lo)), math.sin(math.radians(la))]
                for la, lo in pts], axis=0)
    lat, lon = math.degrees(math.atan2(v[2], math.hypot(v[0], v[1]))), math.degrees(math.atan2(v[1], v[0]))
    assert out["centroid"] == pytest.approx([lat, lon], abs=1e-6)
    km = [great_circle((lat, lon), tuple(p), radius=6371.0).km for p in pts]
    assert out["distances_km"] == pytest.approx(km, abs=2e-3)
    assert out["farthest_index"] == km.index(max(km))


def _edge_distance_deg(lat: float, lon: float, ring: list[list[float]]) -> float:
    """Planar distance in degrees from (lat, lon) to the nearest edge of a [lat, lon] ring."""
    best = math.inf
    for (ay, ax), (by, bx) in zip(ring, ring[1:] + ring[:1], strict=True):
        dx, dy = bx - ax, by - ay
        t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((lon - ax) * dx + (lat - ay) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(lon - ax - t * dx, lat - ay - t * dy))
    return best


def _ray_cast(lat: float, lon: float, ring: list[list[float]]) -> bool:
    """Even-odd rule in the (lon, lat) plane: a ray towards +lon crosses the ring an odd number of times."""
    inside = False
    for (ay, ax), (by, bx) in zip(ring, ring[1:] + ring[:1], strict=True):
        if (ay > lat) != (by > lat) and lon < ax + (lat - ay) * (bx - ax) / (by - ay):
            inside = not inside
    return inside


def _which_region(args: dict[str, Any], out: dict[str, Any]) -> None:
    """Ray casting, for points farther than 1e-7 degrees from every edge (the boundary convention is the tool's)."""
    lat, lon, rings = args["lat"], args["lon"], [[list(p) for p in r] for r in args["regions"]]
    if min(_edge_distance_deg(lat, lon, r) for r in rings) > 1e-7:
        assert out["regions"] == [i + 1 for i, r in enumerate(rings) if _ray_cast(lat, lon, r)]
        assert out["on_boundary_of"] == []


def dms_text_to_decimal(text: str) -> tuple[float, float]:
    """(lat, lon) from two angles written D°M'S.SS"H, by plain arithmetic."""
    vals = []
    for d, m, sec, h in re.findall(r"(\d+)°(\d+)'([\d.]+)\"([NSEW])", text):
        assert int(m) < 60 and float(sec) < 60, text  # carried into minutes and degrees
        v = int(d) + int(m) / 60 + float(sec) / 3600
        vals.append(-v if h in "SW" else v)
    assert len(vals) == 2, text
    return vals[0], vals[1]


def _to_dms(args: dict[str, Any], out: dict[str, Any]) -> None:
    """The DMS text reads back as the input to within the rounding of seconds to 0.01″."""
    lat, lon = dms_text_to_decimal(out["dms"])
    assert abs(lat - args["lat"]) * 3600 <= 0.005 + 1e-9 and abs(lon - args["lon"]) * 3600 <= 0.005 + 1e-9


def _from_dms(args: dict[str, Any], out: dict[str, Any]) -> None:
    lat, lon = dms_text_to_decimal(args["text"])
    assert out["lat"] == pytest.approx(lat, abs=1e-6) and out["lon"] == pytest.approx(lon, abs=1e-6)


REFERENCES: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    "distance_km": _distance,
    "initial_bearing": _bearing,
    "interpolate_great_circle": _interpolate,
    "polygon_area_perimeter": _polygon_area,
    "latlon_to_utm": _to_utm,
    "utm_to_latlon": _from_utm,
    "latlon_to_web_mercator": _to_web_mercator,
    "web_mercator_to_latlon": _from_web_mercator,
    "simplify_path_rdp": _simplify,
    "lookup_cities": _lookup_cities,
    "bounding_box": _bounding_box,
    "centroid_distances": _centroid_distances,
    "which_region": _which_region,
    "decimal_to_dms": _to_dms,
    "dms_to_decimal": _from_dms,
}


def check_tool_result(name: str, args: dict[str, Any], out: dict[str, Any]) -> bool:
    """Assert a tool's result against its independent reference; False when the tool has none here."""
    reference = REFERENCES.get(name)
    if reference is None:
        return False
    reference(args, out)
    return True
