"""geocore.polygons against pyproj (sphere), GeographicLib, shapely, and hand-made cases."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from geographiclib.geodesic import Geodesic
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import Geod
from shapely.geometry import LineString, Point

from geocore.geodesy import EARTH_RADIUS_KM, along_track_km, cross_track_km, haversine_km
from geocore.polygons import (
    BoundingBox,
    bounding_box,
    bounds,
    centroid,
    geodesic_area_perimeter,
    planar_region,
    point_in_polygon,
    polygon_relation,
    rdp,
    rdp_with_margin,
    segment_intersection,
    segments_intersect,
    sort_by_angle,
    spherical_centroid,
    spherical_perimeter_km,
    spherical_polygon_area_km2,
)

N = 10_000
SPHERE = Geod(a=EARTH_RADIUS_KM * 1000.0, b=EARTH_RADIUS_KM * 1000.0)
SQUARE = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)]


def random_convex_polygons(
    seed: int, n: int, geod: Geod = SPHERE, max_radius_m: float = 2000e3, max_sin_lat: float = 0.95
) -> list[list[tuple[float, float]]]:
    """Polygons of 3-8 vertices on a circle of 50 km to max_radius_m (so convex), as in GPSBench App. A.2."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k = int(rng.integers(3, 9))
        lat0 = math.degrees(math.asin(rng.uniform(-max_sin_lat, max_sin_lat)))
        lon0 = rng.uniform(-180, 180)
        az = np.sort(rng.uniform(0, 360, k))
        dist = np.full(k, rng.uniform(50e3, max_radius_m))
        lon, lat, _ = geod.fwd(np.full(k, lon0), np.full(k, lat0), az, dist)
        out.append(list(zip(lat.tolist(), lon.tolist(), strict=True)))
    return out


# ----------------------------------------------------------------------------- area and perimeter

def test_spherical_area_and_perimeter_match_pyproj_sphere() -> None:
    for poly in random_convex_polygons(11, N):
        lats, lons = [p[0] for p in poly], [p[1] for p in poly]
        area_m2, perim_m = SPHERE.polygon_area_perimeter(lons, lats)
        assert spherical_polygon_area_km2(poly) == pytest.approx(abs(area_m2) / 1e6, rel=1e-9)
        assert spherical_perimeter_km(poly) == pytest.approx(perim_m / 1000.0, rel=1e-9)


def test_geodesic_area_perimeter_matches_geographiclib() -> None:
    # GeographicLib's pure-Python port is independent of pyproj's C code, and slow: 3,000 polygons.
    for poly in random_convex_polygons(12, 3000, Geod(ellps="WGS84")):
        ref = Geodesic.WGS84.Polygon()
        for lat, lon in poly:
            ref.AddPoint(lat, lon)
        _, perim_m, area_m2 = ref.Compute()
        area, perim = geodesic_area_perimeter(poly)
        assert area == pytest.approx(abs(area_m2) / 1e6, rel=1e-9)
        assert perim == pytest.approx(perim_m / 1000.0, rel=1e-9)


def test_area_of_known_shapes() -> None:
    octant = [(0.0, 0.0), (0.0, 90.0), (90.0, 0.0)]
    assert spherical_polygon_area_km2(octant) == pytest.approx(math.pi * EARTH_RADIUS_KM**2 / 2, rel=1e-12)
    assert spherical_perimeter_km(octant) == pytest.approx(1.5 * math.pi * EARTH_RADIUS_KM, rel=1e-12)
    assert spherical_polygon_area_km2(octant, radius_km=1.0) == pytest.approx(math.pi / 2)
    # closing duplicate and orientation do not matter
    assert spherical_polygon_area_km2([*SQUARE, SQUARE[0]]) == spherical_polygon_area_km2(SQUARE)
    assert spherical_polygon_area_km2(SQUARE[::-1]) == pytest.approx(spherical_polygon_area_km2(SQUARE))
    assert geodesic_area_perimeter([*SQUARE, SQUARE[0]]) == pytest.approx(geodesic_area_perimeter(SQUARE))


def test_fan_area_is_exact_only_when_star_shaped_from_vertex_0() -> None:
    # A non-convex "arrow" that is star-shaped from vertex 0: still exact.
    arrow = [(1.0, 0.0), (0.0, 0.0), (0.0, 2.0), (1.0, 1.0), (2.0, 2.0), (2.0, 0.0)]
    area_m2, _ = SPHERE.polygon_area_perimeter([p[1] for p in arrow], [p[0] for p in arrow])
    assert spherical_polygon_area_km2(arrow) == pytest.approx(abs(area_m2) / 1e6, rel=1e-9)
    # The same ring started at (0, 2), which cannot see (2, 2): the notch is counted in, not out.
    rotated = arrow[2:] + arrow[:2]
    assert spherical_polygon_area_km2(rotated) > 1.1 * abs(area_m2) / 1e6
    # Signing each fan triangle by its orientation gives the true area from any start, in either orientation.
    for ring in (arrow, rotated, rotated[::-1]):
        assert spherical_polygon_area_km2(ring, signed=True) == pytest.approx(abs(area_m2) / 1e6, rel=1e-9)


def test_sort_by_angle_restores_a_convex_ring() -> None:
    rng = np.random.default_rng(5)
    # GPSBench-sized regions away from the poles and the antimeridian, where lon/lat angles keep the order
    polys = random_convex_polygons(13, 300, max_radius_m=1000e3, max_sin_lat=0.85)
    for poly in [p for p in polys if np.ptp([q[1] for q in p]) < 180]:
        shuffled = [poly[i] for i in rng.permutation(len(poly))]
        ring = sort_by_angle(shuffled)
        assert sorted(ring) == sorted(poly)
        assert spherical_polygon_area_km2(ring) == pytest.approx(spherical_polygon_area_km2(poly), rel=1e-9)
    assert sort_by_angle([SQUARE[2], SQUARE[0], SQUARE[3], SQUARE[1], SQUARE[2]]) == SQUARE  # CCW from SW


# ----------------------------------------------------------------------------- boxes and centres

def test_bounds_is_the_plain_min_max() -> None:
    pts = [(-37.95855, 144.0), (53.6014, -72.83065), (10.0, 176.98545)]
    assert bounds(pts) == (-37.95855, 53.6014, -72.83065, 176.98545)


def test_bounding_box_across_the_antimeridian() -> None:
    box = bounding_box([(10.0, 179.0), (-5.0, -179.0), (3.0, 179.5)])
    assert box == BoundingBox(south=-5.0, north=10.0, west=179.0, east=-179.0, crosses_antimeridian=True)
    assert box.width_deg == pytest.approx(2.0)
    assert box.center == pytest.approx((2.5, 180.0)) or box.center == pytest.approx((2.5, -180.0))
    assert bounds([(10.0, 179.0), (-5.0, -179.0)]) == (-5.0, 10.0, -179.0, 179.0)


def test_bounding_box_without_crossing() -> None:
    assert bounding_box([(1.0, 2.0)]) == BoundingBox(1.0, 1.0, 2.0, 2.0, False)
    box = bounding_box([(0.0, -10.0), (5.0, 20.0), (2.0, 0.0)])
    assert box == BoundingBox(0.0, 5.0, -10.0, 20.0, False)
    assert box.center == (2.5, 5.0) and box.width_deg == 30.0
    # exactly half the world either way: the non-crossing box wins the tie
    assert bounding_box([(0.0, -90.0), (0.0, 90.0)]).crosses_antimeridian is False
    assert bounding_box([(0.0, 180.0), (0.0, -180.0)]).width_deg == 0.0


def test_centroids() -> None:
    assert centroid(SQUARE) == (0.5, 0.5)
    lat, lon = spherical_centroid([(0.0, 179.0), (0.0, -179.0)])
    assert lat == pytest.approx(0.0, abs=1e-12) and abs(lon) == pytest.approx(180.0)
    assert centroid([(0.0, 179.0), (0.0, -179.0)]) == (0.0, 0.0)  # GPSBench's mean: not antimeridian-safe
    assert spherical_centroid([(0.0, 0.0), (0.0, 90.0)]) == pytest.approx((0.0, 45.0))
    with pytest.raises(ValueError, match="points"):
        spherical_centroid([(0.0, 0.0), (0.0, 180.0)])


# ----------------------------------------------------------------------------- RDP

def test_rdp_drops_collinear_points_and_keeps_a_spike() -> None:
    path = [(0.0, 0.1 * i) for i in range(11)]
    assert rdp(path, 1.0) == [0, 10]
    spiky = [*path[:5], (0.5, 0.5), *path[6:]]
    assert rdp(spiky, 1000.0) == [0, 4, 5, 6, 10]
    assert rdp(spiky, 60_000.0) == [0, 10]  # the spike is 55.6 km off the chord
    assert rdp(path, 0.0) == [0, 10]  # collinear points are exactly on the chord
    assert rdp([(0.0, 0.0)], 5.0) == [0] and rdp([(0.0, 0.0), (1.0, 1.0)], 5.0) == [0, 1]


def test_rdp_uses_the_nearer_endpoint_beyond_the_segment() -> None:
    # (0, 2) lies on the chord's great circle but beyond its end: 111 km away, so it is kept.
    assert rdp([(0.0, 0.0), (0.0, 2.0), (0.0, 1.0)], 1000.0) == [0, 1, 2]
    # a closed loop (first == last) measures distances to that point
    loop = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)]
    assert rdp(loop, 1000.0) == [0, 1, 2, 3]
    assert rdp(loop, 100_000.0) == [0, 2, 3]  # (0, 1) is 78.6 km from the chord (0, 0)-(1, 1)


def _reference_rdp(pts: list[tuple[float, float]], eps_km: float) -> list[int]:
    """Recursive RDP written with the scalar geodesy functions."""

    def dist(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        ends = min(haversine_km(*p, *a), haversine_km(*p, *b))
        if haversine_km(*a, *b) < 1e-6:
            return ends
        at = along_track_km(*p, *a, *b)
        if 0.0 <= at <= haversine_km(*a, *b):
            return abs(cross_track_km(*p, *a, *b))
        return ends

    def go(i: int, j: int) -> list[int]:
        if j - i < 2:
            return [i, j]
        d = [dist(pts[k], pts[i], pts[j]) for k in range(i + 1, j)]
        k = i + 1 + int(np.argmax(d))
        return go(i, k)[:-1] + go(k, j) if max(d) > eps_km else [i, j]

    return go(0, len(pts) - 1)


def test_rdp_matches_a_scalar_reference() -> None:
    rng = np.random.default_rng(21)  # random walks: ties between distances have probability zero
    for _ in range(300):
        k = int(rng.integers(8, 16))
        start = np.array([rng.uniform(-60, 60), rng.uniform(-170, 170)])
        steps = rng.normal(0.0, 0.02, (k, 2)) + rng.normal(0.0, 0.02, 2)
        pts = [tuple(map(float, p)) for p in start + np.cumsum(steps, axis=0)]
        eps_m = float(rng.uniform(500, 2000))
        assert rdp(pts, eps_m) == _reference_rdp(pts, eps_m / 1000.0)


# ----------------------------------------------------------------------------- planar topology

def test_point_in_polygon_boundary_semantics() -> None:
    assert point_in_polygon(0.5, 0.5, SQUARE)
    assert not point_in_polygon(1.5, 0.5, SQUARE)
    for lat, lon in [(0.0, 0.0), (0.0, 0.5), (1.0, 0.25), (0.75, 1.0)]:  # vertex and edges
        assert point_in_polygon(lat, lon, SQUARE)
        assert point_in_polygon(lat, lon, SQUARE, boundary="include")
        assert not point_in_polygon(lat, lon, SQUARE, boundary="exclude")
    assert point_in_polygon(0.5, 0.5, SQUARE, boundary="exclude")
    # lat/lon order: a tall thin polygon
    tall = [(0.0, 0.0), (0.0, 1.0), (10.0, 1.0), (10.0, 0.0)]
    assert point_in_polygon(5.0, 0.5, tall) and not point_in_polygon(0.5, 5.0, tall)


def test_point_in_polygon_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="boundary"):
        point_in_polygon(0.5, 0.5, SQUARE, boundary="on")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="polygon"):
        point_in_polygon(0.5, 0.5, [(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="lat"):
        point_in_polygon(91, 0.5, SQUARE)


@pytest.mark.parametrize(
    ("b", "expected"),
    [
        (SQUARE, "equals"),
        ([(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)], "equals"),
        ([(5.0, 5.0), (5.0, 6.0), (6.0, 6.0)], "disjoint"),
        ([(0.0, 1.0), (0.0, 2.0), (1.0, 2.0), (1.0, 1.0)], "touches"),
        ([(1.0, 1.0), (1.0, 2.0), (2.0, 2.0)], "touches"),
        ([(0.2, 0.2), (0.2, 0.4), (0.4, 0.4)], "contains"),
        ([(0.0, 0.0), (0.0, 0.5), (0.5, 0.5)], "contains"),
        ([(-1.0, -1.0), (-1.0, 2.0), (2.0, 2.0), (2.0, -1.0)], "within"),
        ([(0.5, 0.5), (0.5, 1.5), (1.5, 1.5), (1.5, 0.5)], "overlaps"),
    ],
)
def test_polygon_relation(b: list[tuple[float, float]], expected: str) -> None:
    assert polygon_relation(SQUARE, b) == expected


def test_polygon_relation_names_the_bad_polygon() -> None:
    with pytest.raises(ValueError, match="b"):
        polygon_relation(SQUARE, [(0, 0), (1, 1), (0, 1), (1, 0)])
    with pytest.raises(ValueError, match=r"a\[1\]\.lon"):
        polygon_relation([(0, 0), (0, 200), (1, 1)], SQUARE)


@pytest.mark.parametrize(
    ("p1", "p2", "q1", "q2", "hit", "point"),
    [
        ((0, 0), (2, 2), (0, 2), (2, 0), True, (1.0, 1.0)),  # crossing
        ((0, 0), (1, 1), (1, 1), (2, 0), True, (1.0, 1.0)),  # shared endpoint
        ((0, 0), (2, 0), (1, 0), (1, 5), True, (1.0, 0.0)),  # T junction
        ((0, 0), (2, 0), (1, 0), (3, 0), True, (1.0, 0.0)),  # collinear overlap: nearest to p1
        ((3, 0), (0, 0), (1, 0), (2, 0), True, (2.0, 0.0)),
        ((0, 0), (1, 0), (2, 0), (3, 0), False, None),  # collinear, apart
        ((0, 0), (1, 0), (0, 1), (1, 1), False, None),  # parallel
        ((0, 0), (1, 1), (2, 2), (3, 0), False, None),
        ((0.5, 0.5), (0.5, 0.5), (0, 0), (1, 1), True, (0.5, 0.5)),  # degenerate segment on the other
        ((0.1, 0.2), (0.1, 0.2), (0.1, 0.2), (0.1, 0.2), True, (0.1, 0.2)),
    ],
)
def test_segments(p1: tuple, p2: tuple, q1: tuple, q2: tuple, hit: bool, point: tuple | None) -> None:
    assert segments_intersect(p1, p2, q1, q2) is hit
    assert segments_intersect(q1, q2, p1, p2) is hit
    assert segment_intersection(p1, p2, q1, q2) == point


coords = st.tuples(st.floats(-10, 10, allow_subnormal=False), st.floats(-10, 10, allow_subnormal=False))


@given(coords, coords, coords, coords)
def test_segments_agree_with_shapely(p1: tuple, p2: tuple, q1: tuple, q2: tuple) -> None:
    hit = segments_intersect(p1, p2, q1, q2)
    point = segment_intersection(p1, p2, q1, q2)
    assert (point is not None) == hit
    if p1 != p2 and q1 != q2:
        a, b = LineString([p1[::-1], p2[::-1]]), LineString([q1[::-1], q2[::-1]])
        assert hit == a.intersects(b)
        if point is not None and min(a.length, b.length) > 1e-6:  # GEOS distance breaks down on tiny segments
            assert a.distance(Point(point[::-1])) < 1e-9 and b.distance(Point(point[::-1])) < 1e-9


def _rational_hit(p1: tuple, p2: tuple, q1: tuple, q2: tuple) -> bool:
    """Reference: the segment test in rational arithmetic throughout."""
    p1, p2, q1, q2 = ((Fraction(a), Fraction(b)) for a, b in (p1, p2, q1, q2))

    def orient(a: tuple, b: tuple, c: tuple) -> int:
        cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return (cross > 0) - (cross < 0)

    def within(a: tuple, b: tuple, c: tuple) -> bool:
        return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])

    o = orient(p1, p2, q1), orient(p1, p2, q2), orient(q1, q2, p1), orient(q1, q2, p2)
    return (o[0] * o[1] < 0 and o[2] * o[3] < 0) or any(
        k == 0 and within(a, b, c)
        for k, (a, b, c) in zip(o, ((p1, p2, q1), (p1, p2, q2), (q1, q2, p1), (q1, q2, p2)), strict=True))


@settings(max_examples=1000, derandomize=True)
@given(coords, coords, st.floats(0, 1), st.integers(-3, 3), st.integers(-3, 3), coords)
def test_segments_exact_on_near_collinear_points(p1: tuple, p2: tuple, t: float, dx: int, dy: int,
                                                 q2: tuple) -> None:
    """q1 within a few ulps of the line p1-p2, where a float determinant alone gets the sign wrong."""
    x, y = p1[0] + t * (p2[0] - p1[0]), p1[1] + t * (p2[1] - p1[1])
    for _ in range(abs(dx)):
        x = math.nextafter(x, math.copysign(math.inf, dx))
    for _ in range(abs(dy)):
        y = math.nextafter(y, math.copysign(math.inf, dy))
    q1 = (x, y)
    assert segments_intersect(p1, p2, q1, q2) == _rational_hit(p1, p2, q1, q2)
    assert segments_intersect(p1, p2, q1, q1) == _rational_hit(p1, p2, q1, q1)



# ----------------------------------------------------------------------------- validation

@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: spherical_polygon_area_km2([]), "vertices"),
        (lambda: spherical_polygon_area_km2([(0, 0), (1, 1)]), "vertices"),
        (lambda: spherical_polygon_area_km2([(0, 0), (1, 1), (0, 0)]), "vertices"),
        (lambda: spherical_polygon_area_km2([(0, 0), (1, 1), (95, 0)]), r"vertices\[2\]\.lat"),
        (lambda: spherical_polygon_area_km2(SQUARE, radius_km=-1), "radius_km"),
        (lambda: spherical_perimeter_km([(0, 0), (1, float("nan")), (2, 2)]), r"vertices\[1\]\.lon"),
        (lambda: geodesic_area_perimeter([(0, 0)]), "vertices"),
        (lambda: bounds([]), "points"),
        (lambda: bounding_box([(0, 0, 0)]), r"points\[0\]"),
        (lambda: centroid([(100, 0)]), r"points\[0\]\.lat"),
        (lambda: rdp([(0, 0), (1, 1)], -1), "epsilon_m"),
        (lambda: rdp([], 1), "points"),
        (lambda: segments_intersect((0, 0), (1, 1), (0, 1), (1,)), "q2"),
        (lambda: segment_intersection((0, 0), (91, 1), (0, 1), (1, 0)), r"p2\.lat"),
    ],
)
def test_invalid_input_names_the_argument(call: Callable[[], object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()


def test_point_in_polygon_reads_rings_that_are_not_simple_by_the_even_odd_rule() -> None:
    bow_tie = [(0, 0), (1, 1), (0, 1), (1, 0)]  # two triangles meeting at (0.5, 0.5)
    assert point_in_polygon(0.5, 0.2, bow_tie, boundary="exclude") and point_in_polygon(0.5, 0.8, bow_tie)
    assert not point_in_polygon(0.2, 0.5, bow_tie) and not point_in_polygon(0.8, 0.5, bow_tie)
    assert point_in_polygon(0.5, 0.5, bow_tie) and not point_in_polygon(0.5, 0.5, bow_tie, boundary="exclude")
    # a pentagram: even-odd leaves the central pentagon out (non-zero winding would count it in)
    star = [(math.sin(math.pi / 2 + k * 4 * math.pi / 5), math.cos(math.pi / 2 + k * 4 * math.pi / 5)) for k in range(5)]
    assert not point_in_polygon(0.0, 0.0, star) and point_in_polygon(0.7, 0.0, star)
    repeated = [(0, 0), (0, 0), (0, 1), (1, 1), (1, 1), (1, 0), (0, 0)]  # repeated vertices, closed
    assert point_in_polygon(0.5, 0.5, repeated, boundary="exclude")
    collinear = [(0, 0), (0, 1), (0, 2)]  # no area: only its edges hold points
    assert point_in_polygon(0, 0.5, collinear) and not point_in_polygon(0, 0.5, collinear, boundary="exclude")
    assert not point_in_polygon(0.1, 0.5, collinear)
    region = planar_region(bow_tie)
    assert region.repaired and region.area.area == pytest.approx(0.5)
    assert not planar_region([(0, 0), (0, 1), (1, 1)]).repaired


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(44.5, 45.5), st.floats(9.5, 10.5)), min_size=3, max_size=15),
       st.floats(50, 30_000))
def test_rdp_margin_bounds_how_far_epsilon_can_move(pts: list[tuple[float, float]], eps: float) -> None:
    kept, margin = rdp_with_margin(pts, eps)
    assert margin > 0
    m = min(margin, 0.5) * 0.9
    if m > 1e-6:
        assert rdp(pts, eps * (1 + m)) == kept
        assert rdp(pts, eps * (1 - m)) == kept
