"""Scorers as parts a task declares: one multiple-choice scorer for every family (GPSBench letters, STBench option
numbers, GTR camera choices), so a choice is scored the same way wherever it is asked; one coordinate-pair scorer
within a tolerance in degrees (GPSBench interpolation and bounding box, a new task's antipode); one distance
within GPSBench's km tolerance (distance, the bounding box's diagonal). A scorer part also
writes the example replies of its answer shape (:class:`tasks.examples.Replies`), so a task declaring one gets its
adversarial corpus entry with no test edit.

Breakdowns are declared the same way: a task's :attr:`~tasks.base.GeneratedTask.breakdowns` maps each breakdown
dimension to the sample meta keys that carry it (first present wins), read by ``evals.analysis``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tasks.answers import PairAnswer
from tasks.examples import Replies, km_replies, letter_replies, numbered_replies, pair_replies
from tasks.records import Parsed, Sample, Score

Breakdowns = Mapping[str, tuple[str, ...]]
"""Breakdown dimension -> the sample meta keys that carry it, first present wins ("family" comes from the task
name and is never declared)."""


class Scorer(Protocol):
    """A scorer part: scores an ok or failed parse against the sample's gold, and writes its corpus replies."""

    def __call__(self, parsed: Parsed[Any], sample: Sample[Any]) -> Score:
        ...

    def replies(self, sample: Sample[Any]) -> Replies:
        """The gold, a wrong answer and the candidates of a hedge for ``sample``, written as a model would."""
        ...


def lon_diff(a: float, b: float) -> float:
    """Absolute longitude difference with wrap-around at ±180°."""
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


@dataclass(frozen=True)
class PairWithinDegrees:
    """A latitude/longitude pair against the gold's ``lat`` / ``lon``: correct when both are within ``tolerance``
    degrees (longitude with wrap-around, so 90° off in longitude is 90° off); the error is the larger difference,
    in degrees."""

    tolerance: float

    def __call__(self, parsed: Parsed[PairAnswer], sample: Sample[Any]) -> Score:
        if not parsed.ok:
            return Score.unanswered(parsed, error_unit="deg")
        t, v = sample.target, parsed.answer
        err = max(abs(v["lat"] - t["lat"]), lon_diff(v["lon"], t["lon"]))
        return Score(correct=err <= self.tolerance, value=1.0 if err <= self.tolerance else 0.0, error=err,
                     error_unit="deg", explanation=f"answer ({v['lat']:.4f}, {v['lon']:.4f}), gold ({t['lat']:.4f}, "
                                                   f"{t['lon']:.4f}), error {err:.4f}° (±{self.tolerance}°)")

    def replies(self, sample: Sample[Any]) -> Replies:
        return pair_replies(sample)


@dataclass(frozen=True)
class WithinKm:
    """A distance in km against the gold's ``key``: correct within max(``floor_km``, ``share`` × gold) (GPSBench's
    tolerance); the error is the absolute difference, in km."""

    floor_km: float = 5.0
    share: float = 0.05
    key: str = "km"

    def tolerance(self, gold: float) -> float:
        return max(self.floor_km, self.share * gold)

    def __call__(self, parsed: Parsed[float], sample: Sample[Any]) -> Score:
        if not parsed.ok:
            return Score.unanswered(parsed, error_unit="km")
        gold = float(sample.target[self.key])
        err, tol = abs(float(parsed.answer) - gold), self.tolerance(gold)
        return Score(correct=err <= tol, value=1.0 if err <= tol else 0.0, error=err, error_unit="km",
                     explanation=f"answer {parsed.answer:.1f} km, gold {gold:.1f} km, tolerance {tol:.1f} km")

    def replies(self, sample: Sample[Any]) -> Replies:
        return km_replies(float(sample.target[self.key]))


@dataclass(frozen=True)
class ChoiceScorer:
    """Exact match of the chosen option against the gold one; a parse without an answer scores 0 with its status.

    ``gold_key``: the gold option's key in ``sample.target``; ``answer_key``: the option's key when the answer is
    a mapping (GTR's ``{"choice": i}``), None when the answer is the option itself; ``letters``: the option
    labels by 0-based index for the explanation (None: the option as written); ``texts``: show each option's
    text from ``sample.choices``; ``note_key``: a target field added to the explanation (STBench's label)."""

    gold_key: str = "index"
    answer_key: str | None = None
    letters: Sequence[str] | None = None
    texts: bool = False
    note_key: str | None = None

    def chosen(self, parsed: Parsed[Any]) -> Any:
        """The option an answered parse chose."""
        answer = parsed.answer
        return answer[self.answer_key] if self.answer_key is not None and isinstance(answer, Mapping) else answer

    def name(self, option: Any, sample: Sample[Any]) -> str:
        """How the explanation writes an option: its letter (and text) or its value."""
        label = self.letters[option] if self.letters is not None else repr(option)
        if self.texts and sample.choices:
            return f"{label}) {sample.choices[option]}"
        return label

    def __call__(self, parsed: Parsed[Any], sample: Sample[Any]) -> Score:
        if not parsed.ok:
            return Score.unanswered(parsed)
        gold, choice = sample.target[self.gold_key], self.chosen(parsed)
        ok = choice == gold
        note = sample.target.get(self.note_key) if self.note_key else None
        return Score(correct=ok, value=1.0 if ok else 0.0,
                     explanation=f"answer {self.name(choice, sample)}, gold {self.name(gold, sample)}"
                                 + (f" ({note})" if note else ""))

    def replies(self, sample: Sample[Any]) -> Replies:
        gold = int(sample.target[self.gold_key])
        return letter_replies(sample, gold) if self.letters is not None else numbered_replies(sample, gold)
