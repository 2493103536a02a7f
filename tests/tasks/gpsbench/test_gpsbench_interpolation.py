"""GPSBench interpolation: gold against pyproj's great circle on the sphere R = 6371 km."""

from __future__ import annotations

import pytest
from pyproj import Geod

from tasks import get_task
from tasks.records import Parsed

TASK = get_task("gpsbench.interpolation")
ALL = TASK.generate(42, 80)
SPHERE = Geod(a=6_371_000, b=6_371_000)


def test_gold_on_every_sample() -> None:
    assert {s.target["fraction"] for s in ALL} == {0.25, 0.5, 0.75}
    for s in ALL:
        (a, b), f = s.payload["points"], s.payload["fraction"]
        az, _, dist = SPHERE.inv(a[1], a[0], b[1], b[0])
        assert dist >= 500_000
        lon, lat, _ = SPHERE.fwd(a[1], a[0], az, f * dist)
        assert s.target["lat"] == pytest.approx(lat, abs=1e-5)
        assert abs((s.target["lon"] - lon + 180) % 360 - 180) < 1e-5
        assert f"{f:g} of the way" in s.prompt


def test_parser_and_tolerance() -> None:
    s = ALL[0].model_copy(update={"target": {"lat": 25.089, "lon": -76.56, "fraction": 0.5}})
    assert TASK.score(TASK.parse("FINAL ANSWER: 25.089°N, 76.560°W", s), s).correct
    assert TASK.score(TASK.parse("FINAL ANSWER: lon -76.555, lat 25.085", s), s).correct
    gpt = TASK.score(TASK.parse("FINAL ANSWER: 25.104°N, 76.484°W", s), s)  # App. F.4's near miss
    assert not gpt.correct and gpt.error == pytest.approx(0.076, abs=1e-6)
    swapped_sign = TASK.score(TASK.parse("FINAL ANSWER: 25.089, 76.560", s), s)
    assert not swapped_sign.correct
    edge = ALL[0].model_copy(update={"target": {"lat": 0.0, "lon": 179.995, "fraction": 0.5}})
    assert TASK.score(Parsed.success("x", {"lat": 0.0, "lon": -179.999}), edge).correct
