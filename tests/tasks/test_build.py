"""Building many tasks' samples at once (tasks.build): forked workers give the same samples as one process."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tasks import build, get_task
from tasks.build import _build_group as build_group
from tasks.build import build_samples
from tasks.build import task_samples as build_task_samples

NAMES = ("stbench.direction", "geotemp.time_time", "stbench.direction.completion", "stbench.point_region",
         "gtr.next_spot")


def _tasks(size: int = 40) -> dict[str, Any]:
    return {n: get_task(n, size=size) for n in NAMES}


def _dump(built: dict[str, list[Any]]) -> dict[str, list[str]]:
    return {n: [s.model_dump_json() for s in samples] for n, samples in built.items()}


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Start methods the build asked for (so a test knows whether workers ran), with a low offload threshold; the
    test process counts as single-threaded (threads other tests left behind would turn the pool off)."""
    asked: list[str] = []
    real = multiprocessing.get_context

    def spy(method: str | None = None) -> Any:
        asked.append(str(method))
        return real(method)

    monkeypatch.setattr(build.multiprocessing, "get_context", spy)
    monkeypatch.setattr(build, "PARALLEL_MIN_ITEMS", 20)
    monkeypatch.setattr(build.threading, "active_count", lambda: 1)
    return asked


@pytest.mark.parametrize("split", ["test", None])
def test_workers_build_the_same_samples_as_one_process(forks: list[str], split: Any) -> None:
    serial = _dump(build_samples(_tasks(), split=split, seed=7, limits={"stbench.point_region": 5}, workers=1))
    assert forks == []
    parallel = _dump(build_samples(_tasks(), split=split, seed=7, limits={"stbench.point_region": 5}, workers=2))
    assert forks == ["fork"]
    assert list(parallel) == list(NAMES) and parallel == serial
    assert len(serial["stbench.direction"]) == (40 if split is None else 12)
    if split == "test":
        assert len(serial["stbench.point_region"]) == 5
    direct = [s.model_dump_json() for s in get_task("stbench.point_region", size=40).samples(split="test", seed=7,
                                                                                             limit=5)]
    assert split is None or parallel["stbench.point_region"] == direct


def test_a_task_and_its_variants_form_one_group_and_stream_tasks_queue_last() -> None:
    tasks = {**_tasks(size=3000), "gpsbench.distance": get_task("gpsbench.distance", size=2500),
             "stbench.anomaly_detection": get_task("stbench.anomaly_detection", size=3500)}
    groups = build._offloaded(tasks, "test", {"gtr.next_spot": 10})
    assert groups == [("stbench.anomaly_detection",), ("stbench.direction", "stbench.direction.completion"),
                      ("stbench.point_region",), ("gpsbench.distance",), ("geotemp.time_time",)]
    assert build._offloaded(tasks, "test", dict.fromkeys(tasks, 10)) == []  # a limited run: nothing worth a worker
    official = get_task("stbench.official", path=None)
    assert build._offloaded({"stbench.official": official}, "test", {}) == []  # not generated: built here


def test_a_process_with_other_threads_does_not_fork(forks: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build.threading, "active_count", lambda: 2)
    built = build_samples(_tasks(), split="test", seed=7, workers=2)
    assert forks == [] and len(built["stbench.direction"]) == 12


def test_an_error_in_a_worker_reaches_the_caller(forks: list[str]) -> None:
    with pytest.raises(ValueError, match="split must be one of"):
        build_samples({"stbench.direction": get_task("stbench.direction", size=40)}, split="bogus",  # type: ignore[arg-type]
                      seed=7, workers=2)
    assert forks == ["fork"]


def test_only_linux_forks(forks: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build.sys, "platform", "darwin")
    built = build_samples(_tasks(), split="test", seed=7, workers=2)
    assert forks == [] and len(built["stbench.direction"]) == 12


_HOOK: dict[str, Any] = {}  # set before the pool forks: the log file, the release event, this process's id


def _logged_group(names: tuple[str, ...], *args: Any) -> Any:
    """``build._build_group`` that records which process built each group; the worker holds its first group
    until this process has built one (so the groups queued behind it are still waiting)."""
    here = os.getpid() == _HOOK["pid"]
    if here:
        _HOOK["release"].set()
    elif not _HOOK["release"].wait(timeout=20):
        _HOOK["release"].set()  # the groups after this one need not wait too
        raise TimeoutError("this process never took a queued group")
    with _HOOK["log"].open("a") as f:
        f.write(f"{names[0]} {'here' if here else 'worker'}\n")
    return _HOOK["real"](names, *args)


def test_this_process_takes_the_groups_no_worker_has_started(forks: list[str], monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    names = ("stbench.direction", "stbench.point_region", "stbench.anomaly_detection", "gtr.next_spot",
             "geotemp.time_time")
    tasks = {n: get_task(n, size=40) for n in names}
    serial = _dump(build_samples(tasks, split="test", seed=7, workers=1))
    log = tmp_path / "built"
    monkeypatch.setattr(build, "_build_group", _logged_group)
    monkeypatch.setitem(_HOOK, "real", build_group)
    monkeypatch.setitem(_HOOK, "log", log)
    monkeypatch.setitem(_HOOK, "pid", os.getpid())
    monkeypatch.setitem(_HOOK, "release", multiprocessing.get_context("fork").Event())
    parallel = _dump(build_samples(tasks, split="test", seed=7, workers=2))
    assert parallel == serial
    where = dict(line.split() for line in log.read_text().splitlines())
    assert sorted(where) == sorted(names)
    assert where["stbench.direction"] == "worker"  # the head of the queue: the worker started it
    assert where["geotemp.time_time"] == where["gtr.next_spot"] == "here"  # the tail: no worker had started them


def _failing_here(task: Any, *args: Any) -> Any:
    """``build.task_samples`` that fails for gtr.next_spot, after letting the worker go on."""
    if task.name == "gtr.next_spot":
        _HOOK["release"].set()
        raise RuntimeError("a task failed in this process")
    return build_task_samples(task, *args)


def test_an_error_in_this_process_cancels_the_queue(forks: list[str], monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    names = ("stbench.direction", "stbench.point_region", "stbench.anomaly_detection", "stbench.admin_region",
             "stbench.trajectory_prediction", "stbench.trajectory_identification")
    tasks = {n: get_task(n, size=40) for n in names} | {"gtr.next_spot": get_task("gtr.next_spot", size=10)}
    log = tmp_path / "built"
    monkeypatch.setattr(build, "_build_group", _logged_group)
    monkeypatch.setattr(build, "task_samples", _failing_here)
    monkeypatch.setitem(_HOOK, "real", build_group)
    monkeypatch.setitem(_HOOK, "log", log)
    monkeypatch.setitem(_HOOK, "pid", os.getpid())
    monkeypatch.setitem(_HOOK, "release", multiprocessing.get_context("fork").Event())
    with pytest.raises(RuntimeError, match="a task failed in this process"):
        build_samples(tasks, split="test", seed=7, workers=2)
    built = log.read_text().splitlines() if log.exists() else []
    assert len(built) <= 2, built  # the group the worker had started and at most the one handed to it next


def _dying_group(names: tuple[str, ...], *args: Any) -> Any:
    """``build._build_group`` whose worker is killed (as by the kernel out of memory) once it has started."""
    if os.getpid() != _HOOK["pid"]:
        _HOOK["release"].set()
        os.kill(os.getpid(), signal.SIGKILL)
    return _HOOK["real"](names, *args)


def _waiting_here(task: Any, *args: Any) -> Any:
    """``build.task_samples`` that builds gtr.next_spot only once the worker has started its group."""
    if task.name == "gtr.next_spot":
        assert _HOOK["release"].wait(timeout=20)
    return build_task_samples(task, *args)


def test_a_worker_that_dies_is_one_clear_error(forks: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = {"stbench.direction": get_task("stbench.direction", size=40), "gtr.next_spot": get_task("gtr.next_spot",
                                                                                                    size=10)}
    monkeypatch.setattr(build, "_build_group", _dying_group)
    monkeypatch.setattr(build, "task_samples", _waiting_here)
    monkeypatch.setitem(_HOOK, "real", build_group)
    monkeypatch.setitem(_HOOK, "pid", os.getpid())
    monkeypatch.setitem(_HOOK, "release", multiprocessing.get_context("fork").Event())
    with pytest.raises(build.SampleBuildError) as caught:
        build_samples(tasks, split="test", seed=7, workers=2)
    assert str(caught.value) == ("a worker process building the samples of stbench.direction died (killed, or out of "
                                 "memory?); no samples were built")
