"""A run never passes for a result it did not measure: a dead model server or endpoint stops the run with a
non-zero exit and ``--resume`` finishes it with nothing lost or duplicated; one run per directory; errors are
not answers; answer statuses reach results.json and the table."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from fault_server import FaultServer, completion, user_prompt

import agents.local_model
from agents.server_process import ServerProcess, free_port
from evals.analysis import compare, summarise
from evals.compare import main
from evals.prepare import default_run_dir
from evals.records import SampleResult
from evals.report import build_report, render_table, write_results_json
from evals.run import EXIT_ERRORS, EXIT_OK, EXIT_STOPPED, EXIT_USAGE
from evals.store import RunStore
from tasks import get_task
from tasks.records import Parsed, Score

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TASK = "gpsbench.distance"


class FakeLocalServer(ServerProcess):
    """Stands in for the embedded llama.cpp server: a child process running ``fault_server.py``."""

    label = agents.local_model.LocalModelServer.label
    sigill_hint = agents.local_model.LocalModelServer.sigill_hint
    die_after: ClassVar[int | None] = None
    log: ClassVar[Path | None] = None
    stored: ClassVar[Path | None] = None  # die only once this run.sqlite holds die_after results

    def __init__(self, name: str, *, log_path: Path | None = None, **_: Any) -> None:
        super().__init__(log_path=log_path, startup_timeout_s=30)

    def start(self) -> FakeLocalServer:
        self.port = free_port()
        cmd = [sys.executable, str(HERE / "fault_server.py"), "--port", str(self.port), "--log", str(self.log)]
        if self.die_after is not None:
            cmd += ["--die-after", str(self.die_after)]
        if self.stored is not None:
            cmd += ["--stored", str(self.stored)]
        self._launch(cmd)
        return self


def _asked(log: Path) -> list[str]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _rows(run_dir: Path) -> dict[tuple[str, str], tuple[str, float]]:
    with sqlite3.connect(run_dir / "run.sqlite") as con:
        return {(a, b): (s, t) for a, b, s, t in con.execute("SELECT sample_id, condition, status, created FROM results")}


def test_server_death_stops_the_run_and_resume_finishes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(agents.local_model, "LocalModelServer", FakeLocalServer)
    samples = get_task(TASK).samples(limit=6)
    run_dir = tmp_path / "run"
    monkeypatch.setattr(FakeLocalServer, "die_after", 3)
    monkeypatch.setattr(FakeLocalServer, "log", tmp_path / "first.log")
    monkeypatch.setattr(FakeLocalServer, "stored", run_dir / "run.sqlite")
    t0 = time.monotonic()
    rc = main(["--tasks", TASK, "--limit", "6", "--condition", "intrinsic", "--output", str(run_dir), "--no-cache",
               "--retry-delay", "300"])
    err = capsys.readouterr().err
    assert rc == EXIT_STOPPED
    assert time.monotonic() - t0 < 240  # stopped at once: one retry of a sample would have waited 300 s
    lines = err.splitlines()
    stop = next(line for line in lines if line.startswith("error: run stopped"))
    assert "local model server was killed by SIGILL" in stop and "CPU instructions" in stop
    assert "pip install --force-reinstall --no-cache-dir" in stop and "xllamacpp==" in stop
    assert "fake model server: executing an illegal instruction" in err  # the server log's tail
    assert f"--resume {run_dir}" in err
    first = _rows(run_dir)
    server_log = (run_dir / "server.log").read_text()
    assert len(first) == 3 and {s for s, _ in first.values()} == {"ok"}, (first, err, server_log)  # in flight: not stored
    assert not (run_dir / "results.json").exists()  # no accuracy from a run that did not finish

    monkeypatch.setattr(FakeLocalServer, "die_after", None)
    monkeypatch.setattr(FakeLocalServer, "stored", None)
    monkeypatch.setattr(FakeLocalServer, "log", tmp_path / "second.log")
    assert main(["--resume", str(run_dir)]) == EXIT_OK
    after = _rows(run_dir)
    assert len(after) == 6 and {s for s, _ in after.values()} == {"ok"}
    assert all(after[k] == first[k] for k in first)  # completed samples kept, not rewritten
    asked_again = _asked(tmp_path / "second.log")
    done_first = {next(s.prompt for s in samples if s.id == sid) for sid, _ in first}
    assert len(asked_again) == 3 and not set(asked_again) & done_first  # only the missing ones, once each
    data = json.loads((run_dir / "results.json").read_text())
    assert data["tasks"][0]["complete"] and data["tasks"][0]["conditions"]["intrinsic"]["n"] == 6


def test_dead_endpoint_stops_the_run_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    port = free_port()  # nothing listens there: connection refused
    run_dir = tmp_path / "run"
    argv = ["--model", "openai-compatible/fake", "--tasks", TASK, "--limit", "8", "--condition", "intrinsic",
            "--output", str(run_dir), "--no-cache", "--max-attempts", "2", "--retry-delay", "0.01",
            "--max-connections", "1"]
    rc = main([*argv, "--base-url", f"http://user:hunter2@127.0.0.1:{port}/v1"])
    err = capsys.readouterr().err
    assert rc == EXIT_STOPPED
    assert f"127.0.0.1:{port}" in err and "unreachable" in err and "3 samples in a row" in err
    assert "hunter2" not in err
    assert "intrinsic 0/0 right, 3 failed" in " ".join(err.split())  # failed calls are not counted as answers
    assert not (run_dir / "results.json").exists()
    with RunStore(run_dir) as store:
        assert [r.status for r in store.results()] == ["error"] * 3  # stopped after 3, not all 8
    with FaultServer(lambda body, headers, n: completion("FINAL ANSWER: 100 km")) as server:
        assert main(["--resume", str(run_dir), "--base-url", server.url]) == EXIT_OK
        assert len(server.requests) == 8  # the 3 failed ones and the 5 never tried, once each
    with RunStore(run_dir) as store:
        results = list(store.results())
    assert len(results) == 8 and all(r.status == "ok" for r in results)


def test_a_directory_in_use_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    run_dir = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from evals.store import RunStore; "
         "s = RunStore(sys.argv[1], exclusive=True); print('locked', flush=True); time.sleep(60)", str(run_dir)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with FaultServer(lambda body, headers, n: completion("FINAL ANSWER: 100 km")) as server:
            argv = ["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "2",
                    "--condition", "intrinsic", "--output", str(run_dir), "--no-cache"]
            assert main(argv) == EXIT_USAGE
            err = capsys.readouterr().err
            assert "is in use by another run" in err and f"pid {holder.pid}" in err
            assert not server.requests
            holder.kill()
            holder.wait(timeout=10)
            assert main(argv) == EXIT_OK  # the lock died with its process
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=10)


def test_default_run_dirs_are_unique() -> None:
    dirs = {default_run_dir("local/qwen2.5-coder-1.5b") for _ in range(50)}
    assert len(dirs) == 50


def test_a_selection_without_samples_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import evals.prepare

    class Empty:
        def __init__(self, task: Any) -> None:
            self.task = task

        def samples(self, **_: Any) -> list[Any]:
            return []

    real = evals.prepare.make_task
    monkeypatch.setattr(evals.prepare, "make_task", lambda *args: Empty(real(*args)))
    rc = main(["--model", "openai-compatible/fake", "--base-url", "http://127.0.0.1:9/v1", "--tasks", TASK,
               "--output", str(tmp_path / "run")])
    assert rc == EXIT_USAGE and "the selection has no samples" in capsys.readouterr().err


def test_a_run_with_errors_exits_3_and_is_marked_incomplete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    prompts = [s.prompt for s in get_task(TASK).samples(limit=4)]

    def respond(body: dict, headers: dict, n: int):
        from fault_server import error

        return error(400, "context length exceeded") if user_prompt(body) == prompts[0] else \
            completion("FINAL ANSWER: 100 km")

    run_dir = tmp_path / "run"
    with FaultServer(respond) as server:
        rc = main(["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "4",
                   "--condition", "intrinsic", "--output", str(run_dir), "--no-cache"])
    out = capsys.readouterr()
    assert rc == EXIT_ERRORS
    assert f"{TASK} (incomplete)" in out.out and "incomplete: 1 samples ended in error" in out.err
    data = json.loads((run_dir / "results.json").read_text())
    task = data["tasks"][0]
    intrinsic = task["conditions"]["intrinsic"]
    assert not task["complete"] and task["errors"] == 1
    assert intrinsic["n"] == 3 and intrinsic["errors"] == 1 and not intrinsic["complete"]
    assert intrinsic["statuses"]["answered"] == 3 and intrinsic["status_shares"]["answered"] == 1.0
    assert "(incomplete)" in (run_dir / "report.html").read_text()


def _scored(i: int, cond: str, parsed: Parsed | None, correct: bool = False, status: str = "ok") -> SampleResult:
    score = None if parsed is None else (
        Score(correct=correct, value=float(correct)) if parsed.status == "answered" else Score.unanswered(parsed))
    return SampleResult(run_id="r", sample_id=f"t.x/test/{i:05d}", task="t.x", condition=cond, model="m",
                        parsed=parsed, score=score, status=status)  # type: ignore[arg-type]


def test_answer_status_shares_reach_results_json_and_the_table(tmp_path: Path) -> None:
    ok = Parsed.success("FINAL ANSWER: 1 km", 1.0)
    rs = [
        _scored(0, "intrinsic", ok, True), _scored(1, "intrinsic", ok, False),
        _scored(2, "intrinsic", Parsed.hedged("1 km or 2 km", "two values", [1, 2])),
        _scored(3, "intrinsic", Parsed.failure("hmm", "no number")),
        _scored(4, "intrinsic", Parsed.refused("I cannot")),
        _scored(5, "intrinsic", None, status="error"),
        *(_scored(i, "tools", ok, True) for i in range(5)),
        _scored(5, "tools", ok, True),
    ]
    s = summarise([r for r in rs if r.condition == "intrinsic"])
    assert s.statuses == {"answered": 2, "hedged": 1, "unlocated": 0, "unparsed": 1, "refused": 1, "truncated": 0,
                          "blocked": 0}
    assert s.status_shares == {"answered": 0.4, "hedged": 0.2, "unlocated": 0.0, "unparsed": 0.2, "refused": 0.2,
                               "truncated": 0.0, "blocked": 0.0}
    assert (s.n, s.correct, s.errors, s.parse_failures) == (5, 1, 1, 3)
    report = build_report(rs, ["intrinsic", "tools"], {"run_id": "r"})
    data = json.loads(write_results_json(tmp_path / "results.json", report).read_text())
    shares = data["tasks"][0]["conditions"]["intrinsic"]["status_shares"]
    assert shares == {"answered": 0.4, "hedged": 0.2, "unlocated": 0.0, "unparsed": 0.2, "refused": 0.2, "truncated": 0.0,
                      "blocked": 0.0}
    assert data["tasks"][0]["gap"]["tools"]["n_paired"] == 5  # the errored pair (5) is left out
    table = render_table(compare(rs, ["intrinsic", "tools"]), ["intrinsic", "tools"])
    headers = [c.header for c in table.columns]
    status_col = table.columns[headers.index("intrinsic status %")]._cells
    assert status_col == ["40/20/0/20/20/0/0"]
    assert table.columns[0]._cells == ["t.x (incomplete)"]


def test_old_store_without_answer_status_column_stays_readable(tmp_path: Path) -> None:
    run_dir = tmp_path / "old"
    run_dir.mkdir()
    with sqlite3.connect(run_dir / "run.sqlite") as con:  # the results table as written before answer statuses
        con.execute("CREATE TABLE results (sample_id TEXT NOT NULL, condition TEXT NOT NULL, epoch INTEGER NOT NULL, "
                    "task TEXT NOT NULL, status TEXT NOT NULL, correct INTEGER, value REAL, parse_failed INTEGER, "
                    "record TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (sample_id, condition, epoch))")
        old = _scored(0, "intrinsic", Parsed.failure("x", "none")).model_dump(exclude={"trace"})
        old["score"].pop("status")  # an old record: no status field
        con.execute("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    ("t.x/test/00000", "intrinsic", 0, "t.x", "ok", 0, 0.0, 1, json.dumps(old), 1.0))
    with RunStore(run_dir) as store:
        [r] = list(store.results())
        assert r.score is not None and r.score.status == "unparsed"
        store.add_result(_scored(1, "intrinsic", Parsed.hedged("a or b", "two")))
        rows = dict(store.db.execute("SELECT sample_id, answer_status FROM results").fetchall())
    assert rows == {"t.x/test/00000": "unparsed", "t.x/test/00001": "hedged"}
