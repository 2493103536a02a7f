"""Scorer parts, example replies and breakdowns as tasks declare them (tasks/scorers.py, tasks/examples.py)."""

from __future__ import annotations

import pytest

from evals.analysis import dimension_value, dimensions_of
from evals.records import SampleResult
from tasks.answers import coordinate_pair, extract
from tasks.base import GeneratedTask
from tasks.records import Message, Parsed, Sample, Score
from tasks.registry import TASKS, task_names
from tasks.scorers import ChoiceScorer, PairWithinDegrees, WithinKm
from tests.tasks.adversarial import task_for, task_samples


def pair_sample(lat: float, lon: float) -> Sample:
    return Sample(id="t/test/0", task="t", messages=(Message(role="user", content="Where?"),),
                  target={"lat": lat, "lon": lon})


def scored(reply: str, sample: Sample, tolerance: float = 0.01) -> Score:
    return PairWithinDegrees(tolerance)(extract(reply, coordinate_pair), sample)


def test_a_pair_90_degrees_off_in_longitude_is_wrong_and_one_across_the_antimeridian_right() -> None:
    sample = pair_sample(10.0, 179.995)
    assert scored("FINAL ANSWER: 10.0, 179.995", sample).correct
    assert scored("FINAL ANSWER: 10.0, -179.998", sample).correct  # 0.007° across ±180°
    off = scored("FINAL ANSWER: 10.0, 89.995", sample)
    assert not off.correct and off.error == pytest.approx(90.0) and off.error_unit == "deg"
    assert not scored("FINAL ANSWER: 10.02, 179.995", sample).correct


def test_a_pair_scorer_keeps_the_status_of_an_answer_it_cannot_read() -> None:
    score = scored("FINAL ANSWER: 10.0, 179.995 or 11.0, 179.0", pair_sample(10.0, 179.995))
    assert score.status == "hedged" and score.value == 0.0 and not score.correct


def test_the_pair_replies_score_as_they_say() -> None:
    sample = pair_sample(-33.86, 151.21)
    replies = PairWithinDegrees(0.01).replies(sample)
    assert scored(f"FINAL ANSWER: {replies.gold}", sample).correct
    assert not scored(f"FINAL ANSWER: {replies.wrong}", sample).correct
    assert f"({replies.gold})" in replies.others and len(set(replies.others)) == 3


def test_choice_replies_name_the_gold_letter_and_another() -> None:
    sample = Sample(id="t/test/0", task="t", messages=(Message(role="user", content="Which?"),),
                    target={"index": 2}, choices=("a", "b", "c", "d"))
    replies = ChoiceScorer(letters="ABCD").replies(sample)
    assert (replies.gold, replies.wrong, replies.others) == ("C", "D", ["A", "B", "C", "D"])
    assert ChoiceScorer(letters="ABCD")(Parsed.success("C", 2), sample).correct


@pytest.mark.parametrize("name", [n for n in task_names() if TASKS.get(n).__module__.startswith("tasks.")])
def test_every_built_in_task_yields_replies_its_scorer_credits(name: str) -> None:
    """A built-in task never drops out of the adversarial corpus: each yields replies, and its gold is credited."""
    task = task_for(name)
    for sample in task_samples(name)[:1]:
        replies = task.example_replies(sample)
        assert replies is not None and replies.gold and replies.wrong != replies.gold
        if not replies.completion:
            parsed = task.parse(f"FINAL ANSWER: {replies.gold}", sample)
            assert parsed.ok and task.score(parsed, sample).correct, (replies.gold, parsed)


def test_a_task_without_a_scorer_part_says_so() -> None:
    class Bare(GeneratedTask[dict, int]):
        pass
    sample = pair_sample(0.0, 0.0)
    assert Bare().example_replies(sample) is None
    with pytest.raises(NotImplementedError, match="declares no scorer"):
        Bare().score(Parsed.success("1", 1), sample)


def result(task: str, **meta: object) -> SampleResult:
    return SampleResult(run_id="r", sample_id=f"{task}/test/00000", task=task, condition="intrinsic", model="m",
                        meta=dict(meta))


def test_breakdowns_are_the_ones_each_task_declares() -> None:
    gps = result("gpsbench.place_association", continent="Europe", noise_m=500, difficulty="hard", track="applied")
    gtr = result("gtr.next_spot", tier="long", continent="Asia")
    geo = result("geotemp.time_place", continent_l1="Africa", style="plain", noise_m=3)
    assert [dimension_value(gps, d) for d in ("region", "noise", "difficulty", "track")] == [
        "Europe", "500", "hard", "applied"]
    assert dimension_value(gtr, "difficulty") == "long"
    assert dimension_value(gtr, "region") is None  # GTR declares no region: its meta is not guessed at
    assert (dimension_value(geo, "region"), dimension_value(geo, "noise")) == ("Africa", None)
    assert dimension_value(geo, "family") == "geotemp"
    assert dimensions_of([gtr]) == ["family", "difficulty"]
    assert dimensions_of([geo, gps])[0] == "family" and set(dimensions_of([geo, gps])) == {
        "family", "region", "style", "track", "difficulty", "noise"}


def test_a_task_no_longer_registered_breaks_down_by_what_any_task_declares() -> None:
    gone = result("oldplugin.task", continent_l1="Oceania", tier="short")
    assert (dimension_value(gone, "region"), dimension_value(gone, "difficulty")) == ("Oceania", "short")


def test_a_distance_is_credited_within_5_km_or_5_percent() -> None:
    scorer = WithinKm()
    near, far = (Sample(id="t/test/0", task="t", messages=(Message(role="user", content="How far?"),),
                        target={"km": km}) for km in (40.0, 1000.0))
    assert scorer(Parsed.success("44", 44.0), near).correct and not scorer(Parsed.success("46", 46.0), near).correct
    assert scorer(Parsed.success("1049", 1049.0), far).correct
    wrong = scorer(Parsed.success("1051", 1051.0), far)
    assert not wrong.correct and wrong.error == pytest.approx(51.0) and wrong.error_unit == "km"
