"""The static export: the same pages as the server, written as files with relative links (open from disk).

Sample lists are pre-rendered per compared condition, scope (all, each family, each task) and outcome,
paginated; sorting and text search need the server.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.view.leaderboard import leaderboard_page
from evals.view.links import ExportLinker
from evals.view.listing import OUTCOMES, ListQuery
from evals.view.pages import compare_page, index_page, run_page
from evals.view.runs import RunHandle
from evals.view.samples import list_page, sample_page

Progress = Callable[[str], None]


def _write(root: Path, rel: str, text: str) -> None:
    """Write one page through a temporary file renamed over it: a full disk never leaves half a page."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def list_queries(run: RunHandle) -> list[ListQuery]:
    """Every first-page list query the export pre-renders for ``run``."""
    index = run.index()
    default = index.default_vs()
    scopes: list[dict[str, str]] = [{}, *({"family": f} for f in index.families), *({"task": t} for t in index.tasks)]
    return [ListQuery(vs=None if vs == default else vs, outcome=o, **scope)  # type: ignore[arg-type]
            for vs in index.compared for scope in scopes for o in [None, *OUTCOMES]]


def export(runs: dict[str, RunHandle], out: Path, progress: Progress | None = None,
           board: dict[str, Any] | None = None) -> Path:
    """Write every page for ``runs`` under ``out`` (with ``leaderboard.html`` when ``board`` is given); returns
    the path of ``index.html``."""
    out.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda _: None)
    defaults = {rid: run.index().default_vs() for rid, run in runs.items()}

    def linker(here: str) -> ExportLinker:
        return ExportLinker(here, defaults)

    for rid, run in runs.items():
        say(f"{run.name}: summarising")
        run.summary(wait_s=None)
        _write(out, ExportLinker.run_path(rid), run_page(run, linker(ExportLinker.run_path(rid)), wait_s=None))
        index = run.index()
        lists = 0
        for q in list_queries(run):
            rows, _ = index.select(q)
            pages = max(1, -(-len(rows) // q.per_page))
            for p in range(1, pages + 1):
                qp = q.with_(page=p)
                rel = linker("").samples_path(rid, qp)
                assert rel is not None
                _write(out, rel, list_page(run, linker(rel), qp))
                lists += 1
        say(f"{run.name}: {lists} list pages")
        for n, (sid, epoch) in enumerate(sorted(index.by_key), 1):
            rel = ExportLinker.sample_path(rid, sid, epoch)
            _write(out, rel, sample_page(run, linker(rel), sid, epoch, None))
            if n % 1000 == 0:
                say(f"{run.name}: {n} sample pages")
        say(f"{run.name}: {len(index.by_key)} sample pages")
    _write(out, "index.html", index_page(runs, linker("index.html"), wait_s=None, boards=board is not None))
    if board is not None:
        _write(out, "leaderboard.html", leaderboard_page(board, runs, linker("leaderboard.html")))
    if len(runs) > 1:
        _write(out, "compare.html", compare_page(runs, linker("compare.html"), wait_s=None))
    return out / "index.html"
