"""Behaviour is kept: the quick suite with a fixed scripted policy (:mod:`tests.evals.fixed_policy`) in four
conditions gives, sample for sample, the scores, statuses and call counts that the code before the run-engine
rework gave (``data/fixed_policy_scores.json``, written by that code). The quick suite is the one that code had
(:data:`QUICK_SUITE_BEFORE`) with the step limit it had (6): the default suite has been rebuilt since (issue 36), its
items and its own ``--max-steps`` default (2), which is a change of items and limits, not of behaviour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.compare import main

DATA = Path(__file__).parent / "data"


QUICK_SUITE_BEFORE = {"gpsbench.distance": 2, "gpsbench.bearing": 1, "gpsbench.place_association": 1,
                      "geotemp.time_time_place": 1, "stbench.direction": 1, "gtr.next_spot": 1}


def test_quick_suite_scores_are_those_of_the_code_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evals.specs.DEFAULT_SUITE", QUICK_SUITE_BEFORE)
    code = main(["--model", "scripted/tests.evals.fixed_policy:answer", "--conditions",
                 "intrinsic,tools,tools-required,note-only", "--max-steps", "6", "--output", str(tmp_path / "run")])
    assert code == 0
    got = {}
    for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        got[f"{r['sample_id']}|{r['condition']}|{r['epoch']}"] = {
            k: r[k] for k in ("status", "score", "stop_reason", "tool_calls", "tool_errors", "model_calls")}
    assert got == json.loads((DATA / "fixed_policy_scores.json").read_text())
