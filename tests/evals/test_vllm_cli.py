"""``--model vllm/<hf-id>`` through the compare CLI, offline: attaching to ``--base-url`` (a local
OpenAI-compatible endpoint), the clear error when there is neither a GPU nor a base URL, and the start path
(``vllm serve`` with tool calling on a free port, stopped at the end) with a stand-in ``vllm`` executable."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from fault_server import FaultServer, Reply, completion

from agents import vllm_server
from evals.compare import main
from evals.store import RunStore

HF_ID = "Qwen/Qwen2.5-7B-Instruct"
FAKE_VLLM = Path(__file__).resolve().parent / "fake_vllm.py"
ARGS = ["--tasks", "gpsbench.distance", "--limit", "2", "--no-cache"]


def no_gpu_lookup() -> list[str]:
    raise AssertionError("GPU detection must not run when attaching")


def test_attach_to_base_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(vllm_server, "gpu_names", no_gpu_lookup)

    def respond(body: dict, headers: dict, n: int) -> Reply:
        return completion("FINAL ANSWER: 100 km")

    with FaultServer(respond) as server:
        rc = main(["--model", f"vllm/{HF_ID}", "--base-url", server.url, *ARGS, "--output", str(tmp_path / "run")])
    capsys.readouterr()
    assert rc == 0
    assert {r["body"]["model"] for r in server.requests} == {HF_ID}
    assert sum(1 for r in server.requests if r["body"].get("tools")) == 2  # the tools condition offered tools
    with RunStore(tmp_path / "run") as store:
        results = list(store.results(with_trace=False))
    assert len(results) == 4 and all(r.status == "ok" and r.model == f"vllm/{HF_ID}" for r in results)


def test_no_gpu_and_no_base_url_fails_clearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(vllm_server, "gpu_names", list)
    rc = main(["--model", f"vllm/{HF_ID}", *ARGS, "--output", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert rc == 1
    assert "no GPU" in err and "--base-url" in err and "Traceback" not in err


def _port_open(url: str) -> bool:
    u = urlparse(url)
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((u.hostname, u.port)) == 0


def test_starts_vllm_serve_with_tool_calling_and_stops_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys) -> None:
    argv_file = tmp_path / "argv.json"
    monkeypatch.setenv("FAKE_VLLM_ARGV", str(argv_file))
    monkeypatch.setattr(vllm_server, "gpu_names", lambda: ["GPU 0: stand-in"])
    monkeypatch.setattr(vllm_server, "vllm_executable", lambda: [sys.executable, str(FAKE_VLLM)])
    started: list[vllm_server.VllmServer] = []
    real_start = vllm_server.VllmServer.start

    def start(self: vllm_server.VllmServer) -> vllm_server.VllmServer:
        started.append(self)
        return real_start(self)

    monkeypatch.setattr(vllm_server.VllmServer, "start", start)
    rc = main(["--model", f"vllm/{HF_ID}", *ARGS, "--condition", "intrinsic", "--output", str(tmp_path / "run")])
    capsys.readouterr()
    assert rc == 0
    argv = json.loads(argv_file.read_text())
    assert argv[:2] == ["serve", HF_ID]
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    assert "--enable-auto-tool-choice" in argv and argv[argv.index("--tool-call-parser") + 1] == "hermes"
    assert len(started) == 1 and started[0].process is None  # stopped
    assert not _port_open(started[0].base_url)
    assert (tmp_path / "run" / "server.log").exists()
    with RunStore(tmp_path / "run") as store:
        results = list(store.results(with_trace=False))
    assert len(results) == 2 and all(r.status == "ok" for r in results)


def test_reasoning_parser_passthrough_arguments_and_the_printed_command(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys) -> None:
    argv_file = tmp_path / "argv.json"
    monkeypatch.setenv("FAKE_VLLM_ARGV", str(argv_file))
    monkeypatch.setattr(vllm_server, "gpu_names", lambda: ["GPU 0: stand-in"])
    monkeypatch.setattr(vllm_server, "vllm_executable", lambda: [sys.executable, str(FAKE_VLLM)])
    rc = main(["--model", "vllm/Qwen/Qwen3-8B", *ARGS, "--condition", "intrinsic", "--output", str(tmp_path / "run"),
               "--vllm-arg", "--max-model-len 8192", "--vllm-arg=--enforce-eager"])
    err = " ".join(capsys.readouterr().err.split())
    assert rc == 0
    argv = json.loads(argv_file.read_text())
    assert argv[argv.index("--tool-call-parser") + 1] == "hermes"
    assert argv[argv.index("--reasoning-parser") + 1] == "qwen3"
    assert argv[-3:] == ["--max-model-len", "8192", "--enforce-eager"]
    assert "starting vllm serve Qwen/Qwen3-8B --host 127.0.0.1 --port" in err
    assert "--reasoning-parser qwen3 --max-model-len 8192 --enforce-eager" in err
    assert "open-reasoning" in err  # the printed protocol: Qwen3 thinks, so it gets room to reason
