"""The labelled reply corpus (tests/tasks/answer_corpus.py) against the parsers: correct replies in every model
family's style are credited, hedges and non-answers never are. The fast tier reads a seeded tenth of the corpus;
the slow tier reads all of it (over 10,000 replies) and holds every (task, prompt style) cell to the targets."""

from __future__ import annotations

from collections import Counter
from functools import cache

from tests.tasks.answer_corpus import FAMILIES, LABELS, Reply, build, cells, judge, report

CREDITED_MIN = 0.99
LEAK_MAX = 0.005


@cache
def corpus() -> tuple[Reply, ...]:
    return tuple(build())


def test_corpus_is_large_seeded_and_covers_every_task_style_family_and_label() -> None:
    replies = corpus()
    assert len(replies) >= 10_000
    assert build(["gpsbench.distance"]) == [r for r in replies if r.task == "gpsbench.distance"]  # seeded
    assert {r.family for r in replies} == set(FAMILIES) and {r.label for r in replies} == set(LABELS)
    styles = Counter(r.prompt_style for r in replies)
    assert styles["chat"] > 5_000 and styles["completion"] > 1_000


def test_sampled_corpus_agrees() -> None:
    outcomes = judge(corpus()[::10])
    total = cells(outcomes, lambda o: "all")["all"]
    assert total.credited_share >= CREDITED_MIN and total.leak_share <= LEAK_MAX, report(outcomes, failures=30)
    leaks = [o for o in outcomes if o.reply.label not in ("correct", "wrong") and o.credited]
    assert not leaks, report(leaks, failures=30)


def test_whole_corpus_meets_the_targets_in_every_cell() -> None:
    outcomes = judge(corpus())
    by_cell = cells(outcomes, lambda o: f"{o.reply.task} [{o.reply.prompt_style}]")
    bad = {k: c for k, c in by_cell.items() if c.credited_share < CREDITED_MIN or c.leak_share > LEAK_MAX}
    assert not bad, report(outcomes, failures=40)
