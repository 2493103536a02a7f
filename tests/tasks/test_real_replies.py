"""The hand-labelled replies of the embedded models (tests/tasks/real_replies.jsonl) against the parsers: the set
is large and covers every family, both conditions and both prompt styles, and the runner's reading agrees with
the grader's on at least 99 % of it, never crediting a reply the grader did not."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evals import api
from tests.tasks import real_replies
from tests.tasks.real_replies import REAL_REPLIES, agreement, collect, judge, load, report

FAMILIES = {"gpsbench", "geotemp", "stbench", "gtr"}


def test_the_set_is_large_real_and_covers_every_family_condition_and_style() -> None:
    lines = load()
    assert len(lines) >= 300
    assert len({line["key"] for line in lines}) == len(lines)
    assert {real_replies.family(line["task"]) for line in lines} == FAMILIES
    conditions = Counter("tools" if line["condition"].startswith("tools") else line["condition"] for line in lines)
    assert conditions["intrinsic"] >= 100 and conditions["tools"] >= 100
    assert all(line["model"].startswith("local/") for line in lines)  # the embedded models' own replies
    completion = sum(line["task"].endswith(".completion") for line in lines)
    assert completion >= 20 and len(lines) - completion >= 200
    labels = Counter(line["status"] for line in lines)
    assert labels["answered"] >= 100 and sum(line["credited"] for line in lines) >= 30


def test_the_parsers_agree_with_the_hand_labels() -> None:
    outcomes = judge(load())
    assert agreement(outcomes) >= 0.99, report(outcomes, failures=40)
    leaks = [o for o in outcomes if o.credited and not o.line["credited"]]
    assert not leaks, report(leaks, failures=40)


def test_a_line_without_a_hand_label_is_refused(tmp_path: Path) -> None:
    line = json.loads(REAL_REPLIES.read_text(encoding="utf-8").splitlines()[0])
    for broken in ({k: v for k, v in line.items() if k != "status"}, {**line, "status": "maybe"},
                   {**line, "status": "truncated", "credited": True}):
        path = tmp_path / "r.jsonl"
        path.write_text(json.dumps(broken) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match="r.jsonl:1"):
            load(path)


def _answer(messages: object, tools: list[str]) -> str:
    return "The distance is about 111 km.\nFINAL ANSWER: 111.2 km"


def test_collect_takes_each_replys_text_sample_and_finish_reason_from_a_run(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    api.run("scripted/tests.tasks.test_real_replies:_answer", tasks="gpsbench.distance", limit=2,
            conditions="intrinsic", output=str(run_dir))
    lines = collect(run_dir)
    assert len(lines) == 2
    for line in lines:
        assert line["text"].endswith("FINAL ANSWER: 111.2 km") and line["condition"] == "intrinsic"
        assert line["sample"]["task"] == "gpsbench.distance" and line["sample"]["id"] in line["key"]
        assert line["model"] == "scripted/tests.tasks.test_real_replies:_answer"
        assert "finish_reason" in line
    read = real_replies.read({**lines[0], "status": "answered", "credited": False})
    assert read.status == "answered" and not read.credited  # 111.2 km is no answer to a random pair's distance
    assert real_replies.read({**lines[0], "finish_reason": "length"}).status == "truncated"
