"""The run store's numbered format (``PRAGMA user_version``, :data:`evals.store.MIGRATIONS`): a store written before
formats were numbered (``data/store_format0.sqlite``, written by that code: a quick-suite run of
:mod:`tests.evals.fixed_policy`) opens through the migrations with every result readable, resumes and reports; a
store of a format from the future is refused on one line."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from evals.compare import main
from evals.run_reader import RunReader
from evals.store import STORE_VERSION, RunStore, StoreTooNew, store_version

FROZEN = Path(__file__).parent / "data" / "store_format0.sqlite"


def _copy(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(FROZEN, run / "run.sqlite")
    return run


def _version(run: Path) -> int:
    db = sqlite3.connect(run / "run.sqlite")
    try:
        return store_version(db)
    finally:
        db.close()


def test_a_store_of_the_unnumbered_format_migrates_and_reads(tmp_path: Path) -> None:
    run = _copy(tmp_path)
    assert _version(run) == 0
    before = [r.score for r in RunReader(run).results(with_trace=False)]
    with RunStore(run) as store:
        assert store_version(store.db) == STORE_VERSION >= 1
        after = [r.score for r in store.results(with_trace=False)]
        statuses = {row[0] for row in store.db.execute("SELECT answer_status FROM results")}
    assert len(after) == 28 and after == before
    assert statuses == {"unparsed", "hedged", "answered"}
    with RunStore(run) as store:  # opening again runs no migration
        assert store_version(store.db) == STORE_VERSION


def test_a_run_of_the_old_format_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(tmp_path)
    assert main(["--resume", str(run)]) == 0
    assert "resuming: 0 of 28 to do" in " ".join(capsys.readouterr().err.split())
    assert _version(run) == STORE_VERSION and (run / "results.json").exists()


def test_a_store_from_the_future_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(tmp_path)
    db = sqlite3.connect(run / "run.sqlite")
    db.execute(f"PRAGMA user_version = {STORE_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(StoreTooNew):
        RunStore(run)
    assert main(["--resume", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert "newer than this geogap's" in err and "\n" not in err


def test_task_versions_are_part_of_the_run_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from evals.records import RunSpec
    from tasks.registry import TASKS

    run = tmp_path / "new"
    argv = ["--model", "scripted/tests.evals.fixed_policy:answer", "--tasks", "gpsbench.distance", "--limit", "1",
            "--conditions", "intrinsic", "--output", str(run)]
    assert main(argv) == 0
    spec = RunReader(run).read_spec()
    assert spec is not None and spec.spec.task_versions == {"gpsbench.distance": "1"}
    assert "task_versions" in spec.spec.identity()
    monkeypatch.setattr(TASKS.get("gpsbench.distance"), "version", "2")
    assert main(["--resume", str(run)]) == 2
    assert "gpsbench.distance (run: 1, now: 2)" in capsys.readouterr().err
    assert main(argv) == 2  # the same command again: a different run now
    assert "differs in task_versions" in capsys.readouterr().err
    old = _copy(tmp_path)  # a run from before task versions resumes as it was
    assert RunSpec.model_validate_json(sqlite3.connect(old / "run.sqlite").execute(
        "SELECT spec FROM run").fetchone()[0]).task_versions == {}
    assert main(["--resume", str(old)]) == 0
