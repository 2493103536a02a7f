"""Polygons, point sets and segments given as (lat, lon) degrees.

A polygon is a sequence of (lat, lon) vertices, not closed; a closing duplicate of the first vertex is
dropped. Spherical results use GPSBench's sphere (R = 6371 km), geodesic ones WGS84, and the topological
predicates (point in polygon, relations, segments) work in the plane of (lon, lat) degrees.

Real-world rings (STBench's parcels) are often not simple: they cross themselves, repeat vertices, or collapse
once coordinates are rounded to 4 decimals. :func:`planar_region` reads any ring of 3 or more vertices under
one rule, the **even-odd rule** of ray casting: a point is inside when a ray from it crosses the ring an odd
number of times. Its area is ``shapely.make_valid(ring, method="linework")`` (the even-odd faces of the noded
ring), its boundary is every edge as given, and a ring that encloses nothing (collinear or repeated vertices)
has an empty interior: only its edges can hold a point. A simple ring keeps its usual meaning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, TypeVar

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.validation import explain_validity

from geocore import validation as check
from geocore.geodesy import WGS84
from geocore.sphere import (
    EARTH_RADIUS_KM,
    Vec,
    along_track_angle,
    central_angle,
    cross,
    cross_track_angle,
    dot,
    lhuilier_excess,
    norm,
    norm_lon,
    unit_vector,
    vector_angle,
    vector_latlon,
)

LatLon = tuple[float, float]


def _ring(vertices: Sequence[Sequence[float]], name: str = "vertices") -> list[LatLon]:
    pts = check.points(vertices, name)
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    if len(pts) < 3:
        raise ValueError(f"{name} needs at least 3 distinct vertices, got {len(pts)}")
    return pts


def _edges(pts: list[LatLon]) -> list[tuple[LatLon, LatLon]]:
    return [(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))]


# ----------------------------------------------------------------------------- area and perimeter

def spherical_polygon_area_km2(
    vertices: Sequence[Sequence[float]], radius_km: float = EARTH_RADIUS_KM, *, signed: bool = False
) -> float:
    """Area in km² by L'Huilier's theorem over the fan of triangles from vertex 0 (GPSBench App. C.4).

    Unsigned (the default, GPSBench's gold): every excess E_i from eq. 7 is added, so A = R² |Σ E_i| is the true
    area when the polygon is star-shaped from its first vertex (every convex polygon is); otherwise fan triangles
    that fall outside the polygon are added rather than subtracted and the result overestimates. ``signed=True``
    signs each E_i by its triangle's orientation, which gives the true area of any simple polygon smaller than a
    hemisphere, in either orientation.
    """
    pts = _ring(vertices)
    r = check.positive(radius_km, "radius_km")
    first = pts[0]
    v0 = unit_vector(*first)
    total = 0.0
    for p, q in zip(pts[1:-1], pts[2:], strict=True):
        e = lhuilier_excess(central_angle(*first, *p), central_angle(*p, *q), central_angle(*q, *first))
        total += -e if signed and dot(v0, cross(unit_vector(*p), unit_vector(*q))) < 0 else e
    return r * r * abs(total)


def spherical_perimeter_km(vertices: Sequence[Sequence[float]], radius_km: float = EARTH_RADIUS_KM) -> float:
    """Perimeter in km of the closed ring: sum of haversine distances between consecutive vertices."""
    pts = _ring(vertices)
    r = check.positive(radius_km, "radius_km")
    return r * sum(central_angle(*p, *q) for p, q in _edges(pts))


def geodesic_area_perimeter(vertices: Sequence[Sequence[float]]) -> tuple[float, float]:
    """(|area| km², perimeter km) of the polygon with WGS84 geodesic edges (pyproj/GeographicLib)."""
    pts = _ring(vertices)
    area_m2, perimeter_m = WGS84.polygon_area_perimeter([p[1] for p in pts], [p[0] for p in pts])
    return (abs(area_m2) / 1e6, perimeter_m / 1000.0)


def sort_by_angle(vertices: Sequence[Sequence[float]]) -> list[LatLon]:
    """Vertices sorted by atan2(lat - mean lat, lon - mean lon), i.e. counter-clockwise in the lon/lat plane.

    This is GPSBench's polygon ordering (App. A.2 step 5); ties keep input order and a closing duplicate
    is dropped. Not antimeridian-aware.
    """
    pts = check.points(vertices, "vertices")
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    c_lat, c_lon = centroid(pts)
    return sorted(pts, key=lambda p: math.atan2(p[0] - c_lat, p[1] - c_lon))


# ----------------------------------------------------------------------------- boxes and centres

@dataclass(frozen=True)
class BoundingBox:
    """Latitude/longitude box; when it crosses the antimeridian, west > east."""

    south: float
    north: float
    west: float
    east: float
    crosses_antimeridian: bool

    @property
    def width_deg(self) -> float:
        """Longitudinal extent in degrees, going east from ``west`` to ``east``."""
        return (self.east - self.west) % 360.0 if self.crosses_antimeridian else self.east - self.west

    @property
    def center(self) -> LatLon:
        """(lat, lon) of the box centre; lon in [-180, 180]."""
        return ((self.south + self.north) / 2.0, norm_lon(self.west + self.width_deg / 2.0))


def bounds(points: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    """Plain (min_lat, max_lat, min_lon, max_lon), GPSBench's bounding-box gold (not antimeridian-aware)."""
    pts = check.points(points)
    lats, lons = [p[0] for p in pts], [p[1] for p in pts]
    return (min(lats), max(lats), min(lons), max(lons))


def bounding_box(points: Sequence[Sequence[float]]) -> BoundingBox:
    """Smallest box holding the points, allowed to cross the antimeridian (the largest longitude gap is left out).

    On a tie the box that does not cross the antimeridian is chosen.
    """
    pts = check.points(points)
    lats = [p[0] for p in pts]
    lons = sorted({p[1] for p in pts})
    wrap_gap = lons[0] + 360.0 - lons[-1]
    gaps = [lons[i + 1] - lons[i] for i in range(len(lons) - 1)]
    if not gaps or wrap_gap >= max(gaps):
        return BoundingBox(min(lats), max(lats), lons[0], lons[-1], False)
    i = gaps.index(max(gaps))
    return BoundingBox(min(lats), max(lats), lons[i + 1], lons[i], True)


def centroid(points: Sequence[Sequence[float]]) -> LatLon:
    """Arithmetic mean (lat, lon) as in GPSBench (meaningless across the antimeridian)."""
    pts = check.points(points)
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def spherical_centroid(points: Sequence[Sequence[float]]) -> LatLon:
    """(lat, lon) of the normalised mean of the unit vectors; antimeridian-safe.

    ValueError when the vectors cancel out (e.g. two antipodal points).
    """
    pts = check.points(points)
    vs = [unit_vector(lat, lon) for lat, lon in pts]
    s = (sum(v[0] for v in vs), sum(v[1] for v in vs), sum(v[2] for v in vs))
    if norm(s) < 1e-12 * len(pts):
        raise ValueError("points have no spherical centroid: their unit vectors sum to zero")
    return vector_latlon(s)


# ----------------------------------------------------------------------------- route simplification

def _arc_distances(vs: Sequence[Vec], a: Vec, b: Vec) -> list[float]:
    """Angular distance of each vector to the minor arc a-b (to the nearer end when the foot is off the arc)."""
    n = cross(a, b)
    size = norm(n)
    out = []
    if size >= 1e-15:
        n = (n[0] / size, n[1] / size, n[2] / size)
        t = cross(n, a)
        arc = vector_angle(a, b)
    for p in vs:  # coincident (or antipodal) ends have no arc to project on
        on_arc = size >= 1e-15 and 0.0 <= along_track_angle(p, a, t) <= arc
        out.append(abs(cross_track_angle(p, n)) if on_arc else min(vector_angle(p, a), vector_angle(p, b)))
    return out


def rdp_with_margin(points: Sequence[Sequence[float]], epsilon_m: float) -> tuple[list[int], float]:
    """Ramer–Douglas–Peucker simplification: (sorted indices kept, decision margin).

    GPSBench (App. B) does not state its distance, so the distance of a point to a chord is the spherical
    cross-track distance (R = 6371 km) to the great-circle arc, or the distance to the nearer endpoint when
    the foot of the perpendicular falls outside the arc. A point is kept when that distance exceeds
    ``epsilon_m`` metres; on ties the first farthest point splits; the first and last points are always kept.
    The margin is the smallest |d_max - epsilon| / epsilon over every comparison made: any epsilon' with
    |epsilon' - epsilon| < margin * epsilon gives the same indices (infinite when nothing was compared or
    epsilon is 0).
    """
    pts = check.points(points)
    eps = check.non_negative(epsilon_m, "epsilon_m") / (EARTH_RADIUS_KM * 1000.0)
    if len(pts) <= 2:
        return list(range(len(pts))), math.inf
    v = [unit_vector(lat, lon) for lat, lon in pts]
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
        if eps > 0:
            margin = min(margin, abs(best_d - eps) / eps)
        if best_d > eps:
            keep.add(best_k)
            stack += [(i, best_k), (best_k, j)]
    return sorted(keep), margin


def rdp(points: Sequence[Sequence[float]], epsilon_m: float) -> list[int]:
    """The indices :func:`rdp_with_margin` keeps."""
    return rdp_with_margin(points, epsilon_m)[0]


# ----------------------------------------------------------------------------- planar topology

@dataclass(frozen=True)
class PlanarRegion:
    """A ring read under the even-odd rule in the (lon, lat) plane: ``area`` (polygonal, maybe empty) and
    ``edges`` (the ring as given, closed). ``repaired`` says the ring was not a simple polygon."""

    area: BaseGeometry
    edges: BaseGeometry
    repaired: bool

    def covers(self, pt: Point) -> bool:
        """The point is inside or on an edge."""
        return bool(self.area.covers(pt) or self.edges.intersects(pt))

    def holds_inside(self, pt: Point) -> bool:
        """The point is strictly inside: in the area and on no edge."""
        return bool(self.area.contains(pt) and not self.edges.intersects(pt))


def _polygonal(geom: BaseGeometry) -> BaseGeometry:
    parts = [g for g in getattr(geom, "geoms", [geom]) if g.geom_type in ("Polygon", "MultiPolygon") and g.area > 0]
    return shapely.union_all(parts) if parts else Polygon()


def planar_region(vertices: Sequence[Sequence[float]], name: str = "polygon") -> PlanarRegion:
    """The region of a ring of >= 3 (lat, lon) vertices under the even-odd rule (see the module docstring).

    Never fails on self-intersections, repeated vertices or zero area; ValueError only for bad coordinates or
    fewer than 3 vertices.
    """
    pts = check.points(vertices, name)
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    if len(pts) < 3:
        raise ValueError(f"{name} needs at least 3 vertices, got {len(pts)}")
    xy = [(p[1], p[0]) for p in pts]
    distinct = [q for i, q in enumerate(xy) if q != xy[i - 1]] or xy[:1]
    if len(distinct) == 1:
        return PlanarRegion(Polygon(), Point(distinct[0]), True)
    # Consecutive repeats are gone (cyclically), so the ring closes with a new vertex: the coordinates
    # LineString(...) and Polygon(distinct) would take, passed to shapely's array constructors directly.
    ring = np.array(distinct + distinct[:1])
    edges = shapely.linestrings(ring)
    if len(set(distinct)) < 3:
        return PlanarRegion(Polygon(), edges, True)
    poly = shapely.polygons(ring)
    if poly.is_valid and poly.area > 0:
        return PlanarRegion(poly, edges, False)
    return PlanarRegion(_polygonal(shapely.make_valid(poly, method="linework")), edges, True)


def _shape(vertices: Sequence[Sequence[float]], name: str) -> Polygon:
    poly = Polygon([(p[1], p[0]) for p in _ring(vertices, name)])
    if not poly.is_valid:
        raise ValueError(f"{name} is not a simple polygon: {explain_validity(poly)}")
    return poly


def point_in_polygon(
    lat: float,
    lon: float,
    polygon: Sequence[Sequence[float]],
    *,
    boundary: Literal["include", "exclude"] = "include",
) -> bool:
    """Whether (lat, lon) lies in the polygon, treated as planar in lon/lat degrees.

    Points on an edge or vertex count as inside by default (``boundary="include"``); with "exclude" only
    interior points do. Rings that are not simple are read under the even-odd rule (:func:`planar_region`).
    """
    pt = Point(check.lon(lon, "lon"), check.lat(lat, "lat"))
    if boundary not in ("include", "exclude"):
        raise ValueError(f"boundary must be 'include' or 'exclude', got {boundary!r}")
    region = planar_region(polygon, "polygon")
    return region.covers(pt) if boundary == "include" else region.holds_inside(pt)


def polygon_relation(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> str:
    """Planar relation of polygon a to polygon b.

    One of "equals" (same point set), "disjoint", "touches" (boundaries meet, interiors do not),
    "contains" (b lies in a), "within" (a lies in b) or "overlaps" (interiors meet, neither holds the other).
    """
    pa, pb = _shape(a, "a"), _shape(b, "b")
    if pa.equals(pb):
        return "equals"
    if pa.disjoint(pb):
        return "disjoint"
    if pa.touches(pb):
        return "touches"
    if pa.contains(pb):
        return "contains"
    if pa.within(pb):
        return "within"
    return "overlaps"


_Pt = tuple[float, float]
_Num = TypeVar("_Num", float, Fraction)  # float points, or their exact rational copies
_ORIENT_ERROR = (3.0 + 16.0 * 2.0**-53) * 2.0**-53
"""Shewchuk's relative error bound of the float orientation determinant (ccwerrboundA)."""
_ORIENT_TINY = 1e-280
"""Below this the float products may have underflowed: the rational fallback decides."""


def _point(p: Sequence[float], name: str) -> _Pt:
    if p is None or len(p) != 2:
        raise ValueError(f"{name} must be a (lat, lon) pair, got {p!r}")
    return (check.lat(p[0], f"{name}.lat"), check.lon(p[1], f"{name}.lon"))


def _orient(a: _Pt, b: _Pt, c: _Pt) -> int:
    """The exact sign of the turn a -> b -> c: the float determinant when it clears Shewchuk's error bound
    (orient2d's filter), rational arithmetic otherwise."""
    left = (b[0] - a[0]) * (c[1] - a[1])
    right = (b[1] - a[1]) * (c[0] - a[0])
    det = left - right
    bound = _ORIENT_ERROR * (abs(left) + abs(right))
    if bound > _ORIENT_TINY and abs(det) > bound:
        return 1 if det > 0 else -1
    (ax, ay), (bx, by), (cx, cy) = (tuple(map(Fraction, p)) for p in (a, b, c))
    cross = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (cross > 0) - (cross < 0)


def _on_segment(a: tuple[_Num, _Num], b: tuple[_Num, _Num], c: tuple[_Num, _Num]) -> bool:
    """c (collinear with a-b) lies within the segment's bounding box (float comparisons are exact)."""
    return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])


def _intersect(p1: _Pt, p2: _Pt, q1: _Pt, q2: _Pt) -> bool:
    """:func:`segments_intersect` of validated points."""
    if (max(p1[0], p2[0]) < min(q1[0], q2[0]) or max(q1[0], q2[0]) < min(p1[0], p2[0])
            or max(p1[1], p2[1]) < min(q1[1], q2[1]) or max(q1[1], q2[1]) < min(p1[1], p2[1])):
        return False  # bounding boxes apart (exact comparisons)
    o1, o2, o3, o4 = _orient(p1, p2, q1), _orient(p1, p2, q2), _orient(q1, q2, p1), _orient(q1, q2, p2)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    return (
        (o1 == 0 and _on_segment(p1, p2, q1))
        or (o2 == 0 and _on_segment(p1, p2, q2))
        or (o3 == 0 and _on_segment(q1, q2, p1))
        or (o4 == 0 and _on_segment(q1, q2, p2))
    )


def segments_intersect(
    p1: Sequence[float], p2: Sequence[float], q1: Sequence[float], q2: Sequence[float]
) -> bool:
    """Whether segments p1-p2 and q1-q2 ((lat, lon) pairs, planar) share a point; touching counts.

    Exact predicates (a float filter, rational arithmetic where it cannot decide), so endpoint contacts and
    collinear overlaps are decided without rounding.
    """
    return _intersect(_point(p1, "p1"), _point(p2, "p2"), _point(q1, "q1"), _point(q2, "q2"))


def segment_intersection(
    p1: Sequence[float], p2: Sequence[float], q1: Sequence[float], q2: Sequence[float]
) -> tuple[float, float] | None:
    """(lat, lon) where segments p1-p2 and q1-q2 meet (planar), or None.

    For collinear overlapping segments, the shared point nearest to p1 is returned.
    """
    pts = _point(p1, "p1"), _point(p2, "p2"), _point(q1, "q1"), _point(q2, "q2")
    if not _intersect(*pts):
        return None
    a1, a2, b1, b2 = ((Fraction(p[0]), Fraction(p[1])) for p in pts)
    r = (a2[0] - a1[0], a2[1] - a1[1])
    s = (b2[0] - b1[0], b2[1] - b1[1])
    denom = r[0] * s[1] - r[1] * s[0]
    if denom != 0:
        t = ((b1[0] - a1[0]) * s[1] - (b1[1] - a1[1]) * s[0]) / denom
        return (float(a1[0] + t * r[0]), float(a1[1] + t * r[1]))
    shared = [c for c in (a1, a2, b1, b2) if _on_segment(a1, a2, c) and _on_segment(b1, b2, c)]
    best = min(shared, key=lambda c: (c[0] - a1[0]) ** 2 + (c[1] - a1[1]) ** 2)
    return (float(best[0]), float(best[1]))
