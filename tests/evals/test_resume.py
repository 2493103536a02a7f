"""Resume: kill -9 during a run loses and recomputes no completed sample; --resume and re-running the same spec
redo only missing or failed samples; a different spec in the same directory is refused."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, error, user_prompt

from evals.compare import main
from evals.store import RunStore
from tasks import get_task

ROOT = Path(__file__).resolve().parents[2]
N = 40

# A test-only driver: the real runner and store with a slow scripted model (no public "scripted" provider).
DRIVER = textwrap.dedent("""
    import asyncio, json, sys, time
    from pathlib import Path
    from langchain_core.messages import AIMessage, ToolMessage
    from agents.scripted import ScriptedChatModel
    from evals.conditions import get_condition
    from evals.records import RunSpec
    from evals.runner import run_all
    from evals.store import RunStore
    from tasks import get_task

    run_dir, log = Path(sys.argv[1]), Path(sys.argv[2])
    task = get_task("gpsbench.distance")
    samples = task.samples(limit={n})
    ids = {{s.prompt: s.id for s in samples}}
    spec = RunSpec(model="scripted/slow", tasks=[task.name], conditions=["intrinsic", "tools"], limit={n},
                   max_connections=4)
    store = RunStore(run_dir)
    stored = store.read_spec()
    run_id = stored[0] if stored else "r1"
    if stored is None:
        store.write_spec(run_id, spec)
        store.add_samples(samples)

    def policy(messages, tools):
        prompt = next(m.content for m in messages if m.type == "human")
        with open(log, "a") as f:
            f.write(("tools" if tools else "intrinsic") + "\\t" + ids[prompt] + "\\n")
        time.sleep(0.02)
        if tools and not any(isinstance(m, ToolMessage) for m in messages):
            return AIMessage("", tool_calls=[{{"name": "distance_km", "id": "c",
                                               "args": {{"lat1": 0, "lon1": 0, "lat2": 1, "lon2": 1}}}}])
        return "FINAL ANSWER: 157 km"

    conds = [get_condition("intrinsic"), get_condition("tools")]
    asyncio.run(run_all(run_id, spec, store, [(s, task) for s in samples], conds, ScriptedChatModel(script=policy)))
""").format(n=N)


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _snapshot(run_dir: Path) -> dict[tuple[str, str, int], tuple[str, float]]:
    with sqlite3.connect(run_dir / "run.sqlite") as con:
        rows = con.execute("SELECT sample_id, condition, epoch, record, created FROM results WHERE status = 'ok'")
        return {(a, b, int(c)): (rec, t) for a, b, c, rec, t in rows}


def _calls(log: Path) -> set[tuple[str, str, int]]:
    if not log.exists():
        return set()
    return {(sid, cond, 0) for cond, sid in (line.split("\t") for line in log.read_text().splitlines())}


def test_kill_9_then_resume_loses_and_recomputes_nothing(tmp_path: Path) -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(driver), str(run_dir), str(tmp_path / "log1")], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while _count(run_dir / "run.sqlite") < N // 2 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _snapshot(run_dir)
    assert N // 2 <= len(before) < 2 * N  # killed mid-run, with completed samples stored

    second = subprocess.run([sys.executable, str(driver), str(run_dir), str(tmp_path / "log2")], cwd=ROOT, env=env,
                            capture_output=True, timeout=120)
    assert second.returncode == 0, second.stderr.decode()
    after = _snapshot(run_dir)
    assert len(after) == 2 * N
    assert all(after[k] == before[k] for k in before)  # no completed sample lost or rewritten
    redone = _calls(tmp_path / "log2")
    assert not redone & before.keys()  # none recomputed
    assert redone == after.keys() - before.keys()  # exactly the missing ones were done


def _responder(prompts: list[str], failing: set[int]):
    def respond(body: dict, headers: dict, n: int) -> Reply:
        if prompts.index(user_prompt(body)) in failing:
            return error(400, "injected")
        return completion("FINAL ANSWER: 157 km")
    return respond


def test_resume_and_rerun_redo_only_missing_or_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    prompts = [s.prompt for s in get_task("gpsbench.distance").samples(limit=4)]
    failing = {1}
    run_dir = tmp_path / "run"
    with FaultServer(_responder(prompts, failing)) as server:
        argv = ["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", "gpsbench.distance",
                "--limit", "4", "--condition", "intrinsic", "--output", str(run_dir)]
        assert main(argv) == 3  # finished, one sample ended in error: incomplete
        assert len(server.requests) == 4
        failing.clear()
        assert main(["--resume", str(run_dir)]) == 0  # the stored spec is used: no other flag needed
        assert [prompts.index(user_prompt(r["body"])) for r in server.requests[4:]] == [1]
        assert main(argv) == 0  # the same spec again: nothing left to do
        assert len(server.requests) == 5
        capsys.readouterr()
        assert main([*argv[:-1], str(run_dir), "--seed", "7"]) == 2
        err = capsys.readouterr().err
        assert "holds a different run (differs in seed)" in err and "--resume" in err
        assert main(["--resume", str(run_dir), "--limit", "3"]) == 2
        assert "--limit differs from the run being resumed" in capsys.readouterr().err
    with RunStore(run_dir) as store:
        results = {r.sample_id: r for r in store.results()}
    assert len(results) == 4 and all(r.status == "ok" for r in results.values())
    assert sorted(r.attempts for r in results.values()) == [1, 1, 1, 2]
