"""The adversarial corpus over every registered task and both prompt styles, and the hedging properties: a reply
that lists every option or a dense list of values never scores; the gold written plainly scores 1 everywhere.

Expected statuses and credit come from each template's meaning (tests/tasks/adversarial.py), not from a parser.
Each task yields its own answer kit (its example replies); a task registered that yields none is skipped with that
reason, never failed: these tests do not depend on what else is registered.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.records import ANSWER_STATUSES
from tasks.registry import task_names
from tests.tasks.adversarial import Case, build_corpus, has_kit, kit_for, runner_score, task_for, task_samples

ALL_TASKS = task_names()


@lru_cache(maxsize=1)
def kitted() -> tuple[str, ...]:
    """The registered tasks that yield example replies (every built-in one)."""
    return tuple(n for n in ALL_TASKS if has_kit(n))


def _kit_or_skip(name: str) -> None:
    if not has_kit(name):
        pytest.skip(f"{name} yields no example replies")


@lru_cache(maxsize=1)
def corpus() -> tuple[Case, ...]:
    return tuple(build_corpus(list(kitted())))


def test_corpus_covers_every_task_both_styles_and_every_status() -> None:
    cases = corpus()
    assert len(cases) >= 1000
    assert {c.task for c in cases} == set(kitted()) and len(kitted()) >= 60  # the built-in tasks have kits
    styles = Counter("completion" if c.sample.meta.get("style") == "completion" else "chat" for c in cases)
    assert styles["completion"] >= 100 and styles["chat"] >= 500
    statuses = Counter(c.status for c in cases)
    assert set(statuses) == set(ANSWER_STATUSES) - {"truncated", "blocked"}  # those come from the call's ending
    assert len({c.id for c in cases}) == len(cases)


def _failures(name: str) -> list[str]:
    task = task_for(name)
    out = []
    for c in (c for c in corpus() if c.task == name):
        parsed, score = runner_score(task, c.sample, c.reply)
        got_credit = score.correct and score.value == 1.0
        bad_status = parsed.status != c.status or score.status != c.status
        bad_credit = (c.credited is not None and got_credit != c.credited) or (
            c.status != "answered" and (score.correct or score.value > 0))
        if bad_status or bad_credit:
            out.append(f"{c.id}: expected {c.status}{'/credited' if c.credited else ''}, got {parsed.status}"
                       f"{'/credited' if got_credit else ''} (value {score.value:.2f}; {parsed.reason}) "
                       f"reply={c.reply[:90]!r}")
    return out


@pytest.mark.parametrize("name", ALL_TASKS)
def test_adversarial_corpus(name: str) -> None:
    _kit_or_skip(name)
    failures = _failures(name)
    assert not failures, f"{len(failures)} cases of {name}:\n" + "\n".join(failures)


SEPARATORS = (", ", " or ", "; ", " and ")


@pytest.mark.parametrize("name", ALL_TASKS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_listing_every_option_or_many_values_never_scores(name: str, data: st.DataObject) -> None:
    _kit_or_skip(name)
    samples = task_samples(name)
    sample = data.draw(st.sampled_from(samples))
    kit = kit_for(sample)
    if len(kit.others) < 2:
        return
    listed = data.draw(st.permutations(kit.others))
    sep = data.draw(st.sampled_from(kit.seps or SEPARATORS))
    prefix = "" if kit.completion else data.draw(st.sampled_from(("FINAL ANSWER: ", "**FINAL ANSWER:** ")))
    reply = prefix + sep.join(listed)
    parsed, score = runner_score(task_for(name), sample, reply)
    assert parsed.status != "answered", f"{reply!r} was read as {parsed.value!r}"
    assert not score.correct and score.value == 0.0


@pytest.mark.parametrize("name", ALL_TASKS)
def test_gold_written_plainly_scores_one(name: str) -> None:
    _kit_or_skip(name)
    for sample in task_samples(name):
        kit = kit_for(sample)
        reply = kit.gold if kit.completion else f"FINAL ANSWER: {kit.gold}"
        parsed, score = runner_score(task_for(name), sample, reply)
        assert parsed.status == "answered", (reply, parsed.reason)
        assert score.correct and score.value == 1.0, (reply, score.explanation)
