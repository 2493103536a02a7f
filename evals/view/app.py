"""Routing: a request path to a response, independent of the HTTP server (so tests call it directly).

URLs name runs by id, never by file path. The only files served are those of a run's own directory
(``/runs/<id>/files/...``), after resolving symlinks: anything that resolves outside it is refused with 403.
Files are served as plain text or as downloads, never as HTML.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from evals.view.item import item_page
from evals.view.leaderboard import LiveBoard, leaderboard_page, read_board
from evals.view.links import ServerLinker
from evals.view.listing import ListQuery
from evals.view.markup import CSP, h, page
from evals.view.pages import compare_page, files_page, index_page, run_page
from evals.view.runs import RunHandle, make_handles
from evals.view.samples import NotFound, list_page, sample_page

log = logging.getLogger("evals.view")
HTML = "text/html; charset=utf-8"
TEXT_SUFFIXES = {".log", ".txt", ".jsonl", ".csv", ".md", ".tsv", ".yaml", ".yml", ".toml", ".json"}
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP + "; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@dataclass
class Response:
    status: int
    body: bytes | Path = b""
    content_type: str = HTML
    headers: dict[str, str] = field(default_factory=dict)


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:120] or "sample"


def _error(status: int, title: str, detail: str = "") -> Response:
    body = h("<h1>{s} · {t}</h1><p>{d}</p>", s=status, t=title, d=detail)
    return Response(status, page(title, body, [("runs", "/")]).encode())


class Viewer:
    """The runs being viewed and the routes over them."""

    def __init__(self, run_dirs: list[Path], wait_s: float = 2.0, boards: dict[str, Path] | None = None) -> None:
        self.runs: dict[str, RunHandle] = {}
        self.boards = dict(boards or {})  # parent directories holding a leaderboard, by name
        self.live_board = LiveBoard()
        self.broken: dict[Path, str] = {}  # run directories whose store cannot be read, with the reason
        for rid, run in make_handles(run_dirs).items():
            try:
                run.spec()
                run.reader.count("samples") + run.reader.count()  # both tables exist
            except (sqlite3.Error, ValueError, OSError) as exc:  # corrupt, or written by an incompatible version
                self.broken[run.dir] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
            else:
                self.runs[rid] = run
        self.link = ServerLinker()
        self.wait_s = wait_s

    def warm_up(self) -> None:
        """Build every run's sample index and start its summary in background threads (the server calls this
        at start, so the first pages open fast)."""
        for run in self.runs.values():
            threading.Thread(target=self._warm, args=(run,), daemon=True, name=f"viewer-warm-{run.rid}").start()

    @staticmethod
    def _warm(run: RunHandle) -> None:
        try:
            run.summary(wait_s=0)
            run.index()
        except Exception:  # noqa: BLE001 - the page that needs it will show the error
            log.warning("could not prepare %s\n%s", run.dir, traceback.format_exc())

    def handle(self, target: str) -> Response:
        """Answer a GET for ``target`` (path and query string); never raises."""
        try:
            return self._route(target)
        except NotFound as exc:
            return _error(404, "Not found", f"No sample {exc.args[0]!r} in this run.")
        except Exception as exc:  # noqa: BLE001 - one broken page must not stop the server
            log.error("error rendering %s\n%s", target, traceback.format_exc())
            return _error(500, "Error", f"{type(exc).__name__}: {exc}")

    def _route(self, target: str) -> Response:
        split = urlsplit(target)
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        parts = [unquote(p) for p in split.path.split("/")]
        if split.path in ("", "/"):
            return Response(200, index_page(self.runs, self.link, boards=bool(self.boards)).encode())
        if split.path == "/leaderboard":
            chosen = [v for k, v in parse_qsl(split.query) if k == "run" and v in self.runs]
            return Response(200, leaderboard_page(self.leaderboard(params.get("of"), chosen), self.runs, self.link,
                                                  chosen).encode())
        if split.path == "/compare":
            chosen = [v for k, v in parse_qsl(split.query) if k == "run" and v in self.runs]
            return Response(200, compare_page(self.runs, self.link, self.wait_s, chosen).encode())
        if split.path == "/item" and params.get("id"):
            found = item_page(self.runs, self.link, params["id"])
            if found is None:
                raise NotFound(params["id"])
            return Response(200, found.encode())
        if len(parts) < 3 or parts[1] != "runs" or parts[2] not in self.runs:
            return _error(404, "Not found", "No such page or run.")
        run = self.runs[parts[2]]
        rest = parts[3:]
        if not rest:
            return Response(301, headers={"Location": self.link.run(run.rid)})
        if rest == [""]:
            return Response(200, run_page(run, self.link, self.wait_s).encode())
        if rest == ["samples"]:
            return Response(200, list_page(run, self.link, ListQuery.from_params(params)).encode())
        if rest == ["sample"] and params.get("id"):
            try:
                epoch = int(params.get("epoch", "0"))
            except ValueError:
                return _error(404, "Not found", "Bad epoch.")
            lq = ListQuery.from_params({k[2:]: v for k, v in params.items() if k.startswith("l.")})
            return Response(200, sample_page(run, self.link, params["id"], epoch, lq).encode())
        if rest == ["sample.json"] and params.get("id"):
            return self._sample_json(run, params["id"])
        if rest[0] == "files":
            if rest[1:] in ([], [""]):
                return Response(200, files_page(run, self.link).encode())
            return self._file(run, rest[1:])
        return _error(404, "Not found", "No such page.")

    @staticmethod
    def _sample_json(run: RunHandle, sample_id: str) -> Response:
        """One sample as JSON: its record and every stored result (all conditions and epochs, traces included)."""
        sample = run.reader.samples([sample_id]).get(sample_id)
        results = list(run.reader.results([sample_id]))
        if sample is None and not results:
            raise NotFound(sample_id)
        body = {"sample": sample.model_dump(mode="json") if sample else None,
                "results": [r.model_dump(mode="json") for r in results]}
        return Response(200, json.dumps(body, indent=1, ensure_ascii=False).encode(), "application/json",
                        {"Content-Disposition": f'attachment; filename="{_safe_name(sample_id)}.json"'})

    def leaderboard(self, name: str | None = None, chosen: list[str] | None = None) -> dict | None:
        """The leaderboard of the parent directory ``name`` (default the first given), else one computed from the
        runs (only the ``chosen`` run ids when given) when there are two or more."""
        if self.boards and not chosen:
            return read_board(self.boards.get(name or "", next(iter(self.boards.values()))))
        runs = {rid: r for rid, r in self.runs.items() if not chosen or rid in chosen}
        return self.live_board.get(runs) if len(runs) > 1 else None

    def _file(self, run: RunHandle, parts: list[str]) -> Response:
        """A file of the run directory, if it resolves (symlinks followed) to a file inside that directory."""
        try:
            path = run.dir.joinpath(*parts).resolve()
        except (OSError, ValueError):
            return _error(404, "Not found", "No such file.")
        if not path.is_relative_to(run.dir):
            return _error(403, "Forbidden", "That path is outside the run directory.")
        if not path.is_file():
            return _error(404, "Not found", "No such file.")
        headers = {}
        if path.suffix.lower() in TEXT_SUFFIXES:
            ctype = "text/plain; charset=utf-8"
        else:
            ctype = "application/octet-stream"
            headers["Content-Disposition"] = f'attachment; filename="{re.sub(r"[^A-Za-z0-9._-]", "_", path.name)}"'
        return Response(200, path, ctype, headers)
