"""GPSBench route geometry: gold against an own RDP (vector geometry on the sphere), robustness of epsilon, parsing."""

from __future__ import annotations

import pytest

from tasks import get_task
from tasks.records import Parsed
from tests.tasks.tool_references import rdp_indices

TASK = get_task("gpsbench.route_geometry")
ALL = TASK.generate(42, 80)


def test_gold_on_every_sample() -> None:
    for s in ALL:
        pts, eps = s.payload["points"], s.payload["epsilon_km"]
        assert 8 <= len(pts) <= 15 and 0.5 <= eps <= 2.0
        kept = s.target["kept"]
        assert rdp_indices(pts, eps * 970) == rdp_indices(pts, eps * 1000) == kept == rdp_indices(pts, eps * 1030)
        assert 2 < len(kept) < len(pts)
        assert f"epsilon = {eps:.1f} km" in s.prompt and all(f"{k}: ({p[0]:.4f}, {p[1]:.4f})" in s.prompt
                                                             for k, p in enumerate(pts))


@pytest.mark.parametrize(("text", "value"), [
    ("FINAL ANSWER: [0, 1, 4, 5, 6, 7, 11]", [0, 1, 4, 5, 6, 7, 11]),
    ("FINAL ANSWER: A (points kept: [0, 11, 1, 4])", [0, 1, 4, 11]),
    ("FINAL ANSWER: 0, 3 and 9", [0, 3, 9]),
])
def test_parser(text: str, value: list[int]) -> None:
    p = TASK.parse(text, ALL[0])
    assert p.ok and p.value == value


def test_exact_set_and_error_count() -> None:
    s = ALL[0]
    gold = s.target["kept"]
    assert TASK.score(Parsed.success("x", gold), s).correct
    extra = TASK.score(Parsed.success("x", sorted(set(gold) | {99})), s)
    assert not extra.correct and extra.error == 1 and extra.error_unit == "indices"
    assert not TASK.parse("I would keep the corners.", s).ok
