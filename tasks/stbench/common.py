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
from typing import Any, ClassVar, Generic, Literal, NotRequired, TypedDict, TypeVar

from geocore.geodesy import geodesic_km
from tasks.base import GeneratedTask, TargetT, ValueT, shared_stream, stable_seed
from tasks.examples import Replies
from tasks.records import Message, Parsed, Sample, Score
from tasks.registry import Variant
from tasks.scorers import ChoiceScorer
from tasks.stbench import examples
from tasks.stbench.parsing import LatLon, parse_anomaly, parse_option, parse_point, parse_yes_no
from tasks.stbench.prompts import CHAT_SYSTEM, COMPLETION_SYSTEM, Fmt, Style

SYSTEM_MESSAGES: dict[Style, Message] = {"chat": Message(role="system", content=CHAT_SYSTEM),
                                       "completion": Message(role="system", content=COMPLETION_SYSTEM)}
"""The system message of each prompt style, one object shared by every STBench sample (generated or released)."""

AnswerKind = Literal["option", "yesno", "anomaly", "point"]
VerdictKind = Literal["yesno", "anomaly"]
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


class OptionTarget(TypedDict):
    """The gold of a choice question: the option's number and label (a task may add keys)."""

    option: int
    label: str


OptionT = TypeVar("OptionT", bound=OptionTarget)


class VerdictTarget(TypedDict):
    """The gold of a two-way question: "yes" or "no", "anomalous" or "normal"."""

    answer: str


class PointTarget(TypedDict):
    """The true next point of a trajectory, in degrees (and its Unix time for generated items)."""

    lat: float
    lon: float
    t: NotRequired[float]


def _context(sample: Sample[Any]) -> tuple[str | None, bool]:
    """The prompt (for placeholder echoes) and whether the reply continues a completion stub."""
    return sample.prompt if sample.messages else None, sample.meta.get("style") == "completion"


def parse_option_answer(text: str, sample: Sample[Any]) -> Parsed[int]:
    """The option number ``text`` chooses among the sample's options (their aliases too)."""
    prompt, completion = _context(sample)
    options = options_of(sample)
    return parse_option(text, options, aliases_for(options), prompt=prompt, completion=completion)


def parse_verdict_answer(kind: VerdictKind, text: str, sample: Sample[Any]) -> Parsed[str]:
    """"yes"/"no" (``yesno``) or "anomalous"/"normal" (``anomaly``)."""
    prompt, completion = _context(sample)
    if kind == "yesno":
        return parse_yes_no(text, prompt=prompt, completion=completion)
    return parse_anomaly(text, prompt=prompt, completion=completion)


def parse_point_answer(text: str, sample: Sample[Any]) -> Parsed[LatLon]:
    """A point in the coordinate order the prompt asked for, the history's last point breaking ties."""
    prompt, completion = _context(sample)
    history = sample.payload.get("history") or []
    ref = (float(history[-1][0]), float(history[-1][1])) if history else None
    given = [(float(p[0]), float(p[1])) for p in history]
    return parse_point(text, order=sample.payload.get("answer_order", "latlon"), reference=ref, given=given,
                       prompt=prompt, completion=completion)


def parse_answer(kind: AnswerKind, text: str, sample: Sample[Any]) -> Parsed[Any]:
    """Parse ``text`` as an answer of ``kind`` for ``sample``: its options, prompt (placeholder echoes), style
    (a completion continues the stub) and, for points, coordinate order and history from its payload."""
    if kind == "option":
        return parse_option_answer(text, sample)
    if kind == "point":
        return parse_point_answer(text, sample)
    return parse_verdict_answer(kind, text, sample)


score_option = ChoiceScorer(gold_key="option", note_key="label")
"""The STBench choice scorer (:class:`tasks.scorers.ChoiceScorer`): exact match of the option number."""


def score_verdict(parsed: Parsed[str], sample: Sample[VerdictTarget]) -> Score:
    """Exact match of the two-way answer."""
    if not parsed.ok:
        return Score.unanswered(parsed, error_unit=None)
    gold = sample.target["answer"]
    ok = parsed.answer == gold
    return Score(correct=ok, value=1.0 if ok else 0.0, explanation=f"answer {parsed.answer!r}, gold {gold!r}")


def score_point(parsed: Parsed[LatLon], sample: Sample[PointTarget]) -> Score:
    """Metres (WGS84 geodesic) from the true next point; correct within :data:`PREDICTION_THRESHOLD_M`."""
    if not parsed.ok:
        return Score.unanswered(parsed, error_unit="m")
    target = sample.target
    lat, lon = float(parsed.answer["lat"]), float(parsed.answer["lon"])
    err = 1000.0 * geodesic_km(lat, lon, float(target["lat"]), float(target["lon"]))
    ok = err <= PREDICTION_THRESHOLD_M
    return Score(correct=ok, value=1.0 if ok else 0.0, error=err, error_unit="m",
                 explanation=f"predicted ({lat:.5f}, {lon:.5f}), {err:.1f} m from the true next point "
                             f"(correct within {PREDICTION_THRESHOLD_M:.0f} m)")


def score_answer(kind: AnswerKind, parsed: Parsed[Any], sample: Sample[Any]) -> Score:
    """Exact match for options and two-way answers; metres (WGS84 geodesic) for points."""
    if kind == "option":
        return score_option(parsed, sample)
    if kind == "point":
        return score_point(parsed, sample)
    return score_verdict(parsed, sample)


@dataclass
class Item(Generic[TargetT]):
    """One drawn item: the inputs (payload), typed gold, breakdown keys and, for choice tasks, the options."""

    payload: dict[str, Any]
    target: TargetT
    meta: dict[str, Any] = field(default_factory=dict)
    options: list[tuple[int, str]] | None = None


class STBenchTask(GeneratedTask[TargetT, ValueT]):
    """Base of the synthetic STBench tasks, through one base per answer kind (:class:`OptionTask`,
    :class:`VerdictTask`, :class:`PointTask`); subclasses implement :meth:`make` and :meth:`render`."""

    family = "stbench"
    breakdowns = {"region": ("continent",), "style": ("style",)}
    style: ClassVar[Style] = "chat"
    kind: ClassVar[AnswerKind]
    default_size = 200
    independent_items = True
    max_tries: ClassVar[int] = 400

    def make(self, rng: random.Random, index: int) -> Item[TargetT]:  # pragma: no cover - abstract
        raise NotImplementedError

    def render(self, item: Item[TargetT], fmt: Fmt) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def item(self, seed: int, index: int) -> Item[TargetT]:
        """Item ``index`` for ``seed`` (the same in both styles), drawn once per process and shared with the
        other style (:func:`tasks.base.shared_stream`)."""
        drawn = shared_stream((self.item_key, seed))
        found = drawn.get(index)
        if found is None:
            found = drawn[index] = self.make(random.Random(stable_seed(self.item_key, seed, index)), index)
        return found

    def sample_at(self, seed: int, index: int, size: int) -> Sample[TargetT]:
        """Sample ``index`` of ``size`` for ``seed``, rendered in this task's style."""
        fmt = Fmt(self.style)
        item = self.item(seed, index)
        split = self.split_of(index)
        payload = dict(item.payload)
        if item.options is not None:
            payload["options"] = [[n, label] for n, label in item.options]
        if self.kind == "point":
            payload["answer_order"] = "lonlat" if fmt.lonlat else "latlon"
        return Sample.unchecked(
            id=self.sample_id(split, index),
            task=self.name,
            split=split,
            messages=(SYSTEM_MESSAGES[self.style], Message.unchecked("user", self.render(item, fmt))),
            target=item.target,
            choices=tuple(label for _, label in item.options) if item.options else None,
            payload=payload,
            meta={**item.meta, "style": self.style},
        )

    def example_replies(self, sample: Sample[TargetT]) -> Replies:
        return examples.replies(sample)

    def retry(self, make_once: Callable[[], Item[TargetT] | None]) -> Item[TargetT]:
        """Call ``make_once`` until it returns an item (rejection sampling); RuntimeError after max_tries."""
        for _ in range(self.max_tries):
            item = make_once()
            if item is not None:
                return item
        raise RuntimeError(f"{self.item_key}: no valid item after {self.max_tries} tries")


class OptionTask(STBenchTask[OptionT, int]):
    """A choice question: the option number, scored by exact match."""

    kind: ClassVar[AnswerKind] = "option"
    answer_kind = "option"
    answer_options = "numbers"

    def parse(self, text: str, sample: Sample[OptionT]) -> Parsed[int]:
        return parse_option_answer(text, sample)

    def score(self, parsed: Parsed[int], sample: Sample[OptionT]) -> Score:
        return score_option(parsed, sample)


class VerdictTask(STBenchTask[VerdictTarget, str]):
    """A two-way question (``kind`` yesno or anomaly), scored by exact match."""

    kind: ClassVar[VerdictKind]
    answer_kind = "option"

    def parse(self, text: str, sample: Sample[VerdictTarget]) -> Parsed[str]:
        return parse_verdict_answer(self.kind, text, sample)

    def score(self, parsed: Parsed[str], sample: Sample[VerdictTarget]) -> Score:
        return score_verdict(parsed, sample)


class PointTask(STBenchTask[PointTarget, LatLon]):
    """A next-point prediction, scored in metres."""

    kind: ClassVar[AnswerKind] = "point"
    answer_kind = "coordinate"

    def parse(self, text: str, sample: Sample[PointTarget]) -> Parsed[LatLon]:
        return parse_point_answer(text, sample)

    def score(self, parsed: Parsed[LatLon], sample: Sample[PointTarget]) -> Score:
        return score_point(parsed, sample)


COMPLETION = Variant("completion", {"style": "completion"}, "In the paper's completion style.")
"""The paper-style variant every synthetic STBench task declares: ``<task>.completion``."""
