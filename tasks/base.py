"""The task interface: generate samples, parse answers, score them."""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from tasks.answer_kinds import AnswerKind, OptionLabels
from tasks.examples import Replies
from tasks.records import SPLITS, Parsed, Sample, Score, Split
from tasks.scorers import Breakdowns, Scorer

TargetT = TypeVar("TargetT")
"""A generated task's gold type."""
ValueT = TypeVar("ValueT")
"""A generated task's parsed-answer type."""
T = TypeVar("T")


@runtime_checkable
class Task(Protocol):
    """What every task offers the evaluation loop."""

    name: str
    family: str
    toolsets: tuple[str, ...]

    @property
    def version(self) -> str:
        """The task's version, part of a run's identity: raised when its items, gold, prompt or scoring change."""
        ...

    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample]:
        """The task's samples of one split, deterministic for a seed, at most ``limit`` of them."""
        ...

    def parse(self, text: str, sample: Sample) -> Parsed:
        """Extract the answer from the model's final text."""
        ...

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        """Score a parsed answer against the sample's gold."""
        ...


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a task builds its samples (a context manager or decorator).

    A paper-size build allocates millions of small containers that all stay alive (samples, their dicts and
    messages); each automatic collection of the oldest generation walks every one of them again, for nothing:
    samples hold no reference cycles, and reference counting still frees garbage at once. Pausing it halves
    GeoTemp's generation time. :meth:`GeneratedTask.samples` builds under it (and ``benchmarks/generation.py``
    around ``generate``). On exit the objects built are moved to the oldest generation without a scan
    (``gc.freeze`` then ``gc.unfreeze``): otherwise the first young collection after the pause would walk them
    all. The collector's previous state is restored, so nesting is harmless."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


class GeneratedTask(Generic[TargetT, ValueT]):
    """Base for synthetic tasks: generate ``size`` items with a seed, split 60/10/30 deterministically.

    Generic in the gold (``TargetT``) and the parsed answer (``ValueT``) so mypy checks what a scorer reads:
    ``class DistanceTask(GeneratedTask[DistanceTarget, float])``.

    Subclasses implement :meth:`generate` (all items for a seed, in order), or :meth:`sample_at` when items are
    drawn alone (:attr:`independent_items`), and :meth:`parse` / :meth:`score`.
    An item's split is a function of its identity only (:attr:`item_key` and its index, see :meth:`split_of`),
    so item i is in the same split at every ``--size``; ids carry the index, so they never overlap across splits.
    """

    name: ClassVar[str]
    """Set by :func:`tasks.registry.register_task`."""
    family: ClassVar[str]
    base_name: ClassVar[str | None] = None
    """The task this one is a variant of (:class:`tasks.registry.Variant`), None for a base task."""
    toolsets: ClassVar[tuple[str, ...]] = ()
    version: ClassVar[str] = "1"
    """Raise it when the task's items, gold, prompt or scoring change: it is part of a run's identity
    (:attr:`evals.records.RunSpec.task_versions`), so a run is never resumed across a change."""
    default_size: ClassVar[int] = 200
    paper_size: ClassVar[int] = 3400
    scorer: ClassVar[Scorer | None] = None
    """The scorer part (:mod:`tasks.scorers`) :meth:`score` applies and :meth:`example_replies` writes from; None
    for a task that scores in its own :meth:`score`."""
    breakdowns: ClassVar[Breakdowns] = {}
    """Breakdown dimension -> the sample meta keys that carry it (first present wins): what the report breaks
    this task's results down by, beside its family."""
    answer_kind: ClassVar[AnswerKind] = "text"
    """The typed final answer of the structured answer channel (:mod:`tasks.answer_kinds`)."""
    answer_options: ClassVar[OptionLabels] = "letters"
    """How an ``option`` or ``interval`` answer names its options."""
    answer_units: ClassVar[tuple[str, ...]] = ()
    """A ``quantity`` answer's unit enum; a ``number`` answer is written with the first as its suffix."""

    def __init__(self, size: int | None = None) -> None:
        self.size = size or self.default_size

    independent_items: ClassVar[bool] = False
    """Whether item i is drawn alone (its own RNG) by :meth:`sample_at`: then :meth:`samples` draws only the
    items it returns (a ``--limit`` at paper size starts at once). Otherwise items come from one RNG stream
    (item i depends on the draws before it, GPSBench and GeoTemp), drawn in order by :meth:`draw`, and
    :meth:`samples` stops drawing after the last item it returns."""

    def generate(self, seed: int, size: int) -> list[Sample[TargetT]]:
        """All ``size`` samples for ``seed``, in order (every split)."""
        if self.independent_items:
            return [self.sample_at(seed, i, size) for i in range(size)]
        return list(self.draw(seed, size))

    def draw(self, seed: int, size: int) -> Iterator[Sample[TargetT]]:
        """The samples of :meth:`generate` one at a time, each drawn when asked for (tasks whose items come from
        one RNG stream implement this). A task that overrides :meth:`generate` instead builds them all here, so
        its limited runs build every sample and keep the head."""
        if type(self).generate is GeneratedTask.generate:
            raise NotImplementedError(f"{type(self).__name__} implements neither draw, generate nor sample_at")
        yield from self.generate(seed, size)

    def sample_at(self, seed: int, index: int, size: int) -> Sample[TargetT]:  # pragma: no cover - abstract
        """Sample ``index`` of ``size`` for ``seed``, drawn alone (tasks with :attr:`independent_items`)."""
        raise NotImplementedError

    def parse(self, text: str, sample: Sample[TargetT]) -> Parsed[ValueT]:  # pragma: no cover - abstract
        raise NotImplementedError

    def score(self, parsed: Parsed[ValueT], sample: Sample[TargetT]) -> Score:
        """The declared :attr:`scorer` applied (a task without one overrides this)."""
        if self.scorer is None:
            raise NotImplementedError(f"{type(self).__name__} declares no scorer and overrides no score")
        return self.scorer(parsed, sample)

    def example_replies(self, sample: Sample[TargetT]) -> Replies | None:
        """The gold, a wrong answer and a hedge's candidates for ``sample`` as a model writes them (the adversarial
        test corpus), from the declared :attr:`scorer`; None when the task declares none."""
        return None if self.scorer is None else self.scorer.replies(sample)

    @property
    def item_key(self) -> str:
        """The identity items are drawn and split under: the base task's name, shared by its variants."""
        return self.base_name or self.name

    def split_of(self, index: int) -> Split:
        """The split of item ``index``, whatever the size: within each block of 10 consecutive indices a stable
        hash of (split key, block) orders the 10 items, and the first 6 are train, the next dev, the last 3 test.
        So every size that is a multiple of 10 splits exactly 60/10/30, every size >= 10 has all three splits,
        and the cut does not follow any cycle the generator uses (difficulty, noise, quantity)."""
        return _block_splits(self.item_key, index // SPLIT_BLOCK)[index % SPLIT_BLOCK]

    def sample_id(self, split: Split, index: int) -> str:
        return f"{self.name}/{split}/{index:05d}"

    @gc_paused()
    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample[TargetT]]:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        if self.independent_items:
            wanted = [i for i in range(self.size) if self.split_of(i) == split]
            return [self.sample_at(seed, i, self.size) for i in (wanted if limit is None else wanted[:limit])]
        if limit is None:
            return [s for s in self.generate(seed, self.size) if s.split == split]
        out: list[Sample[TargetT]] = []
        if limit < 1:
            return out
        for sample in self.draw(seed, self.size):
            if sample.split == split:
                out.append(sample)
                if len(out) == limit:
                    break  # nothing after the last sample returned is drawn
        return out


SPLIT_BLOCK = 10
_BLOCK_SHARES: tuple[Split, ...] = ("train",) * 6 + ("dev",) + ("test",) * 3


@lru_cache(maxsize=65_536)
def _block_splits(key: str, block: int) -> tuple[Split, ...]:
    """The splits of the 10 items of one block: positions ordered by a stable hash, cut 6/1/3."""
    order = sorted(range(SPLIT_BLOCK), key=lambda k: stable_seed("split", key, block, k))
    out: list[Split] = ["test"] * SPLIT_BLOCK
    for rank, position in enumerate(order):
        out[position] = _BLOCK_SHARES[rank]
    return tuple(out)


def stable_seed(*parts: object) -> int:
    """A seed derived from parts, stable across processes (unlike ``hash``)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Stream(dict[int, Any]):
    """The items of one stream drawn so far (index -> item) and, for a generator that draws items in sequence,
    its running source."""

    source: Iterator[Any] | None = None

    def replay(self, source: Callable[[], Iterator[T]]) -> Iterator[T]:
        """Items 0, 1, ... in order: those drawn already, then the next ones from ``source()`` (started once and
        shared with every later replay of this stream) as they are asked for, so a limited run draws a prefix."""
        if self.source is None:
            self.source = source()
        i = 0
        while True:
            if i not in self:
                try:
                    self[i] = next(self.source)
                except StopIteration:
                    return
            yield self[i]
            i += 1


@lru_cache(maxsize=2)
def shared_stream(key: Hashable) -> Stream:
    """The drawn items of stream ``key`` (e.g. ``(item_key, seed)``) shared by a task and its variants in this
    process, so a suite running ``stbench.x`` and ``stbench.x.completion`` (or ``geotemp.x`` and
    ``geotemp.x.styles``) draws each item once; the caller adds the items it draws.

    Memory-bounded by streams: the two most recently used are kept (``shared_stream.cache_clear()`` drops them),
    so at most the items of two (task, seed) pairs (at paper size 2 × 12,500 STBench items, or 2 × 100,806
    GeoTemp items).
    """
    return Stream()
