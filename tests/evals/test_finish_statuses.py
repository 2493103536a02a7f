"""How a model call ended decides the answer status, end to end through ``python -m evals.compare``: loopback
stand-ins replay recorded replies (tests/replies) to the real client libraries, and the statuses reach
results.json, results.csv and the printed table. A reply cut at the token limit is ``truncated`` and never
credited, whatever its text parses to; a refusal the API reports is ``refused``; a safety filter or a blocked
prompt is ``blocked``. None of them is an error: the run completes (exit 0) with them in n."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evals.compare import main
from tasks import get_task
from tests.replay import Replay, recorded, user_text

SAMPLES = get_task("gpsbench.distance").samples(limit=2)  # what --tasks gpsbench.distance --limit 2 runs
GOLD = {s.prompt: s.target["km"] for s in SAMPLES}
CUT = "Using the haversine formula with R = 6371 km, the distance is"  # cut here: it parses to 6371 km
FIRST, SECOND = (s.prompt for s in SAMPLES)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_TEST_KEY", "test-key-123")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-test-key")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def openai_cut(finish_reason: str) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """The recorded gpt-4o length reply: on the first sample the issue's cut ("... the distance is"), on the second
    a reply that wrote the right FINAL ANSWER and was cut while checking it."""
    def answer(path: str, request: dict[str, Any]) -> dict[str, Any]:
        prompt = user_text(request)
        body = recorded("openai_length")
        body["choices"][0]["finish_reason"] = finish_reason
        body["choices"][0]["message"]["content"] = CUT if prompt == FIRST else (
            f"{CUT} {GOLD[prompt]:.1f} km.\nFINAL ANSWER: {GOLD[prompt]:.1f} km\n\nTo double-check, convert to radians:")
        return body
    return answer


def run(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any],
                                                                                      list[dict[str, str]], str]:
    out_dir = tmp_path / "run"
    code = main([*args, "--tasks", "gpsbench.distance", "--limit", "2", "--condition", "intrinsic", "--no-cache",
                 "--output", str(out_dir)])
    printed = capsys.readouterr().out
    data = json.loads((out_dir / "results.json").read_text())
    with open(out_dir / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return code, data, rows, printed


def intrinsic(data: dict[str, Any]) -> dict[str, Any]:
    return data["tasks"][0]["conditions"]["intrinsic"]


def status_cell(printed: str) -> str:
    """The intrinsic status % cell of the task's row in the printed table."""
    row = next(line for line in printed.splitlines() if "gpsbench.distance" in line)
    return re.findall(r"\b\d+(?:/\d+){6}\b", row)[0]


def test_a_reply_cut_at_the_token_limit_is_truncated_and_never_credited(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with Replay(openai_cut("length")) as server:
        code, data, rows, printed = run(["--model", "openai/gpt-4o", "--base-url", server.url], tmp_path, capsys)
    s = intrinsic(data)
    assert code == 0 and s["n"] == 2 and s["errors"] == 0  # not an error: the run measured it
    assert s["statuses"]["truncated"] == 2 and s["correct"] == 0 and s["accuracy"] == 0.0
    assert s["truncated_share"] == 1.0 and s["output_tokens_per_sample"] == {"mean": 50.0, "median": 50.0}
    assert status_cell(printed) == "0/0/0/0/0/100/0" and "truncated" in printed
    assert "note: intrinsic: 2 of 2 answers were cut at the output-token limit (512 tokens per call)" in printed
    assert {r["answer_status"] for r in rows} == {"truncated"} and {r["finish_reason"] for r in rows} == {"length"}
    assert {r["correct"] for r in rows} == {"False"}
    stored = {r["sample_id"]: r for r in map(json.loads, (tmp_path / "run" / "results.jsonl").read_text().splitlines())}
    # the reason keeps what the text alone would have given: 6371 km (wrong) and the gold (right, not credited)
    assert "the text alone parsed to 6371.0" in stored[SAMPLES[0].id]["parsed"]["reason"]
    assert f"the text alone parsed to {GOLD[SECOND]:.1f}" in stored[SAMPLES[1].id]["parsed"]["reason"]


def test_the_same_text_ending_normally_is_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Control: the replies above with finish_reason stop are read as answers (the cut one as 6371 km, wrong;
    the other right), so it is the finish reason alone that made them truncated."""
    with Replay(openai_cut("stop")) as server:
        code, data, rows, printed = run(["--model", "openai/gpt-4o", "--base-url", server.url], tmp_path, capsys)
    s = intrinsic(data)
    assert code == 0 and s["statuses"]["answered"] == 2 and s["correct"] == 1 and s["truncated_share"] == 0.0
    assert status_cell(printed) == "100/0/0/0/0/0/0" and {r["finish_reason"] for r in rows} == {"stop"}


def test_an_anthropic_refusal_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Replay(lambda path, body: recorded("anthropic_refusal")) as server:
        code, data, rows, printed = run(["--model", "anthropic/claude-sonnet-4-20250514", "--base-url", server.root,
                                         "--api-key-env", "GEOGAP_TEST_KEY"], tmp_path, capsys)
    s = intrinsic(data)
    assert code == 0 and s["statuses"]["refused"] == 2 and s["errors"] == 0 and s["correct"] == 0
    assert status_cell(printed) == "0/0/0/0/100/0/0"
    assert {(r["answer_status"], r["finish_reason"], r["finish_reason_raw"]) for r in rows} == {
        ("refused", "refusal", "refusal")}
    assert all(path == "/v1/messages" for path, _ in server.requests)


def test_gemini_safety_and_prompt_blocks_are_blocked(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The first sample's reply stops at SAFETY, the second's prompt is blocked (no candidate at all)."""
    def answer(path: str, request: dict[str, Any]) -> dict[str, Any]:
        return recorded("gemini_safety" if user_text(request) == FIRST else "gemini_prompt_blocked")

    with Replay(answer) as server:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.root)  # the google-genai SDK's own base-URL setting
        code, data, rows, printed = run(["--model", "google/gemini-2.5-flash"], tmp_path, capsys)
    s = intrinsic(data)
    assert code == 0 and s["statuses"]["blocked"] == 2 and s["errors"] == 0 and s["correct"] == 0
    assert status_cell(printed) == "0/0/0/0/0/0/100" and "were blocked by the provider's safety filter" in printed
    assert {r["sample_id"]: (r["answer_status"], r["finish_reason"], r["finish_reason_raw"]) for r in rows} == {
        SAMPLES[0].id: ("blocked", "content_filter", "SAFETY"),
        SAMPLES[1].id: ("blocked", "prompt_blocked", "prompt_feedback.block_reason=SAFETY")}
    assert all(path.endswith("models/gemini-2.5-flash:generateContent") for path, _ in server.requests)


def test_an_openai_content_filter_is_blocked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Replay(lambda path, body: recorded("openai_content_filter")) as server:
        code, data, rows, printed = run(["--model", "openai/gpt-4o", "--base-url", server.url], tmp_path, capsys)
    s = intrinsic(data)
    assert code == 0 and s["statuses"]["blocked"] == 2 and s["errors"] == 0
    assert status_cell(printed) == "0/0/0/0/0/0/100"
    assert {(r["answer_status"], r["finish_reason"]) for r in rows} == {("blocked", "content_filter")}


def test_parquet_has_the_status_and_finish_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    with Replay(lambda path, body: recorded("openai_content_filter")) as server:
        run(["--model", "openai/gpt-4o", "--base-url", server.url, "--export", "parquet,csv"], tmp_path, capsys)
    table = pq.read_table(tmp_path / "run" / "results.parquet")
    assert table.select(["answer_status", "finish_reason", "finish_reason_raw"]).to_pylist() == [
        {"answer_status": "blocked", "finish_reason": "content_filter", "finish_reason_raw": "content_filter"}] * 2
