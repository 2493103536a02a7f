"""geocore.geodesy against pyproj (sphere and WGS84), geopy/GeographicLib, and properties."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from geographiclib.geodesic import Geodesic
from geopy.distance import geodesic as geopy_geodesic
from hypothesis import assume, given
from hypothesis import strategies as st
from pyproj import Geod

from geocore.geodesy import (
    COMPASS_8,
    COMPASS_16,
    EARTH_RADIUS_KM,
    along_track_km,
    compass_name,
    compass_point,
    cross_track_km,
    destination,
    final_bearing,
    geodesic_interpolate,
    geodesic_inverse,
    geodesic_km,
    haversine_km,
    initial_bearing,
    interpolate,
    midpoint,
)

N = 10_000
SPHERE = Geod(a=EARTH_RADIUS_KM * 1000.0, b=EARTH_RADIUS_KM * 1000.0)

lats = st.floats(-90, 90, allow_nan=False)
lons = st.floats(-180, 180, allow_nan=False)
mid_lats = st.floats(-85, 85, allow_nan=False)


def random_pairs(seed: int, n: int = N) -> np.ndarray:
    """n rows (lat1, lon1, lat2, lon2), uniform on the sphere."""
    rng = np.random.default_rng(seed)
    lat = np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, (n, 2))))
    lon = rng.uniform(-180.0, 180.0, (n, 2))
    return np.column_stack((lat[:, 0], lon[:, 0], lat[:, 1], lon[:, 1]))


def angle_diff(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    return np.abs((np.asarray(a) - np.asarray(b) + 180.0) % 360.0 - 180.0)


def near_degenerate(rows: np.ndarray, min_rad: float) -> np.ndarray:
    """Pairs closer than min_rad to coincident or antipodal, where an azimuth is ill-conditioned."""
    d = np.array([haversine_km(*r) for r in rows]) / EARTH_RADIUS_KM
    return (d < min_rad) | (math.pi - d < min_rad)


# ----------------------------------------------------------------------------- references

def test_haversine_matches_pyproj_sphere() -> None:
    rows = random_pairs(1)
    _, _, ref_m = SPHERE.inv(rows[:, 1], rows[:, 0], rows[:, 3], rows[:, 2])
    ours = np.array([haversine_km(*r) for r in rows])
    np.testing.assert_allclose(ours, ref_m / 1000.0, rtol=1e-9)


def test_bearings_match_pyproj_sphere() -> None:
    rows = random_pairs(2)
    # Azimuths are undefined for coincident/antipodal pairs and amplify rounding near them; none of the
    # 10,000 seeded pairs comes within 1e-4 rad (0.6 km) of either, so the mask only guards the seed.
    ok = ~near_degenerate(rows, 1e-4)
    assert ok.sum() > 0.999 * N
    rows = rows[ok]
    az12, az21, _ = SPHERE.inv(rows[:, 1], rows[:, 0], rows[:, 3], rows[:, 2])
    first = np.array([initial_bearing(*r) for r in rows])
    last = np.array([final_bearing(*r) for r in rows])
    assert angle_diff(first, az12).max() <= 1e-9 * 360.0
    assert angle_diff(last, az21 + 180.0).max() <= 1e-9 * 360.0
    assert ((first >= 0) & (first < 360)).all() and ((last >= 0) & (last < 360)).all()


def test_geodesic_km_matches_geopy() -> None:
    rows = random_pairs(3)
    ours = np.array([geodesic_km(*r) for r in rows])
    ref = np.array([geopy_geodesic((r[0], r[1]), (r[2], r[3])).km for r in rows])
    np.testing.assert_allclose(ours, ref, rtol=1e-9)


def test_geodesic_inverse_matches_geographiclib() -> None:
    for r in random_pairs(4, 2000):
        az1, az2, km = geodesic_inverse(*r)
        g = Geodesic.WGS84.Inverse(r[0], r[1], r[2], r[3])
        assert km == pytest.approx(g["s12"] / 1000.0, rel=1e-9)
        assert angle_diff(az1, g["azi1"]) <= 1e-7
        assert angle_diff(az2, g["azi2"] + 180.0) <= 1e-7
        assert 0.0 <= az1 < 360.0 and 0.0 <= az2 < 360.0


def test_geodesic_interpolate_lies_on_the_geodesic() -> None:
    for r in random_pairs(5, 300):
        for f in (0.25, 0.5, 0.75):
            lat, lon = geodesic_interpolate(*r, f)
            total = Geodesic.WGS84.Inverse(r[0], r[1], r[2], r[3])["s12"]
            a = Geodesic.WGS84.Inverse(r[0], r[1], lat, lon)["s12"]
            b = Geodesic.WGS84.Inverse(lat, lon, r[2], r[3])["s12"]
            assert a == pytest.approx(f * total, abs=1e-3)
            assert a + b == pytest.approx(total, abs=1e-3)


def test_known_values() -> None:
    assert haversine_km(0, 0, 0, 1) == pytest.approx(EARTH_RADIUS_KM * math.pi / 180, rel=1e-15)
    assert haversine_km(90, 0, -90, 0) == pytest.approx(EARTH_RADIUS_KM * math.pi, rel=1e-15)
    assert haversine_km(0, 0, 0, 1, radius_km=1.0) == pytest.approx(math.pi / 180)
    assert initial_bearing(0, 0, 10, 0) == 0.0
    assert initial_bearing(0, 0, 0, 10) == pytest.approx(90.0)
    assert initial_bearing(0, 0, -10, 0) == pytest.approx(180.0)
    assert initial_bearing(0, 10, 0, 0) == pytest.approx(270.0)
    assert initial_bearing(5, 5, 5, 5) == 0.0
    assert initial_bearing(0, 179, 0, -179) == pytest.approx(90.0)  # across the antimeridian
    assert final_bearing(0, 0, 0, 10) == pytest.approx(90.0)
    assert geodesic_km(0, 0, 0, 1) == pytest.approx(111.319491, abs=1e-6)  # equatorial degree, WGS84 a
    assert midpoint(0, 0, 0, 90) == pytest.approx((0.0, 45.0))
    assert midpoint(0, 179, 0, -179) in ((0.0, 180.0), (0.0, -180.0))
    assert interpolate(0, 0, 0, 90, 0.25) == pytest.approx((0.0, 22.5))
    assert destination(0, 0, 90, EARTH_RADIUS_KM * math.pi / 2) == pytest.approx((0.0, 90.0))
    lat, lon = destination(0, 179, 90, 2 * EARTH_RADIUS_KM * math.pi / 180)
    assert (lat, lon) == pytest.approx((0.0, -179.0))


# ----------------------------------------------------------------------------- compass

@pytest.mark.parametrize(
    ("bearing", "expected"),
    [(0, "N"), (22.4999, "N"), (22.5, "NE"), (67.5, "E"), (112.5, "SE"), (157.5, "S"), (202.5, "SW"),
     (247.5, "W"), (292.5, "NW"), (337.4999, "NW"), (337.5, "N"), (359.99, "N"), (360, "N"), (-10, "N"),
     (-22.5, "N"), (-22.6, "NW")],
)
def test_compass_8_bins(bearing: float, expected: str) -> None:
    assert compass_point(bearing) == expected


@pytest.mark.parametrize(
    ("bearing", "expected"),
    [(0, "N"), (11.25, "NNE"), (33.75, "NE"), (56.25, "ENE"), (348.75, "N"), (348.7, "NNW"), (191.25, "SSW")],
)
def test_compass_16_bins(bearing: float, expected: str) -> None:
    assert compass_point(bearing, points=16) == expected


@given(st.floats(0, 360, exclude_max=True))
def test_compass_8_matches_gpsbench_sectors(b: float) -> None:
    sectors = [(337.5, 22.5, "N")] + [(22.5 + 45 * i, 67.5 + 45 * i, COMPASS_8[i + 1]) for i in range(7)]
    expected = next(name for lo, hi, name in sectors if (lo <= b < hi) or (lo > hi and (b >= lo or b < hi)))
    assert compass_point(b) == expected


def test_compass_names() -> None:
    assert compass_name("NE") == "northeast"
    assert compass_name("n") == "north"
    assert compass_name("NNE") == "north-northeast"
    assert compass_name("WSW") == "west-southwest"
    assert len({compass_name(a) for a in COMPASS_16}) == 16
    with pytest.raises(ValueError, match="abbrev"):
        compass_name("NEE")
    with pytest.raises(ValueError, match="points"):
        compass_point(10, points=4)


# ----------------------------------------------------------------------------- properties

@given(lats, lons, lats, lons)
def test_distance_symmetry(a: float, b: float, c: float, d: float) -> None:
    assert haversine_km(a, b, c, d) == pytest.approx(haversine_km(c, d, a, b), rel=1e-12, abs=1e-9)
    assert geodesic_km(a, b, c, d) == pytest.approx(geodesic_km(c, d, a, b), rel=1e-9, abs=1e-6)


@given(lats, lons, lats, lons, lats, lons)
def test_triangle_inequality(a: float, b: float, c: float, d: float, e: float, f: float) -> None:
    assert haversine_km(a, b, e, f) <= haversine_km(a, b, c, d) + haversine_km(c, d, e, f) + 1e-6
    assert geodesic_km(a, b, e, f) <= geodesic_km(a, b, c, d) + geodesic_km(c, d, e, f) + 1e-6


@given(lats, lons, lats, lons)
def test_interpolate_endpoints_and_midpoint(a: float, b: float, c: float, d: float) -> None:
    assume(haversine_km(a, b, c, d) < 0.999 * math.pi * EARTH_RADIUS_KM)  # antipodal: no unique great circle
    assert interpolate(a, b, c, d, 0.0) == (a, b)
    assert interpolate(a, b, c, d, 1.0) == (c, d)
    m = midpoint(a, b, c, d)
    h = interpolate(a, b, c, d, 0.5)
    assert haversine_km(*m, *h) < 1e-6
    assert haversine_km(a, b, *m) == pytest.approx(haversine_km(c, d, *m), abs=1e-6)
    assert haversine_km(a, b, *m) == pytest.approx(haversine_km(a, b, c, d) / 2, abs=1e-6)


@given(lats, lons, lats, lons, st.floats(0, 1))
def test_interpolate_splits_the_distance(a: float, b: float, c: float, d: float, f: float) -> None:
    total = haversine_km(a, b, c, d)
    assume(total < 0.999 * math.pi * EARTH_RADIUS_KM)
    p = interpolate(a, b, c, d, f)
    assert haversine_km(a, b, *p) == pytest.approx(f * total, abs=1e-6)
    assert haversine_km(*p, c, d) == pytest.approx((1 - f) * total, abs=1e-6)


@given(mid_lats, lons, st.floats(0, 360), st.floats(0.001, 19_000))
def test_destination_round_trip(lat: float, lon: float, bearing: float, dist: float) -> None:
    lat2, lon2 = destination(lat, lon, bearing, dist)
    assert -90 <= lat2 <= 90 and -180 <= lon2 <= 180
    assert haversine_km(lat, lon, lat2, lon2) == pytest.approx(dist, abs=1e-6)
    if dist > 1.0:
        assert angle_diff(initial_bearing(lat, lon, lat2, lon2), bearing) < 1e-6


@given(lats, lons, lats, lons)
def test_bearing_and_distance_lead_back_to_the_target(a: float, b: float, c: float, d: float) -> None:
    dist = haversine_km(a, b, c, d)
    assume(1.0 < dist < 0.99 * math.pi * EARTH_RADIUS_KM and abs(a) < 89.9)
    lat, lon = destination(a, b, initial_bearing(a, b, c, d), dist)
    # asin near ±1 (a target at a pole) keeps only ~sqrt(eps) ≈ 1e-8 rad ≈ 0.1 m: allow 1 m
    assert haversine_km(lat, lon, c, d) < 1e-3


# ----------------------------------------------------------------------------- cross/along track

def test_cross_and_along_track_on_the_equator() -> None:
    deg = EARTH_RADIUS_KM * math.pi / 180
    assert cross_track_km(1, 5, 0, 0, 0, 10) == pytest.approx(-deg)  # north of an eastward path: left
    assert cross_track_km(-1, 5, 0, 0, 0, 10) == pytest.approx(deg)
    assert along_track_km(1, 5, 0, 0, 0, 10) == pytest.approx(5 * deg)
    assert along_track_km(0, -3, 0, 0, 0, 10) == pytest.approx(-3 * deg)
    assert along_track_km(0, 20, 0, 0, 0, 10) == pytest.approx(20 * deg)


@given(mid_lats, lons, st.floats(0, 360), st.floats(10, 5000), st.floats(-3000, 3000), st.floats(0.01, 0.99))
def test_cross_track_of_a_constructed_offset(lat: float, lon: float, brg: float, length: float, off: float,
                                            f: float) -> None:
    end = destination(lat, lon, brg, length)
    foot = destination(lat, lon, brg, f * length)
    heading = final_bearing(lat, lon, *foot)
    p = destination(*foot, heading + 90.0, off) if off >= 0 else destination(*foot, heading - 90.0, -off)
    assert cross_track_km(*p, lat, lon, *end) == pytest.approx(off, abs=1e-5)
    assert along_track_km(*p, lat, lon, *end) == pytest.approx(f * length, abs=1e-5)


def test_cross_track_needs_a_great_circle() -> None:
    with pytest.raises(ValueError, match="lat1"):
        cross_track_km(1, 1, 5, 5, 5, 5)
    with pytest.raises(ValueError, match="antipodal"):
        along_track_km(1, 1, 0, 0, 0, 180)


# ----------------------------------------------------------------------------- validation

@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: haversine_km(91, 0, 0, 0), "lat1"),
        (lambda: haversine_km(0, 181, 0, 0), "lon1"),
        (lambda: haversine_km(0, 0, float("nan"), 0), "lat2"),
        (lambda: haversine_km(0, 0, 0, float("inf")), "lon2"),
        (lambda: haversine_km(0, 0, 0, 0, radius_km=0), "radius_km"),
        (lambda: geodesic_km(-90.5, 0, 0, 0), "lat1"),
        (lambda: geodesic_inverse(0, 0, 0, -180.01), "lon2"),
        (lambda: initial_bearing("x", 0, 0, 0), "lat1"),
        (lambda: final_bearing(0, 0, 100, 0), "lat2"),
        (lambda: compass_point(float("nan")), "bearing_deg"),
        (lambda: destination(0, 0, 0, -1), "distance_km"),
        (lambda: destination(0, 0, float("inf"), 1), "bearing_deg"),
        (lambda: destination(95, 0, 0, 1), "lat"),
        (lambda: interpolate(0, 0, 1, 1, 1.5), "fraction"),
        (lambda: interpolate(0, 0, 1, 1, -0.1), "fraction"),
        (lambda: geodesic_interpolate(0, 0, 1, 1, float("nan")), "fraction"),
        (lambda: midpoint(0, 0, 0, 200), "lon2"),
        (lambda: interpolate(10, 20, -10, -160, 0.5), "antipodal"),
        (lambda: midpoint(10, 20, -10, -160), "antipodal"),
        (lambda: cross_track_km(0, 0, 0, 0, 0, 10, radius_km=-1), "radius_km"),
        (lambda: along_track_km(0, 200, 0, 0, 0, 10), "lon"),
    ],
)
def test_invalid_input_names_the_argument(call: Callable[[], object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()


def test_package_exports_resolve() -> None:
    import geocore

    assert all(getattr(geocore, name) is not None for name in geocore.__all__)
    assert geocore.haversine_km is haversine_km
    with pytest.raises(AttributeError):
        geocore.no_such_name  # noqa: B018
