"""GPSBench format conversion: gold by our own DMS arithmetic, parser cases from App. F.4."""

from __future__ import annotations

import pytest

from tasks import get_task
from tasks.records import Parsed
from tests.tasks.tool_references import dms_text_to_decimal

TASK = get_task("gpsbench.format_conversion")
ALL = TASK.generate(42, 60)


def test_gold_by_own_arithmetic_on_every_sample() -> None:
    directions = {s.target["direction"] for s in ALL}
    assert directions == {"dd_to_dms", "dms_to_dd"}
    for s in ALL:
        t = s.target
        lat, lon = dms_text_to_decimal(t["dms"])
        # the DMS rendering is the DD value to within rounding of 0.1″
        assert abs(lat - s.payload["lat"]) * 3600 <= 0.05 + 1e-9 and abs(lon - s.payload["lon"]) * 3600 <= 0.05 + 1e-9
        if t["direction"] == "dms_to_dd":
            assert t["dms"] in s.prompt
            assert t["lat"] == pytest.approx(lat, abs=1e-7) and t["lon"] == pytest.approx(lon, abs=1e-7)
        else:
            assert f"{s.payload['lat']:.5f}, {s.payload['lon']:.5f}" in s.prompt
            assert (t["lat"], t["lon"]) == (s.payload["lat"], s.payload["lon"])


def _sample(direction: str):  # type: ignore[no-untyped-def]
    return next(s for s in ALL if s.target["direction"] == direction)


def test_dd_to_dms_scoring_precision_format_and_hemisphere_swap() -> None:
    s = _sample("dd_to_dms")
    lat, lon = s.payload["lat"], s.payload["lon"]

    def dms(x: float, pos: str, neg: str, decimals: int = 1) -> str:
        total = abs(x) * 3600
        d, rest = divmod(total, 3600)
        m, sec = divmod(rest, 60)
        return f"{int(d)}°{int(m)}'{sec:.{decimals}f}\"{neg if x < 0 else pos}"

    good = f"FINAL ANSWER: {dms(lat, 'N', 'S')}, {dms(lon, 'E', 'W')}"
    assert TASK.score(TASK.parse(good, s), s).correct
    # precision mismatch (seconds to 0 or 2 decimals) is not an error
    assert TASK.score(TASK.parse(f"FINAL ANSWER: {dms(lat, 'N', 'S', 0)}, {dms(lon, 'E', 'W', 2)}", s), s).correct
    # decimal degrees where DMS was asked: right value, wrong format
    sc = TASK.score(TASK.parse(f"FINAL ANSWER: {lat}, {lon}", s), s)
    assert not sc.correct and "not in DMS" in sc.explanation
    # hemisphere letters swapped between latitude and longitude (GPT-4.1's error in F.4)
    swapped = f"FINAL ANSWER: {dms(lat, 'E', 'W')}, {dms(lon, 'N', 'S')}"
    sc = TASK.score(TASK.parse(swapped, s), s)
    assert not sc.correct


def test_paper_hemisphere_swap_example() -> None:
    s = _sample("dd_to_dms").model_copy(update={"target": {"direction": "dd_to_dms", "lat": 2.4085, "lon": 42.9771,
                                                          "dms": ""}})
    right = TASK.score(TASK.parse("FINAL ANSWER: 2°24'30.6\"N, 42°58'37.6\"E", s), s)
    wrong = TASK.score(TASK.parse("FINAL ANSWER: 2°24'30.6\"E, 42°58'37.6\"N", s), s)
    assert right.correct and right.error < 1.0
    assert not wrong.correct and "swapped" in wrong.explanation


def test_dms_to_dd_parses_signs_letters_and_rejects_dms() -> None:
    s = _sample("dms_to_dd")
    lat, lon = s.target["lat"], s.target["lon"]
    assert TASK.score(TASK.parse(f"Work... FINAL ANSWER: {lat:.6f}, {lon:.6f}", s), s).correct
    letters = f"FINAL ANSWER: {abs(lat):.5f}°{'S' if lat < 0 else 'N'}, {abs(lon):.5f}°{'W' if lon < 0 else 'E'}"
    assert TASK.score(TASK.parse(letters, s), s).correct
    sc = TASK.score(TASK.parse(f"FINAL ANSWER: {s.target['dms']}", s), s)
    assert not sc.correct and "decimal" in sc.explanation
    far = TASK.score(Parsed.success("x", {"lat": lat + 0.001, "lon": lon, "dms": False, "lon_first": False}), s)
    assert not far.correct and far.error == pytest.approx(3.6, abs=0.01) and far.error_unit == "arcsec"
