"""What makes paper-size generation fast changes no sample and leaves the process as it found it."""

from __future__ import annotations

import gc
import math
import random
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import shapely

from tasks.base import GeneratedTask, gc_paused
from tasks.records import Message, Sample
from tasks.registry import get_task, task_names
from tasks.stbench.trajectory_region import TrajectoryRegionTask
from tasks.stbench.world import city_blocks, connected_blocks, round_array


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


def test_round_array_is_round_to_the_bit() -> None:
    rng = random.Random(4)
    values = [rng.uniform(-180, 180) for _ in range(20_000)] + [rng.uniform(-1e-5, 1e-5) for _ in range(2_000)]
    for _ in range(2_000):  # ties and their neighbours, where the scaled double may round either way
        x = (rng.randrange(-180_000_000, 180_000_000) + 0.5) / 1e6
        values += [x + d * math.ulp(x) for d in (-2, -1, 0, 1, 2)]
    values += [0.0, -0.0, 5e-7, -5e-7, 2.5, -2.5, 1e300, -1e300]
    arr = np.array(values + [0.0] * (len(values) % 2)).reshape(-1, 2)
    for decimals in (0, 3, 5, 6, 16, -1):
        got = round_array(arr, decimals)
        want = [[round(a, decimals), round(b, decimals)] for a, b in arr.tolist()]
        assert [struct.pack("<2d", *row) for row in got] == [struct.pack("<2d", *row) for row in want], decimals


def _robust_all_pairs(xy: np.ndarray, regions: np.ndarray) -> bool:
    """TrajectoryRegionTask._robust as first written: every (segment, region) pair, in array calls."""
    if (shapely.distance(shapely.get_exterior_ring(regions)[:, None], shapely.points(xy)[None, :]) < 3.0).any():
        return False
    if len(xy) == 1:
        return True
    segments = shapely.linestrings(np.stack([xy[:-1], xy[1:]], axis=1))[:, None]
    crossings = shapely.intersection(segments, regions[None, :]).ravel()
    parts, owner = shapely.get_parts(crossings, return_index=True)
    kept = ~shapely.is_empty(parts)
    parts, owner = parts[kept], owner[kept]
    if (shapely.get_type_id(parts) != shapely.GeometryType.LINESTRING).any() or (shapely.length(parts) < 5.0).any():
        return False
    entered = np.bincount(owner, minlength=crossings.size) > 0
    return not ((shapely.distance(segments, regions[None, :]).ravel() < 3.0) & ~entered).any()


def test_trajectory_robustness_check_matches_all_pairs() -> None:
    rng = random.Random(6)
    verdicts = set()
    for _ in range(1500):
        blocks = city_blocks(rng, 3, 4)
        if len(blocks.polygons) < 5:
            continue
        rings = [blocks.polygons[k] for k in connected_blocks(rng, blocks, 5)]
        corners = np.array([p for ring in rings for p in ring])
        boundaries = shapely.linearrings(corners, indices=np.repeat(np.arange(5), [len(r) for r in rings]))
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        if rng.random() < 0.3:  # near vertices and edges: clearances just around 3 m
            picks = [corners[rng.randrange(len(corners))] for _ in range(rng.choice([1, 2, 4, 6]))]
            xy = np.array([(x + rng.choice([0.0, 3.0, -3.0, 2.995, 3.005]), y + rng.choice([0.0, 3.0, -3.0]))
                           for x, y in picks])
        else:
            xy = np.array([(rng.uniform(lo[0] - 20, hi[0] + 20), rng.uniform(lo[1] - 20, hi[1] + 20))
                           for _ in range(rng.choice([1, 2, 4, 6, 10]))])
        verdict = TrajectoryRegionTask._robust(xy, boundaries)
        assert verdict == _robust_all_pairs(xy, shapely.polygons(boundaries))
        verdicts.add(verdict)
    assert verdicts == {True, False}
