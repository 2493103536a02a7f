"""geocore.coords: DMS conversion and parsing, UTM and Web Mercator."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from geographiclib.geodesic import Geodesic
from hypothesis import given
from hypothesis import strategies as st

from geocore.coords import (
    DMS,
    UTM,
    decimal_to_dms,
    dms_to_decimal,
    format_dms,
    from_utm,
    from_web_mercator,
    parse_coordinate_pair,
    parse_dms,
    simple_utm_zone,
    to_utm,
    to_web_mercator,
    utm_zone,
)
from geocore.geodesy import haversine_km

lats = st.floats(-90, 90, allow_nan=False)
lons = st.floats(-180, 180, allow_nan=False)

# ----------------------------------------------------------------------------- DMS


def test_decimal_to_dms_follows_gpsbench() -> None:
    d = decimal_to_dms(40.446194, "lat")
    assert (d.degrees, d.minutes, d.hemisphere) == (40, 26, "N")
    assert d.seconds == pytest.approx(46.2984)
    w = decimal_to_dms(-79.982222, "lon")
    assert (w.degrees, w.minutes, w.hemisphere) == (79, 58, "W")
    assert w.seconds == pytest.approx(55.9992)
    assert decimal_to_dms(0.0, "lat").hemisphere == "N" and decimal_to_dms(0.0, "lon").hemisphere == "E"
    assert decimal_to_dms(-33.5, "lat") == DMS(33, 30, 0.0, "S")
    assert decimal_to_dms(180.0, "lon") == DMS(180, 0, 0.0, "E")
    assert str(DMS(40, 26, 46.3, "N")) == "40°26'46.30\"N"
    assert DMS(40, 26, 46.3, "S").to_decimal() == pytest.approx(-40.446194444)


def test_dms_to_decimal() -> None:
    assert dms_to_decimal(40, 26, 46.3, "N") == pytest.approx(40.44619444444)
    assert dms_to_decimal(79, 58, 56, "w") == pytest.approx(-79.98222222222)
    assert dms_to_decimal(90, 0, 0, "S") == -90.0


def test_format_dms() -> None:
    assert format_dms(40.446194444444, -79.982222222222) == "40°26'46.30\"N, 79°58'56.00\"W"
    assert format_dms(-33.8688, 151.2093) == "33°52'07.68\"S, 151°12'33.48\"E"
    assert format_dms(0.9999999999, 0.0) == "1°00'00.00\"N, 0°00'00.00\"E"  # rounding carries
    assert format_dms(-0.0000000001, -180.0, seconds_decimals=0) == "0°00'00\"N, 180°00'00\"W"
    assert format_dms(1.0 / 3.0, 0.5, seconds_decimals=4) == "0°20'00.0000\"N, 0°30'00.0000\"E"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("40°26'46.3\"N", 40.446194444),
        ("40 26 46.3 N", 40.446194444),
        ("40d26m46.3s N", 40.446194444),
        ("40d 26m 46.3s", 40.446194444),
        ("N 40° 26′ 46.3″", 40.446194444),
        ("N40°26’46.3”", 40.446194444),
        ("40°26′46.3′′N", 40.446194444),
        ("40º 26' 46.3'' n", 40.446194444),
        ("40°26'46.3\"S", -40.446194444),
        ("S 40 26 46.3", -40.446194444),
        ("40 26 46.3 south", -40.446194444),
        ("79°58'56\"W", -79.982222222),
        ("79 58 56 E", 79.982222222),
        ("-40.446", -40.446),
        ("+40.446", 40.446),
        ("−40° 26′ 46.3″", -40.446194444),
        ("40.446° N", 40.446),
        ("40.446N", 40.446),
        ("40°26.77'S", -40.446166667),
        ("40.5s", -40.5),
        ("180", 180.0),
        ("40:26:46.3 N", 40.446194444),
        (".5", 0.5),
    ],
)
def test_parse_dms(text: str, expected: float) -> None:
    assert parse_dms(text) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    "text",
    ["", "abc", "40°26'61\"N", "40°61'N", "95 N", "181", "-40 S", "N 40 S", "40.5° 30'", "40' 30\"",
     "40°26'46.3\"N 5", "40 26 46 12", "4O°", "40°°"],
)
def test_parse_dms_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="text"):
        parse_dms(text)


def test_parse_dms_error_quotes_the_text() -> None:
    with pytest.raises(ValueError, match="'40°61'N'|\"40°61'N\""):
        parse_dms("40°61'N")


@given(lats, lons, st.integers(0, 4))
def test_format_parse_round_trip(lat: float, lon: float, decimals: int) -> None:
    text = format_dms(lat, lon, seconds_decimals=decimals)
    a, b = text.split(", ")
    tol = 0.5 * 10.0**-decimals / 3600.0 + 1e-12
    assert parse_dms(a) == pytest.approx(lat, abs=tol)
    assert parse_dms(b) == pytest.approx(lon, abs=tol)
    assert parse_coordinate_pair(text) == (parse_dms(a), parse_dms(b))


@given(lats)
def test_decimal_dms_round_trip(value: float) -> None:
    d = decimal_to_dms(value, "lat")
    assert 0 <= d.minutes < 60 and 0 <= d.seconds < 60
    assert dms_to_decimal(d.degrees, d.minutes, d.seconds, d.hemisphere) == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("40.446, -79.982", (40.446, -79.982)),
        ("(40.446, -79.982)", (40.446, -79.982)),
        ("40.446 -79.982", (40.446, -79.982)),
        ("40.446; -79.982", (40.446, -79.982)),
        ("40°26'46.3\"N, 79°58'56\"W", (40.446194444, -79.982222222)),
        ("40°26'46.3\"N 79°58'56\"W", (40.446194444, -79.982222222)),
        ("40°26'46.3\"N79°58'56\"W", (40.446194444, -79.982222222)),
        ("79°58'56\"W, 40°26'46.3\"N", (40.446194444, -79.982222222)),
        ("40 26 46.3 N 79 58 56 W", (40.446194444, -79.982222222)),
        ("N 40 26 46.3 W 79 58 56", (40.446194444, -79.982222222)),
        ("33.8688 S, 151.2093 E", (-33.8688, 151.2093)),
    ],
)
def test_parse_coordinate_pair(text: str, expected: tuple[float, float]) -> None:
    assert parse_coordinate_pair(text) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("text", ["40.446", "100, 20", "10 20 30 40", "40 N, 50 N", "10 E, 20 W", "a, b"])
def test_parse_coordinate_pair_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="text"):
        parse_coordinate_pair(text)


# ----------------------------------------------------------------------------- UTM

@pytest.mark.parametrize(
    ("lat", "lon", "zone"),
    [
        (60.39, 5.32, (32, "V")),  # Bergen: Norway exception (simple formula gives 31)
        (56.0, 3.0, (32, "V")),
        (63.99, 11.99, (32, "V")),
        (64.0, 5.0, (31, "W")),
        (55.99, 5.0, (31, "U")),
        (56.0, 2.99, (31, "V")),
        (78.22, 15.65, (33, "X")),  # Longyearbyen
        (72.0, 8.99, (31, "X")),
        (72.0, 9.0, (33, "X")),
        (80.0, 20.99, (33, "X")),
        (80.0, 21.0, (35, "X")),
        (84.0, 32.99, (35, "X")),
        (84.0, 33.0, (37, "X")),
        (84.0, 41.99, (37, "X")),
        (84.0, 42.0, (38, "X")),
        (71.99, 10.0, (32, "W")),
        (72.0, -1.0, (30, "X")),
        (-80.0, -180.0, (1, "C")),
        (0.0, 0.0, (31, "N")),
        (-0.01, 0.0, (31, "M")),
        (43.642567, -79.387139, (17, "T")),
        (40.0, 180.0, (1, "T")),
    ],
)
def test_utm_zone(lat: float, lon: float, zone: tuple[int, str]) -> None:
    assert utm_zone(lat, lon) == zone


def test_simple_utm_zone_is_gpsbench_formula() -> None:
    assert simple_utm_zone(5.32) == 31 and utm_zone(60.39, 5.32)[0] == 32
    assert simple_utm_zone(-180.0) == 1 and simple_utm_zone(179.99) == 60 and simple_utm_zone(180.0) == 1
    for lon in np.linspace(-179.9, 179.9, 997):
        assert simple_utm_zone(lon) == math.floor((lon + 180) / 6) + 1


def test_to_utm_known_values() -> None:
    # CN Tower, the worked example of Wikipedia's UTM article: 17T 630084 m E, 4833438 m N.
    cn = to_utm(43.642567, -79.387139)
    assert (cn.zone, cn.hemisphere) == (17, "N")
    assert cn.easting == pytest.approx(630084, abs=1) and cn.northing == pytest.approx(4833438, abs=1)
    assert to_utm(0.0, -75.0) == UTM(500000.0, 0.0, 18, "N")  # central meridian on the equator
    south = to_utm(-10.0, 3.0)
    assert south.hemisphere == "S" and south.easting == pytest.approx(500000.0)
    arc_m = Geodesic.WGS84.Inverse(0.0, 3.0, -10.0, 3.0)["s12"]  # meridian arc, equator to 10°S
    assert south.northing == pytest.approx(10_000_000 - 0.9996 * arc_m, abs=1e-3)
    forced = to_utm(43.642567, -79.387139, zone=18)
    assert forced.zone == 18 and forced.easting < 500000
    assert from_utm(cn.easting, cn.northing, 17, "N") == pytest.approx((43.642567, -79.387139), abs=1e-9)


def test_utm_round_trip_within_a_millimetre() -> None:
    rng = np.random.default_rng(7)
    for lat, lon in zip(rng.uniform(-80, 84, 2000), rng.uniform(-180, 180, 2000), strict=True):
        u = to_utm(lat, lon)
        back = from_utm(u.easting, u.northing, u.zone, u.hemisphere)
        assert haversine_km(lat, lon, *back) * 1e6 < 1.0  # mm
        assert 100_000 < u.easting < 900_000 and 0 <= u.northing <= 10_000_000


def test_web_mercator_matches_the_formula_and_round_trips() -> None:
    rng = np.random.default_rng(8)
    r = 6378137.0
    for lat, lon in zip(rng.uniform(-85.05, 85.05, 2000), rng.uniform(-180, 180, 2000), strict=True):
        x, y = to_web_mercator(lat, lon)
        assert x == pytest.approx(r * math.radians(lon), abs=1e-6)
        assert y == pytest.approx(r * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)), abs=1e-6)
        back = from_web_mercator(x, y)
        assert haversine_km(lat, lon, *back) * 1e6 < 1.0  # mm
    assert to_web_mercator(0, 0) == (0.0, 0.0)
    assert to_web_mercator(0, 180)[0] == pytest.approx(20037508.342789244)
    assert to_web_mercator(85.0511287798066, 0)[1] == pytest.approx(20037508.342789244, abs=1e-3)
    assert from_web_mercator(-20037508.342789244, 0) == pytest.approx((0.0, -180.0))


# ----------------------------------------------------------------------------- validation

@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: decimal_to_dms(91, "lat"), "value"),
        (lambda: decimal_to_dms(181, "lon"), "value"),
        (lambda: decimal_to_dms(10, "x"), "axis"),  # type: ignore[arg-type]
        (lambda: dms_to_decimal(-1, 0, 0, "N"), "degrees"),
        (lambda: dms_to_decimal(91, 0, 0, "N"), "degrees"),
        (lambda: dms_to_decimal(10, 60, 0, "N"), "minutes"),
        (lambda: dms_to_decimal(10, 0, 60, "N"), "seconds"),
        (lambda: dms_to_decimal(10, 0, float("nan"), "N"), "seconds"),
        (lambda: dms_to_decimal(10, 0, 0, "Q"), "hemisphere"),
        (lambda: DMS(10, 0, 0.0, "X"), "hemisphere"),
        (lambda: DMS(10, 61, 0.0, "N"), "minutes"),
        (lambda: DMS(10.5, 0, 0.0, "N"), "degrees"),  # type: ignore[arg-type]
        (lambda: format_dms(0, 0, seconds_decimals=-1), "seconds_decimals"),
        (lambda: format_dms(0, 190), "lon"),
        (lambda: utm_zone(84.01, 0), "lat"),
        (lambda: utm_zone(-80.5, 0), "lat"),
        (lambda: utm_zone(10, -181), "lon"),
        (lambda: to_utm(85, 0), "lat"),
        (lambda: to_utm(10, 0, zone=61), "zone"),
        (lambda: from_utm(500000, 0, 0, "N"), "zone"),
        (lambda: from_utm(500000, 0, 31, "X"), "hemisphere"),
        (lambda: from_utm(float("inf"), 0, 31, "N"), "easting"),
        (lambda: simple_utm_zone(200), "lon"),
        (lambda: to_web_mercator(85.06, 0), "lat"),
        (lambda: to_web_mercator(0, float("nan")), "lon"),
        (lambda: from_web_mercator(2.1e7, 0), "x"),
        (lambda: from_web_mercator(0, 2.1e7), "y"),
        (lambda: parse_dms(None), "text"),  # type: ignore[arg-type]
    ],
)
def test_invalid_input_names_the_argument(call: Callable[[], object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()
