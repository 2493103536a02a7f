"""geocore.pointsets: true spherical polygon area vs pyproj, box summary, centroids, RDP with margin."""

from __future__ import annotations

import math

import pytest
from geopy.distance import great_circle
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import Geod

from geocore import pointsets as ps
from geocore.polygons import rdp, spherical_polygon_area_km2

SPHERE = Geod(a=6_371_000, b=6_371_000)


def pyproj_area(v: list[tuple[float, float]]) -> float:
    return abs(SPHERE.polygon_area_perimeter([p[1] for p in v], [p[0] for p in v])[0]) / 1e6


def test_concave_polygon_area_is_true_where_the_unsigned_fan_overestimates() -> None:
    # an arrow head: star-shaped from its centre but not from vertex 0
    v = [(0.0, 0.0), (2.0, 1.0), (0.0, 2.0), (1.0, 1.0)]
    assert ps.polygon_area_km2(v) == pytest.approx(pyproj_area(v), rel=1e-6)
    assert spherical_polygon_area_km2(v) > 1.5 * ps.polygon_area_km2(v)
    assert ps.polygon_area_km2(list(reversed(v))) == pytest.approx(ps.polygon_area_km2(v), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.floats(-60, 60), st.floats(-170, 170), st.floats(0.1, 10), st.integers(3, 8))
def test_regular_polygons_match_pyproj(lat: float, lon: float, r: float, n: int) -> None:
    v = [(lat + r * math.sin(2 * math.pi * k / n), lon + r * math.cos(2 * math.pi * k / n)) for k in range(n)]
    assert ps.polygon_area_km2(v) == pytest.approx(pyproj_area(v), rel=1e-6)


def test_box_summary_and_centroids() -> None:
    pts = [(10.0, 20.0), (-5.0, 40.0), (30.0, -10.0)]
    b = ps.box_summary(pts)
    assert (b.min_lat, b.max_lat, b.min_lon, b.max_lon) == (-5.0, 30.0, -10.0, 40.0)
    assert b.center == (12.5, 15.0) and b.centroid == pytest.approx((35 / 3, 50 / 3))
    assert b.diagonal_km == pytest.approx(great_circle((-5, -10), (30, 40), radius=6371).km)
    c, d = ps.centroid_distances_km([(0.0, 179.0), (0.0, -179.0)], "spherical")
    assert abs(abs(c[1]) - 180.0) < 1e-9 and d == pytest.approx([111.19] * 2, abs=0.01)
    assert ps.point_set_centroid([(0.0, 179.0), (0.0, -179.0)], "arithmetic") == (0.0, 0.0)
    with pytest.raises(ValueError, match="method"):
        ps.point_set_centroid(pts, "median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="vertices"):
        ps.polygon_area_km2([(0, 0), (1, 1)])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.floats(44.5, 45.5), st.floats(9.5, 10.5)), min_size=3, max_size=15),
       st.floats(50, 30_000))
def test_rdp_with_margin_agrees_with_polygons_rdp(pts: list[tuple[float, float]], eps: float) -> None:
    kept, margin = ps.rdp_with_margin(pts, eps)
    assert kept == rdp(pts, eps)
    m = min(margin, 0.5) * 0.9
    if m > 1e-6:
        assert ps.rdp_with_margin(pts, eps * (1 + m))[0] == kept
        assert ps.rdp_with_margin(pts, eps * (1 - m))[0] == kept
