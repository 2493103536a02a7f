"""Example replies a task yields for one of its samples (:meth:`tasks.base.GeneratedTask.example_replies`): the
gold answer written plainly, one clearly wrong answer, the candidates a hedging model lists, and replies of the
task's answer shape whose meaning is known (a hedge spelled its own way, an echo of the option list). The
adversarial test corpus (``tests/tasks/adversarial.py``) wraps them in its templates, so a new task that yields
them, or declares a scorer part that writes them (:mod:`tasks.scorers`), is in the corpus with no test edit.

The writers here serve answer shapes several families share (option letters, numbered options, two-way answers,
a point); a family's own shapes are written beside its tasks (``tasks/<family>/examples.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tasks.records import AnswerStatus, Sample

LETTERS = "ABCDEFGHIJ"


class Example(NamedTuple):
    """A reply of the task's answer shape and what it means: its status and whether it earns credit."""

    name: str
    reply: str
    status: AnswerStatus
    credited: bool


@dataclass
class Replies:
    """How to write answers for one sample: the gold, one wrong answer, the other candidates of a hedge."""

    gold: str
    wrong: str
    others: list[str]
    completion: bool = False
    """The sample's prompt is a stub the reply continues (STBench's completion style): no answer line."""
    seps: tuple[str, ...] = (", ", " or ", "; ")
    """How a hedge joins the candidates."""
    value: float | None = None
    """The gold as one number with a unit (ranges and parameter-first replies apply), None otherwise."""
    unit: str = ""
    param: str | None = None
    """A given parameter sentence opening a chatty answer line ("With R = 6371 km,")."""
    free_text: bool = False
    """The answer is free text (a place name): a sentence on the answer line may be read as one."""
    labelled: bool = False
    """The gold as written carries the answer's own label (``Paris: UTC+1``): a line that commits wherever it is."""
    extra: list[Example] = field(default_factory=list)
    """Replies of this answer shape with a known meaning."""

    @property
    def numeric(self) -> bool:
        """Whether the gold is one number with a unit."""
        return self.value is not None


def placeholder(prompt: str) -> str | None:
    """The literal answer template a prompt asks for after ``FINAL ANSWER:``, if any."""
    found = re.findall(r"FINAL ANSWER: ([^\n]+)", prompt)
    if not found:
        return None
    tpl = found[-1].strip()
    return tpl[:-1] if tpl.endswith(".") else tpl


def moved(lat: float, lon: float, k: int) -> tuple[float, float]:
    """A position k × 7° of latitude and k × 11° of longitude away, inside the valid range."""
    dlat = 7.0 * k if lat < 0 else -7.0 * k
    lon2 = lon + 11.0 * k
    return max(-89.0, min(89.0, lat + dlat)), ((lon2 + 180.0) % 360.0) - 180.0


def latlon(lat: float, lon: float, d: int = 5) -> str:
    return f"{lat:.{d}f}, {lon:.{d}f}"


def km_replies(gold: float) -> Replies:
    """A distance in kilometres; the wrong ones far off."""
    vals = [gold, gold * 1.5 + 100, gold * 2 + 300, gold * 3 + 500]
    return Replies(f"{gold:.1f} km", f"{vals[1]:.1f} km", [f"{v:.1f} km" for v in vals], value=gold, unit=" km",
                   param="With R = 6371 km, the distance is")


def pair_replies(sample: Sample[Any]) -> Replies:
    """A latitude/longitude pair (the gold's ``lat`` / ``lon``), the wrong one 7° and 11° away."""
    lat, lon = float(sample.target["lat"]), float(sample.target["lon"])
    points = [(lat, lon), moved(lat, lon, 1), moved(lat, lon, 2)]
    return Replies(latlon(lat, lon, 6), latlon(*points[1], 6), [f"({latlon(*p, 6)})" for p in points],
                   seps=(" or ", ", "))


def letter_replies(sample: Sample[Any], gold: int) -> Replies:
    """An option letter of ``sample.choices`` (the gold's index ``gold``)."""
    choices = sample.choices or ()
    n = len(choices)
    echo = "; ".join(f"{LETTERS[i]}) {c}" for i, c in enumerate(choices))
    return Replies(LETTERS[gold], LETTERS[(gold + 1) % n], [LETTERS[i] for i in range(n)], extra=[
        Example("letter_in_words", "FINAL ANSWER: A guess would be hard here", "unparsed", False),
        Example("options_echoed", f"FINAL ANSWER: {echo}", "hedged", False),
        Example("gold_with_text", f"FINAL ANSWER: {LETTERS[gold]}) {choices[gold]}", "answered", True),
    ])


def numbered_replies(sample: Sample[Any], gold: int) -> Replies:
    """A numbered option of ``sample.payload["options"]`` (STBench), in chat or completion style."""
    completion = sample.meta.get("style") == "completion"
    options = [(int(n), str(label)) for n, label in sample.payload["options"]]
    numbers = [n for n, _ in options]
    wrong = next(n for n in numbers if n != gold)
    labels = dict(options)
    out = Replies(str(gold), str(wrong), [str(n) for n in numbers], completion=completion, seps=(", ", " or ", " "))
    if completion:
        out.extra = [
            Example("completion_gold_label", f"{gold}) {labels[gold]}", "answered", True),
            Example("completion_gold_dots", f"{gold}) ...", "answered", True),
            Example("completion_gold_explained", f"{gold}). This follows from the coordinates given.", "answered",
                    True),
            Example("completion_options_echoed", ", (".join(f"{n}) {lab}" for n, lab in options), "hedged", False),
            Example("completion_numbers", " ".join(map(str, numbers)), "hedged", False),
            Example("completion_two", f"{gold} or {wrong}", "hedged", False),
            Example("completion_wrong_label", f"{wrong}) {labels[wrong]}", "answered", False),
        ]
    else:
        out.extra = [
            Example("gold_with_text", f"FINAL ANSWER: {gold} ({labels[gold]})", "answered", True),
            Example("options_echoed", "FINAL ANSWER: " + ", ".join(f"({n}) {lab}" for n, lab in options), "hedged",
                    False),
            Example("options_echoed_free", "\n".join(f"({n}) {lab}" for n, lab in options), "hedged", False),
            Example("old_placeholder_letter", "FINAL ANSWER: <option number>", "unparsed", False),
        ]
    return out


def two_way_replies(gold: str, wrong: str, completion: bool = False) -> Replies:
    """A two-way answer (Yes/No, normal/anomalous)."""
    out = Replies(gold, wrong, [gold, wrong], completion=completion, seps=(" or ", " and ", ", "))
    if completion:
        out.extra = [Example("completion_gold", f" {gold}", "answered", True),
                     Example("completion_both", f" {gold} or {wrong}", "hedged", False),
                     Example("completion_wrong_explained", f" {wrong}. That is my answer.", "answered", False)]
    return out


def point_replies(sample: Sample[Any], lonlat: bool, completion: bool) -> Replies:
    """A predicted point in brackets, ``[lon, lat]`` or ``(lat, lon)``, the wrong ones about a kilometre off."""
    lat, lon = float(sample.target["lat"]), float(sample.target["lon"])
    w1, w2 = (lat + 0.01, lon + 0.01), (lat - 0.02, lon + 0.015)

    def fmt(p: tuple[float, float]) -> str:
        return f"[{p[1]:.5f}, {p[0]:.5f}]" if lonlat else f"({p[0]:.5f}, {p[1]:.5f})"
    out = Replies(fmt((lat, lon)), fmt(w1), [fmt(w1), fmt((lat, lon)), fmt(w2)], completion=completion)
    if completion:
        out.extra = [Example("completion_gold", f" {fmt((lat, lon))}. Then it turns.", "answered", True),
                     Example("completion_two", f" {fmt((lat, lon))} or {fmt(w1)}", "hedged", False)]
    return out
