"""Tables a finished run's report adds to its run page: a suite's paper-shaped tables (the text grid of
:func:`evals.paper_tables.to_json`, published rows included with ``--compare-paper``) and the comparison with a
baseline run (``--baseline``)."""

from __future__ import annotations

from typing import Any

from evals.report import p_text, pct, signed_pct
from evals.view.markup import Safe, esc, h, join


def _grid(headers: list[str], rows: list[list[Any]], kinds: list[str] | None = None) -> Safe:
    head = join(h('<th{c}>{t}</th>', c=Safe(' class="num"') if i else "", t=t) for i, t in enumerate(headers))
    body = join(h('<tr class="k-{k}">{cells}</tr>', k=(kinds or [])[r] if kinds else "row", cells=join(
        h('<td{c}>{v}</td>', c=Safe(' class="num"') if i else "", v=v) for i, v in enumerate(row)))
        for r, row in enumerate(rows))
    return h('<div class="wide"><table class="grid paper"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
             "</table></div>", head=head, body=body)


def paper_sections(paper: dict[str, Any] | None) -> Safe:
    """A suite run's paper-shaped tables: rows per condition, the gap, hedged %, n and any published rows."""
    if not paper:
        return esc("")
    tables = [h('<h3>{title}</h3>{grid}<p class="muted small">{caption}.{source}</p>', title=t["title"],
                grid=_grid(t["grid"]["headers"], t["grid"]["rows"], t["grid"].get("kinds")), caption=t["caption"],
                source=f" Published: {t['published']['source']}." if t.get("published") else "")
              for t in paper["tables"]]
    return h("<h2>Paper-shaped tables <span class=\"sub\">{s}</span></h2>{t}", s=paper["suite"], t=join(tables))


def baseline_run_table(rows: list[dict[str, Any]] | None, baseline_dir: str | None) -> Safe:
    """This run against a baseline run, sample by sample (:func:`evals.analysis.compare_runs`)."""
    if rows is None:
        return esc("")
    lines = [[r["task"], r["condition"], r["n_paired"], pct(r["baseline_accuracy"]), pct(r["accuracy"]),
              f"{signed_pct(r['gap'])} [{signed_pct(r['ci'][0])}, {signed_pct(r['ci'][1])}]",
              "–" if r["mcnemar_p"] is None else p_text(r["mcnemar_p"]), r["right_to_wrong"], r["wrong_to_right"]] for r in rows]
    return h("<h2>Against baseline run <span class=\"sub\">{d}</span></h2>{t}", d=baseline_dir or "", t=_grid(
        ["task", "condition", "n paired", "baseline acc %", "this run acc %", "difference pts [95 % CI]",
         "McNemar p", "right→wrong", "wrong→right"], lines))
