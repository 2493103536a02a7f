"""Runs whose tool sets come from real MCP server processes: the test's own server (tests/tools/mcp_echo_server.py,
built on ``mcp`` alone) and geogap's (``python -m tools.mcp_server``), driven by a scripted model through the
compare CLI. A dead or slow server is a tool error the model reads, and a line of the run's summary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from evals.compare import main
from evals.store import RunStore
from tests.tools.test_mcp_server import serve_http

pytest.importorskip("mcp")

ECHO_SERVER = Path(__file__).resolve().parent.parent / "tools" / "mcp_echo_server.py"
ECHO = f"echo={sys.executable} {ECHO_SERVER}"
POINT = re.compile(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)")
DISTANCE_TOOLS = ("distance_km", "great_circle_km")


def _points(messages: list[BaseMessage]) -> dict[str, float]:
    user = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
    (lat1, lon1), (lat2, lon2) = POINT.findall(user)[:2]
    return {"lat1": float(lat1), "lon1": float(lon1), "lat2": float(lat2), "lon2": float(lon2)}


def distance_policy(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Calls the offered distance tool on the prompt's two points, then answers with the km it returned; without
    a tool (or after a tool error) answers 0 km."""
    results = [m for m in messages if isinstance(m, ToolMessage)]
    tool = next((t for t in DISTANCE_TOOLS if t in tools), None)
    if tool and not results:
        return AIMessage("", tool_calls=[{"name": tool, "args": _points(messages), "id": "c1"}])
    if results and results[-1].status != "error":
        found = json.loads(str(results[-1].content))
        return f"FINAL ANSWER: {found.get('distance_km', found.get('km'))} km"
    return "FINAL ANSWER: 0 km"


def crash_policy(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Asks the echo server to exit, then for a distance (the server is gone), then answers."""
    done = [m for m in messages if isinstance(m, ToolMessage)]
    if "exit_now" in tools and not done:
        return AIMessage("", tool_calls=[{"name": "exit_now", "args": {}, "id": "c1"}])
    if len(done) == 1:
        return AIMessage("", tool_calls=[{"name": "great_circle_km", "args": _points(messages), "id": "c2"}])
    return "FINAL ANSWER: 0 km"


def slow_policy(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Calls ``sleep`` for longer than the server's timeout, then the distance tool, then answers from it."""
    done = [m for m in messages if isinstance(m, ToolMessage)]
    if not done:
        return AIMessage("", tool_calls=[{"name": "sleep", "args": {"seconds": 30}, "id": "c1"}])
    if len(done) == 1:
        return AIMessage("", tool_calls=[{"name": "great_circle_km", "args": _points(messages), "id": "c2"}])
    return f"FINAL ANSWER: {json.loads(str(done[-1].content))['km']} km"


def _run(tmp_path: Path, policy: str, conditions: str, *extra: str, limit: int = 3) -> tuple[int, list]:
    out = tmp_path / "run"
    code = main(["--model", f"scripted/tests.evals.test_mcp_runs:{policy}", "--tasks", "gpsbench.distance", "--limit", str(limit),
                 "--condition", conditions, "--no-cache", "--output", str(out), *extra])
    with RunStore(out, create=False) as store:
        return code, list(store.results())


def test_a_run_offers_an_mcp_servers_tools_and_scores_the_answers(tmp_path: Path) -> None:
    code, results = _run(tmp_path, "distance_policy", "intrinsic,tools[echo]", "--mcp", ECHO)
    assert code == 0
    tools = [r for r in results if r.condition == "tools[echo]"]
    assert len(tools) == 3 and all(r.status == "ok" and r.score and r.score.correct for r in tools)
    for r in tools:
        calls = [e for e in r.trace if e.kind == "tool_call"]
        assert [(e.tool, e.status) for e in calls] == [("great_circle_km", "ok")]
        assert json.loads(calls[0].result)["km"] > 0
        offered = [e for e in r.trace if e.kind == "model_call"][0].tools_offered
        assert offered == ["echo", "great_circle_km", "sleep", "exit_now"]
    assert not any(r.score.correct for r in results if r.condition == "intrinsic")
    with RunStore(tmp_path / "run", create=False) as store:
        spec = store.read_spec()[1]
    entry = spec.mcp["echo"]
    assert (entry["server_name"], entry["server_version"]) == ("echo-test-server", "1.2.3")
    assert entry["command"] == sys.executable and entry["args"] == [str(ECHO_SERVER)]


def test_list_shows_the_servers_tools(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--mcp", ECHO, "--list"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("  echo: "))
    assert "MCP server echo-test-server 1.2.3" in line and line.endswith("echo, great_circle_km, sleep, exit_now")


def test_a_server_that_does_not_start_is_one_line_and_exit_code_1(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--mcp", f"gone={tmp_path}/no-such-server", "--condition", "tools[gone]",
                 "--output", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: MCP server 'gone'") and "did not start" in err and "\n" not in err
    assert not (tmp_path / "run").exists()


def test_a_server_that_dies_is_a_tool_error_and_the_run_completes(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, results = _run(tmp_path, "crash_policy", "tools[echo]", "--mcp", ECHO, limit=2)
    assert code == 0 and len(results) == 2 and all(r.status == "ok" for r in results)
    first = [e for e in results[0].trace if e.kind == "tool_call"]
    assert [(e.tool, e.status) for e in first] == [("exit_now", "error"), ("great_circle_km", "error")]
    assert "MCP server 'echo' failed on exit_now" in first[0].error
    assert "MCP server 'echo' is not running" in first[1].error
    second = [e for e in results[1].trace if e.kind == "tool_call"]
    assert all("MCP server 'echo'" in (e.error or "") for e in second)
    out = " ".join(capsys.readouterr().out.split())
    assert "MCP server echo: 4 tool calls failed (first: failed on exit_now" in out
    report = json.loads((tmp_path / "run" / "results.json").read_text())
    assert report["meta"]["mcp_failures"][0].startswith("MCP server echo: 4 tool calls failed")


def test_a_slow_server_is_a_tool_error_and_later_calls_still_answer(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text(f'[mcp.echo]\ncommand = "{sys.executable}"\nargs = ["{ECHO_SERVER}"]\ntimeout_s = 2\n')
    code, results = _run(tmp_path, "slow_policy", "tools[echo]", "--config", str(config), limit=1)
    assert code == 0
    calls = [e for e in results[0].trace if e.kind == "tool_call"]
    assert [(e.tool, e.status) for e in calls] == [("sleep", "error"), ("great_circle_km", "ok")]
    assert "MCP server 'echo' failed on sleep: no answer within 2 s" in calls[0].error
    assert results[0].score.correct


def assert_same_answers(results: list, condition: str, builtin: str) -> None:
    """Every sample of ``condition`` answered right, with the text, tool calls and tool results of ``builtin``."""
    served = {r.sample_id: r for r in results if r.condition == condition}
    own = {r.sample_id: r for r in results if r.condition == builtin}
    assert served and served.keys() == own.keys()
    for sample_id, r in served.items():
        assert r.score.correct and own[sample_id].score.correct and r.final_text == own[sample_id].final_text
        calls = [(e.tool, e.args, e.result) for e in r.trace if e.kind == "tool_call"]
        assert calls and calls == [(e.tool, e.args, e.result) for e in own[sample_id].trace if e.kind == "tool_call"]
        offered = [e.tools_offered for e in r.trace if e.kind == "model_call"]
        assert offered == [e.tools_offered for e in own[sample_id].trace if e.kind == "model_call"]


def test_geogaps_own_server_gives_the_answers_of_the_builtin_tool_set(tmp_path: Path) -> None:
    code, results = _run(tmp_path, "distance_policy", "tools[geodesy],tools[geo]",
                         "--mcp", f"geo={sys.executable} -m tools.mcp_server --toolsets geodesy")
    assert code == 0 and len(results) == 6
    assert_same_answers(results, "tools[geo]", "tools[geodesy]")
    with RunStore(tmp_path / "run", create=False) as store:
        entry = store.read_spec()[1].mcp["geo"]
    assert entry["server_name"] == "geogap-tools" and entry["args"] == ["-m", "tools.mcp_server", "--toolsets", "geodesy"]


def test_a_streamable_http_server_is_a_tool_set_too(tmp_path: Path) -> None:
    with serve_http("geodesy") as url:
        code, results = _run(tmp_path, "distance_policy", "tools[geo-http]", "--mcp", f"geo-http={url}", limit=2)
    assert code == 0 and len(results) == 2 and all(r.score.correct for r in results)
    with RunStore(tmp_path / "run", create=False) as store:
        assert store.read_spec()[1].mcp["geo-http"]["url"] == url


def test_the_servers_identity_is_part_of_the_model_call_cache_key() -> None:
    from agents.call_cache import cache_key
    from agents.model_call import ModelCaller
    from evals.mcp import with_identity
    from tools.mcp_client import MCPServer, register_servers
    from tools.registry import get_tools

    register_servers([MCPServer(name="echo-key", command=sys.executable, args=(str(ECHO_SERVER),))])
    caller = ModelCaller(identity={"model": "scripted/x"})
    assert with_identity(caller, ["geodesy"]) is caller  # built-in sets: the key is unchanged
    served = with_identity(caller, ["geodesy", "echo-key"])
    entry = served.identity["mcp"]["echo-key"]
    assert (entry["server_name"], entry["server_version"], entry["args"]) == ("echo-test-server", "1.2.3",
                                                                              [str(ECHO_SERVER)])
    messages = [HumanMessage("hi")]
    tools = get_tools(["echo-key"])
    assert cache_key(served.identity, messages, tools) != cache_key(caller.identity, messages, tools)
    assert caller.identity == {"model": "scripted/x"}  # the run's own caller is not changed


def test_resume_starts_the_servers_the_spec_names_and_refuses_a_changed_one(tmp_path: Path) -> None:
    code, _ = _run(tmp_path, "distance_policy", "tools[echo]", "--mcp", ECHO, limit=2)
    assert code == 0
    again = [sys.executable, "-m", "evals.compare", "--resume", str(tmp_path / "run")]
    done = subprocess.run(again, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0 and "(resuming: 0 of 2 to do)" in " ".join(done.stderr.split())
    changed = subprocess.run([*again, "--mcp", f"{ECHO} extra-arg"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[2])
    assert changed.returncode == 2
    assert changed.stderr.strip() == ("error: MCP server 'echo' differs from the run being resumed (in args); "
                                      "start a new --output")


def test_one_session_serves_the_whole_run_and_its_server_exits_at_the_end(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    config = tmp_path / "run.toml"
    config.write_text(f'[mcp.echo]\ncommand = "{sys.executable}"\nargs = ["{ECHO_SERVER}"]\n'
                      f'env = {{ECHO_PID_FILE = "{pids}"}}\n')
    code, results = _run(tmp_path, "distance_policy", "tools[echo]", "--config", str(config), limit=4)
    assert code == 0 and sum(r.tool_calls for r in results) == 4
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2  # one start to list the tools, one session for the run's 4 calls
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with RunStore(tmp_path / "run", create=False) as store:
        assert store.read_spec()[1].mcp["echo"]["env"] == ["ECHO_PID_FILE"]  # the name, never the value
    assert str(pids) not in (tmp_path / "run" / "results.json").read_text()
