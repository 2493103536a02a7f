"""The one reader of a run directory's ``run.sqlite`` (tables in :mod:`evals.store`), used by the report, the
export, the viewer and, through :class:`evals.store.RunStore`, the runner's resume.

Every query opens a fresh read-only connection (``mode=ro``): reading never changes a store, whatever its age, and
is safe across threads. Records are parsed with the models the store writes (``RunSpec``, ``Sample``,
``SampleResult``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from evals.records import RunSpec, SampleResult
from tasks.records import Sample

DB_NAME = "run.sqlite"
DONE = ("ok", "not_applicable")
Key = tuple[str, str, int]


def is_run_dir(path: Path) -> bool:
    return (path / DB_NAME).is_file()


class StoredSpec(NamedTuple):
    run_id: str
    spec: RunSpec
    created: float


@dataclass(frozen=True, slots=True)
class Cell:
    """The columns of one stored result the viewer's sample list needs (no record parsing)."""

    status: str
    correct: bool
    parse_failed: bool
    error: float | None = None
    tool_calls: int = 0
    latency_s: float = 0.0
    answer: str | None = None  # answer status of an answered result (tasks.records.ANSWER_STATUSES)

    @property
    def failed(self) -> bool:
        return self.status == "error"


SAME_AS_FINAL_TEXT = "\x00geogap:same-as-final-text"  # a long final text's copy, stored once (evals.store)
DEDUP_MIN_CHARS = 65_536


def _restore_copies(data: dict[str, Any]) -> None:
    """Put a result's final text back where the store left :data:`SAME_AS_FINAL_TEXT` in its place."""
    text = data.get("final_text")
    parsed = data.get("parsed")
    if isinstance(parsed, dict) and parsed.get("raw") == SAME_AS_FINAL_TEXT:
        parsed["raw"] = text
    for event in data.get("trace") or ():
        if isinstance(event, dict):
            if event.get("raw_text") == SAME_AS_FINAL_TEXT:
                event["raw_text"] = text
            out = event.get("message_out")
            if isinstance(out, dict) and out.get("content") == SAME_AS_FINAL_TEXT:
                out["content"] = text


class RunReader:
    """Read-only queries on one run directory's store."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        if not self.path.is_file():
            raise FileNotFoundError(f"no run store in {self.run_dir} (expected {DB_NAME})")
        self.unreadable: set[Key] = set()  # results whose stored record could not be read (skipped by results())

    def connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True, check_same_thread=False,
                               timeout=30)

    def stamp(self) -> tuple[int, ...]:
        """Changes whenever the run gains results (the database or its write-ahead log was written)."""
        out: list[int] = []
        for suffix in ("", "-wal"):
            try:
                st = os.stat(str(self.path) + suffix)
                out += [st.st_mtime_ns, st.st_size]
            except FileNotFoundError:
                out += [0, 0]
        return tuple(out)

    def read_spec(self) -> StoredSpec | None:
        """(run id, spec, creation time), or None for a run that has not written its spec yet."""
        with closing(self.connect()) as db:
            row = db.execute("SELECT id, spec, created FROM run LIMIT 1").fetchone()
        return StoredSpec(row[0], RunSpec.model_validate_json(row[1]), float(row[2])) if row else None

    def count(self, table: Literal["results", "samples"] = "results") -> int:
        """How many results (or samples) are stored."""
        with closing(self.connect()) as db:
            return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def last_result_time(self) -> float | None:
        """When the newest result was stored (Unix time), None when there is none."""
        with closing(self.connect()) as db:
            row = db.execute("SELECT max(created) FROM results").fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def completed(self) -> set[Key]:
        """Keys of results that need no further work (answered, or not applicable): resume skips them."""
        with closing(self.connect()) as db:
            rows = db.execute("SELECT sample_id, condition, epoch FROM results WHERE status IN (?, ?)", DONE).fetchall()
        return {(a, b, int(c)) for a, b, c in rows}

    def attempts(self) -> dict[Key, int]:
        """How often each stored (failed or completed) result was tried."""
        with closing(self.connect()) as db:
            rows = db.execute("SELECT sample_id, condition, epoch, json_extract(record, '$.attempts') "
                              "FROM results").fetchall()
        return {(a, b, int(c)): int(n or 1) for a, b, c, n in rows}

    def samples(self, ids: Sequence[str] | None = None) -> dict[str, Sample]:
        """The stored samples (only ``ids`` when given) by id."""
        with closing(self.connect()) as db:
            rows = [r for chunk in _chunks(ids) for r in db.execute(
                "SELECT sample_id, record FROM samples" + _where(chunk), chunk or ())]
        return {sid: Sample.model_validate_json(rec) for sid, rec in rows}

    def results(self, ids: Sequence[str] | None = None, *, with_trace: bool = True,
                bodies: bool = True) -> Iterator[SampleResult]:
        """The stored results (only of the sample ids ``ids`` when given) ordered by task, sample, condition and
        epoch, with their traces in order unless asked not to; without ``bodies`` the model calls' messages and
        raw text are left out of the traces (tokens, tools offered and tool calls with their results kept)."""
        record = "record" if bodies else "json_remove(record, '$.messages_in', '$.message_out', '$.raw_text')"
        with closing(self.connect()) as db:
            for chunk in _chunks(ids):
                events: dict[Key, list[object]] = {}
                if with_trace:
                    for sid, cond, epoch, rec in db.execute(
                            f"SELECT sample_id, condition, epoch, {record} FROM events" + _where(chunk)
                            + " ORDER BY sample_id, condition, epoch, seq", chunk or ()):
                        events.setdefault((sid, cond, int(epoch)), []).append(json.loads(rec))
                for sid, cond, epoch, rec in db.execute(
                        "SELECT sample_id, condition, epoch, record FROM results" + _where(chunk)
                        + " ORDER BY task, sample_id, condition, epoch", chunk or ()).fetchall():
                    try:
                        data = json.loads(rec)
                        if with_trace:
                            data["trace"] = events.get((sid, cond, int(epoch)), [])
                        _restore_copies(data)
                        result = SampleResult.model_validate(data)
                    except (ValueError, TypeError):  # a corrupt row: left out, counted (RunStore drops it on resume)
                        self.unreadable.add((sid, cond, int(epoch)))
                        continue
                    yield result

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

    def tool_result_ids(self) -> list[str]:
        """Sample ids with a tool call that returned a result (status ok) in some condition."""
        with closing(self.connect()) as db:
            return [r[0] for r in db.execute(
                "SELECT DISTINCT sample_id FROM events WHERE kind = 'tool_call' AND status = 'ok' ORDER BY sample_id")]

    def search(self, text: str) -> set[str]:
        """Sample ids whose sample, any answer or any trace event contains ``text`` (ASCII case-insensitive)."""
        needle = json.dumps(text, ensure_ascii=False)[1:-1]  # records are JSON: match the encoded form
        pattern = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        found: set[str] = set()
        with closing(self.connect()) as db:
            for table in ("samples", "results", "events"):
                found |= {r[0] for r in db.execute(
                    f"SELECT DISTINCT sample_id FROM {table} WHERE record LIKE ? ESCAPE '\\'", (pattern,))}
        return found


def _chunks(ids: Sequence[str] | None, size: int = 500) -> Iterator[list[str] | None]:
    """``ids`` in chunks small enough for one ``IN (...)``; one None (no filter) when ``ids`` is None."""
    if ids is None:
        yield None
        return
    items = list(ids)
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _where(chunk: list[str] | None) -> str:
    return "" if chunk is None else f" WHERE sample_id IN ({','.join('?' * len(chunk))})"
