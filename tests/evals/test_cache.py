"""The model-call cache: keys, hits without network, identical results, and the list/clear/prune command."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, tool_results
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agents.call_cache import CallCache, cache_key
from agents.model_call import ModelCaller
from agents.scripted import ScriptedChatModel
from evals import cache as cache_cli
from evals.compare import main
from evals.store import RunStore
from tools import get_tools

IDENTITY = {"model": "openai/x", "temperature": 0.0, "max_tokens": 512, "seed": 42, "endpoint": None}


def test_key_covers_model_settings_messages_and_tools() -> None:
    msgs = [SystemMessage("s"), HumanMessage("q")]
    geodesy = get_tools(["geodesy"])
    base = cache_key(IDENTITY, msgs, geodesy)
    assert base == cache_key(dict(IDENTITY), list(msgs), list(geodesy))  # deterministic
    assert base != cache_key({**IDENTITY, "seed": 43}, msgs, geodesy)
    assert base != cache_key({**IDENTITY, "temperature": 0.7}, msgs, geodesy)
    assert base != cache_key({**IDENTITY, "model": "openai/y"}, msgs, geodesy)
    assert base != cache_key(IDENTITY, [SystemMessage("s"), HumanMessage("q2")], geodesy)
    assert base != cache_key(IDENTITY, msgs, geodesy[:1])
    assert base != cache_key(IDENTITY, msgs, [])


def test_hit_returns_identical_reply_without_calling_the_model(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "c.sqlite")
    reply = AIMessage("", tool_calls=[{"name": "distance_km", "args": {"lat1": 1.0}, "id": "c1"}])
    model = ScriptedChatModel(script=[reply])
    caller = ModelCaller(cache=cache, identity=IDENTITY)
    first = asyncio.run(caller.call(model, [HumanMessage("q")]))
    second = asyncio.run(caller.call(model, [HumanMessage("q")]))
    assert len(model.calls) == 1 and not first.cache_hit and second.cache_hit
    assert second.reply.tool_calls == first.reply.tool_calls
    assert second.reply.usage_metadata == first.reply.usage_metadata
    assert ModelCaller(cache=cache).cache is None  # no identity, no caching
    [summary] = cache.summary()
    assert summary.model == "openai/x" and summary.entries == 1 and summary.hits == 1


def test_cache_command_list_clear_prune(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.sqlite"
    cache = CallCache(path)
    cache.put("k1", "openai/a", AIMessage("x"))
    cache.put("k2", "openai/b", AIMessage("y"))
    with cache.db:
        cache.db.execute("UPDATE calls SET last_used = ? WHERE key = 'k1'", (time.time() - 40 * 86400,))
    cache.close()
    assert cache_cli.main(["--path", str(path), "list"]) == 0
    out = capsys.readouterr().out
    assert "openai/a: 1 entries" in out and "openai/b: 1 entries" in out
    assert cache_cli.main(["--path", str(path), "prune", "--older-than-days", "30"]) == 0
    assert "deleted 1 entries" in capsys.readouterr().out
    assert cache_cli.main(["--path", str(path), "clear"]) == 0
    assert "deleted 1 entries" in capsys.readouterr().out
    assert cache_cli.main(["--path", str(path), "list"]) == 0 and "(empty)" in capsys.readouterr().out


def respond(body: dict, headers: dict, n: int) -> Reply:
    if body.get("tools") and not tool_results(body):
        return completion(None, tool_calls=[("distance_km", json.dumps({"lat1": 0, "lon1": 0, "lat2": 1, "lon2": 1}))])
    return completion("FINAL ANSWER: 157 km", prompt_tokens=100, completion_tokens=10)


def _run(server: FaultServer, out: Path, *extra: str) -> int:
    return main(["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", "gpsbench.distance",
                 "--limit", "3", "--output", str(out), *extra])


def test_second_run_is_served_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    prices = tmp_path / "prices.toml"
    prices.write_text('["openai-compatible/fake"]\ninput = 1.0\noutput = 2.0\n')
    with FaultServer(respond) as server:
        assert _run(server, tmp_path / "a", "--prices", str(prices)) == 0
        first_calls = len(server.requests)
        assert _run(server, tmp_path / "b", "--prices", str(prices)) == 0
        assert len(server.requests) == first_calls  # no network call at all
        assert _run(server, tmp_path / "c", "--no-cache") == 0
        assert len(server.requests) == 2 * first_calls
        assert _run(server, tmp_path / "d", "--temperature", "0.5") == 0  # off by default above 0
        assert len(server.requests) == 3 * first_calls

    def load(name: str) -> dict:
        with RunStore(tmp_path / name) as store:
            return {(r.sample_id, r.condition): r for r in store.results()}

    a, b = load("a"), load("b")
    assert a.keys() == b.keys() and len(a) == 6
    for k in a:
        assert (a[k].final_text, a[k].parsed, a[k].score) == (b[k].final_text, b[k].parsed, b[k].score)
        assert a[k].output_tokens == b[k].output_tokens and a[k].tool_calls == b[k].tool_calls
        models_b = [e for e in b[k].trace if e.kind == "model_call"]
        assert all(e.cache_hit for e in models_b) and b[k].cache_hits == len(models_b)
        assert not any(e.cache_hit for e in a[k].trace if e.kind == "model_call")
        assert a[k].cost_usd > 0 and b[k].cost_usd == 0.0  # cache hits cost nothing
    meta_a, meta_b = (json.loads((tmp_path / n / "results.json").read_text())["meta"] for n in ("a", "b"))
    assert meta_a["cache_saved_usd"] == 0.0 and meta_b["cost_usd"] == 0.0
    assert meta_b["cache_saved_usd"] == pytest.approx(sum(r.cost_usd for r in a.values()), abs=1e-6)  # what b avoided
    intrinsic = next(r for k, r in a.items() if k[1] == "intrinsic")
    assert intrinsic.cost_usd == pytest.approx((100 * 1.0 + 10 * 2.0) / 1e6)
