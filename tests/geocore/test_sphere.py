"""geocore.sphere: the scalar and vectorised great-circle kernels agree with each other and with independent
implementations (pyproj's Geod on the sphere R = 6371 km, geopy's great_circle)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from geopy.distance import great_circle
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pyproj import Geod

from geocore import sphere

R_KM = 6371.0  # GPSBench's sphere, written here rather than imported from the code under test
SPHERE = Geod(a=R_KM * 1000.0, b=R_KM * 1000.0)


def angle_diff(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Smallest difference between angles in degrees (359.9999 and 0 are close)."""
    return np.abs((np.asarray(a) - np.asarray(b) + 180.0) % 360.0 - 180.0)


def random_points(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n points uniform on the sphere, as (lats, lons) in degrees."""
    rng = np.random.default_rng(seed)
    return np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, n))), rng.uniform(-180.0, 180.0, n)


def separated(lat1: np.ndarray, lon1: np.ndarray, lat2: np.ndarray, lon2: np.ndarray, min_rad: float) -> np.ndarray:
    """Pairs at least min_rad from coincident and from antipodal (azimuths are ill-conditioned there), judged by
    pyproj's distance."""
    d = SPHERE.inv(lon1, lat1, lon2, lat2)[2] / (R_KM * 1000.0)
    return (d > min_rad) & (math.pi - d > min_rad)


# ----------------------------------------------------------------------------- scalar == vectorised

coords = st.tuples(st.floats(-90, 90), st.floats(-180, 180))
batches = st.lists(st.tuples(coords, coords), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(batches)
def test_vectorised_central_angle_and_bearing_agree_with_scalar(pairs: list[tuple[tuple[float, float], ...]]) -> None:
    lat1, lon1, lat2, lon2 = (np.array(col) for col in zip(*(a + b for a, b in pairs), strict=True))
    angles = sphere.central_angle_np(lat1, lon1, lat2, lon2)
    bearings = sphere.initial_bearing_np(lat1, lon1, lat2, lon2)
    for i, ((la1, lo1), (la2, lo2)) in enumerate(pairs):
        assert angles[i] == pytest.approx(sphere.central_angle(la1, lo1, la2, lo2), rel=1e-12, abs=1e-15)
        if sphere.central_angle(la1, lo1, la2, lo2) > 1e-6 and abs(la1) < 90 and abs(la2) < 90:
            assert angle_diff(bearings[i], sphere.initial_bearing(la1, lo1, la2, lo2)) < 1e-9
        assert 0.0 <= bearings[i] < 360.0


@settings(max_examples=300, deadline=None)
@given(coords, hnp.arrays(float, 20, elements=st.floats(0, 360)), hnp.arrays(float, 20, elements=st.floats(-4, 4)))
def test_vectorised_destination_agrees_with_scalar(start: tuple[float, float], bearings: np.ndarray,
                                                   angles: np.ndarray) -> None:
    lats, lons = sphere.destination_np(start[0], start[1], bearings, angles)
    for b, a, la, lo in zip(bearings, angles, lats, lons, strict=True):
        s_lat, s_lon = sphere.destination(start[0], start[1], float(b), float(a))
        assert la == pytest.approx(s_lat, abs=1e-9)
        if abs(s_lat) < 89.999:  # at a pole every longitude is the same point
            assert angle_diff(lo, s_lon) < 1e-9


# ----------------------------------------------------------------------------- against pyproj and geopy

def test_central_angle_matches_pyproj_and_geopy() -> None:
    lat1, lon1 = random_points(1, 5000)
    lat2, lon2 = random_points(2, 5000)
    ref_km = SPHERE.inv(lon1, lat1, lon2, lat2)[2] / 1000.0
    km_np = R_KM * sphere.central_angle_np(lat1, lon1, lat2, lon2)
    np.testing.assert_allclose(km_np, ref_km, rtol=1e-9, atol=1e-6)
    for i in range(0, 5000, 50):
        km = R_KM * sphere.central_angle(lat1[i], lon1[i], lat2[i], lon2[i])
        assert km == pytest.approx(great_circle((lat1[i], lon1[i]), (lat2[i], lon2[i]), radius=R_KM).km, rel=1e-9)
        assert km == pytest.approx(ref_km[i], rel=1e-9, abs=1e-6)


def test_initial_bearing_matches_pyproj() -> None:
    lat1, lon1 = random_points(3, 5000)
    lat2, lon2 = random_points(4, 5000)
    ok = separated(lat1, lon1, lat2, lon2, 1e-3)
    ref = SPHERE.inv(lon1, lat1, lon2, lat2)[0] % 360.0
    assert np.all(angle_diff(sphere.initial_bearing_np(lat1, lon1, lat2, lon2), ref)[ok] < 1e-6)
    for i in np.flatnonzero(ok)[::50]:
        assert angle_diff(sphere.initial_bearing(lat1[i], lon1[i], lat2[i], lon2[i]), ref[i]) < 1e-6


def test_destination_matches_pyproj() -> None:
    lat, lon = random_points(5, 5000)
    rng = np.random.default_rng(6)
    bearing, km = rng.uniform(0, 360, 5000), rng.uniform(0, 19_000, 5000)
    ref_lon, ref_lat, _ = SPHERE.fwd(lon, lat, bearing, km * 1000.0)
    got_lat, got_lon = sphere.destination_np(lat, lon, bearing, km / R_KM)
    off_pole = np.abs(ref_lat) < 89.9
    np.testing.assert_allclose(got_lat, ref_lat, atol=1e-7)
    assert np.all(angle_diff(got_lon, ref_lon)[off_pole] < 1e-6)
    for i in range(0, 5000, 50):
        s_lat, s_lon = sphere.destination(lat[i], lon[i], bearing[i], km[i] / R_KM)
        assert s_lat == pytest.approx(ref_lat[i], abs=1e-7)
        assert not off_pole[i] or angle_diff(s_lon, ref_lon[i]) < 1e-6


def test_destination_backwards_and_unwrapped_longitude() -> None:
    # 1 degree of arc east from 179.5 E on the equator: 180.5, left unwrapped for the caller
    assert sphere.destination(0.0, 179.5, 90.0, math.radians(1.0)) == pytest.approx((0.0, 180.5))
    # a negative angle goes backwards: 1 degree of arc "north" from the equator ends at 1 degree S
    assert sphere.destination(0.0, 10.0, 0.0, -math.radians(1.0)) == pytest.approx((-1.0, 10.0))


def test_lhuilier_excess_of_an_octant_is_a_quarter_hemisphere() -> None:
    # the triangle with three right-angled sides covers 1/8 of the sphere: 4 pi / 8 steradians
    assert sphere.lhuilier_excess(math.pi / 2, math.pi / 2, math.pi / 2) == pytest.approx(math.pi / 2, rel=1e-12)
    assert sphere.lhuilier_excess(0.3, 0.2, 0.5) == pytest.approx(0.0, abs=1e-12)  # degenerate: a + b = c


@settings(max_examples=300, deadline=None)
@given(st.floats(-89.9, 89.9), st.floats(-180, 180))
def test_unit_vector_round_trip(lat: float, lon: float) -> None:
    v = sphere.unit_vector(lat, lon)
    assert sphere.norm(v) == pytest.approx(1.0, rel=1e-15)
    back = sphere.vector_latlon(v)
    assert back[0] == pytest.approx(lat, abs=1e-12) and angle_diff(back[1], lon) < 1e-12
    np.testing.assert_allclose(sphere.unit_vector_np(np.array([lat]), np.array([lon]))[0], v, atol=1e-15)


def test_norm360_and_norm_lon() -> None:
    assert sphere.norm360(-1e-17) == 0.0 and sphere.norm360(-90.0) == 270.0 and sphere.norm360(720.5) == 0.5
    assert list(sphere.norm360_np([-1e-17, -90.0, 720.5])) == [0.0, 270.0, 0.5]
    assert sphere.norm_lon(180.0) == 180.0 and sphere.norm_lon(190.0) == -170.0 and sphere.norm_lon(-181.0) == 179.0
