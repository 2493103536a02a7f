"""Items drawn once per process (``tasks.base.shared_stream``): a ``.completion`` or ``.styles`` variant reuses
its base's items, ``--limit`` draws only what it returns, and the shared cache is bounded."""

from __future__ import annotations

import pytest

from tasks import get_task
from tasks.base import shared_stream
from tasks.stbench.common import STBenchTask

TASKS = ["stbench.trajectory_region", "stbench.trajectory_trajectory", "stbench.point_region"]
LIMITED = [*TASKS, "gtr.next_spot", "gtr.trajectory_forecast", "geotemp.time_time", "geotemp.verification.styles"]


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    shared_stream.cache_clear()


@pytest.mark.parametrize("name", LIMITED)
def test_limited_run_is_the_head_of_the_full_run(name: str) -> None:
    task = get_task(name, size=60)
    limited = task.samples(split="test", limit=7)
    shared_stream.cache_clear()  # the full run draws its own items, not the limited run's
    full = [s for s in task.generate(42, 60) if s.split == "test"]
    n = 7 * (3 if name.endswith(".styles") else 1)  # a limit counts items; a .styles item is three samples
    assert len(limited) == n
    assert [s.model_dump_json() for s in limited] == [s.model_dump_json() for s in full[:n]]


def test_limited_run_at_paper_size_draws_only_what_it_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    task = get_task("stbench.trajectory_region", size=None)
    task.size = task.paper_size
    drawn: list[int] = []
    make = type(task).make
    monkeypatch.setattr(type(task), "make", lambda self, rng, i: drawn.append(i) or make(self, rng, i))
    out = task.samples(split="test", limit=5)
    assert len(out) == 5 and sorted(drawn) == sorted(int(s.id.rsplit("/", 1)[1]) for s in out)


@pytest.mark.parametrize("name", TASKS)
def test_completion_twin_reuses_the_base_items(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    twin = f"{name}.completion"
    shared_stream.cache_clear()
    expected = [s.model_dump_json() for s in get_task(twin, size=50).samples(split="dev")]
    shared_stream.cache_clear()
    get_task(name, size=50).samples(split="dev")

    def no_draw(self: STBenchTask, rng: object, index: int) -> None:
        raise AssertionError(f"{self.name} redrew item {index}")

    monkeypatch.setattr(type(get_task(twin)), "make", no_draw)
    assert [s.model_dump_json() for s in get_task(twin, size=50).samples(split="dev")] == expected


def test_cache_keeps_the_most_recent_streams_only() -> None:
    shared_stream("a")[0] = "item a0"
    shared_stream("b")[0] = "item b0"
    assert shared_stream("a") == {0: "item a0"}  # a used again: b is now the oldest
    shared_stream("c")[0] = "item c0"
    assert shared_stream("a") == {0: "item a0"} and shared_stream("c") == {0: "item c0"}
    assert shared_stream("b") == {}  # evicted


def test_geotemp_styles_reuse_the_base_items_and_a_limit_draws_a_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    from tasks.geotemp.timetasks import GeoTempTimeTask

    expected = [s.model_dump_json() for s in get_task("geotemp.time_place.styles", size=300).samples(split="test")]
    shared_stream.cache_clear()
    limited = get_task("geotemp.time_place.styles", size=300).samples(split="test", limit=4)
    assert [s.model_dump_json() for s in limited] == expected[:12]  # 4 items × 3 styles
    assert len(shared_stream(("geotemp", "time_place", 2023, 42, 300))) < 300  # only a prefix was drawn
    shared_stream.cache_clear()
    get_task("geotemp.time_place", size=300).samples(split="dev")

    def no_draw(self: GeoTempTimeTask, seed: int, size: int) -> None:
        raise AssertionError(f"{self.name} redrew its items")

    monkeypatch.setattr(GeoTempTimeTask, "_draw", no_draw)
    styled = get_task("geotemp.time_place.styles", size=300).samples(split="test")
    assert [s.model_dump_json() for s in styled] == expected
