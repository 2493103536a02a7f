"""A run's comparison table, pooled row and breakdowns, from ``evals.analysis`` (never re-derived here).

Bootstrapping every gap takes seconds to minutes on paper-size runs, so: a finished run's ``results.json``
(written by ``python -m evals.compare`` after its last result) is read when it is newer than every stored
result; otherwise the server computes the summary in a background thread, publishing the table first and the
breakdowns when they are ready, and serves pages meanwhile. The static export waits for the full summary.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.analysis import BASELINE_CONDITION, TaskComparison, breakdowns, compare, overall
from evals.records import SampleResult
from evals.run_report import read_report
from tasks.records import Sample

Publish = Callable[["Summary"], None]


@dataclass
class Summary:
    conditions: list[str]
    baseline: str
    comparisons: list[TaskComparison]
    overall: TaskComparison | None = None
    breakdowns: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # pooled over tasks
    complete: bool = True  # False while breakdowns are still being computed
    n_results: int = 0
    seconds: float = 0.0
    source: str = "computed"
    meta: dict[str, Any] = field(default_factory=dict)  # a report's run totals: wall time, tokens, cost
    paper_tables: dict[str, Any] | None = None  # a suite run's paper-shaped tables (evals.paper_tables)
    baseline_run: list[dict[str, Any]] | None = None  # run-vs-run rows (evals.analysis.compare_runs)
    leaderboard: dict[str, Any] | None = None  # this run and its --baseline run (evals.leaderboard)

    @property
    def compared(self) -> list[str]:
        return [c for c in self.conditions if c != self.baseline]


def conditions_of(present: set[str], conditions: list[str], named: str | None = None) -> tuple[list[str], str]:
    """The spec's conditions among those ``present`` in the results (then any others) and the baseline: ``named``
    (the run's ``--baseline-condition``) when present, else intrinsic, else the first."""
    conds = [c for c in conditions if c in present] + sorted(present - set(conditions))
    if named in conds:
        return conds, str(named)
    baseline = BASELINE_CONDITION if BASELINE_CONDITION in conds else (conds or [BASELINE_CONDITION])[0]
    return conds, baseline


def summarise_run(results: list[SampleResult], conditions: list[str], publish: Publish | None = None,
                  samples: Mapping[str, Sample] | None = None, baseline: str | None = None) -> Summary:
    """The table first (published at once when ``publish`` is given), then the pooled row and breakdowns, gaps
    against ``baseline`` (default: :func:`conditions_of`'s); ``samples`` (by id) let tool-result fidelity read
    option answers."""
    t0 = time.perf_counter()
    conds, baseline = conditions_of({r.condition for r in results}, conditions, baseline)
    table = compare(results, conds, baseline, samples=samples)
    if publish is not None:
        publish(Summary(conds, baseline, table, complete=False, n_results=len(results),
                        seconds=time.perf_counter() - t0))
    detailed = compare(results, conds, baseline, with_breakdowns=True, samples=samples)
    pooled = overall(results, conds, baseline, samples=samples) if len(detailed) > 1 else None
    across = breakdowns(results, conds, baseline) if len(detailed) > 1 else {}
    return Summary(conds, baseline, detailed, pooled, across, n_results=len(results),
                   seconds=time.perf_counter() - t0)


def from_report(report: dict[str, Any], conditions: list[str]) -> Summary:
    """The summary in a report (:func:`evals.report.build_report`, as in ``results.json``); raises ValueError,
    KeyError or TypeError on a malformed one."""
    tasks = [TaskComparison.model_validate(t) for t in report["tasks"]]
    many = len(tasks) > 1
    pooled = TaskComparison.model_validate(report["overall"]) if report.get("overall") and many else None
    conds, baseline = conditions_of({c for t in tasks for c in t.conditions}, conditions,
                                    (report.get("meta") or {}).get("baseline_condition"))
    return Summary(conds, baseline, tasks, pooled, dict(report.get("breakdowns") or {}) if many else {},
                   n_results=sum(s.n + s.not_applicable for t in tasks for s in t.conditions.values()),
                   source="results.json", meta=dict(report.get("meta") or {}),
                   paper_tables=report.get("paper_tables"), baseline_run=report.get("baseline_run"),
                   leaderboard=report.get("leaderboard"))


def from_results_json(path: Path, conditions: list[str], newer_than: float | None) -> Summary | None:
    """The summary in a ``results.json`` written after the last stored result (``newer_than``), else None."""
    try:
        if newer_than is None or path.stat().st_mtime <= newer_than:
            return None
        return from_report(read_report(path).as_dict(), conditions)
    except (OSError, ValueError, KeyError, TypeError):
        return None


class SummaryCache:
    """Holds the latest summary of one run and recomputes it in a thread when the run's stamp changes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.summary: Summary | None = None
        self.stamp: object = None
        self.error: str | None = None
        self.thread: threading.Thread | None = None

    def get(self, stamp: object, compute: Callable[[Publish], Summary], wait_s: float | None
            ) -> tuple[Summary | None, bool]:
        """(latest summary or None, whether a newer or fuller one is being computed); waits up to ``wait_s``
        seconds (None: until done) for it."""
        with self.lock:
            if self.stamp != stamp and (self.thread is None or not self.thread.is_alive()):
                self.thread = threading.Thread(target=self._run, args=(stamp, compute), daemon=True,
                                               name="viewer-summary")
                self.thread.start()
            thread = self.thread
        if thread is not None and (wait_s is None or wait_s > 0):
            thread.join(wait_s)
        with self.lock:
            busy = self.thread is not None and self.thread.is_alive()
            return self.summary, busy or self.stamp != stamp

    def _publish(self, summary: Summary) -> None:
        with self.lock:
            self.summary = summary

    def _run(self, stamp: object, compute: Callable[[Publish], Summary]) -> None:
        try:
            summary: Summary | None = compute(self._publish)
            error = None
        except Exception as exc:  # noqa: BLE001 - shown on the run page instead of killing the server
            summary, error = None, f"{type(exc).__name__}: {exc}"
        with self.lock:
            if summary is not None:
                self.summary = summary
            self.error = error
            self.stamp = stamp
