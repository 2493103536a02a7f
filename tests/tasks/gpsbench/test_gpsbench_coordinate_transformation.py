"""GPSBench coordinate transformation: gold against pyproj proj-strings and the EPSG:3857 formula."""

from __future__ import annotations

import math
import re

import pytest
from pyproj import Transformer

from tasks import get_task
from tasks.records import Parsed

TASK = get_task("gpsbench.coordinate_transformation")
ALL = TASK.generate(42, 80)
R = 6378137.0


def utm(lat: float, lon: float, zone: int) -> tuple[float, float]:
    south = " +south" if lat < 0 else ""
    tr = Transformer.from_proj("+proj=longlat +datum=WGS84", f"+proj=utm +zone={zone} +datum=WGS84{south}",
                               always_xy=True)
    return tr.transform(lon, lat)


def test_gold_on_every_sample() -> None:
    seen = set()
    for s in ALL:
        t, lat, lon = s.target, s.payload["lat"], s.payload["lon"]
        seen.add(t["direction"])
        if t["direction"] in ("wgs84_to_utm", "utm_to_wgs84"):
            zone = math.floor((lon + 180) / 6) + 1
            assert t["zone"] == zone and t["hemisphere"] == ("N" if lat >= 0 else "S")
            e, n = utm(lat, lon, zone)
            assert t["easting"] == pytest.approx(e, abs=0.01) and t["northing"] == pytest.approx(n, abs=0.01)
            if t["direction"] == "utm_to_wgs84":
                assert f"easting {t['easting']:.2f} m, northing {t['northing']:.2f} m" in s.prompt
                assert t["lat"] == pytest.approx(lat, abs=1e-6) and t["lon"] == pytest.approx(lon, abs=1e-6)
        else:
            x = R * math.radians(lon)
            y = R * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))
            assert t["x"] == pytest.approx(x, abs=0.01) and t["y"] == pytest.approx(y, abs=0.01)
            if t["direction"] == "webmercator_to_wgs84":
                assert f"x = {t['x']:.2f} m, y = {t['y']:.2f} m" in s.prompt
        if t["direction"].startswith("wgs84"):
            assert f"{lat:.5f}, {lon:.5f}" in s.prompt
    assert seen == {"wgs84_to_utm", "utm_to_wgs84", "wgs84_to_webmercator", "webmercator_to_wgs84"}


def first(direction: str):  # type: ignore[no-untyped-def]
    return next(s for s in ALL if s.target["direction"] == direction)


def test_utm_answers_and_false_northing() -> None:
    s = first("wgs84_to_utm")
    t = s.target
    ok = f"FINAL ANSWER: Zone {t['zone']}{t['hemisphere']}, {t['easting'] + 4:,.1f} E, {t['northing'] - 6:,.1f} N"
    sc = TASK.score(TASK.parse(ok, s), s)
    assert sc.correct and sc.error == pytest.approx(6, abs=0.06) and sc.error_unit == "m"
    labelled = f"FINAL ANSWER: Easting: {t['easting']:,.0f} m, Northing: {t['northing']:,.0f} m"
    assert TASK.score(TASK.parse(labelled, s), s).correct
    wrong_zone = f"FINAL ANSWER: Zone {t['zone'] % 60 + 1}{t['hemisphere']}, {t['easting']:.1f} E, {t['northing']:.1f} N"
    assert "zone" in TASK.score(TASK.parse(wrong_zone, s), s).explanation
    assert not TASK.score(TASK.parse(f"FINAL ANSWER: {t['easting'] + 11:.1f} E, {t['northing']:.1f} N", s), s).correct


def test_paper_example_dropped_false_northing_is_wrong() -> None:
    s = first("wgs84_to_utm").model_copy(update={"target": {"direction": "wgs84_to_utm", "zone": 37, "hemisphere": "S",
                                                           "easting": 240718.0, "northing": 9850361.0}})
    gpt = "Easting: 266,222 m, Northing: 985,045 m\nFINAL ANSWER: Easting: 266,222 m, Northing: 985,045 m"
    sc = TASK.score(TASK.parse(gpt, s), s)
    assert not sc.correct and sc.error > 1e6
    assert TASK.score(TASK.parse("FINAL ANSWER: 37S 240718 9850361", s), s).correct


def test_inverse_directions_are_scored_in_the_projected_plane() -> None:
    s = first("utm_to_wgs84")
    t = s.target
    assert TASK.score(TASK.parse(f"FINAL ANSWER: {t['lat']:.6f}, {t['lon']:.6f}", s), s).correct
    off = TASK.score(Parsed.success("x", {"lat": t["lat"] + 0.0002, "lon": t["lon"]}), s)  # ~22 m north
    assert not off.correct and 15 < off.error < 30
    m = first("webmercator_to_wgs84")
    mt = m.target
    sc = TASK.score(TASK.parse(f"FINAL ANSWER: {mt['lat']:.4f}, {mt['lon']:.4f}", m), m)
    assert sc.correct and sc.error < 100


def test_web_mercator_parse_variants() -> None:
    s = first("wgs84_to_webmercator")
    x, y = s.target["x"], s.target["y"]
    for text in (f"FINAL ANSWER: x = {x:,.1f} m, y = {y:,.1f} m", f"FINAL ANSWER: ({x:.1f}, {y:.1f})",
                 f"FINAL ANSWER: x: {x / 1000:.4f} km, y: {y / 1000:.4f} km"):
        assert TASK.score(TASK.parse(text, s), s).correct, text
    assert not TASK.score(TASK.parse(f"FINAL ANSWER: x = {x + 150:.1f}, y = {y:.1f}", s), s).correct
    assert re.search(r"EPSG:3857", s.prompt)


def test_an_easting_and_northing_copied_back_as_the_position_is_a_wrong_answer_not_a_missing_one() -> None:
    # a real reply of the embedded 0.5B model (tests/tasks/real_replies.jsonl): the inputs echoed as lat, lon
    s = next(s for s in ALL if s.target["direction"] == "utm_to_wgs84")
    e, n = s.target["easting"], s.target["northing"]
    for reply in (f"FINAL ANSWER: {n:.2f}, {e:.2f}", f"FINAL ANSWER: {n:.2f}, -{e:.2f}"):
        parsed = TASK.parse(reply, s)
        assert parsed.status == "answered", parsed
        score = TASK.score(parsed, s)
        assert not score.correct and "no latitude and longitude" in score.explanation
    hedge = TASK.parse(f"FINAL ANSWER: {n:.2f}, {e:.2f} or {s.target['lat']:.6f}, {s.target['lon']:.6f}", s)
    assert hedge.status != "answered" or not TASK.score(hedge, s).correct
    assert TASK.parse("FINAL ANSWER: 4824261.48", s).status == "unparsed"  # one value is no pair
