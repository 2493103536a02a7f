"""GPSBench route analysis: detour rule (< 10 %) against geopy, balanced labels, whole-word yes/no."""

from __future__ import annotations

import pytest
from geopy.distance import great_circle
from gps_oracles import latlon

from tasks import get_task

TASK = get_task("gpsbench.route_analysis")
ALL = TASK.generate(42, 60)


def test_gold_on_every_sample() -> None:
    assert sum(s.target["on_route"] for s in ALL) == 30
    for s in ALL:
        a, b, c = (latlon(g) for g in s.payload["geonameids"])
        d = lambda p, q: great_circle(p, q, radius=6371).km  # noqa: E731
        detour = (d(a, c) + d(c, b) - d(a, b)) / d(a, b)
        assert s.target["on_route"] == (detour < 0.10) and abs(detour - 0.10) >= 0.01 - 1e-9
        assert s.target["detour_pct"] == pytest.approx(detour * 100, abs=1e-3)
        assert min(d(a, b), d(a, c), d(b, c)) >= 200


@pytest.mark.parametrize(("text", "value"), [
    ("FINAL ANSWER: Yes", True), ("FINAL ANSWER: No (detour: 170.4%)", False), ("FINAL ANSWER: **no**", False),
    ("It lies north of the route.\nNo", False),
])
def test_parser(text: str, value: bool) -> None:
    p = TASK.parse(text, ALL[0])
    assert p.ok and p.value is value


@pytest.mark.parametrize("text", ["FINAL ANSWER: north", "FINAL ANSWER: Yes and no", "FINAL ANSWER: nothing",
                                  "FINAL ANSWER: Not on route"])
def test_no_inside_other_words_is_not_no(text: str) -> None:
    assert not TASK.parse(text, ALL[0]).ok
