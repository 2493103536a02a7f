"""What makes paper-size generation fast changes no sample and leaves the process as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from tasks.base import GeneratedTask, gc_paused
from tasks.records import Message, Sample
from tasks.registry import get_task, task_names


def test_gc_paused_pauses_and_restores_the_collector() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer one's pause alone
    assert gc.isenabled() and gc.get_freeze_count() == 0  # nothing is left out of later collections
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("a failed build")
    assert gc.isenabled()


def test_gc_paused_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


STREAMED = [n for n in task_names() if n.startswith("gpsbench.")] + ["geotemp.tz_probe"]


@pytest.mark.parametrize("name", STREAMED)
def test_a_limited_run_draws_nothing_after_its_last_sample(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    task = get_task(name, size=120)
    assert isinstance(task, GeneratedTask)
    full = [s.model_dump_json() for s in task.generate(5, 120) if s.split == "dev"]
    drawn: list[str] = []
    draw = type(task).draw

    def counted(self: GeneratedTask[Any, Any], seed: int, size: int) -> Iterator[Sample[Any]]:
        for sample in draw(self, seed, size):
            drawn.append(sample.id)
            yield sample

    monkeypatch.setattr(type(task), "draw", counted)
    got = task.samples(split="dev", limit=2, seed=5)
    assert [s.model_dump_json() for s in got] == full[:2]
    assert drawn[-1] == got[-1].id and len(drawn) < 120
    assert task.samples(split="dev", limit=0, seed=5) == []


def test_a_task_that_builds_all_its_samples_at_once_still_serves_limited_runs() -> None:
    class Listed(GeneratedTask[dict[str, int], int]):
        name = family = "listed"

        def generate(self, seed: int, size: int) -> list[Sample[dict[str, int]]]:
            return [Sample(id=self.sample_id(self.split_of(i), i), task=self.name, split=self.split_of(i),
                           messages=(Message(role="user", content=f"item {i}"),), target={"i": i})
                    for i in range(size)]

    task = Listed(size=40)
    assert [s.target["i"] for s in task.samples(split="test", limit=2)] == [
        s.target["i"] for s in task.generate(42, 40) if s.split == "test"][:2]

    class Neither(GeneratedTask[dict[str, int], int]):
        name = family = "neither"

    with pytest.raises(NotImplementedError, match="neither draw, generate nor sample_at"):
        Neither(size=10).samples(split="test", limit=1)
