"""``python -m evals.cache list|clear|prune``: inspect and trim the model-call cache.

The cache lives in ``$GEOGAP_CACHE_DIR/model_calls.sqlite`` (default ``~/.cache/geogap``); see
:mod:`agents.call_cache` for what the key covers. ``evals.compare`` uses it by default when the temperature is
0; ``--no-cache`` turns it off for a run. Exit codes: 0 done, 2 a bad value (``--older-than-days`` must be a
finite number >= 0) or a ``--path`` that is not a model-call cache (nothing is changed).
"""

from __future__ import annotations

import math
import sqlite3
import sys
import time
from pathlib import Path

from agents.call_cache import CallCache, default_cache_path
from evals.options import OneLineParser

EXPECTED_COLUMNS = ["key", "model", "reply", "created", "last_used", "hits"]


def not_a_cache(path: Path) -> str | None:
    """Why the file at ``path`` is not a model-call cache (read only, never changed), or None."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            columns = [r[1] for r in db.execute("PRAGMA table_info(calls)")]
        finally:
            db.close()
    except sqlite3.Error as exc:
        return f"{type(exc).__name__}: {exc}"
    if tables and columns != EXPECTED_COLUMNS:
        return f"it holds the tables {', '.join(sorted(tables))}"
    return None


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m evals.cache", description=__doc__.split("\n\n")[0])
    p.add_argument("--path", type=Path, default=None, help=f"cache file (default {default_cache_path()})")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="entries, hits and size per model")
    clear = sub.add_parser("clear", help="delete all entries (or one model's)")
    clear.add_argument("--model", default=None, help="only this provider/name")
    prune = sub.add_parser("prune", help="delete entries not used for a while")
    prune.add_argument("--older-than-days", type=float, default=30.0)
    args = p.parse_args(argv)
    path = args.path or default_cache_path()
    if args.command == "prune" and not (math.isfinite(args.older_than_days) and args.older_than_days >= 0):
        print(f"error: --older-than-days must be a finite number >= 0, got {args.older_than_days:g}", file=sys.stderr)
        return 2
    if path.exists() and not path.is_file():
        print(f"error: --path {path} is not a file", file=sys.stderr)
        return 2
    if args.command != "list" and not path.exists():
        print(f"no cache at {path}")
        return 0
    if not path.exists():
        print(f"cache: {path}\n  (empty)")
        return 0
    if (why := not_a_cache(path)) is not None:
        print(f"error: {path} is not a model-call cache ({why}); nothing was changed", file=sys.stderr)
        return 2
    cache = CallCache(path)
    try:
        if args.command == "list":
            rows = cache.summary()
            print(f"cache: {path}")
            if not rows:
                print("  (empty)")
            for s in rows:
                last = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.last_used))
                print(f"  {s.model}: {s.entries} entries, {s.hits} hits, {s.bytes / 1024:.1f} KiB, last used {last}")
        elif args.command == "clear":
            print(f"deleted {cache.clear(args.model)} entries")
        else:
            print(f"deleted {cache.prune(args.older_than_days)} entries unused for {args.older_than_days:g} days")
    finally:
        cache.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
