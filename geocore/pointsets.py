"""Point sets on GPSBench's sphere (R = 6371 km): true polygon area, bounding-box summary, centroid distances.

Points are (lat, lon) degrees. These complement :mod:`geocore.polygons`: its ``spherical_polygon_area_km2``
is GPSBench's unsigned L'Huilier fan (exact only for polygons star-shaped from vertex 0), while
:func:`polygon_area_km2` signs each fan triangle by its orientation, which gives the true area of any simple
polygon smaller than a hemisphere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from geocore import _validate as check
from geocore.geodesy import EARTH_RADIUS_KM, _central_angle, _latlon, _vec
from geocore.polygons import spherical_perimeter_km

LatLon = tuple[float, float]


def _ring(vertices: Sequence[Sequence[float]]) -> list[LatLon]:
    pts = check.points(vertices, "vertices")
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    if len(pts) < 3:
        raise ValueError(f"vertices needs at least 3 distinct vertices, got {len(pts)}")
    return pts


def _excess(a: float, b: float, c: float) -> float:
    """L'Huilier's spherical excess (steradians) of a triangle with angular sides a, b, c."""
    s = (a + b + c) / 2.0
    t = math.tan(s / 2) * math.tan((s - a) / 2) * math.tan((s - b) / 2) * math.tan((s - c) / 2)
    return 4.0 * math.atan(math.sqrt(max(t, 0.0)))


def _triple(p: tuple[float, float, float], q: tuple[float, float, float], r: tuple[float, float, float]) -> float:
    return (p[0] * (q[1] * r[2] - q[2] * r[1]) - p[1] * (q[0] * r[2] - q[2] * r[0])
            + p[2] * (q[0] * r[1] - q[1] * r[0]))


def polygon_area_km2(vertices: Sequence[Sequence[float]], radius_km: float = EARTH_RADIUS_KM) -> float:
    """Area in km² of the simple polygon with great-circle edges through ``vertices`` in the given order.

    Fan triangulation from vertex 0 with L'Huilier's excess per triangle (GPSBench App. C.4), each excess
    signed by the triangle's orientation, so concave polygons come out right. Either orientation works.
    """
    pts = _ring(vertices)
    r = check.positive(radius_km, "radius_km")
    v = [_vec(lat, lon) for lat, lon in pts]
    total = 0.0
    for i in range(1, len(pts) - 1):
        a = _central_angle(*pts[0], *pts[i])
        b = _central_angle(*pts[i], *pts[i + 1])
        c = _central_angle(*pts[i + 1], *pts[0])
        e = _excess(a, b, c)
        total += e if _triple(v[0], v[i], v[i + 1]) >= 0 else -e
    return r * r * abs(total)


def polygon_area_perimeter_km(vertices: Sequence[Sequence[float]]) -> tuple[float, float]:
    """(area km², perimeter km) of a simple polygon on the sphere R = 6371 km."""
    return polygon_area_km2(vertices), spherical_perimeter_km(vertices)


@dataclass(frozen=True)
class BoxSummary:
    """GPSBench's bounding box of a point set: plain min/max (no antimeridian wrap), centre, centroid, diagonal."""

    min_lat: float
    max_lat: float
    min_lon: float
    max_lon: float
    center: LatLon
    centroid: LatLon
    diagonal_km: float


def box_summary(points: Sequence[Sequence[float]]) -> BoxSummary:
    """Bounds, centre (midpoint of the bounds), centroid (arithmetic mean) and the haversine length of the
    diagonal from (min_lat, min_lon) to (max_lat, max_lon) (GPSBench App. B.1)."""
    pts = check.points(points)
    lats, lons = [p[0] for p in pts], [p[1] for p in pts]
    lo_lat, hi_lat, lo_lon, hi_lon = min(lats), max(lats), min(lons), max(lons)
    centroid = (sum(lats) / len(pts), sum(lons) / len(pts))
    diagonal = EARTH_RADIUS_KM * _central_angle(lo_lat, lo_lon, hi_lat, hi_lon)
    return BoxSummary(lo_lat, hi_lat, lo_lon, hi_lon, ((lo_lat + hi_lat) / 2, (lo_lon + hi_lon) / 2), centroid,
                      diagonal)


def point_set_centroid(points: Sequence[Sequence[float]], method: Literal["spherical", "arithmetic"]) -> LatLon:
    """Centroid of points: ``spherical`` = normalised mean of unit vectors (antimeridian-safe), ``arithmetic`` =
    mean latitude and mean longitude."""
    pts = check.points(points)
    if method == "arithmetic":
        return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
    if method != "spherical":
        raise ValueError(f"method must be 'spherical' or 'arithmetic', got {method!r}")
    vs = [_vec(lat, lon) for lat, lon in pts]
    s = (sum(v[0] for v in vs), sum(v[1] for v in vs), sum(v[2] for v in vs))
    if math.sqrt(s[0] ** 2 + s[1] ** 2 + s[2] ** 2) < 1e-12 * len(pts):
        raise ValueError("points have no spherical centroid: their unit vectors sum to zero")
    return _latlon(s)


def centroid_distances_km(
    points: Sequence[Sequence[float]], method: Literal["spherical", "arithmetic"] = "spherical"
) -> tuple[LatLon, list[float]]:
    """(centroid, haversine km from the centroid to each point in order)."""
    pts = check.points(points)
    c = point_set_centroid(pts, method)
    return c, [EARTH_RADIUS_KM * _central_angle(c[0], c[1], lat, lon) for lat, lon in pts]


def _cross(a: tuple[float, float, float], b: tuple[float, float, float]) -> tuple[float, float, float]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _norm(a: tuple[float, float, float]) -> float:
    return math.sqrt(_dot(a, a))


def _arc_distances(vs: Sequence[tuple[float, float, float]], a: tuple[float, float, float],
                   b: tuple[float, float, float]) -> list[float]:
    """Angular distance of each vector to the minor arc a-b (to the nearer end when the foot is off the arc)."""
    n = _cross(a, b)
    size = _norm(n)
    out = []
    if size >= 1e-15:
        n = (n[0] / size, n[1] / size, n[2] / size)
        t = _cross(n, a)
        arc = math.atan2(size, _dot(a, b))
    for p in vs:
        if size >= 1e-15:
            h = _dot(p, n)
            along = math.atan2(_dot(p, t), _dot(p, a))
            if 0.0 <= along <= arc:
                out.append(abs(math.atan2(h, _norm((p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2])))))
                continue
        out.append(min(math.atan2(_norm(_cross(p, a)), _dot(p, a)), math.atan2(_norm(_cross(p, b)), _dot(p, b))))
    return out


def rdp_with_margin(points: Sequence[Sequence[float]], epsilon_m: float) -> tuple[list[int], float]:
    """Ramer-Douglas-Peucker with the same distance and tie rules as :func:`geocore.polygons.rdp`, in plain
    Python (fast for short paths), plus the decision margin: the smallest |d_max - epsilon| / epsilon over every
    comparison made. Any epsilon' with |epsilon' - epsilon| < margin * epsilon gives the same indices."""
    pts = check.points(points)
    eps_m = check.positive(epsilon_m, "epsilon_m")
    eps = eps_m / (EARTH_RADIUS_KM * 1000.0)
    if len(pts) <= 2:
        return list(range(len(pts))), math.inf
    v = [_vec(lat, lon) for lat, lon in pts]
    keep = {0, len(pts) - 1}
    margin = math.inf
    stack = [(0, len(pts) - 1)]
    while stack:
        i, j = stack.pop()
        if j - i < 2:
            continue
        dists = _arc_distances(v[i + 1 : j], v[i], v[j])
        best_d = max(dists)
        best_k = i + 1 + dists.index(best_d)
        margin = min(margin, abs(best_d - eps) / eps)
        if best_d > eps:
            keep.add(best_k)
            stack += [(i, best_k), (best_k, j)]
    return sorted(keep), margin
