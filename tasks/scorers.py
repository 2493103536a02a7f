"""Scorers as parts a task declares: one multiple-choice scorer for every family (GPSBench letters, STBench option
numbers, GTR camera choices), so a choice is scored the same way wherever it is asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tasks.records import Parsed, Sample, Score


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
