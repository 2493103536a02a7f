"""The task interface: generate samples, parse answers, score them."""

from __future__ import annotations

import hashlib
from typing import ClassVar, Protocol, runtime_checkable

from tasks.records import SPLITS, Parsed, Sample, Score, Split


@runtime_checkable
class Task(Protocol):
    """What every task offers the evaluation loop."""

    name: str
    family: str
    toolsets: tuple[str, ...]

    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample]:
        """The task's samples of one split, deterministic for a seed, at most ``limit`` of them."""
        ...

    def parse(self, text: str, sample: Sample) -> Parsed:
        """Extract the answer from the model's final text."""
        ...

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        """Score a parsed answer against the sample's gold."""
        ...


class GeneratedTask:
    """Base for synthetic tasks: generate ``size`` items with a seed, split 60/10/30 deterministically.

    Subclasses implement :meth:`generate` (all items for a seed, in order) and :meth:`parse` / :meth:`score`.
    Items are assigned to splits by position (first 60 % train, next 10 % dev, last 30 % test), so ids never
    overlap across splits and a sample's id is stable for a (seed, size) pair.
    """

    name: ClassVar[str]
    family: ClassVar[str]
    toolsets: ClassVar[tuple[str, ...]] = ()
    default_size: ClassVar[int] = 200
    paper_size: ClassVar[int] = 3400

    def __init__(self, size: int | None = None) -> None:
        self.size = size or self.default_size

    def generate(self, seed: int, size: int) -> list[Sample]:  # pragma: no cover - abstract
        raise NotImplementedError

    def parse(self, text: str, sample: Sample) -> Parsed:  # pragma: no cover - abstract
        raise NotImplementedError

    def score(self, parsed: Parsed, sample: Sample) -> Score:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def split_of(index: int, size: int) -> Split:
        """The split of item ``index`` among ``size`` items (60/10/30 by position)."""
        if index < int(size * 0.6):
            return "train"
        if index < int(size * 0.7):
            return "dev"
        return "test"

    def sample_id(self, split: Split, index: int) -> str:
        return f"{self.name}/{split}/{index:05d}"

    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample]:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        items = [s for s in self.generate(seed, self.size) if s.split == split]
        return items if limit is None else items[:limit]


def stable_seed(*parts: object) -> int:
    """A seed derived from parts, stable across processes (unlike ``hash``)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")
