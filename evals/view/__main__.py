"""``python -m evals.view [RUN_DIR ...]``: serve the trace viewer on 127.0.0.1, or write it as static files."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path

from evals.view.app import Viewer
from evals.view.export import export
from evals.view.leaderboard import find_boards
from evals.view.runs import find_runs
from evals.view.server import is_loopback, make_server, url_of


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evals.view", description=__doc__.split("\n")[0].split(": ", 1)[1])
    p.add_argument("run_dirs", nargs="*", type=Path, metavar="RUN_DIR",
                   help="run directories (or folders of them); default: every run under ./runs")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--open", action="store_true", help="open the viewer in a web browser")
    p.add_argument("--export", type=Path, metavar="DIR", help="write the pages as static files to DIR and exit")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"error: --port must be between 0 and 65535, got {args.port}", file=sys.stderr)
        return 2
    paths = args.run_dirs or [Path("runs")]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"error: no such directory: {missing[0]}", file=sys.stderr)
        return 2
    run_dirs = find_runs(paths)
    if not run_dirs:
        print(f"error: no run directory (holding run.sqlite) in {', '.join(map(str, paths))}", file=sys.stderr)
        return 2
    viewer = Viewer(run_dirs, boards=find_boards(paths))
    for run_dir, reason in viewer.broken.items():
        print(f"warning: skipping {run_dir}: its run store cannot be read ({reason})", file=sys.stderr)
    if not viewer.runs:
        print("error: no readable run directory", file=sys.stderr)
        return 2
    if args.export:
        existing = next((q for q in (args.export, *args.export.parents) if q.exists()), None)
        if existing is not None and not existing.is_dir():
            print(f"error: --export {args.export}: {existing} is not a directory", file=sys.stderr)
            return 2
        try:
            index = export(viewer.runs, args.export, progress=lambda m: print(m, file=sys.stderr),
                           board=viewer.leaderboard())
        except OSError as exc:  # permission denied, a full disk: the pages written so far are complete files
            print(f"error: --export {args.export}: {exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}",
                  file=sys.stderr)
            return 1
        print(index.resolve().as_uri())
        return 0
    if not is_loopback(args.host):
        print(f"warning: binding {args.host!r} serves prompts, answers and traces to anyone who can reach this "
              "machine; there is no authentication", file=sys.stderr)
    try:
        server = make_server(viewer, args.host, args.port)
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    viewer.warm_up()
    url = url_of(server)
    print(f"Serving {len(viewer.runs)} run(s) at {url}  (Ctrl-C to stop)", flush=True)
    if args.open:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
