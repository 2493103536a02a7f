"""A run's comparison table, pooled row and breakdowns, from ``evals.analysis`` (never re-derived here).

Bootstrapping every gap takes seconds to minutes on paper-size runs, so: a finished run's ``results.json``
(written by ``python -m evals.compare`` after its last result) is read when it is newer than every stored
result; otherwise the server computes the summary in a background thread, publishing the table first and the
breakdowns when they are ready, and serves pages meanwhile. The static export waits for the full summary.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.analysis import BASELINE_CONDITION, TaskComparison, breakdowns, compare, overall
from evals.records import SampleResult

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

    @property
    def compared(self) -> list[str]:
        return [c for c in self.conditions if c != self.baseline]


def conditions_of(results: list[SampleResult], conditions: list[str]) -> tuple[list[str], str]:
    """The spec's conditions that have results (then any others) and the baseline."""
    present = {r.condition for r in results}
    conds = [c for c in conditions if c in present] + sorted(present - set(conditions))
    baseline = BASELINE_CONDITION if BASELINE_CONDITION in conds else (conds or [BASELINE_CONDITION])[0]
    return conds, baseline


def summarise_run(results: list[SampleResult], conditions: list[str], publish: Publish | None = None) -> Summary:
    """The table first (published at once when ``publish`` is given), then the pooled row and breakdowns."""
    t0 = time.perf_counter()
    conds, baseline = conditions_of(results, conditions)
    table = compare(results, conds, baseline)
    if publish is not None:
        publish(Summary(conds, baseline, table, complete=False, n_results=len(results),
                        seconds=time.perf_counter() - t0))
    detailed = compare(results, conds, baseline, with_breakdowns=True)
    pooled = overall(results, conds, baseline) if len(detailed) > 1 else None
    across = breakdowns(results, conds, baseline, ["family"]) if len(detailed) > 1 else {}
    return Summary(conds, baseline, detailed, pooled, across, n_results=len(results),
                   seconds=time.perf_counter() - t0)


def from_results_json(path: Path, conditions: list[str], newer_than: float | None) -> Summary | None:
    """The summary in a ``results.json`` written after the last stored result (``newer_than``), else None."""
    try:
        if newer_than is None or path.stat().st_mtime <= newer_than:
            return None
        data = json.loads(path.read_text())
        tasks = [TaskComparison.model_validate(t) for t in data["tasks"]]
        pooled = TaskComparison.model_validate(data["overall"]) if data.get("overall") and len(tasks) > 1 else None
        across = {k: v for k, v in (data.get("breakdowns") or {}).items() if k == "family"}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    present = {c for t in tasks for c in t.conditions}
    conds = [c for c in conditions if c in present] + sorted(present - set(conditions))
    baseline = BASELINE_CONDITION if BASELINE_CONDITION in conds else (conds or [BASELINE_CONDITION])[0]
    return Summary(conds, baseline, tasks, pooled, across, n_results=sum(
        s.n + s.not_applicable for t in tasks for s in t.conditions.values()), source="results.json")


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
