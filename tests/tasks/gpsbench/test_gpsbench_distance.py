"""GPSBench distance: sampling rules, gold against geopy, parser and scorer."""

from __future__ import annotations

from collections import Counter

import pytest
from geopy.distance import great_circle
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.gpsbench.distance import DistanceTask, tolerance_km
from tasks.records import Parsed

TASK = DistanceTask(size=300)
ALL = TASK.generate(42, 300)


def test_gold_matches_geopy_on_every_sample_and_separation() -> None:
    for s in ALL:
        (a, b) = s.payload["points"]
        ref = great_circle(tuple(a), tuple(b), radius=6371.0).km
        assert s.target["km"] == pytest.approx(ref, abs=1e-3)
        assert s.target["km"] >= 50.0
        # the prompt shows exactly the coordinates the gold was computed from
        assert f"({a[0]:.4f}, {a[1]:.4f})" in s.prompt and f"({b[0]:.4f}, {b[1]:.4f})" in s.prompt
        assert s.messages[0].role == "system" and "FINAL ANSWER" in s.prompt


def test_continent_quotas_roughly_hold() -> None:
    counts = Counter(s.meta["continent"] for s in DistanceTask(size=2000).generate(1, 2000))
    quotas = {"AF": 0.20, "AS": 0.25, "EU": 0.20, "NA": 0.15, "SA": 0.15, "OC": 0.05}
    for cont, q in quotas.items():
        assert abs(counts[cont] / 2000 - q) < 0.04, (cont, counts)
    assert all(s.meta["subregion"] for s in ALL)


@pytest.mark.parametrize(
    ("text", "km"),
    [
        ("FINAL ANSWER: 8,610.5 km", 8610.5),
        ("FINAL ANSWER: 8 610.5 km", 8610.5),
        ("Step 1: 12 km ... FINAL ANSWER: approximately 2,280 km (1,417 miles)", 2280.0),
        ("FINAL ANSWER: 1,417 miles", 1417 * 1.609344),
        ("**FINAL ANSWER:** **2280**", 2280.0),
        ("final answer: 950000 m", 950.0),
        ("The distance is about 343.6 kilometres.", 343.6),
        ("First I get 100 km, then correcting: 343.6 km", 343.6),
    ],
)
def test_parser(text: str, km: float) -> None:
    parsed = TASK.parse(text, ALL[0])
    assert parsed.ok and parsed.value == pytest.approx(km)


def test_parse_failures_keep_raw_text() -> None:
    for text in ["I cannot compute that.", "FINAL ANSWER: d = 2R·asin(√h)", ""]:
        parsed = TASK.parse(text, ALL[0])
        assert not parsed.ok and parsed.raw == text and parsed.reason
        score = TASK.score(parsed, ALL[0])
        assert score.parse_failed and not score.correct


def test_scorer_tolerance_and_error() -> None:
    s = ALL[0]
    gold = s.target["km"]
    tol = tolerance_km(gold)
    assert tol == max(5.0, 0.05 * gold)
    inside = TASK.score(Parsed.success("x", gold + tol * 0.99), s)
    outside = TASK.score(Parsed.success("x", gold + tol * 1.01), s)
    assert inside.correct and inside.value == 1.0 and inside.error == pytest.approx(tol * 0.99)
    assert not outside.correct and outside.error_unit == "km"
    assert tolerance_km(40.0) == 5.0


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parser_never_raises(text: str) -> None:
    assert isinstance(TASK.parse(text, ALL[0]), Parsed)
