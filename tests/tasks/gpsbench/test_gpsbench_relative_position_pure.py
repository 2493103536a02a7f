"""GPSBench relative position (pure): cross-continent pairs, sector margin, whole-word direction parsing."""

from __future__ import annotations

import math

import pytest

from tasks import get_task

TASK = get_task("gpsbench.relative_position_pure")
ALL = TASK.generate(42, 80)
NAMES = ["North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest"]


def own_bearing(a: list[float], b: list[float]) -> float:
    p1, p2, dl = math.radians(a[0]), math.radians(b[0]), math.radians(b[1] - a[1])
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(math.sin(dl) * math.cos(p2), x)) % 360


def test_gold_on_every_sample() -> None:
    for s in ALL:
        a, b = s.payload["points"]
        deg = own_bearing(a, b)
        assert s.target["name"] == NAMES[int(((deg + 22.5) % 360) // 45)]
        offset = (deg - 22.5) % 45
        assert min(offset, 45 - offset) >= 2.0
        c1, c2 = s.meta["continents"].split("-")
        assert c1 != c2
        assert list(s.choices or ()) == NAMES


@pytest.mark.parametrize(("text", "direction"), [
    ("FINAL ANSWER: Northeast", "NE"), ("FINAL ANSWER: north-east", "NE"), ("FINAL ANSWER: NE", "NE"),
    ("FINAL ANSWER: North", "N"), ("FINAL ANSWER: **West**", "W"), ("FINAL ANSWER: D) West", "W"),
    ("B lies to the south west of A.\nFINAL ANSWER: South West", "SW"),
    ("It is north of the equator.\nSoutheast", "SE"),
])
def test_parser_whole_words(text: str, direction: str) -> None:
    p = TASK.parse(text, ALL[0])
    assert p.ok and p.value == direction


@pytest.mark.parametrize("text", [
    "FINAL ANSWER: North or Northeast", "FINAL ANSWER: NNE", "FINAL ANSWER: north-northeast", "FINAL ANSWER: up",
])
def test_ambiguous_or_sixteen_point_answers_fail(text: str) -> None:
    assert not TASK.parse(text, ALL[0]).ok


def test_north_is_not_northeast() -> None:
    s = next(x for x in ALL if x.target["direction"] == "NE") if any(x.target["direction"] == "NE" for x in ALL) \
        else ALL[0].model_copy(update={"target": {"direction": "NE", "name": "Northeast", "bearing_deg": 45.0}})
    north = TASK.score(TASK.parse("FINAL ANSWER: North", s), s)
    assert not north.correct and north.error == 45.0
