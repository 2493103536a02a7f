"""End to end on the real embedded model (xllamacpp): the server starts and stops, both conditions are stored,
every tool call the model made is in the trace; tool_choice "required" gets a tool call (the grammar of every
tool parses) and a repeated prompt reports its reused tokens; two requests run at once on two slots, and reuse
the long system turn they share; a crash of the server is reported with its signal. Asserts what must hold
whatever the model answers."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from agents.messages import usage
from evals.compare import main
from evals.store import RunStore
from tools.registry import get_tools, toolset_names

pytestmark = pytest.mark.e2e

if importlib.util.find_spec("xllamacpp") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the end-to-end tests: install the local extra (xllamacpp)")
    pytest.skip("xllamacpp not installed (pip install -e '.[local]')", allow_module_level=True)

import httpx  # noqa: E402

from agents.local_model import LocalModelServer  # noqa: E402
from agents.prefix_warm import MIN_HEAD_CHARS  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModelServer]:
    """One embedded server with two slots for the tests that only talk to it."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    with LocalModelServer(slots=2, ctx_per_slot=4096, log_path=log) as started:
        yield started


def test_server_starts_serves_and_stops() -> None:
    with LocalModelServer(slots=1, ctx_per_slot=1024) as server:
        port = server.port
        process = server.process
        assert process is not None and process.poll() is None
    assert process.poll() is not None  # stopped
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_compare_runs_both_conditions_on_the_embedded_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run"
    # a shared, busy 2-core machine can take minutes per call: the default 300 s per attempt would fail them
    rc = main(["--tasks", "gpsbench.distance", "--limit", "2", "--max-tokens", "160", "--output", str(run_dir),
               "--no-cache", "--call-timeout", "3600"])
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


def test_llama_cpp_parses_the_forced_call_grammar_of_every_tool(server: LocalModelServer) -> None:
    from agents.llama_server import forced_call_grammar

    functions = [convert_to_openai_tool(t)["function"] for t in get_tools(list(toolset_names()))]
    with httpx.Client(timeout=600) as client:
        for grammar in [forced_call_grammar(functions), *(forced_call_grammar([f]) for f in functions)]:
            reply = client.post(f"{server.base_url}/completions", json={"prompt": "Call a tool.", "max_tokens": 1,
                                                                        "grammar": grammar})
            assert reply.status_code == 200, (reply.text, grammar[:400])  # 400: llama.cpp could not parse it
            text = reply.json()["choices"][0]["text"]
            assert text and "<tool_call>\n".startswith(text)  # the first token is one the grammar allows


def test_required_tool_choice_makes_the_embedded_model_call_a_tool(server: LocalModelServer) -> None:
    from agents.model_spec import create_chat_model

    distance = [t for t in get_tools(["geodesy"]) if t.name == "distance_km"]
    model = create_chat_model("local/qwen2.5-coder-1.5b", base_url=server.base_url)
    forced = model.bind_tools(distance, tool_choice="required")
    question = [HumanMessage("Reply with the word hello.")]
    replies = [forced.invoke(question), forced.invoke(question)]
    for reply in replies:
        assert [c["name"] for c in reply.tool_calls] == ["distance_km"], reply.content
        assert set(reply.tool_calls[0]["args"]) >= {"lat1", "lon1", "lat2", "lon2"}
        assert str(reply.content).startswith("<tool_call>")  # the raw text is kept
    first, second = usage(replies[0]), usage(replies[1])
    assert first[2] < first[0]
    assert second[0] == first[0] and second[2] == second[0] - 1  # all reused but the one token read again


def test_two_requests_run_at_once_on_two_slots(server: LocalModelServer) -> None:
    """Both are answered, and llama.cpp's log shows both slots taking a task before either finished."""
    assert server.log_file is not None
    start = server.log_file.stat().st_size

    def ask(question: str) -> str:
        body = {"messages": [{"role": "user", "content": question}], "max_tokens": 8}
        reply = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=600)
        assert reply.status_code == 200, reply.text
        return str(reply.json()["choices"][0]["message"]["content"])

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(ask, ["Name a colour.", "Name a fruit."]))
    assert all(answers)
    with open(server.log_file, "rb") as f:
        f.seek(start)
        log = f.read().decode(errors="replace")
    events = [(m.group(1), int(m.group(2))) for m in re.finditer(r"(launch_slot_|release): id\s+(\d+)", log)]
    first_release = next(i for i, (kind, _) in enumerate(events) if kind == "release")
    launched = {slot for kind, slot in events[:first_release] if kind == "launch_slot_"}
    assert launched == {0, 1}, events


def test_requests_sharing_a_long_system_turn_all_reuse_it(server: LocalModelServer) -> None:
    """Two requests start at once with the same long system turn: the warm-up (agents/prefix_warm.py) evaluates it
    once and each request, on its own slot, reuses it (without it, each evaluated it whole: cached 0)."""
    system = " ".join(f"Rule {i}: give bearings clockwise from north, in whole degrees." for i in range(60))
    assert len(system) > MIN_HEAD_CHARS

    def ask(question: str) -> dict[str, int]:
        body = {"messages": [{"role": "system", "content": system}, {"role": "user", "content": question}],
                "max_tokens": 4}
        reply = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=900)
        assert reply.status_code == 200, reply.text
        used = reply.json()["usage"]
        return {"prompt": used["prompt_tokens"], "cached": used["prompt_tokens_details"]["cached_tokens"]}

    with ThreadPoolExecutor(2) as pool:
        counts = list(pool.map(ask, ["Bearing from Paris to Rome?", "Bearing from Oslo to Lima, Peru?"]))
    for count in counts:
        assert count["prompt"] - 30 <= count["cached"] < count["prompt"], counts  # the question alone read


def test_a_crash_of_the_server_is_reported_with_its_signal() -> None:
    with LocalModelServer(slots=1, ctx_per_slot=1024) as crashing:
        assert crashing.process is not None and crashing.exit_cause() is None
        os.kill(crashing.process.pid, signal.SIGILL)
        crashing.process.wait(timeout=60)
        cause = crashing.watch()
    assert cause is not None and cause.startswith("local model server was killed by SIGILL: llama.cpp was built")
    assert "xllamacpp==" in cause and "--- last lines of" in cause and "serving on http://127.0.0.1" in cause


def test_tools_required_runs_against_an_openai_compatible_server(server: LocalModelServer, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``tools-required`` through the ``openai-compatible/`` provider (LangChain's OpenAI client over HTTP) against
    a real OpenAI-compatible server, the embedded one started here: the first model call sends
    ``tool_choice: "required"`` and comes back as a tool call; the run answers and exits 0."""
    run_dir = tmp_path / "run"
    rc = main(["--model", "openai-compatible/qwen2.5-coder-1.5b", "--base-url", server.base_url,
               "--condition", "tools-required", "--tasks", "gpsbench.distance", "--limit", "1",
               "--max-tokens", "160", "--output", str(run_dir), "--no-cache", "--call-timeout", "3600"])
    assert rc == 0, capsys.readouterr()
    [result] = list(RunStore(run_dir).results())
    assert result.condition == "tools-required" and result.status == "ok"
    first = next(e for e in result.trace if e.kind == "model_call")
    assert [c["name"] for c in (first.message_out or {}).get("tool_calls", [])] == ["distance_km"]
