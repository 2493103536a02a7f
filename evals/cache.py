"""``python -m evals.cache list|clear|prune``: inspect and trim the model-call cache.

The cache lives in ``$GEOGAP_CACHE_DIR/model_calls.sqlite`` (default ``~/.cache/geogap``); see
:mod:`agents.call_cache` for what the key covers. ``evals.compare`` uses it by default when the temperature is
0; ``--no-cache`` turns it off for a run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agents.call_cache import CallCache, default_cache_path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.cache", description=__doc__.split("\n\n")[0])
    p.add_argument("--path", type=Path, default=None, help=f"cache file (default {default_cache_path()})")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="entries, hits and size per model")
    clear = sub.add_parser("clear", help="delete all entries (or one model's)")
    clear.add_argument("--model", default=None, help="only this provider/name")
    prune = sub.add_parser("prune", help="delete entries not used for a while")
    prune.add_argument("--older-than-days", type=float, default=30.0)
    args = p.parse_args(argv)
    path = args.path or default_cache_path()
    if args.command != "list" and not path.exists():
        print(f"no cache at {path}")
        return 0
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
