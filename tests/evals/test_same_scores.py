"""Behaviour is kept: the quick suite with a fixed scripted policy (:mod:`tests.evals.fixed_policy`) in four
conditions gives, sample for sample, the scores, statuses and call counts that the code before the run-engine
rework gave (``data/fixed_policy_scores.json``, written by that code)."""

from __future__ import annotations

import json
from pathlib import Path

from evals.compare import main

DATA = Path(__file__).parent / "data"


def test_quick_suite_scores_are_those_of_the_code_before(tmp_path: Path) -> None:
    code = main(["--model", "scripted/tests.evals.fixed_policy:answer", "--conditions",
                 "intrinsic,tools,tools-required,note-only", "--output", str(tmp_path / "run")])
    assert code == 0
    got = {}
    for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        got[f"{r['sample_id']}|{r['condition']}|{r['epoch']}"] = {
            k: r[k] for k in ("status", "score", "stop_reason", "tool_calls", "tool_errors", "model_calls")}
    assert got == json.loads((DATA / "fixed_policy_scores.json").read_text())
