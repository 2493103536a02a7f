"""The generic tool sets: the calculator's safe evaluator and the python tool's limits, each limit ending in a
tool error message the model reads while the agent run goes on."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from agents.scripted import ScriptedChatModel
from agents.tool_agent import AgentLimits, ToolAgent
from agents.trace import ToolCallEvent
from tasks.records import Message
from tools import get_tools
from tools.calculator import evaluate
from tools.python_exec import Limits, run_code

# small limits so the test is quick; the defaults are the same code path with larger numbers
# wall clocks far above the CPU limit so a loaded machine does not change which limit trips
FAST = Limits(wall_s=120.0, cpu_s=2, memory_bytes=1024**3, file_bytes=1024**2)
SHORT_WALL = Limits(wall_s=3.0, cpu_s=2, memory_bytes=1024**3, file_bytes=1024**2)
CPU_FIRST = Limits(wall_s=300.0, cpu_s=1, memory_bytes=1024**3, file_bytes=1024**2)  # a loaded machine: wall ≫ CPU


def test_calculator_computes_haversine() -> None:
    expr = ("2 * 6371 * asin(sqrt(sin(radians(51.5 - 48.85) / 2) ** 2 + cos(radians(48.85)) * cos(radians(51.5))"
            " * sin(radians(-0.12 - 2.35) / 2) ** 2))")
    assert evaluate(expr) == pytest.approx(343.5, abs=0.5)  # Paris-London, a published ~343 km
    assert evaluate("degrees(atan2(1, 1))") == pytest.approx(45.0)
    assert evaluate("pi") == math.pi


@pytest.mark.parametrize("expr", ['__import__("os").system("id")', "().__class__.__bases__", "9 ** 9 ** 9 ** 9",
                                  'open("/etc/passwd")', "lambda: 1", "x = 1", "'a' * 10 ** 9", "1 / 0"])
def test_calculator_refuses_what_is_not_arithmetic(expr: str) -> None:
    with pytest.raises(ValueError, match="cannot evaluate|not a number"):
        evaluate(expr)


def test_python_runs_code_with_the_geo_libraries() -> None:
    out = run_code("import numpy, shapely\nfrom pyproj import Geod\n"
                   "print(round(Geod(ellps='WGS84').inv(2.35, 48.85, -0.12, 51.5)[2] / 1000, 1))", FAST)
    assert 340 < float(out) < 346


def test_python_writes_inside_its_directory_only(tmp_path: Path) -> None:
    assert run_code("open('a.txt', 'w').write('hi')\nprint(open('a.txt').read())", FAST).strip() == "hi"
    target = tmp_path / "escape.txt"
    with pytest.raises(ValueError, match="writing outside the working directory"):
        run_code(f"open({str(target)!r}, 'w').write('x')", FAST)
    assert not target.exists()


def test_sleeping_hits_the_wall_clock_limit() -> None:
    with pytest.raises(ValueError, match="ran past the 3 s wall-clock limit"):
        run_code("import time\ntime.sleep(600)", SHORT_WALL)


def test_a_loop_hits_the_cpu_limit() -> None:
    with pytest.raises(ValueError, match="more than 1 s of CPU time"):
        run_code("while True:\n    pass", CPU_FIRST)


@pytest.mark.parametrize(("code", "message"), [
    ("x = bytearray(10 * 1024 ** 3)\nprint(len(x))", "memory limit"),
    ("import os\nprint(os.fork())", "os.fork is not allowed"),
    ("import subprocess\nsubprocess.run(['true'])", "subprocess.Popen is not allowed"),
    ("import socket\nsocket.socket().connect(('1.1.1.1', 80))", "socket.__new__ is not allowed"),
    ("import os\nos.remove('/etc/hostname')", "os.remove outside the working directory"),
    ("print('x' * 10 ** 8)", "File too large|wrote more than"),
    ("1 / 0", "ZeroDivisionError"),
])
def test_python_limits_hold(code: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_code(code, FAST)


def test_output_is_capped() -> None:
    out = run_code("print('y' * 50000)", FAST)
    assert len(out) < 4200 and out.endswith("[output cut at 4000 characters]")


def test_a_broken_script_is_a_tool_error_and_the_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tools.python_exec.DEFAULT_LIMITS", FAST)
    bad = ["while True:\n    pass", "x = bytearray(10 * 1024 ** 3)", "import os\nos.fork()",
           "open('/tmp/geogap-escape', 'w')", "import socket\nsocket.socket()"]
    script: list[AIMessage | str] = [AIMessage("", tool_calls=[{"name": "python", "args": {"code": c}, "id": f"c{i}"}]) for i, c in enumerate(bad)]
    script.append("FINAL ANSWER: 42")
    model = ScriptedChatModel(script=script)
    res = asyncio.run(ToolAgent(model, get_tools(["python", "calculator"]), AgentLimits(max_steps=8)).run(
        [Message(role="user", content="Compute.")]))
    assert res.stop_reason == "answered" and res.final_text == "FINAL ANSWER: 42"
    calls = [e for e in res.trace if isinstance(e, ToolCallEvent)]
    assert [e.status for e in calls] == ["error"] * 5
    assert all(e.error and "the code" in e.error for e in calls)
