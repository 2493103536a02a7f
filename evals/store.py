"""The run store: one SQLite database (WAL) per run directory.

Tables: ``run`` (the spec), ``samples`` (what was asked), ``results`` (one row per sample, condition and
epoch, the full record as JSON plus columns for queries) and ``events`` (trace events in order). Every result
is committed as soon as it is known, so a killed run loses no completed sample.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from evals.records import RunSpec, SampleResult
from tasks.records import Sample

SCHEMA = """
CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, spec TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS samples (
  sample_id TEXT PRIMARY KEY, task TEXT NOT NULL, split TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, epoch INTEGER NOT NULL, task TEXT NOT NULL,
  status TEXT NOT NULL, correct INTEGER, value REAL, parse_failed INTEGER, record TEXT NOT NULL,
  created REAL NOT NULL, PRIMARY KEY (sample_id, condition, epoch));
CREATE TABLE IF NOT EXISTS events (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, epoch INTEGER NOT NULL, seq INTEGER NOT NULL,
  kind TEXT NOT NULL, tool TEXT, status TEXT, record TEXT NOT NULL,
  PRIMARY KEY (sample_id, condition, epoch, seq));
"""


class RunStore:
    """Read and write one run directory's ``run.sqlite``."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / "run.sqlite"
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def write_spec(self, run_id: str, spec: RunSpec) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO run VALUES (?, ?, ?)", (run_id, spec.model_dump_json(), time.time()))

    def read_spec(self) -> tuple[str, RunSpec] | None:
        row = self.db.execute("SELECT id, spec FROM run LIMIT 1").fetchone()
        return (row[0], RunSpec.model_validate_json(row[1])) if row else None

    def add_samples(self, samples: list[Sample]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO samples VALUES (?, ?, ?, ?)",
                [(s.id, s.task, s.split, s.model_dump_json()) for s in samples],
            )

    def samples(self) -> dict[str, Sample]:
        return {r[0]: Sample.model_validate_json(r[1]) for r in self.db.execute("SELECT sample_id, record FROM samples")}

    def completed(self) -> set[tuple[str, str, int]]:
        """Keys of results that finished without error (resume skips them)."""
        rows = self.db.execute("SELECT sample_id, condition, epoch FROM results WHERE status = 'ok'")
        return {(a, b, int(c)) for a, b, c in rows}

    def add_result(self, r: SampleResult) -> None:
        """Store one result and its trace in a single transaction (replacing an earlier failed attempt)."""
        score = r.score
        with self.db:
            self.db.execute("DELETE FROM events WHERE sample_id=? AND condition=? AND epoch=?",
                            (r.sample_id, r.condition, r.epoch))
            self.db.execute(
                "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r.sample_id, r.condition, r.epoch, r.task, r.status,
                 None if score is None else int(score.correct), None if score is None else score.value,
                 None if score is None else int(score.parse_failed),
                 r.model_dump_json(exclude={"trace"}), time.time()),
            )
            self.db.executemany(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.sample_id, r.condition, r.epoch, i, e.kind, e.tool, e.status, e.model_dump_json())
                 for i, e in enumerate(r.trace)],
            )

    def results(self, with_trace: bool = True) -> Iterator[SampleResult]:
        """All stored results, with their traces unless asked not to."""
        rows = self.db.execute("SELECT sample_id, condition, epoch, record FROM results ORDER BY task, sample_id, condition")
        for sid, cond, epoch, rec in rows.fetchall():
            data = json.loads(rec)
            if with_trace:
                events = self.db.execute(
                    "SELECT record FROM events WHERE sample_id=? AND condition=? AND epoch=? ORDER BY seq",
                    (sid, cond, epoch))
                data["trace"] = [json.loads(e[0]) for e in events]
            yield SampleResult.model_validate(data)

    def export_jsonl(self, path: Path) -> Path:
        with open(path, "w") as f:
            for r in self.results():
                f.write(r.model_dump_json() + "\n")
        return path
