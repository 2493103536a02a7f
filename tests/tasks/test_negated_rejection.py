"""A rejection negated keeps the alternative open (issue 34, "an answer followed by an uncommitted alternative is a
hedge"): "though C is not out of the question", "D can't be ruled out", "Lyon cannot be excluded", "12,900 km isn't
impossible either" leave a second answer open, in the answer's line or the line after, whatever the task; a plain
rejection ("C is ruled out", "not D") stays a rejection."""

from __future__ import annotations

import pytest

from tasks import get_task
from tasks.records import Sample
from tests.tasks.adversarial import runner_score
from tests.tasks.real_replies import load


def _read(task: str, where: str, text: str) -> tuple[str, bool]:
    line = next(x for x in load() if x["task"] == task and where in x["key"])
    parsed, score = runner_score(get_task(task), Sample.model_validate(line["sample"]), text)
    return parsed.status, bool(score.correct)


ARRIVAL = ("gtr.arrival_interval", "gtr.arrival_interval/test/00007/")  # gold B
NAME = ("gpsbench.name_disambiguation", "gpsbench.name_disambiguation/test/00003/")  # gold C
DISTANCE = ("gpsbench.distance", "gpsbench.distance/test/00004/intrinsic")  # gold 13,670.9 km
PLACE = ("gpsbench.place_association", "gpsbench.place_association/test/00000/")  # gold Irkutsk


@pytest.mark.parametrize(("where", "text"), [
    (ARRIVAL, "The interval is most likely B, [203.3, 211.2], though C is not out of the question."),
    (ARRIVAL, "FINAL ANSWER: B\nC can't be ruled out given the speed range."),
    (NAME, "FINAL ANSWER: C (B cannot be excluded)"),
    (NAME, "The place is C) Guadalupe, Colombia, although D isn't impossible either."),
    (DISTANCE, "FINAL ANSWER: 13,670 km\n12,900 km is not unlikely if the latitudes were misread."),
    (PLACE, "FINAL ANSWER: Irkutsk, Irkutsk Oblast, Russia\nAngarsk can't be excluded at this noise level."),
])
def test_a_negated_rejection_after_the_answer_is_a_hedge(where: tuple[str, str], text: str) -> None:
    assert _read(*where, text) == ("hedged", False)


@pytest.mark.parametrize(("where", "text"), [
    (ARRIVAL, "FINAL ANSWER: B\nC is ruled out: the target could not reach C836 that late."),
    (NAME, "FINAL ANSWER: C\nNot D: Costa Rica is far north of the point."),
])
def test_a_plain_rejection_stays_a_rejection(where: tuple[str, str], text: str) -> None:
    assert _read(*where, text) == ("answered", True)
