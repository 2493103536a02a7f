"""End to end on the real embedded model: the server starts and stops, both conditions are stored, every tool
call the model made is in the trace; tool_choice "required" gets a tool call (the grammar of every tool parses)
and a repeated prompt reports its reused tokens. Asserts what must hold whatever the model answers."""

from __future__ import annotations

import importlib.util
import os
import socket
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from agents.messages import usage
from evals.compare import main
from evals.store import RunStore
from tools.registry import get_tools, toolset_names

pytestmark = pytest.mark.e2e

if importlib.util.find_spec("llama_cpp") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the end-to-end tests: install the local extra (llama-cpp-python)")
    pytest.skip("llama-cpp-python not installed (pip install -e '.[local]')", allow_module_level=True)


def test_server_starts_serves_and_stops() -> None:
    from agents.local_model import LocalModelServer

    with LocalModelServer() as server:
        port = server.port
        process = server.process
        assert process is not None and process.poll() is None
    assert process.poll() is not None  # stopped
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_compare_runs_both_conditions_on_the_embedded_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run"
    rc = main(["--tasks", "gpsbench.distance", "--limit", "2", "--max-tokens", "160", "--output", str(run_dir),
               "--no-cache"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "gpsbench.distance" in out and "intrinsic acc" in out and "gap tools" in out
    results = list(RunStore(run_dir).results())
    assert {r.condition for r in results} == {"intrinsic", "tools"} and len(results) == 4
    assert all(r.status == "ok" and r.parsed is not None for r in results)
    for r in results:
        models = [e for e in r.trace if e.kind == "model_call"]
        assert models and all(e.output_tokens > 0 and e.raw_text is not None for e in models)
        if r.condition == "intrinsic":
            assert len(r.trace) == 1 and models[0].tools_offered is None
            continue
        assert "distance_km" in models[0].tools_offered
        made = [c["id"] for e in models for c in (e.message_out or {}).get("tool_calls", [])]
        traced = [e.tool_call_id for e in r.trace if e.kind == "tool_call"]
        assert made == traced  # every call the model made is in the trace, in order
    assert (run_dir / "results.json").exists() and (run_dir / "results.jsonl").exists()
    assert (run_dir / "report.html").exists() and (run_dir / "results.csv").exists()
    assert (run_dir / "server.log").exists()


def test_llama_cpp_parses_the_forced_call_grammar_of_every_tool() -> None:
    import llama_cpp

    from agents.llama_server import forced_call_grammar
    from agents.local_model import ensure_model_file

    functions = [convert_to_openai_tool(t)["function"] for t in get_tools(list(toolset_names()))]
    vocab_only = llama_cpp.Llama(model_path=str(ensure_model_file()), vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(vocab_only._model.model)
    for grammar in [forced_call_grammar(functions), *(forced_call_grammar([f]) for f in functions)]:
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
        assert sampler, grammar[:400]  # NULL: llama.cpp could not parse it
        llama_cpp.llama_sampler_free(sampler)


def test_required_tool_choice_makes_the_embedded_model_call_a_tool() -> None:
    from agents.local_model import LocalModelServer
    from agents.models import create_chat_model

    distance = [t for t in get_tools(["geodesy"]) if t.name == "distance_km"]
    with LocalModelServer() as server:
        model = create_chat_model("local/qwen2.5-coder-1.5b", base_url=server.base_url)
        forced = model.bind_tools(distance, tool_choice="required")
        question = [HumanMessage("Reply with the word hello.")]
        replies = [forced.invoke(question), forced.invoke(question)]
    for reply in replies:
        assert [c["name"] for c in reply.tool_calls] == ["distance_km"], reply.content
        assert set(reply.tool_calls[0]["args"]) >= {"lat1", "lon1", "lat2", "lon2"}
    first, second = usage(replies[0]), usage(replies[1])
    assert first[2] == 0  # a fresh server holds nothing
    assert second[0] == first[0] and second[2] == second[0] - 1  # all reused but the one token read again


def test_tools_required_runs_against_an_openai_compatible_server(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``tools-required`` through the ``openai-compatible/`` provider (LangChain's OpenAI client over HTTP) against
    a real OpenAI-compatible server, the embedded one started here: the first model call sends
    ``tool_choice: "required"`` and comes back as a tool call; the run answers and exits 0."""
    from agents.local_model import LocalModelServer

    run_dir = tmp_path / "run"
    with LocalModelServer() as server:
        rc = main(["--model", "openai-compatible/qwen2.5-coder-1.5b", "--base-url", server.base_url,
                   "--condition", "tools-required", "--tasks", "gpsbench.distance", "--limit", "1",
                   "--max-tokens", "160", "--output", str(run_dir), "--no-cache"])
    assert rc == 0, capsys.readouterr()
    [result] = list(RunStore(run_dir).results())
    assert result.condition == "tools-required" and result.status == "ok"
    first = next(e for e in result.trace if e.kind == "model_call")
    assert [c["name"] for c in (first.message_out or {}).get("tool_calls", [])] == ["distance_km"]
