"""GPSBench bearing: gold by our own formula, ±5° with wrap-around, degree parsing."""

from __future__ import annotations

import math

import pytest

from tasks import get_task
from tasks.records import Parsed

TASK = get_task("gpsbench.bearing")
ALL = TASK.generate(42, 80)
SECTORS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


def own_bearing(a: list[float], b: list[float]) -> float:
    p1, p2, dl = math.radians(a[0]), math.radians(b[0]), math.radians(b[1] - a[1])
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(math.sin(dl) * math.cos(p2), x)) % 360


def test_gold_on_every_sample() -> None:
    for s in ALL:
        a, b = s.payload["points"]
        deg = own_bearing(a, b)
        assert s.target["bearing_deg"] == pytest.approx(deg, abs=1e-3)
        assert s.target["compass"] == SECTORS[int(((deg + 22.5) % 360) // 45)]
        assert f"({a[0]:.4f}, {a[1]:.4f})" in s.prompt and f"({b[0]:.4f}, {b[1]:.4f})" in s.prompt


@pytest.mark.parametrize(("text", "deg", "compass"), [
    ("FINAL ANSWER: 55.2° (NE)", 55.2, "NE"),
    ("First I got 12°, then... FINAL ANSWER: 169.83 degrees (South)", 169.83, "S"),
    ("FINAL ANSWER: 169.83", 169.83, None),
    ("FINAL ANSWER: approximately 45° northeast", 45.0, "NE"),
    ("FINAL ANSWER: -30°", 330.0, None),
    ("θ = 12.5° at the first step; the answer is 40.5° (NE)", 40.5, "NE"),
])
def test_parser(text: str, deg: float, compass: str | None) -> None:
    p = TASK.parse(text, ALL[0])
    assert p.ok and p.value["bearing_deg"] == pytest.approx(deg) and p.value["compass"] == compass


def test_formula_or_direction_only_is_a_failure() -> None:
    for text in ("FINAL ANSWER: θ = atan2(sin Δλ cos φ2, ...)", "FINAL ANSWER: Northeast"):
        p = TASK.parse(text, ALL[0])
        assert not p.ok and p.reason


def test_wraparound_tolerance() -> None:
    s = ALL[0].model_copy(update={"target": {"bearing_deg": 358.0, "compass": "N"}})
    near = TASK.score(Parsed.success("x", {"bearing_deg": 2.5, "compass": "N"}), s)
    far = TASK.score(Parsed.success("x", {"bearing_deg": 3.5, "compass": None}), s)
    assert near.correct and near.error == pytest.approx(4.5) and near.error_unit == "deg"
    assert not far.correct and far.error == pytest.approx(5.5)
