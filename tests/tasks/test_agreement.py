"""The agreement command (tests/tasks/agreement.py) on the project's labelled sets: correct replies credited
>= 99 % and hedges and wrong answers credited <= 0.5 %, pooled and in every set for the leaks; the figures come
from the human labels, never from the reader; a set that misses the targets fails."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from functools import cache

from tasks import get_task
from tests.tasks.agreement import (
    CREDITED_MIN,
    LEAK_MAX,
    STYLED_REPLIES,
    Figures,
    Read,
    groups,
    load_sets,
    main,
    read,
    report,
)
from tests.tasks.real_replies import load


@cache
def reads() -> tuple[Read, ...]:
    return tuple(read(item) for item in load_sets())


def _by(name: str) -> dict[str, Figures]:
    return {k.removeprefix(name + " "): f for k, f in groups(reads()) if k.startswith(name + " ")}


def test_the_pooled_labelled_sets_meet_the_targets() -> None:
    pooled = groups(reads())[-1][1]
    assert pooled.meets, report(reads(), failures=30)
    assert pooled.n["correct"] >= 3_000 and pooled.n["hedge"] >= 3_000 and pooled.n["wrong"] >= 1_000


def test_no_set_condition_or_model_family_credits_a_hedge_or_a_wrong_answer() -> None:
    for name in ("set", "condition", "model family", "family"):
        for key, f in _by(name).items():
            for label in ("hedge", "wrong"):
                share = f.share(label)
                assert share is None or share <= LEAK_MAX, f"{name} {key}: {label} {share}\n" + report(reads(), failures=30)


def test_the_real_replies_and_the_corpus_each_meet_the_credit_target() -> None:
    sets = _by("set")
    for name in ("real", "corpus"):
        assert (sets[name].share("correct") or 0) >= CREDITED_MIN, report(reads(), failures=30)


def test_the_styled_set_covers_model_families_and_both_conditions_with_labels_of_every_class() -> None:
    lines = load(STYLED_REPLIES)
    assert {line["model_family"] for line in lines} >= {"gpt", "claude", "gemini", "qwen", "r1", "llama"}
    assert Counter(line["condition"] for line in lines).keys() == {"intrinsic", "tools"}
    tools = [line for line in lines if line["condition"] == "tools"]
    assert sum(line["text"].lstrip().startswith("{") for line in tools) >= 4  # the tools condition's JSON echoes
    assert {(line["status"], line["credited"]) for line in lines} >= {("answered", True), ("answered", False),
                                                                       ("hedged", False), ("unlocated", False)}
    assert all(json.dumps(line["sample"]) for line in lines)


def test_a_credited_hedge_or_a_missed_correct_reply_fails_the_targets() -> None:
    hedge = next(r for r in reads() if r.item.label == "hedge")
    correct = [r for r in reads() if r.item.label == "correct"][:100]
    leaky, missed = Figures(), Figures()
    for r in [*correct, replace(hedge, credited=True)]:
        leaky.add(r)
    for i, r in enumerate(correct):
        missed.add(replace(r, credited=i >= 2))  # 98 of 100
    assert not leaky.meets and not missed.meets


def test_the_command_prints_the_table_and_exits_0_when_the_targets_are_met(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["--sets", "real", "--failures", "0"]) == 0
    out = capsys.readouterr().out
    assert "correct credited" in out and "condition tools" in out and "model family qwen" in out
    assert main(["--sets", "nosuch"]) == 2


def judge_none(messages: object, tools: list[str]) -> str:
    return "NONE"


def test_a_judge_is_measured_on_the_replies_the_rules_leave_unlocated_and_stored(tmp_path, monkeypatch,  # type: ignore[no-untyped-def]
                                                                                  capsys) -> None:
    from evals.judge import agreement_line
    from tests.tasks.agreement import judge_reads, judge_summary

    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path))
    unlocated = [r for r in reads() if r.status == "unlocated"]
    none = judge_summary(judge_reads(reads(), "scripted/tests.tasks.test_agreement:judge_none"))
    assert none["n"] == len(unlocated) > 0
    assert none["agree"] == sum(r.item.label in ("hedge", "none") for r in unlocated)  # NONE locates nothing
    assert main(["--sets", "real", "--failures", "0", "--judge", "scripted/tests.tasks.test_agreement:judge_none"]) == 0
    assert "judge scripted/tests.tasks.test_agreement:judge_none: agrees" in capsys.readouterr().out
    assert "agrees with the human label" in agreement_line("scripted/tests.tasks.test_agreement:judge_none")


def test_the_structured_set_meets_the_targets_over_every_answer_kind_and_label() -> None:
    structured = [r for r in reads() if r.item.channel == "structured"]
    figures = Figures()
    for r in structured:
        figures.add(r)
    assert figures.meets, report(structured, failures=30)
    assert {getattr(get_task(r.item.task), "answer_kind", "text") for r in structured} >= {
        "option", "quantity", "number", "coordinate", "time", "text"}
    assert all(figures.n[label] >= 3 for label in ("correct", "wrong", "hedge")) and figures.n["none"] >= 1
    assert {r.item.condition for r in structured} == {"intrinsic", "tools"}
    real = [r for r in structured if r.item.key.startswith("real/")]  # the embedded model's own calls and JSON
    assert len(real) >= 20 and {r.item.condition for r in real} == {"intrinsic", "tools"}
