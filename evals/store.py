"""The run store: one SQLite database (WAL) per run directory.

Tables: ``run`` (the spec: full config, package versions, git revision, dataset hash), ``samples`` (what was
asked), ``results`` (one row per sample, condition and epoch: the full record as JSON plus columns for
queries) and ``events`` (trace events in order). Every result is committed in its own transaction as soon as
it is known, so killing the process at any moment loses no completed sample. A run that writes holds an
exclusive lock on ``run.lock`` (``fcntl.flock``, released when the store closes or the process exits), so a
second run into a directory in use is refused. ``results.answer_status`` is the score's answer status
(``tasks.records.ANSWER_STATUSES``). The store's format is its ``PRAGMA user_version``: opening it for writing
runs the numbered :data:`MIGRATIONS` it has not had; each trace event's
record holds a model call's finish reason (provider-neutral and raw). Everything written passes
through :func:`agents.secrets.redact_json` (secrets masked in string values before serialization): API keys
and authorisation headers never reach the file. Reading is :class:`evals.run_reader.RunReader`'s (a store is one).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from agents.secrets import redact_json
from agents.trace import ModelCallEvent
from evals.records import RunSpec, SampleResult
from evals.run_reader import DB_NAME, DEDUP_MIN_CHARS, SAME_AS_FINAL_TEXT, RunReader
from tasks.records import Sample

SCHEMA = """
CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, spec TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS samples (
  sample_id TEXT PRIMARY KEY, task TEXT NOT NULL, split TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, epoch INTEGER NOT NULL, task TEXT NOT NULL,
  status TEXT NOT NULL, correct INTEGER, value REAL, parse_failed INTEGER, record TEXT NOT NULL,
  created REAL NOT NULL, answer_status TEXT, PRIMARY KEY (sample_id, condition, epoch));
CREATE TABLE IF NOT EXISTS events (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, epoch INTEGER NOT NULL, seq INTEGER NOT NULL,
  kind TEXT NOT NULL, tool TEXT, status TEXT, record TEXT NOT NULL,
  PRIMARY KEY (sample_id, condition, epoch, seq));
"""
LOCK_NAME = "run.lock"


def _v1_tables(db: sqlite3.Connection) -> None:
    """Format 1: the four tables. A store from before formats were numbered (``user_version`` 0) already has
    them, written before answer statuses existed or after: the column is added and filled where missing."""
    for statement in SCHEMA.split(";"):  # not executescript: it would commit the migration's transaction
        if statement.strip():
            db.execute(statement)
    if "answer_status" not in {row[1] for row in db.execute("PRAGMA table_info(results)")}:
        db.execute("ALTER TABLE results ADD COLUMN answer_status TEXT")
        db.execute("UPDATE results SET answer_status = CASE WHEN parse_failed = 1 THEN 'unparsed' ELSE 'answered' "
                   "END WHERE status = 'ok'")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1_tables,)
"""``MIGRATIONS[i]`` takes a store from format ``i`` to ``i + 1`` (``PRAGMA user_version``); append, never edit."""
STORE_VERSION = len(MIGRATIONS)


class StoreTooNew(ValueError):
    """A store written by a newer geogap (a format this code does not know)."""


def store_version(db: sqlite3.Connection) -> int:
    """The store's format (``PRAGMA user_version``; 0: written before formats were numbered)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection) -> None:
    """Bring the store to :data:`STORE_VERSION`, one numbered migration per transaction; raises
    :class:`StoreTooNew` for a format from the future."""
    version = store_version(db)
    if version > STORE_VERSION:
        raise StoreTooNew(f"store format {version} is newer than this geogap's ({STORE_VERSION})")
    for number in range(version, STORE_VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[number](db)
            db.execute(f"PRAGMA user_version = {number + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
RESULT_COLUMNS = ("sample_id, condition, epoch, task, status, correct, value, parse_failed, record, created, "
                  "answer_status")


def _stored_once(r: SampleResult) -> SampleResult:
    """``r`` with the copies of a long final text (``SAME_AS_FINAL_TEXT`` or more characters: the parsed
    answer's raw text, the model calls' raw text and returned content) replaced by :data:`SAME_AS_FINAL_TEXT`,
    which :meth:`RunReader.results` puts back: a 4 MiB reply takes 4 MiB, not 16."""
    text = r.final_text
    if len(text) < DEDUP_MIN_CHARS:
        return r
    update: dict[str, object] = {}
    if r.parsed is not None and r.parsed.raw == text:
        update["parsed"] = r.parsed.model_copy(update={"raw": SAME_AS_FINAL_TEXT})
    trace = []
    for e in r.trace:
        if isinstance(e, ModelCallEvent):
            changes: dict[str, object] = {}
            if e.raw_text == text:
                changes["raw_text"] = SAME_AS_FINAL_TEXT
            if e.message_out is not None and e.message_out.get("content") == text:
                changes["message_out"] = {**e.message_out, "content": SAME_AS_FINAL_TEXT}
            e = e.model_copy(update=changes) if changes else e
        trace.append(e)
    update["trace"] = trace
    return r.model_copy(update=update)


class RunDirInUse(RuntimeError):
    """Another process is writing a run into this directory."""


def _lock(run_dir: Path) -> int:
    """An exclusive, non-blocking ``flock`` on ``run_dir/run.lock`` (its fd); raises :class:`RunDirInUse`."""
    fd = os.open(run_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip()
        os.close(fd)
        raise RunDirInUse(f"{run_dir} is in use by another run{f' (pid {holder})' if holder else ''}; wait for it "
                          "to finish or choose another --output") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


class RunStore(RunReader):
    """Write one run directory's ``run.sqlite`` (and read it as a :class:`RunReader`)."""

    def __init__(self, run_dir: Path, *, create: bool = True, exclusive: bool = False) -> None:
        """Open (or create) the store; ``exclusive``: hold the directory's run lock until :meth:`close`."""
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        self.unreadable = set()
        if not create and not self.path.exists():
            raise FileNotFoundError(f"no run store in {self.run_dir} (expected {DB_NAME})")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock_fd = _lock(self.run_dir) if exclusive else None
        try:
            self.db = sqlite3.connect(self.path, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            migrate(self.db)
        except BaseException:
            self._unlock()
            raise

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    def close(self) -> None:
        self.db.close()
        self._unlock()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def drop_unreadable(self) -> int:
        """Delete the results (and their events) whose stored record cannot be read, so that the run answers
        those samples again; returns how many."""
        for _ in self.results(with_trace=False):
            pass
        with self.db:
            for key in self.unreadable:
                for table in ("results", "events"):
                    self.db.execute(f"DELETE FROM {table} WHERE sample_id=? AND condition=? AND epoch=?", key)
        dropped = len(self.unreadable)
        self.unreadable = set()
        return dropped

    def write_spec(self, run_id: str, spec: RunSpec) -> None:
        with self.db:
            self.db.execute("DELETE FROM run WHERE id != ?", (run_id,))
            self.db.execute("INSERT OR REPLACE INTO run VALUES (?, ?, ?)",
                            (run_id, redact_json(spec), time.time()))

    def add_samples(self, samples: list[Sample]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO samples VALUES (?, ?, ?, ?)",
                [(s.id, s.task, s.split, redact_json(s)) for s in samples],
            )

    def add_result(self, r: SampleResult) -> None:
        """Store one result and its trace in a single transaction (replacing an earlier failed attempt); a long
        reply is stored once (:func:`_stored_once`)."""
        r = _stored_once(r)
        score = r.score
        with self.db:
            self.db.execute("DELETE FROM events WHERE sample_id=? AND condition=? AND epoch=?",
                            (r.sample_id, r.condition, r.epoch))
            self.db.execute(
                f"INSERT OR REPLACE INTO results ({RESULT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r.sample_id, r.condition, r.epoch, r.task, r.status,
                 None if score is None else int(score.correct), None if score is None else score.value,
                 None if score is None else int(score.parse_failed),
                 redact_json(r, exclude={"trace"}), time.time(),
                 None if score is None or r.status != "ok" else score.status),
            )
            self.db.executemany(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.sample_id, r.condition, r.epoch, i, e.kind, e.tool if e.kind == "tool_call" else None, e.status,
                  redact_json(e))
                 for i, e in enumerate(r.trace)],
            )
