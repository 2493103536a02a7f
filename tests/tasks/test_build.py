"""Building many tasks' samples at once (tasks.build): forked workers give the same samples as one process."""

from __future__ import annotations

import multiprocessing
from typing import Any

import pytest

from tasks import build, get_task
from tasks.build import build_samples

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


def test_a_task_and_its_variants_share_a_worker_and_stream_tasks_stay_here() -> None:
    groups = build._offloaded(_tasks(size=3000), "test", {"gtr.next_spot": 10})
    assert groups == [("stbench.direction", "stbench.direction.completion"), ("stbench.point_region",)]


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
