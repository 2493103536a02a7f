"""Answers that know nothing score at chance: a constant letter, or a random option with a random interval, gets
about 1 / (number of options) on the camera choice and almost no ST-IoU, on 300 generated items per prediction
task. (Before the paper's form, always answering ``A`` earned mean ST-IoU 0.28 / 0.52 / 0.40.)"""

from __future__ import annotations

import random
from functools import cache

import pytest

from tasks import get_task
from tasks.gtr.prompts import LETTERS
from tasks.records import Sample

FORECAST = ("gtr.next_spot", "gtr.trajectory_forecast", "gtr.multi_target")
MCQ = ("gtr.geo_location", "gtr.arrival_interval", "gtr.motion_state", "gtr.causal_reordering")
N = 300
MARGIN = 0.1  # 4 standard errors of a 1/4 proportion over 300 items


@cache
def items(name: str, n: int = N) -> tuple[Sample, ...]:
    return tuple(get_task(name, size=n).generate(seed=0, size=n))


def rates(name: str, answer: str | None, rng: random.Random, n: int = N) -> tuple[float, float, float]:
    """(camera-choice accuracy, mean ST-IoU, chance) of a constant reply, or of a random option with random
    intervals in [0, 500] s when ``answer`` is None."""
    task = get_task(name)
    correct, value, chance = 0, 0.0, 0.0
    for s in items(name, n):
        if answer is None:
            i = rng.randrange(len(s.choices))
            ivs = [(a := rng.uniform(0, 500), a + rng.uniform(4, 20)) for _ in s.payload["option_cameras"][i]]
            reply = f"{LETTERS[i]}; " + "; ".join(f"{c} [{lo:.1f}, {hi:.1f}]" for c, (lo, hi) in
                                                 zip(s.payload["option_cameras"][i], ivs, strict=True))
        else:
            reply = answer
        score = task.score(task.parse(f"FINAL ANSWER: {reply}", s), s)
        correct += score.correct
        value += score.value
        chance += 1 / len(s.choices)
    return correct / n, value / n, chance / n


@pytest.mark.parametrize("name", FORECAST)
def test_constant_letter_is_chance_on_the_choice_and_zero_st_iou(name: str) -> None:
    accuracy, st_iou, chance = rates(name, "A", random.Random(0))
    assert abs(accuracy - chance) < MARGIN, (accuracy, chance)
    assert st_iou == 0.0  # a letter states no interval
    first_camera = {s.payload["option_cameras"][0][0] for s in items(name)}
    assert len(first_camera) > N // 2  # "A" is a different camera on nearly every item


@pytest.mark.parametrize("name", FORECAST)
def test_random_option_and_interval_is_chance_and_near_zero_st_iou(name: str) -> None:
    accuracy, st_iou, chance = rates(name, None, random.Random(1))
    assert abs(accuracy - chance) < MARGIN, (accuracy, chance)
    assert st_iou < 0.05, st_iou


@pytest.mark.parametrize("name", MCQ)
def test_constant_letter_is_chance_on_mcq_tasks(name: str) -> None:
    accuracy, _, chance = rates(name, "A", random.Random(0), n=120)
    assert abs(accuracy - chance) < 0.15, (accuracy, chance)
