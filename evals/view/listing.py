"""Outcome classification, the sample list's query, and an in-memory index that filters, sorts and pages it.

A row is one (sample, epoch) seen under a pair of conditions: the baseline (``intrinsic``, or the run's
``--baseline-condition``) and a compared condition (``tools`` by default). Its outcome is decided by correctness exactly as ``evals.report.compare``
counts gained and lost samples: only when both conditions answered (an error is not an answer, so a row with an
error has no outcome; an unparsable, hedged, truncated or blocked answer counts as not right). Answer statuses
(hedged, unparsed, refused, truncated, blocked), parse failures, errors, a compared answer given without a tool call and one that disagrees with its
tools (:mod:`evals.fidelity`) are flags on top, so "gained with tools" in the list matches the "gained" count in
the comparison table.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from evals.run_reader import Cell
from evals.view.summary import conditions_of

PAIR_OUTCOMES: dict[str, str] = {
    "gained": "gained with tools",
    "lost": "lost with tools",
    "both_wrong": "wrong in both",
    "both_right": "right in both",
}
ANSWER_FLAGS: dict[str, str] = {"hedged": "hedged", "unlocated": "answer not located", "unparsed": "unparsed",
                                "refused": "refused",
                                "truncated": "truncated (token limit)", "blocked": "blocked (safety)"}
TOOL_FLAGS: dict[str, str] = {"no_tool_call": "answered without calling a tool",
                              "disagrees": "disagrees with its tools"}
FLAG_OUTCOMES: dict[str, str] = {**ANSWER_FLAGS, "parse_failure": "parse failure", "error": "error", **TOOL_FLAGS}
OUTCOMES: dict[str, str] = {**PAIR_OUTCOMES, **FLAG_OUTCOMES}
SORTS: dict[str, str] = {
    "id": "sample id", "task": "task", "outcome": "outcome", "err_a": "baseline error", "err_b": "compared error",
    "calls": "tool calls", "latency": "compared latency",
}
OUTCOME_ORDER = {k: i for i, k in enumerate(PAIR_OUTCOMES)}
PER_PAGE = 100
MAX_PER_PAGE = 500
SELECTION_CACHE = 16


def classify(a: Cell | None, b: Cell | None) -> str | None:
    """The pair outcome of baseline ``a`` and compared ``b``; None unless both answered (status ok: not an
    error, not ``not_applicable``), as in ``evals.analysis.paired_gap``."""
    if a is None or b is None or a.status != "ok" or b.status != "ok":
        return None
    if a.correct and b.correct:
        return "both_right"
    if b.correct:
        return "gained"
    if a.correct:
        return "lost"
    return "both_wrong"


def family_of(task: str) -> str:
    """The family of a task name (``gpsbench.distance`` → ``gpsbench``)."""
    return task.split(".", 1)[0]


@dataclass(slots=True)
class Row:
    sample_id: str
    epoch: int
    task: str
    a: Cell | None
    b: Cell | None
    outcome: str | None = None
    parse_failure: bool = False
    error: bool = False
    disagrees: bool = False  # the compared answer disagrees with what its tools returned

    @classmethod
    def of(cls, sample_id: str, epoch: int, task: str, a: Cell | None, b: Cell | None, disagrees: bool = False) -> Row:
        """A row with its outcome and flags worked out."""
        return cls(sample_id, epoch, task, a, b, classify(a, b),
                   bool((a is not None and a.parse_failed) or (b is not None and b.parse_failed)),
                   bool((a is not None and a.status == "error") or (b is not None and b.status == "error")), disagrees)

    @property
    def family(self) -> str:
        return family_of(self.task)

    def has(self, outcome: str) -> bool:
        if outcome in ANSWER_FLAGS:
            return (self.a is not None and self.a.answer == outcome) or (self.b is not None and self.b.answer == outcome)
        if outcome == "parse_failure":
            return self.parse_failure
        if outcome == "error":
            return self.error
        if outcome == "no_tool_call":  # the compared condition answered (status ok) with no tool call
            return self.b is not None and self.b.status == "ok" and not self.b.tool_calls
        if outcome == "disagrees":
            return self.disagrees
        return self.outcome == outcome


def _int(value: Any, default: int, lo: int, hi: int) -> int:
    try:
        return min(hi, max(lo, int(value)))
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True)
class ListQuery:
    """What the sample list shows: filters, text search, sort (``-key`` descending) and page."""

    task: str | None = None
    family: str | None = None
    vs: str | None = None
    outcome: str | None = None
    q: str = ""
    sort: str = "id"
    page: int = 1
    per_page: int = PER_PAGE

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> ListQuery:
        """Read URL parameters leniently: unknown outcomes and sorts fall back to none and ``id``."""
        outcome = params.get("outcome") or None
        sort = params.get("sort") or "id"
        return cls(
            task=params.get("task") or None, family=params.get("family") or None, vs=params.get("vs") or None,
            outcome=outcome if outcome in OUTCOMES else None, q=(params.get("q") or "").strip()[:200],
            sort=sort if sort.lstrip("-") in SORTS else "id", page=_int(params.get("page"), 1, 1, 10**9),
            per_page=_int(params.get("per_page"), PER_PAGE, 10, MAX_PER_PAGE),
        )

    def params(self, **changes: Any) -> dict[str, str]:
        """URL parameters of this query (with ``changes``), defaults left out."""
        q = replace(self, **changes)
        out = {"task": q.task, "family": q.family, "vs": q.vs, "outcome": q.outcome, "q": q.q,
               "sort": None if q.sort == "id" else q.sort, "page": None if q.page == 1 else str(q.page),
               "per_page": None if q.per_page == PER_PAGE else str(q.per_page)}
        return {k: v for k, v in out.items() if v}

    def with_(self, **changes: Any) -> ListQuery:
        return replace(self, **changes)


def _none_last(value: float | None, descending: bool) -> tuple[int, float]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (1, 0.0)
    return (0, -value if descending else value)


def sort_rows(rows: list[Row], sort: str) -> list[Row]:
    """Rows in ``sort`` order (``-`` prefix descending); missing values last either way; ties by id."""
    desc = sort.startswith("-")
    key = sort.lstrip("-")
    rows = sorted(rows, key=lambda r: (r.sample_id, r.epoch), reverse=desc and key == "id")
    if key == "id":
        return rows
    if key == "task":
        return sorted(rows, key=lambda r: r.task, reverse=desc)
    getters = {
        "outcome": lambda r: float(OUTCOME_ORDER[r.outcome]) if r.outcome else None,
        "err_a": lambda r: r.a.error if r.a else None,
        "err_b": lambda r: r.b.error if r.b else None,
        "calls": lambda r: float(r.b.tool_calls) if r.b else None,
        "latency": lambda r: r.b.latency_s if r.b else None,
    }
    get = getters[key]
    return sorted(rows, key=lambda r: _none_last(get(r), desc))


@dataclass
class Page:
    rows: list[Row]
    total: int
    page: int
    pages: int
    counts: dict[str, int] = field(default_factory=dict)


class RunIndex:
    """Every (sample, epoch) of a run with one ``Cell`` per condition; filters and pages in memory."""

    def __init__(self, cells: Iterable[tuple[str, int, str, str, Cell]], conditions: list[str],
                 disagree: set[tuple[str, int, str]] | None = None, baseline: str | None = None) -> None:
        """``disagree``: (sample id, epoch, condition) of answers that disagree with their tools; ``baseline``:
        the run's ``--baseline-condition`` (default intrinsic, else the first condition)."""
        self.by_key: dict[tuple[str, int], dict[str, Cell]] = {}
        self.disagree = disagree or set()
        self.task_of: dict[str, str] = {}
        seen: list[str] = []
        for sid, epoch, cond, task, cell in cells:
            self.by_key.setdefault((sid, epoch), {})[cond] = cell
            self.task_of[sid] = task
            if cond not in seen:
                seen.append(cond)
        self.conditions = [c for c in conditions if c in seen] + [c for c in seen if c not in conditions]
        self.baseline = conditions_of(set(self.conditions), self.conditions, baseline)[1]
        self.tasks = sorted(set(self.task_of.values()))
        self.families = sorted({family_of(t) for t in self.tasks})
        self._rows: dict[str, list[Row]] = {}
        self._sorted: dict[tuple[str, str], list[Row]] = {}
        self._lock = threading.RLock()
        self._counts: dict[tuple[str, str], Counter[str]] = {}
        self._selections: OrderedDict[tuple, tuple[list[Row], dict[str, int], dict[tuple[str, int], int]]] = \
            OrderedDict()

    @property
    def compared(self) -> list[str]:
        """Conditions that can be compared against the baseline."""
        return [c for c in self.conditions if c != self.baseline] or [self.baseline]

    def default_vs(self) -> str:
        return "tools" if "tools" in self.compared else self.compared[0]

    def resolve_vs(self, vs: str | None) -> str:
        return vs if vs in self.compared else self.default_vs()

    def rows(self, vs: str | None = None) -> list[Row]:
        """One row per (sample, epoch) for the pair (baseline, ``vs``), in id order."""
        vs = self.resolve_vs(vs)
        with self._lock:
            return self._rows_of(vs)

    def _rows_of(self, vs: str) -> list[Row]:
        if vs not in self._rows:
            self._rows[vs] = [
                Row.of(sid, epoch, self.task_of[sid], cells.get(self.baseline), cells.get(vs),
                       (sid, epoch, vs) in self.disagree)
                for (sid, epoch), cells in sorted(self.by_key.items())
            ]
        return self._rows[vs]

    def counts_by(self, vs: str | None, key: str) -> Counter[str]:
        """Rows per task (``key="task"``) or per family, for the pair (baseline, ``vs``); cached."""
        vs = self.resolve_vs(vs)
        with self._lock:
            if (vs, key) not in self._counts:
                rows = self._rows_of(vs)
                self._counts[(vs, key)] = Counter(r.task if key == "task" else family_of(r.task) for r in rows)
            return self._counts[(vs, key)]

    def sorted_rows(self, vs: str | None, sort: str) -> list[Row]:
        key = (self.resolve_vs(vs), sort)
        with self._lock:
            if key not in self._sorted:
                self._sorted[key] = sort_rows(self.rows(vs), sort)
            return self._sorted[key]

    def select(self, q: ListQuery, matching: set[str] | None = None) -> tuple[list[Row], dict[str, int]]:
        """Rows passing the filters (``matching``: sample ids of the text search ``q.q``) and outcome counts
        before the outcome filter. The last few selections are cached."""
        with self._lock:
            return self._select(q, matching)

    def _select(self, q: ListQuery, matching: set[str] | None) -> tuple[list[Row], dict[str, int]]:
        key = (self.resolve_vs(q.vs), q.sort, q.task, q.family, q.outcome, q.q if matching is not None else None)
        hit = self._selections.get(key)
        if hit is not None:
            self._selections.move_to_end(key)
            return hit[0], hit[1]
        rows = self.sorted_rows(q.vs, q.sort)
        if q.task:
            rows = [r for r in rows if r.task == q.task]
        if q.family:
            rows = [r for r in rows if family_of(r.task) == q.family]
        if matching is not None:
            rows = [r for r in rows if r.sample_id in matching]
        counts = dict.fromkeys(OUTCOMES, 0)
        for r in rows:
            if r.outcome:
                counts[r.outcome] += 1
            for flag in FLAG_OUTCOMES:
                counts[flag] += r.has(flag)
        if q.outcome:
            rows = [r for r in rows if r.has(q.outcome)]
        self._selections[key] = (rows, counts, {})
        while len(self._selections) > SELECTION_CACHE:
            self._selections.popitem(last=False)
        return rows, counts

    def page(self, q: ListQuery, matching: set[str] | None = None) -> Page:
        rows, counts = self.select(q, matching)
        pages = max(1, -(-len(rows) // q.per_page))
        page = min(q.page, pages)
        start = (page - 1) * q.per_page
        return Page(rows=rows[start:start + q.per_page], total=len(rows), page=page, pages=pages, counts=counts)

    def neighbours(self, q: ListQuery, key: tuple[str, int], matching: set[str] | None = None
                   ) -> tuple[Row | None, Row | None, int | None, int]:
        """The rows before and after ``key`` in the list ``q`` selects, its 1-based position and the total."""
        with self._lock:
            rows, _ = self._select(q, matching)
            cache_key = (self.resolve_vs(q.vs), q.sort, q.task, q.family, q.outcome,
                         q.q if matching is not None else None)
            positions = self._selections[cache_key][2]
            if not positions and rows:
                positions.update({(r.sample_id, r.epoch): i for i, r in enumerate(rows)})
        i = positions.get(key)
        if i is None:
            return None, None, None, len(rows)
        return (rows[i - 1] if i else None, rows[i + 1] if i + 1 < len(rows) else None, i + 1, len(rows))
