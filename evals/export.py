"""Export a run's results: JSONL (full records with traces), CSV and Parquet (one flat row per result).

``python -m evals.export RUN_DIR --format jsonl,csv,parquet,inspect``. Parquet needs pyarrow (the ``parquet`` extra);
``inspect`` writes one inspect_ai eval log per condition into ``inspect/`` (:mod:`evals.inspect_log`, the
``inspect`` extra), for ``inspect view``.
The store is only read (opened read-only), whatever its age.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from agents.secrets import redact, redact_json
from agents.trace import ModelCallEvent
from evals.analysis import answer_status, dimension_value
from evals.records import SampleResult
from evals.run_reader import RunReader

FORMATS = ("jsonl", "csv", "parquet", "inspect")
COLUMNS = ["run_id", "sample_id", "task", "condition", "epoch", "model", "status", "answer_status", "answer_channel",
           "finish_reason", "finish_reason_raw", "correct", "score_value", "parse_failed", "error_value", "error_unit",
           "parsed_ok", "parsed_value", "structured_answer", "final_text", "input_tokens", "output_tokens", "cached_tokens", "latency_s", "cost_usd",
           "model_calls", "tool_calls", "tool_errors", "retries", "cache_hits", "stop_reason", "error", "attempts",
           "region", "meta"]
"""One row per result. ``status``: ok, error or not_applicable; ``answer_status`` (answered results only):
answered, hedged, unlocated, unparsed, refused, truncated or blocked; ``answer_channel``: text or structured (the
answer read from a final_answer call, whose arguments are ``structured_answer`` as JSON text); ``finish_reason``: why the last model call ended,
provider-neutral (stop, length, tool_calls, refusal, content_filter, prompt_blocked, other; empty when not
reported), ``finish_reason_raw`` the provider's own value; ``region``: the sample's region (continent) as its own
column; ``cost_usd``: empty when unknown (a model without a price), never 0 for unknown."""


class ExportError(RuntimeError):
    """An export that cannot be made (unknown format, pyarrow missing)."""


def flat_row(r: SampleResult) -> dict[str, Any]:
    """One result as a flat row (parsed value and meta as JSON text); ``answer_status`` of an answered result and
    the finish reason (provider-neutral and raw) of its last model call."""
    s, p = r.score, r.parsed
    last = next((e for e in reversed(r.trace) if isinstance(e, ModelCallEvent)), None)
    return {
        "run_id": r.run_id, "sample_id": r.sample_id, "task": r.task, "condition": r.condition, "epoch": r.epoch,
        "model": r.model, "status": r.status, "answer_status": answer_status(r) if r.status == "ok" else None,
        "finish_reason": last.finish_reason if last else None, "correct": None if s is None else s.correct,
        "score_value": None if s is None else s.value, "parse_failed": None if s is None else s.parse_failed,
        "error_value": None if s is None else s.error, "error_unit": None if s is None else s.error_unit,
        "parsed_ok": None if p is None else p.ok,
        "parsed_value": None if p is None else json.dumps(p.value, default=str),
        "answer_channel": r.answer_channel,
        "structured_answer": None if r.structured_answer is None else json.dumps(r.structured_answer, default=str),
        "final_text": r.final_text, "input_tokens": r.input_tokens, "output_tokens": r.output_tokens,
        "cached_tokens": r.cached_tokens, "latency_s": r.latency_s, "cost_usd": r.cost_usd,
        "model_calls": r.model_calls, "tool_calls": r.tool_calls, "tool_errors": r.tool_errors, "retries": r.retries,
        "cache_hits": r.cache_hits, "stop_reason": r.stop_reason, "error": r.error, "attempts": r.attempts,
        "region": dimension_value(r, "region"), "meta": json.dumps(r.meta, default=str, sort_keys=True),
        "finish_reason_raw": last.finish_reason_raw if last else None,
    }


def _redacted(row: dict[str, Any]) -> dict[str, Any]:
    return {k: redact(v) if isinstance(v, str) else v for k, v in row.items()}


def rows(results: Iterable[SampleResult]) -> Iterator[dict[str, Any]]:
    """The flat rows of ``results`` with secrets masked: what CSV, Parquet and :func:`evals.api.read_run` hold."""
    return (_redacted(flat_row(r)) for r in results)


def write_jsonl(results: Iterable[SampleResult], path: Path) -> Path:
    with open(path, "w") as f:
        for r in results:
            f.write(redact_json(r) + "\n")
    return path


def write_csv(results: Iterable[SampleResult], path: Path) -> Path:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows(results))
    return path


def write_parquet(results: Iterable[SampleResult], path: Path) -> Path:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ExportError("Parquet export needs pyarrow: pip install 'geogap[parquet]' (or pip install pyarrow)") from None
    flat = list(rows(results))
    table = pa.Table.from_pylist(flat) if flat else pa.table({c: pa.array([], pa.string()) for c in COLUMNS})
    pq.write_table(table, path)
    return path


WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}


def parse_formats(text: str) -> list[str]:
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise ExportError(f"unknown export format {bad[0]!r}; valid formats: {', '.join(FORMATS)}")
    return formats


def export(store: RunReader, formats: Iterable[str], out_dir: Path | None = None) -> list[Path]:
    """Write ``results.<format>`` for each format into ``out_dir`` (default: the run directory)."""
    out_dir = Path(out_dir or store.run_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    formats = list(formats)
    paths = []
    if "inspect" in formats:  # one eval log per condition, in a folder inspect view reads
        from evals.inspect_log import InspectUnavailable, write_inspect_logs

        try:
            paths = write_inspect_logs(store, out_dir / "inspect")
        except InspectUnavailable as exc:
            raise ExportError(str(exc)) from None
    results = list(store.results())
    return [write_atomic(WRITERS[f], results, out_dir / f"results.{f}") for f in formats if f != "inspect"] + paths


def write_atomic(writer: Callable[[list[SampleResult], Path], Path], results: list[SampleResult], path: Path) -> Path:
    """``writer`` into a temporary file beside ``path``, then renamed over it: a full disk or a kill leaves the
    old file (or none), never a cut one."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        writer(results, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.export", description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--format", default="jsonl,csv", help=f"comma-separated: {', '.join(FORMATS)}")
    p.add_argument("--output", type=Path, default=None, help="directory for the files (default: the run directory)")
    args = p.parse_args(argv)
    try:
        formats = parse_formats(args.format)
        reader = RunReader(args.run_dir)
        for path in export(reader, formats, args.output):
            print(path)
        if reader.unreadable:
            print(f"warning: {len(reader.unreadable)} stored results could not be read (corrupt) and are not "
                  "exported", file=sys.stderr)
    except (ExportError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (sqlite3.Error, ValueError) as exc:  # corrupt, or written by an incompatible version
        print(f"error: {args.run_dir}: its run store cannot be read ({type(exc).__name__}: "
              f"{str(exc).splitlines()[0] if str(exc) else ''})", file=sys.stderr)
        return 1
    except OSError as exc:  # an output directory that cannot be created or written
        print(f"error: {exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
