"""Building the samples of many tasks at once, on every core.

Tasks are built in groups, a task with its variants (they reuse the items the base drew). Groups that draw many
items go into one queue: first the tasks whose items are drawn alone (:attr:`tasks.base.GeneratedTask.
independent_items`: STBench, GTR; costly items, cheap to copy back), largest first, then the tasks that draw
from one stream (GPSBench, then GeoTemp, whose hundreds of thousands of small samples cost more to copy back
than to build). Forked worker processes take groups from the head of the queue; this process builds the small
groups, then takes groups from the tail that no worker has started, so every process finishes at about the same
time and GeoTemp is mostly built where it is needed. This process counts as one of the CPUs: on 2 CPUs one worker
runs beside it. The samples are the same as each task's own ``samples()`` / ``generate()``: items come from
seeds, not from the process that draws them.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections import defaultdict
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tasks.base import GeneratedTask, gc_paused
from tasks.records import Sample, Split

PARALLEL_MIN_ITEMS = 2_000
"""Items a group (a task and its variants) must draw before a worker process is worth its start and the copy of
its samples back (paper sizes are 3,400 to 100,806 items; default sizes stay in this process)."""

_TASKS: dict[str, Any] = {}  # what forked workers read: set before the pool forks, cleared after


class SampleBuildError(RuntimeError):
    """A worker process died while building samples (killed, or out of memory); the message is one line."""


def usable_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def task_samples(task: Any, split: Split | None, seed: int, limit: int | None) -> list[Sample[Any]]:
    """``task.samples(split=...)``; with ``split`` None, every sample of every split (``generate``)."""
    if split is None:
        with gc_paused():
            return list(task.generate(seed, task.size))
    return list(task.samples(split=split, limit=limit, seed=seed))


def _build_group(names: tuple[str, ...], split: Split | None, seed: int,
                 limits: dict[str, int | None]) -> dict[str, list[Sample[Any]]]:
    return {n: task_samples(_TASKS[n], split, seed, limits.get(n)) for n in names}


def _offloaded(tasks: Mapping[str, Any], split: Split | None, limits: Mapping[str, int | None]) -> list[tuple[str, ...]]:
    """The queue: groups of task names worth a worker, independent-item groups first (largest first), then
    stream groups (smallest first, so the largest stream group is at the tail, where this process starts)."""
    groups: dict[str, list[str]] = defaultdict(list)
    drawn: dict[str, int] = defaultdict(int)
    independent: dict[str, bool] = {}
    for name, task in tasks.items():
        if not isinstance(task, GeneratedTask):  # a loader of released files: built here
            continue
        key = task.item_key
        groups[key].append(name)
        limit = None if split is None else limits.get(name)
        drawn[key] = max(drawn[key], task.size if limit is None else min(limit, task.size))
        independent[key] = bool(getattr(task, "independent_items", False))
    big = [k for k in groups if drawn[k] >= PARALLEL_MIN_ITEMS]
    order = sorted(big, key=lambda k: (not independent[k], -drawn[k] if independent[k] else drawn[k]))
    return [tuple(groups[k]) for k in order]


def build_samples(tasks: Mapping[str, Any], *, split: Split | None, seed: int,
                  limits: Mapping[str, int | None] | None = None,
                  workers: int | None = None) -> dict[str, list[Sample[Any]]]:
    """The samples of each task (``split`` None: every split), keyed and ordered as ``tasks``.

    ``workers`` is the number of processes that build (default: the usable CPUs), this one included. With 2 or
    more on Linux, groups that draw at least :data:`PARALLEL_MIN_ITEMS` items are queued for ``workers - 1``
    forked processes; this process builds the rest, then the queued groups no worker has started, from the
    tail. A process that already runs other threads, or runs elsewhere (macOS does not fork safely),
    builds everything itself. A worker that dies raises :class:`SampleBuildError`.
    """
    limits = dict(limits or {})
    workers = usable_cpus() if workers is None else workers
    offload = _offloaded(tasks, split, limits)
    if workers < 2 or not offload or sys.platform != "linux" or threading.active_count() > 1:
        return {n: task_samples(t, split, seed, limits.get(n)) for n, t in tasks.items()}
    elsewhere = {n for group in offload for n in group}
    out: dict[str, list[Sample[Any]]] = {}
    _TASKS.update(tasks)
    try:
        with ProcessPoolExecutor(min(workers - 1, len(offload)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            queued = [(group, pool.submit(_build_group, group, split, seed, limits)) for group in offload]
            try:
                for name, task in tasks.items():
                    if name not in elsewhere:
                        out[name] = task_samples(task, split, seed, limits.get(name))
                for group, future in reversed(queued):  # from the tail; a group a worker has started stays there
                    if future.cancel():
                        out.update(_build_group(group, split, seed, limits))
                with gc_paused():
                    for group, future in queued:
                        if not future.cancelled():
                            try:
                                out.update(future.result())
                            except BrokenProcessPool:
                                raise SampleBuildError(
                                    f"a worker process building the samples of {', '.join(group)} died (killed, or "
                                    "out of memory?); no samples were built") from None
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)  # an error: do not build the rest of the queue first
                raise
    finally:
        _TASKS.clear()
    return {n: out[n] for n in tasks}
