"""Shared pieces of the GPSBench tasks: sample assembly, breakdown meta, option blocks and scores."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypedDict, TypeVar

from geocore.gazetteer import City, admin1_name
from tasks.answers import extract, option
from tasks.base import GeneratedTask, TargetT, ValueT, stable_seed
from tasks.gpsbench.prompts import SYSTEM_PROMPT
from tasks.gpsbench.regions import subregion
from tasks.records import Message, Parsed, Sample, Score
from tasks.scorers import Breakdowns, ChoiceScorer

SYSTEM_MESSAGE = Message(role="system", content=SYSTEM_PROMPT)
"""The system message of every GPSBench sample (one object, shared)."""

LETTERS = "ABCDEFGHIJ"


class ChoiceTarget(TypedDict):
    """The gold of a multiple-choice task: the option's letter and 0-based index (each task adds its keys)."""

    letter: str
    index: int


ChoiceT = TypeVar("ChoiceT", bound=ChoiceTarget)


BREAKDOWNS: Breakdowns = {"track": ("track",), "difficulty": ("difficulty",), "region": ("continent",),
                          "noise": ("noise_m",)}
"""What GPSBench results break down by (the meta of :func:`place_meta`)."""


class GpsTask(GeneratedTask[TargetT, ValueT]):
    """A GPSBench task: ``family`` is gpsbench and samples carry the system prompt and breakdown meta."""

    family = "gpsbench"
    breakdowns = BREAKDOWNS
    track: str = "pure"
    default_size = 200
    paper_size = 3400

    def rng(self, seed: int) -> random.Random:
        return random.Random(stable_seed(self.item_key, seed))

    def make(self, i: int, size: int, prompt: str, target: TargetT, payload: dict[str, Any], meta: dict[str, Any],
             choices: Sequence[str] | None = None) -> Sample[TargetT]:
        split = self.split_of(i)
        return Sample.unchecked(
            id=self.sample_id(split, i), task=self.name, split=split,
            messages=(SYSTEM_MESSAGE, Message.unchecked("user", prompt)),
            target=target, choices=tuple(choices) if choices is not None else None, payload=payload,
            meta={"track": self.track, **meta},
        )


def place_meta(city: City | None = None, *, country_code: str | None = None, continent: str | None = None,
               difficulty: str | None = None, noise_m: float | None = None, **extra: Any) -> dict[str, Any]:
    """Breakdown keys every GPSBench sample carries: continent, sub-region (Table 7), difficulty, noise σ."""
    cc = city.country_code if city is not None else (country_code or "")
    cont = city.continent if city is not None else (continent or "")
    return {"continent": cont, "subregion": subregion(cc, cont), "difficulty": difficulty, "noise_m": noise_m,
            **extra}


def city_label(city: City, with_admin1: bool = False) -> str:
    """"Name, Country" or "Name, Admin1, Country" (admin1 only where its name is known offline)."""
    a1 = admin1_name(city.country_code, city.admin1_code) if with_admin1 else None
    return f"{city.name}, {a1}, {city.country}" if a1 else f"{city.name}, {city.country}"


def options_block(options: Sequence[str]) -> str:
    return "\n".join(f"{LETTERS[i]}) {o}" for i, o in enumerate(options))


def failed(parsed: Parsed, unit: str | None = None) -> Score:
    """The zero score of a parse without an answer (hedged, unparsed or refused), status and reason kept."""
    return Score.unanswered(parsed, error_unit=unit)


def graded(ok: bool, error: float | None, unit: str | None, explanation: str) -> Score:
    return Score(correct=ok, value=1.0 if ok else 0.0, error=error, error_unit=unit, explanation=explanation)


def angle_diff(a: float, b: float) -> float:
    """Absolute difference of two bearings in degrees, with wrap-around at 0/360."""
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


score_choice = ChoiceScorer(gold_key="index", letters=LETTERS, texts=True)
"""The GPSBench choice scorer (:class:`tasks.scorers.ChoiceScorer`): the option index against the gold's."""


class ChoiceTask(GpsTask[ChoiceT, int]):
    """A GPSBench multiple-choice task: one option by letter or text, scored against the gold option."""

    scorer = score_choice
    answer_kind = "option"

    def parse(self, text: str, sample: Sample[ChoiceT]) -> Parsed[int]:
        return parse_choice(text, sample)


def parse_choice(text: str, sample: Sample[Any]) -> Parsed[int]:
    """One option by letter or whole-word text in the committed answer; several options are hedged."""
    aliases = sample.payload.get("aliases") or [[c] for c in sample.choices or ()]
    return extract(text, lambda seg: option(seg, aliases), prompt=sample.prompt)


score_choice = ChoiceScorer(gold_key="index", letters=LETTERS, texts=True)
"""The GPSBench choice scorer (:class:`tasks.scorers.ChoiceScorer`): the option index against the gold's."""
