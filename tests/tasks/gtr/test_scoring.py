"""ST-IoU and the GTR scorers on hand-made cases: identical, partial overlap, wrong camera, disjoint."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tasks.gtr.scoring import interval_iou, score_forecast, score_mcq, segment_st_iou, st_iou, time_error_s
from tasks.records import Message, Parsed, Sample


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((10.0, 20.0), (10.0, 20.0), 1.0),  # identical
        ((0.0, 10.0), (5.0, 15.0), 5 / 15),  # partial overlap
        ((2.0, 4.0), (0.0, 10.0), 0.2),  # contained
        ((0.0, 10.0), (20.0, 30.0), 0.0),  # disjoint
        ((0.0, 10.0), (10.0, 20.0), 0.0),  # touching at one instant
        ((20.0, 10.0), (10.0, 20.0), 1.0),  # endpoints in either order
        ((5.0, 5.0), (5.0, 5.0), 1.0),  # the same instant
        ((5.0, 5.0), (0.0, 10.0), 0.0),  # an instant has no area
    ],
)
def test_interval_iou(a: tuple[float, float], b: tuple[float, float], expected: float) -> None:
    assert interval_iou(a, b) == pytest.approx(expected)
    assert interval_iou(b, a) == pytest.approx(expected)


def test_segment_needs_the_right_camera() -> None:
    assert segment_st_iou(("C101", (0.0, 10.0)), ("C101", (5.0, 15.0))) == pytest.approx(1 / 3)
    assert segment_st_iou(("c101", (0.0, 10.0)), ("C101", (0.0, 10.0))) == 1.0  # ids are case-insensitive
    assert segment_st_iou(("C102", (0.0, 10.0)), ("C101", (0.0, 10.0))) == 0.0  # wrong camera, perfect time
    assert segment_st_iou(("C101", None), ("C101", (0.0, 10.0))) == 0.0  # no interval given


def test_trajectory_averages_over_segments_and_charges_missing_and_extra() -> None:
    gold = [("C101", (0.0, 10.0)), ("C102", (20.0, 30.0))]
    assert st_iou(gold, gold) == 1.0
    assert st_iou([("C101", (0.0, 10.0)), ("C109", (20.0, 30.0))], gold) == pytest.approx(0.5)
    assert st_iou([("C101", (0.0, 10.0)), ("C102", (25.0, 35.0))], gold) == pytest.approx((1 + 5 / 15) / 2)
    assert st_iou([("C101", (0.0, 10.0))], gold) == pytest.approx(0.5)  # missing segment
    assert st_iou([*gold, ("C103", (40.0, 50.0))], gold) == pytest.approx(2 / 3)  # extra segment
    assert st_iou([("C102", (20.0, 30.0)), ("C101", (0.0, 10.0))], gold) == 0.0  # order matters
    assert st_iou([], gold) == 0.0


def test_time_error_only_counts_right_cameras() -> None:
    gold = [("C101", (0.0, 10.0)), ("C102", (20.0, 30.0))]
    assert time_error_s([("C101", (2.0, 12.0)), ("C109", (0.0, 1.0))], gold) == pytest.approx(2.0)
    assert time_error_s([("C109", (0.0, 10.0))], gold) is None


@given(st.floats(-1e4, 1e4), st.floats(0, 1e3), st.floats(-1e4, 1e4), st.floats(0, 1e3))
def test_iou_is_a_symmetric_fraction(s1: float, w1: float, s2: float, w2: float) -> None:
    v = interval_iou((s1, s1 + w1), (s2, s2 + w2))
    assert 0.0 <= v <= 1.0 + 1e-12
    assert v == pytest.approx(interval_iou((s2, s2 + w2), (s1, s1 + w1)))


def forecast_sample() -> Sample:
    cameras = [["C101"], ["C102"], ["C555"], ["C103"]]
    return Sample(id="gtr.next_spot/test/00000", task="gtr.next_spot", messages=(Message(role="user", content="?"),),
                  target={"index": 0, "letter": "A", "segments": [["C101", [0.0, 10.0]]], "cameras": ["C101"]},
                  choices=tuple(c[0] for c in cameras), payload={"option_cameras": cameras})


@pytest.mark.parametrize(
    ("value", "correct", "st"),
    [
        ({"choice": 0, "segments": [["C101", [0.0, 10.0]]]}, True, 1.0),  # identical
        ({"choice": 0, "segments": [["C101", [5.0, 15.0]]]}, True, 1 / 3),  # right camera, partial overlap
        ({"choice": 0, "segments": [["C101", [30.0, 40.0]]]}, True, 0.0),  # right camera, disjoint interval
        ({"choice": 0, "segments": [["C101", None]]}, True, 0.0),  # right camera, no interval
        ({"choice": 0, "segments": [["C101", [0.0, 100000.0]]]}, True, 1e-4),  # right camera, everything
        ({"choice": 1, "segments": [["C102", [0.0, 10.0]]]}, False, 0.0),  # wrong camera, perfect time
        ({"choice": None, "segments": [["C999", [0.0, 10.0]]]}, False, 0.0),  # a camera of no option
    ],
)
def test_score_forecast_reports_st_iou_and_mcq(value: dict, correct: bool, st: float) -> None:
    s = forecast_sample()
    score = score_forecast(Parsed.success("x", value), s)
    assert score.correct is correct
    assert score.value == pytest.approx(st)
    assert score.error_unit == "s"
    assert f"mcq_correct={correct}" in score.explanation and f"st_iou={st:.3f}" in score.explanation


@pytest.mark.parametrize("status", ["hedged", "unparsed", "refused"])
def test_unanswered_scores_zero_with_its_status(status: str) -> None:
    s = forecast_sample()
    parsed = {"hedged": Parsed.hedged("x", "A or B"), "unparsed": Parsed.failure("blah", "no FINAL ANSWER line"),
              "refused": Parsed.refused("I cannot")}[status]
    for score in (score_forecast(parsed, s), score_mcq(parsed, s)):
        assert (score.correct, score.value, score.parse_failed, score.status) == (False, 0.0, True, status)
    assert score_mcq(Parsed.success("x", {"choice": 3}), s).correct is False
    assert score_mcq(Parsed.success("x", {"choice": 0}), s).value == 1.0
