"""The runs a viewer shows: one handle per run directory with its caches (index, summary, searches)."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from pathlib import Path

from evals import fidelity
from evals.report import report_baseline
from evals.run_reader import RunReader, StoredSpec, is_run_dir
from evals.view.listing import RunIndex
from evals.view.summary import (
    Publish,
    Summary,
    SummaryCache,
    from_results_json,
    summarise_run,
)

SEARCH_CACHE = 16


class RunHandle:
    """One run directory: read-only queries plus caches refreshed when the run changes."""

    def __init__(self, rid: str, run_dir: Path) -> None:
        self.rid = rid
        self.reader = RunReader(run_dir.resolve())
        self.dir = self.reader.run_dir
        self.name = run_dir.name or str(run_dir)
        self._lock = threading.Lock()
        self._index_lock = threading.Lock()
        self._index: tuple[object, RunIndex] | None = None
        self._spec: tuple[object, StoredSpec | None] | None = None
        self._searches: OrderedDict[tuple[object, str], set[str]] = OrderedDict()
        self._summary = SummaryCache()

    def spec(self) -> StoredSpec | None:
        stamp = self.reader.stamp()
        with self._lock:
            if self._spec is None or self._spec[0] != stamp:
                self._spec = (stamp, self.reader.read_spec())
            return self._spec[1]

    def conditions(self) -> list[str]:
        spec = self.spec()
        return list(spec[1].conditions) if spec else []

    def index(self) -> RunIndex:
        stamp = self.reader.stamp()
        conditions = self.conditions()
        with self._index_lock:
            if self._index is None or self._index[0] != stamp:
                self._index = (stamp, RunIndex(self.reader.cells(), conditions, self._disagreeing(),
                                                   report_baseline(self.dir)))
            return self._index[1]

    def _disagreeing(self) -> set[tuple[str, int, str]]:
        """(sample id, epoch, condition) of the answers that disagree with their tools (:mod:`evals.fidelity`)."""
        ids = self.reader.tool_result_ids()
        samples = self.reader.samples(ids)
        return {(r.sample_id, r.epoch, r.condition) for r in self.reader.results(ids, bodies=False)
                if fidelity.of_result(r, samples.get(r.sample_id)) == "disagree"}

    def search(self, text: str) -> set[str] | None:
        """Sample ids matching ``text`` (None when there is no text), cached per run state."""
        if not text:
            return None
        key = (self.reader.stamp(), text)
        with self._lock:
            if key in self._searches:
                self._searches.move_to_end(key)
                return self._searches[key]
        found = self.reader.search(text)
        with self._lock:
            self._searches[key] = found
            while len(self._searches) > SEARCH_CACHE:
                self._searches.popitem(last=False)
        return found

    def summary(self, wait_s: float | None = 2.0) -> tuple[Summary | None, bool, str | None]:
        """(summary or None, still computing, error) — computed in the background, waiting up to ``wait_s``."""
        conditions = self.conditions()

        def compute(publish: Publish) -> Summary:
            ready = from_results_json(self.dir / "results.json", conditions, self.reader.last_result_time())
            if ready is not None:
                return ready
            return summarise_run(list(self.reader.results(bodies=False)), conditions, publish,
                                 self.reader.samples(self.reader.tool_result_ids()),
                                 report_baseline(self.dir))

        summary, busy = self._summary.get(self.reader.stamp(), compute, wait_s)
        return summary, busy, self._summary.error


def find_runs(paths: list[Path]) -> list[Path]:
    """Run directories among ``paths``: each path is a run directory or a folder whose children are, or hold
    runs one level down (a several-model run's parent inside ``runs/``); each directory once, in order."""
    out: list[Path] = []
    for p in paths:
        found = [p] if is_run_dir(p) else [run for c in sorted(p.iterdir()) if c.is_dir() for run in _runs_in(c)] \
            if p.is_dir() else []
        out += [d for d in found if d.resolve() not in {o.resolve() for o in out}]
    return out


def _runs_in(folder: Path) -> list[Path]:
    """``folder`` when it is a run, else its children that are (a several-model parent)."""
    if is_run_dir(folder):
        return [folder]
    return sorted(c for c in folder.iterdir() if c.is_dir() and is_run_dir(c))


def make_handles(run_dirs: list[Path]) -> dict[str, RunHandle]:
    """Handles keyed by a URL-safe id made from each directory's name (made unique)."""
    handles: dict[str, RunHandle] = {}
    for d in run_dirs:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", d.resolve().name).strip("._") or "run"
        rid, n = base, 2
        while rid in handles:
            rid, n = f"{base}-{n}", n + 1
        handles[rid] = RunHandle(rid, d)
    return handles
