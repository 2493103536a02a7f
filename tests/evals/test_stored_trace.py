"""Trace events round-trip through the run store by kind, and rows written before events were split by kind
(every field of both kinds, the other kind's null or zero) still load: resume, the viewer and export read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.trace import ModelCallEvent, ToolCallEvent, TraceEvent
from evals.records import SampleResult
from evals.store import RunStore

# Rows as a run before the split stored them (from a scripted tools run; messages shortened).
OLD_MODEL_ROW: dict[str, Any] = {
    "id": "35cc5a854a1b", "parent_id": None, "kind": "model_call", "start": 1796064310.1651, "latency_s": 0.0029,
    "messages_in": [{"role": "human", "content": "What time is it now in Abidjan?"}],
    "message_out": {"role": "ai", "content": "", "tool_calls": [{"id": "call846", "name": "city_timezone", "args": {}}]},
    "raw_text": "", "input_tokens": 96, "output_tokens": 1, "cached_tokens": 0, "cache_hit": False, "retries": 0,
    "retry_errors": [], "tools_offered": ["utc_offset", "city_timezone"], "tool": None, "tool_call_id": None,
    "args": None, "result": None, "status": None, "error": None,
}
OLD_TOOL_ROW: dict[str, Any] = {
    "id": "fac6fe7a50a6", "parent_id": "35cc5a854a1b", "kind": "tool_call", "start": 1796064310.1701,
    "latency_s": 0.0044, "messages_in": None, "message_out": None, "raw_text": None, "input_tokens": 0,
    "output_tokens": 0, "cached_tokens": 0, "cache_hit": False, "retries": 0, "retry_errors": [],
    "tools_offered": None, "tool": "city_timezone", "tool_call_id": "call846", "args": {}, "result": None,
    "status": "error", "error": "Error: invalid arguments for city_timezone: city: Field required",
}


def _result(trace: list[TraceEvent]) -> SampleResult:
    return SampleResult(run_id="r", sample_id="s/1", task="t", condition="tools", model="m", trace=trace)


def test_old_format_event_rows_load_as_their_kind(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.add_result(_result([]))
        store.db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             [("s/1", "tools", 0, i, row["kind"], row["tool"], row["status"], json.dumps(row))
                              for i, row in enumerate([OLD_MODEL_ROW, OLD_TOOL_ROW])])
        store.db.commit()
        [loaded] = list(store.results())
    model, tool = loaded.trace
    assert isinstance(model, ModelCallEvent) and isinstance(tool, ToolCallEvent)
    assert (model.input_tokens, model.tools_offered, model.status) == (96, ["utc_offset", "city_timezone"], None)
    assert model.message_out is not None and model.message_out["tool_calls"][0]["id"] == "call846"
    assert (tool.parent_id, tool.tool, tool.tool_call_id, tool.args, tool.status) == (
        "35cc5a854a1b", "city_timezone", "call846", {}, "error")


def test_stored_events_keep_their_kind_and_only_their_own_fields(tmp_path: Path) -> None:
    trace: list[TraceEvent] = [
        ModelCallEvent(raw_text="", input_tokens=7, retries=2, retry_errors=["rate_limit: 429", "timeout: x"]),
        ToolCallEvent(parent_id="p", tool="haversine_km", tool_call_id="c1", args={"lat1": 1.0}, result="343.6",
                      status="ok"),
    ]
    with RunStore(tmp_path) as store:
        store.add_result(_result(trace))
        [loaded] = list(store.results())
        rows = [json.loads(r) for (r,) in store.db.execute("SELECT record FROM events ORDER BY seq")]
    assert loaded.trace == trace
    assert "tool" not in rows[0] and "parent_id" not in rows[0] and "input_tokens" not in rows[1]
