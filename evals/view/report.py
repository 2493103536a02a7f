"""``report.html``: the viewer's run page as one self-contained file beside the run (inline style and script, no
links, nothing fetched), written by ``python -m evals.compare`` from the report it also writes as ``results.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.report import write_text_atomic
from evals.view.links import ReportLinker
from evals.view.markup import h, page
from evals.view.pages import run_head, run_sections
from evals.view.runs import make_handles
from evals.view.summary import from_report

FOOTER = "geogap report: the run page of the viewer; python -m evals.view RUN_DIR browses its samples and traces."


def render_report(run_dir: Path, report: dict[str, Any]) -> str:
    """The run page of ``run_dir`` showing ``report`` (a :func:`evals.report.build_report` dict)."""
    [run] = make_handles([Path(run_dir)]).values()
    stored = run.spec()
    summary = from_report(report, list(stored.spec.conditions) if stored else [])
    link = ReportLinker()
    body = h("{head}{sections}", head=run_head(run, link, summary.meta),
             sections=run_sections(run, summary, link, open_all=True))
    return page(run.name, body, brand="report", footer=FOOTER)


def write_report_html(run_dir: Path, report: dict[str, Any]) -> Path:
    """Write ``run_dir/report.html`` (atomically); returns its path."""
    path = Path(run_dir) / "report.html"
    write_text_atomic(path, render_report(run_dir, report))
    return path
