"""``--answer-channel structured`` end to end with scripted models: the final answer is a typed final_answer call
in both conditions, read by the task's own parser and scorer; a reply that only writes its answer, or calls
final_answer with arguments that do not validate, is unlocated; a hedging string is hedged; the channel is part
of the run's identity and of the model-call cache key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evals import api
from evals.compare import main
from tests.evals.structured_policy import TASKS

POLICY = "scripted/tests.evals.structured_policy:"


def run(tmp_path: Path, policy: str, *extra: str, tasks: str = ",".join(TASKS), name: str = "run") -> list[dict[str, Any]]:
    out = tmp_path / name
    code = main(["--model", POLICY + policy, "--tasks", tasks, "--limit", "2", "--condition", "intrinsic,tools",
                 "--output", str(out), *extra])
    assert code == 0
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))


def test_final_answer_calls_are_credited_in_both_conditions(tmp_path: Path) -> None:
    rows = run(tmp_path, "right", "--answer-channel", "structured")
    assert {(r["task"], r["condition"]) for r in rows} == {(t, c) for t in TASKS for c in ("intrinsic", "tools")}
    for r in rows:
        assert r["answer_channel"] == "structured" and r["structured_answer"], r["sample_id"]
        assert (r["score"]["status"], r["score"]["correct"]) == ("answered", True), (r["sample_id"], r["parsed"])
    tools = [r for r in rows if r["condition"] == "tools"]
    assert all(r["tool_calls"] == 1 and r["model_calls"] == 2 for r in tools)  # one domain call, then the answer
    intrinsic = [r for r in rows if r["condition"] == "intrinsic"]
    assert all(r["tool_calls"] == 0 and r["model_calls"] == 1 and r["funnel"] is None for r in intrinsic)
    spec = json.loads((tmp_path / "run" / "results.json").read_text())["meta"]["spec"]
    assert spec["answer_channel"] == "structured"


def test_an_answer_only_in_text_is_unlocated_under_structured_and_credited_under_text(tmp_path: Path) -> None:
    structured = run(tmp_path, "text_only", "--answer-channel", "structured", name="s")
    assert {r["score"]["status"] for r in structured} == {"unlocated"}
    assert all(not r["score"]["correct"] and "never called final_answer" in r["score"]["explanation"]
               for r in structured)
    text = run(tmp_path, "text_only", name="t")
    assert all(r["answer_channel"] == "text" and r["structured_answer"] is None for r in text)
    assert {(r["score"]["status"], r["score"]["correct"]) for r in text} == {("answered", True)}


def test_arguments_that_do_not_validate_are_unlocated(tmp_path: Path) -> None:
    rows = run(tmp_path, "invalid", "--answer-channel", "structured")
    assert {r["score"]["status"] for r in rows} == {"unlocated"}
    assert all("do not validate" in r["score"]["explanation"] for r in rows)
    assert all(r["structured_answer"] == {"answer": 42, "unexpected": True} for r in rows)


def test_a_hedging_string_is_hedged(tmp_path: Path) -> None:
    rows = run(tmp_path, "hedged", "--answer-channel", "structured", tasks="geotemp.time_place")
    assert rows and {r["score"]["status"] for r in rows} == {"hedged"}


def test_two_final_answer_calls_with_different_answers_are_hedged_though_one_is_gold(tmp_path: Path) -> None:
    rows = run(tmp_path, "two_calls", "--answer-channel", "structured", tasks="geotemp.time_place")
    assert rows and {r["score"]["status"] for r in rows} == {"hedged"}
    assert all(isinstance(r["structured_answer"], list) and len(r["structured_answer"]) == 2 for r in rows)


def test_the_channel_is_part_of_the_runs_identity_and_cache_key(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, "right", tasks="gpsbench.distance", name="text")
    again = run(tmp_path, "right", tasks="gpsbench.distance", name="text2")
    assert all(r["cache_hits"] == r["model_calls"] for r in again)  # the cache is on for this policy
    structured = run(tmp_path, "right", "--answer-channel", "structured", tasks="gpsbench.distance", name="s")
    assert all(r["cache_hits"] == 0 for r in structured)  # a text reply never answers a structured call
    code = main(["--resume", str(tmp_path / "text"), "--answer-channel", "structured"])
    assert code == 2
    assert "--answer-channel differs from the run being resumed ('text')" in capsys.readouterr().err


def test_a_toml_config_sets_the_channel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.toml"
    config.write_text('answer-channel = "structured"\n')
    rows = run(tmp_path, "right", "--config", str(config), tasks="gpsbench.bearing")
    assert {r["answer_channel"] for r in rows} == {"structured"}
    config.write_text('answer-channel = "json"\n')
    assert main(["--model", POLICY + "right", "--config", str(config), "--output", str(tmp_path / "bad")]) == 2
    assert "'answer-channel' in " + str(config) + " must be one of text, structured, got 'json'" in \
        capsys.readouterr().err


def test_the_python_api_takes_the_channel(tmp_path: Path) -> None:
    result = api.run(POLICY + "right", tasks="gpsbench.bearing", limit=1, answer_channel="structured",
                     output=str(tmp_path / "api"))
    assert result.complete and result.spec.answer_channel == "structured"
    table = api.read_run(result.run_dir)
    assert list(zip(table["answer_channel"], table["correct"], strict=True)) == [("structured", True)] * 2
    assert all(json.loads(a)["value"] for a in table["structured_answer"])
    with pytest.raises(api.RunError, match="answer_channel.*Input should be .text. or .structured."):
        api.run(POLICY + "right", answer_channel="json")


def test_the_viewer_shows_the_final_answer_call() -> None:
    from evals.records import SampleResult
    from evals.view.samples import _answer
    from tasks.records import Parsed, Score

    base = {"run_id": "r", "sample_id": "gpsbench.bearing/test/00001", "task": "gpsbench.bearing",
            "condition": "intrinsic", "model": "m", "answer_channel": "structured"}
    called = SampleResult(**base, structured_answer={"working": "<b>east</b>", "value": 90.0},
                          parsed=Parsed.success("FINAL ANSWER: 90°", 90.0), score=Score(correct=True, value=1.0))
    page = str(_answer("intrinsic", called))
    assert "final_answer" in page and "&lt;b&gt;east&lt;/b&gt;" in page and "<b>east</b>" not in page
    missing = SampleResult(**base, parsed=Parsed.unlocated("", "the reply never called final_answer"))
    assert "no call" in str(_answer("intrinsic", missing))
    text = SampleResult(**{**base, "answer_channel": "text"})
    assert "final_answer" not in str(_answer("intrinsic", text))
