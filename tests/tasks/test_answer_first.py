"""Answer first, working after (issue 34): a reply with no answer label, box or committing cue whose first line is a
sentence stating the answer commits to it, whatever its working says last; the working is still read for a second
answer, and a first line that restates the question, assumes, rejects or asks, or is a bare value followed by more
text, commits to nothing (the reply stays ``unlocated``)."""

from __future__ import annotations

import pytest

from tasks import get_task
from tasks.records import Sample
from tests.tasks.adversarial import runner_score
from tests.tasks.real_replies import load

WORKING = ("\n\nWorking: with the haversine formula, a = sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2) ≈ 0.7734, "
           "c = 2·atan2(√a, √(1−a)) ≈ 2.1458, and d = 6371 km × 2.1458.")


def _sample(task: str, where: str) -> Sample:
    line = next(x for x in load() if x["task"] == task and where in x["key"])
    return Sample.model_validate(line["sample"])


def _read(task: str, where: str, text: str) -> tuple[str, bool]:
    parsed, score = runner_score(get_task(task), _sample(task, where), text)
    return parsed.status, bool(score.correct)


DISTANCE = ("gpsbench.distance", "gpsbench.distance/test/00004/intrinsic")  # gold 13,670.9 km


@pytest.mark.parametrize("first", [
    "The great-circle distance is approximately 13,670 km.",
    "The distance between the two points comes to about 13,671 km.",
    "So the two points are roughly 13,670 km apart, which is the great-circle distance.",
])
def test_a_stated_first_line_is_the_answer_whatever_the_working_ends_on(first: str) -> None:
    assert _read(*DISTANCE, first + WORKING) == ("answered", True)


def test_a_wrong_stated_first_line_is_answered_and_not_credited() -> None:
    assert _read(*DISTANCE, "The great-circle distance is approximately 9,120 km." + WORKING) == ("answered", False)


def test_an_alternative_offered_after_the_first_line_is_a_hedge() -> None:
    text = "The great-circle distance is approximately 13,670 km." + WORKING + "\nIt could also be 12,900 km."
    assert _read(*DISTANCE, text) == ("hedged", False)


@pytest.mark.parametrize("first", [
    "Using R = 6371 km, the points are given as (40.7062, -74.5493) and (10.7505, 78.7763).",  # assumes, restates
    "Is the distance about 13,670 km?",  # asks
    "13,670 km",  # a bare value followed by more text is not only the answer
    "It is not 9,000 km, because the longitudes differ by more than 150 degrees.",  # rejects
])
def test_a_first_line_that_does_not_state_an_answer_commits_to_nothing(first: str) -> None:
    assert _read(*DISTANCE, first + WORKING) == ("unlocated", False)


def test_a_short_first_line_is_a_bare_value_even_with_an_equals_sign() -> None:
    assert _read(*DISTANCE, "Distance ≈ 13,671 km." + WORKING) == ("unlocated", False)
