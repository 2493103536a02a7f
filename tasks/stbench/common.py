"""Shared machinery of STBench tasks: items rendered in two styles, answer kinds, parsing and scoring.

Each synthetic task draws an :class:`Item` from a per-item RNG seeded by the task's base name, seed and index,
so ``stbench.x`` (chat style) and its variant ``stbench.x.completion`` (:data:`COMPLETION`) hold the same items, and any item can be redrawn
alone. Parsing and scoring depend only on the answer kind and the sample, so loaded official samples use the
same functions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from geocore.geodesy import geodesic_km
from tasks.base import GeneratedTask, stable_seed
from tasks.records import SPLITS, Message, Parsed, Sample, Score, Split
from tasks.registry import Variant
from tasks.stbench.parsing import parse_anomaly, parse_option, parse_point, parse_yes_no
from tasks.stbench.prompts import CHAT_SYSTEM, COMPLETION_SYSTEM, Fmt, Style

AnswerKind = Literal["option", "yesno", "anomaly", "point"]
PREDICTION_THRESHOLD_M = 50.0
"""Trajectory prediction counts as correct within this many metres (the error itself is the main metric)."""

_ALIASES: dict[str, tuple[str, ...]] = {
    "northeast": ("north east", "north-east"),
    "southeast": ("south east", "south-east"),
    "southwest": ("south west", "south-west"),
    "northwest": ("north west", "north-west"),
    "car": ("driving", "vehicle", "taxi", "automobile", "motor vehicle"),
    "bike": ("bicycle", "cycling", "cyclist", "biking"),
    "pedestrian": ("walk", "walking", "on foot", "walker"),
}
_COUNT_WORDS = {0: ("never", "no encounters", "zero times"), 1: ("once", "one time"), 2: ("twice", "two times")}


def aliases_for(options: Sequence[tuple[int, str]]) -> dict[int, tuple[str, ...]]:
    """Synonyms of option labels: compass points, travel modes and encounter counts ("2 times" ~ "twice")."""
    out: dict[int, tuple[str, ...]] = {}
    for n, label in options:
        key = label.strip().lower()
        extra = _ALIASES.get(key, ())
        m = re.fullmatch(r"(\d+) times?", key)
        if m:
            k = int(m.group(1))
            extra = (f"{k} time", f"{k} encounters", f"{k} encounter", f"{k} crossings", *_COUNT_WORDS.get(k, ()))
        if extra:
            out[int(n)] = extra
    return out


def options_of(sample: Sample) -> list[tuple[int, str]]:
    return [(int(n), str(label)) for n, label in sample.payload.get("options", [])]


def parse_answer(kind: AnswerKind, text: str, sample: Sample) -> Parsed:
    """Parse ``text`` as an answer of ``kind`` for ``sample``: its options, prompt (placeholder echoes), style
    (a completion continues the stub) and, for points, coordinate order and history from its payload."""
    prompt = sample.prompt if sample.messages else None
    completion = sample.meta.get("style") == "completion"
    if kind == "option":
        options = options_of(sample)
        return parse_option(text, options, aliases_for(options), prompt=prompt, completion=completion)
    if kind == "yesno":
        return parse_yes_no(text, prompt=prompt, completion=completion)
    if kind == "anomaly":
        return parse_anomaly(text, prompt=prompt, completion=completion)
    history = sample.payload.get("history") or []
    ref = (float(history[-1][0]), float(history[-1][1])) if history else None
    given = [(float(p[0]), float(p[1])) for p in history]
    return parse_point(text, order=sample.payload.get("answer_order", "latlon"), reference=ref, given=given,
                       prompt=prompt, completion=completion)


def score_answer(kind: AnswerKind, parsed: Parsed, sample: Sample) -> Score:
    """Exact match for options and two-way answers; metres (WGS84 geodesic) for points."""
    unit = "m" if kind == "point" else None
    if not parsed.ok:
        return Score.unanswered(parsed, error_unit=unit)
    target = sample.target
    if kind == "point":
        lat, lon = float(parsed.answer["lat"]), float(parsed.answer["lon"])
        err = 1000.0 * geodesic_km(lat, lon, float(target["lat"]), float(target["lon"]))
        ok = err <= PREDICTION_THRESHOLD_M
        return Score(correct=ok, value=1.0 if ok else 0.0, error=err, error_unit="m",
                     explanation=f"predicted ({lat:.5f}, {lon:.5f}), {err:.1f} m from the true next point "
                                 f"(correct within {PREDICTION_THRESHOLD_M:.0f} m)")
    gold = target["option"] if kind == "option" else target["answer"]
    ok = parsed.answer == gold
    label = f" ({target.get('label')})" if kind == "option" and target.get("label") else ""
    return Score(correct=ok, value=1.0 if ok else 0.0, explanation=f"answer {parsed.answer!r}, gold {gold!r}{label}")


@dataclass
class Item:
    """One drawn item: the inputs (payload), typed gold, breakdown keys and, for choice tasks, the options."""

    payload: dict[str, Any]
    target: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    options: list[tuple[int, str]] | None = None


class STBenchTask(GeneratedTask):
    """Base of the synthetic STBench tasks; subclasses implement :meth:`make` and :meth:`render`."""

    family = "stbench"
    style: ClassVar[Style] = "chat"
    kind: ClassVar[AnswerKind] = "option"
    default_size = 200
    max_tries: ClassVar[int] = 400

    def make(self, rng: random.Random, index: int) -> Item:  # pragma: no cover - abstract
        raise NotImplementedError

    def render(self, item: Item, fmt: Fmt) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def item(self, seed: int, index: int) -> Item:
        """Item ``index`` for ``seed`` (the same in both styles)."""
        return self.make(random.Random(stable_seed(self.item_key, seed, index)), index)

    def generate(self, seed: int, size: int) -> list[Sample]:
        return [self.sample_at(seed, i, size) for i in range(size)]

    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample]:
        """As :meth:`GeneratedTask.samples`, but only the items asked for are drawn (items are independent)."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        wanted = [i for i in range(self.size) if self.split_of(i) == split]
        return [self.sample_at(seed, i, self.size) for i in (wanted if limit is None else wanted[:limit])]

    def sample_at(self, seed: int, index: int, size: int) -> Sample:
        """Sample ``index`` of ``size`` for ``seed``, rendered in this task's style."""
        fmt = Fmt(self.style)
        item = self.item(seed, index)
        split = self.split_of(index)
        payload = dict(item.payload)
        if item.options is not None:
            payload["options"] = [[n, label] for n, label in item.options]
        if self.kind == "point":
            payload["answer_order"] = "lonlat" if fmt.lonlat else "latlon"
        system = COMPLETION_SYSTEM if self.style == "completion" else CHAT_SYSTEM
        return Sample(
            id=self.sample_id(split, index),
            task=self.name,
            split=split,
            messages=(Message(role="system", content=system), Message(role="user", content=self.render(item, fmt))),
            target=item.target,
            choices=tuple(label for _, label in item.options) if item.options else None,
            payload=payload,
            meta={**item.meta, "style": self.style},
        )

    def parse(self, text: str, sample: Sample) -> Parsed:
        return parse_answer(self.kind, text, sample)

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        return score_answer(self.kind, parsed, sample)

    def retry(self, make_once: Callable[[], Item | None]) -> Item:
        """Call ``make_once`` until it returns an item (rejection sampling); RuntimeError after max_tries."""
        for _ in range(self.max_tries):
            item = make_once()
            if item is not None:
                return item
        raise RuntimeError(f"{self.item_key}: no valid item after {self.max_tries} tries")


COMPLETION = Variant("completion", {"style": "completion"}, "In the paper's completion style.")
"""The paper-style variant every synthetic STBench task declares: ``<task>.completion``."""
