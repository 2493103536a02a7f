"""Split membership is a function of the item's identity: the same at every size, 60/10/30 at paper size."""

from __future__ import annotations

from collections import Counter

import pytest

from tasks import get_task, task_names
from tasks.base import GeneratedTask


def generated_tasks() -> list[str]:
    return [n for n in task_names() if isinstance(get_task(n), GeneratedTask)]


def splits_by_index(name: str, size: int) -> dict[int, str]:
    samples = get_task(name, size=size).generate(42, size)  # type: ignore[attr-defined]
    ids = [s.id for s in samples]
    assert len(set(ids)) == len(ids)
    out = {}
    for s in samples:
        _, split, index = s.id.rsplit("/", 2)
        assert split == s.split
        out[int(index)] = s.split
    return out


@pytest.mark.parametrize("name", generated_tasks())
def test_item_i_has_the_same_split_at_two_sizes(name: str) -> None:
    small, large = splits_by_index(name, 10), splits_by_index(name, 20)
    assert set(small.values()) == {"train", "dev", "test"}
    assert all(large[i] == split for i, split in small.items())


@pytest.mark.parametrize("name", generated_tasks())
def test_paper_size_shares_are_60_10_30(name: str) -> None:
    task = get_task(name)
    n = task.paper_size  # type: ignore[attr-defined]
    counts = Counter(task.split_of(i) for i in range(n))  # type: ignore[attr-defined]
    for split, share in (("train", 0.6), ("dev", 0.1), ("test", 0.3)):
        assert abs(counts[split] - share * n) <= 6  # exact in every full block of 10; one partial block


def test_variants_of_one_item_set_share_splits() -> None:
    for base, variant in (("gpsbench.place_association", "gpsbench.place_association.country"),
                          ("geotemp.time_time_place", "geotemp.time_time_place.inject_tz")):
        a, b = get_task(base), get_task(variant)
        assert [a.split_of(i) for i in range(200)] == [b.split_of(i) for i in range(200)]  # type: ignore[attr-defined]


def test_splits_differ_between_tasks() -> None:
    a, b = get_task("gpsbench.distance"), get_task("gpsbench.bearing")
    assert [a.split_of(i) for i in range(100)] != [b.split_of(i) for i in range(100)]  # type: ignore[attr-defined]
