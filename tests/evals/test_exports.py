"""results.csv / results.parquet: the answer status, finish reason and region columns, and a cost that is empty
when unknown (never 0.0), as in results.json."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, user_prompt

from agents.trace import ModelCallEvent
from evals.compare import main
from evals.export import COLUMNS, flat_row
from evals.pricing import PriceTable
from evals.records import SampleResult
from evals.runner import trace_cost
from tasks import get_task
from tasks.records import Score


def test_csv_and_parquet_columns_through_a_real_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    samples = get_task("gpsbench.distance").samples(limit=3)
    gold = {s.prompt: s.target["km"] for s in samples}
    hedged, unparsed = samples[1].prompt, samples[2].prompt

    def reply(body: dict, headers: dict, n: int) -> Reply:
        prompt = user_prompt(body)
        if prompt == hedged:
            return completion("FINAL ANSWER: 100 km or 200 km")
        if prompt == unparsed:
            return completion("no idea")
        return completion(f"FINAL ANSWER: {gold[prompt]} km")

    with FaultServer(reply) as server:
        assert main(["--model", "openai-compatible/x", "--base-url", server.url, "--tasks", "gpsbench.distance",
                     "--limit", "3", "--condition", "intrinsic", "--export", "jsonl,csv,parquet",
                     "--output", str(tmp_path / "run")]) == 0
    with open(tmp_path / "run" / "results.csv") as f:
        rows = {r["sample_id"]: r for r in csv.DictReader(f)}
    assert list(next(iter(rows.values()))) == COLUMNS
    by_id = {s.id: s for s in samples}
    statuses = {by_id[k].prompt: r["answer_status"] for k, r in rows.items()}
    assert statuses == {samples[0].prompt: "answered", hedged: "hedged", unparsed: "unparsed"}
    for k, r in rows.items():
        assert r["region"] == by_id[k].meta["continent"] and r["region"]  # its own column, not JSON
        assert r["cost_usd"] == ""  # openai-compatible/x has no price: unknown, not 0.0
        assert r["finish_reason"] == "stop"  # the stand-in ends every reply with finish_reason "stop"
    report = json.loads((tmp_path / "run" / "results.json").read_text())
    assert report["meta"]["cost_usd"] is None and report["tasks"][0]["conditions"]["intrinsic"]["cost_usd"] is None
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(tmp_path / "run" / "results.parquet").to_pylist()
    assert {r["region"] for r in table} == {s.meta["continent"] for s in samples}
    assert all(r["cost_usd"] is None for r in table)
    assert sorted(r["answer_status"] for r in table) == ["answered", "hedged", "unparsed"]


def test_cost_is_unknown_for_an_unpriced_model_even_without_a_call() -> None:
    prices = PriceTable()
    assert trace_cost([], "openai-compatible/x", prices) is None  # was 0.0: a failure before any call looked free
    assert trace_cost([], "local/qwen", prices) == 0.0  # a free model is known to cost nothing
    assert trace_cost([ModelCallEvent(id="1", input_tokens=10, output_tokens=10)], "openai-compatible/x", prices) is None


def test_finish_reason_is_read_from_the_last_model_call_when_recorded() -> None:
    last = ModelCallEvent(id="2", finish_reason="length", finish_reason_raw="length")
    r = SampleResult(run_id="r", sample_id="s", task="t", condition="c", model="m",
                     trace=[ModelCallEvent(id="1"), last], score=Score(correct=False, value=0.0, status="refused"))
    row = flat_row(r)
    assert row["finish_reason"] == "length" and row["finish_reason_raw"] == "length"
    assert flat_row(r)["answer_status"] == "refused"
    failed = r.model_copy(update={"status": "error"})
    assert flat_row(failed)["answer_status"] is None  # an error has no answer status
    assert flat_row(r)["region"] is None
