"""geocore.pointsets: polygon area and perimeter vs pyproj (sphere), box summary and centroid distances vs geopy."""

from __future__ import annotations

import math

import pytest
from geopy.distance import great_circle
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import Geod

from geocore import pointsets as ps

SPHERE = Geod(a=6_371_000, b=6_371_000)


def pyproj_area_perimeter(v: list[tuple[float, float]]) -> tuple[float, float]:
    area_m2, perimeter_m = SPHERE.polygon_area_perimeter([p[1] for p in v], [p[0] for p in v])
    return abs(area_m2) / 1e6, perimeter_m / 1000.0


def test_concave_polygon_area_and_perimeter_match_pyproj() -> None:
    # an arrow head: star-shaped from its centre but not from vertex 0 (the unsigned fan would overestimate)
    v = [(0.0, 0.0), (2.0, 1.0), (0.0, 2.0), (1.0, 1.0)]
    assert ps.polygon_area_perimeter_km(v) == pytest.approx(pyproj_area_perimeter(v), rel=1e-6)
    assert ps.polygon_area_perimeter_km(list(reversed(v))) == pytest.approx(ps.polygon_area_perimeter_km(v), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.floats(-60, 60), st.floats(-170, 170), st.floats(0.1, 10), st.integers(3, 8))
def test_regular_polygons_match_pyproj(lat: float, lon: float, r: float, n: int) -> None:
    v = [(lat + r * math.sin(2 * math.pi * k / n), lon + r * math.cos(2 * math.pi * k / n)) for k in range(n)]
    assert ps.polygon_area_perimeter_km(v) == pytest.approx(pyproj_area_perimeter(v), rel=1e-6)


def test_box_summary_and_centroids() -> None:
    pts = [(10.0, 20.0), (-5.0, 40.0), (30.0, -10.0)]
    b = ps.box_summary(pts)
    assert (b.min_lat, b.max_lat, b.min_lon, b.max_lon) == (-5.0, 30.0, -10.0, 40.0)
    assert b.center == (12.5, 15.0) and b.centroid == pytest.approx((35 / 3, 50 / 3))
    assert b.diagonal_km == pytest.approx(great_circle((-5, -10), (30, 40), radius=6371).km)
    c, d = ps.centroid_distances_km([(0.0, 179.0), (0.0, -179.0)], "spherical")
    assert abs(abs(c[1]) - 180.0) < 1e-9 and d == pytest.approx([111.19] * 2, abs=0.01)
    c, d = ps.centroid_distances_km([(0.0, 179.0), (0.0, -179.0)], "arithmetic")
    assert c == (0.0, 0.0) and d == pytest.approx([great_circle((0, 0), (0, 179), radius=6371).km] * 2)
    with pytest.raises(ValueError, match="method"):
        ps.centroid_distances_km(pts, "median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="vertices"):
        ps.polygon_area_perimeter_km([(0, 0), (1, 1)])
