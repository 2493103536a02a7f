"""Read-only queries on a run directory's ``run.sqlite`` (the tables documented in ``evals.store``).

The viewer never writes: every connection is opened with ``mode=ro``. Records are parsed with the same
pydantic models the store writes (``RunSpec``, ``Sample``, ``SampleResult``, ``TraceEvent``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path

from evals.records import RunSpec, SampleResult
from evals.view.listing import Cell
from tasks.records import Sample

DB_NAME = "run.sqlite"


def is_run_dir(path: Path) -> bool:
    return (path / DB_NAME).is_file()


class RunReader:
    """Queries one run directory; opens a fresh read-only connection per call (safe across threads)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir).resolve()
        self.db_path = self.run_dir / DB_NAME
        if not self.db_path.is_file():
            raise FileNotFoundError(f"{run_dir} holds no {DB_NAME}")

    def connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.db_path.as_uri() + "?mode=ro", uri=True, check_same_thread=False)

    def stamp(self) -> tuple[int, ...]:
        """Changes whenever the run gains results (the database or its write-ahead log was written)."""
        out: list[int] = []
        for suffix in ("", "-wal"):
            try:
                st = os.stat(str(self.db_path) + suffix)
                out += [st.st_mtime_ns, st.st_size]
            except FileNotFoundError:
                out += [0, 0]
        return tuple(out)

    def spec(self) -> tuple[str, RunSpec, float] | None:
        """(run id, spec, creation time) or None for a run that has not written its spec yet."""
        with closing(self.connect()) as db:
            row = db.execute("SELECT id, spec, created FROM run LIMIT 1").fetchone()
        return (row[0], RunSpec.model_validate_json(row[1]), float(row[2])) if row else None

    def counts(self) -> tuple[int, int]:
        """(samples, results) stored."""
        with closing(self.connect()) as db:
            n_samples = db.execute("SELECT count(*) FROM samples").fetchone()[0]
            n_results = db.execute("SELECT count(*) FROM results").fetchone()[0]
        return int(n_samples), int(n_results)

    def last_result_time(self) -> float | None:
        """When the newest result was stored (Unix time), None when there is none."""
        with closing(self.connect()) as db:
            row = db.execute("SELECT max(created) FROM results").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def cells(self) -> Iterator[tuple[str, int, str, str, Cell]]:
        """(sample id, epoch, condition, task, cell) for every stored result."""
        sql = ("SELECT sample_id, epoch, condition, task, status, correct, parse_failed, "
               "json_extract(record, '$.score.error'), json_extract(record, '$.tool_calls'), "
               "json_extract(record, '$.latency_s'), json_extract(record, '$.score.status') FROM results")
        with closing(self.connect()) as db:
            for sid, epoch, cond, task, status, correct, pf, err, calls, lat, answer in db.execute(sql):
                if status == "ok" and answer is None:  # a record written before answer statuses existed
                    answer = "unparsed" if pf else "answered"
                yield sid, int(epoch), cond, task, Cell(
                    status=status, correct=bool(correct), parse_failed=bool(pf),
                    error=None if err is None else float(err), tool_calls=int(calls or 0), latency_s=float(lat or 0.0),
                    answer=answer if status == "ok" else None)

    def results_without_trace(self) -> list[SampleResult]:
        """Every stored result (trace left out), in the store's order."""
        with closing(self.connect()) as db:
            rows = db.execute("SELECT record FROM results ORDER BY task, sample_id, condition, epoch").fetchall()
        return [SampleResult.model_validate_json(r[0]) for r in rows]

    def samples(self, ids: Sequence[str]) -> dict[str, Sample]:
        out: dict[str, Sample] = {}
        with closing(self.connect()) as db:
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                for sid, rec in db.execute(f"SELECT sample_id, record FROM samples WHERE sample_id IN ({marks})", chunk):
                    out[sid] = Sample.model_validate_json(rec)
        return out

    def results(self, ids: Sequence[str], with_trace: bool = False) -> dict[tuple[str, int, str], SampleResult]:
        """Results of the given sample ids keyed by (sample id, epoch, condition), traces in order if asked."""
        out: dict[tuple[str, int, str], SampleResult] = {}
        with closing(self.connect()) as db:
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                rows = db.execute(f"SELECT sample_id, epoch, condition, record FROM results WHERE sample_id IN ({marks})",
                                  chunk).fetchall()
                for sid, epoch, cond, rec in rows:
                    data = json.loads(rec)
                    if with_trace:
                        events = db.execute("SELECT record FROM events WHERE sample_id=? AND condition=? AND epoch=? "
                                            "ORDER BY seq", (sid, cond, epoch))
                        data["trace"] = [json.loads(e[0]) for e in events]
                    out[(sid, int(epoch), cond)] = SampleResult.model_validate(data)
        return out

    def search(self, text: str) -> set[str]:
        """Sample ids whose sample, any answer or any trace event contains ``text`` (ASCII case-insensitive)."""
        needle = json.dumps(text, ensure_ascii=False)[1:-1]  # records are JSON: match the encoded form
        pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with closing(self.connect()) as db:
            found = {r[0] for r in db.execute("SELECT sample_id FROM samples WHERE record LIKE ? ESCAPE '\\'", (pattern,))}
            found |= {r[0] for r in db.execute("SELECT sample_id FROM results WHERE record LIKE ? ESCAPE '\\'", (pattern,))}
            found |= {r[0] for r in db.execute(
                "SELECT DISTINCT sample_id FROM events WHERE record LIKE ? ESCAPE '\\'", (pattern,))}
        return found


def _chunks(items: list[str], size: int = 500) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
