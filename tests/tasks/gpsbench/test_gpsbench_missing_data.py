"""GPSBench missing-data probe: the hidden coordinate against raw GeoNames, ±0.1°, hemisphere letters."""

from __future__ import annotations

import pytest
from gps_oracles import raw_cities

from tasks import get_task
from tasks.records import Parsed

TASK = get_task("gpsbench.missing_data")
ALL = TASK.generate(42, 60)


def test_gold_on_every_sample() -> None:
    assert {s.target["missing"] for s in ALL} == {"lat", "lon"}
    for s in ALL:
        row = raw_cities()[s.payload["geonameid"]]
        missing = s.target["missing"]
        hidden = float(row["longitude"] if missing == "lon" else row["latitude"])
        shown = float(row["latitude"] if missing == "lon" else row["longitude"])
        assert s.target["value"] == pytest.approx(hidden, abs=1e-5)
        assert f"{shown:.5f}°" in s.prompt and row["name"] in s.prompt
        assert f"{hidden:.3f}" not in s.prompt


def test_parsing_and_tolerance() -> None:
    s = next(x for x in ALL if x.target["missing"] == "lon")
    v = s.target["value"]
    letter = "W" if v < 0 else "E"
    assert TASK.score(TASK.parse(f"FINAL ANSWER: {abs(v) + 0.09:.4f}°{letter}", s), s).correct
    assert TASK.score(TASK.parse(f"FINAL ANSWER: longitude = {v - 0.05:.3f}", s), s).correct
    assert not TASK.parse(f"FINAL ANSWER: {abs(v):.3f}°N", s).ok  # a latitude letter for a longitude
    assert not TASK.score(Parsed.success("x", v + 0.11), s).correct
