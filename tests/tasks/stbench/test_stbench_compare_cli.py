"""Every STBench task, synthesised and loaded, runs in both conditions through ``python -m evals.compare``.

The model is a local fake OpenAI-compatible endpoint (stdlib HTTP server): it answers option 1 directly,
except that with tools offered on a direction question it first calls ``initial_bearing`` with the prompt's
coordinates and then answers from the tool result.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evals.compare import main
from evals.store import RunStore
from tasks.registry import resolve_tasks

DATA = Path(__file__).parent / "data"
COMPASS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


def reply(body: dict) -> dict:
    messages = body["messages"]
    user = next(m["content"] for m in messages if m["role"] == "user")
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    message: dict = {"role": "assistant", "content": "FINAL ANSWER: 1"}
    if "B lies to the () of A" in user or "In which direction does B lie from A" in user:
        if body.get("tools") and not tool_msgs:
            nums = [float(x) for x in re.findall(r"(?:latitude|longitude) (-?\d+(?:\.\d+)?)", user)]
            lat1, lon1, lat2, lon2 = (nums if "latitude" in user.split("longitude")[0] else
                                      [nums[1], nums[0], nums[3], nums[2]])
            args = {"lat1": lat1, "lon1": lon1, "lat2": lat2, "lon2": lon2}
            message = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "initial_bearing", "arguments": json.dumps(args)}}]}
        elif tool_msgs:
            abbrev = json.loads(tool_msgs[-1]["content"])["compass_8"]
            message["content"] = f"FINAL ANSWER: {COMPASS.index(abbrev) + 1}"
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}


@pytest.fixture()
def endpoint() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            data = json.dumps(reply(body)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_all_stbench_tasks_run_in_both_conditions(endpoint: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")
    run_dir = tmp_path / "run"
    code = main(["--model", "openai-compatible/fake", "--base-url", endpoint, "--tasks", "stbench.*",
                 "--dataset", str(DATA), "--limit", "1", "--max-connections", "4", "--output", str(run_dir)])
    assert code == 0
    results = list(RunStore(run_dir, create=False).results())
    tasks = resolve_tasks(["stbench.*"])
    assert {(r.task, r.condition) for r in results} == {(t, c) for t in tasks for c in ("intrinsic", "tools")}
    assert all(r.status == "ok" and r.score is not None for r in results), [r.error for r in results if r.error]
    for name in ("stbench.direction", "stbench.direction.completion"):
        tools = next(r for r in results if r.task == name and r.condition == "tools")
        assert tools.tool_calls == 1 and tools.score.correct
        assert [e.kind for e in tools.trace] == ["model_call", "tool_call", "model_call"]
    report = json.loads((run_dir / "results.json").read_text())["meta"]["load_reports"]["stbench.official"]
    assert report["loaded"] == report["lines"] == 23 and report["skipped"] == 0


def test_dataset_flags_are_checked_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--tasks", "stbench.official", "--condition", "intrinsic"]) == 2
    assert "stbench.official needs --dataset PATH" in capsys.readouterr().err
    assert main(["--tasks", "stbench.official", "--dataset", str(DATA), "--dataset-kind", "teleport"]) == 2
    assert "unknown STBench kind" in capsys.readouterr().err
    assert main(["--tasks", "stbench.direction", "--dataset", str(DATA)]) == 2
    assert "none is in --tasks" in capsys.readouterr().err
    assert main(["--list"]) == 0
    assert "stbench.official reads --dataset PATH; --dataset-kind from: " in capsys.readouterr().out
