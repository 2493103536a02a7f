"""STBench prompt styles and coordinate formatting, in our own words.

Two styles render the same item:

- ``completion`` keeps the paper's format (§4.1, App. A): "Question: ..." with the options inline and a
  guidance stub such as ``Answer: Option (`` that the model continues; coordinates are (longitude, latitude)
  as in the released files; chat models get the paper's instruction to continue the text (Table 4).
- ``chat`` asks the same question in this project's convention: (latitude, longitude) order, options one per
  line, and a closing ``FINAL ANSWER:`` line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Style = Literal["chat", "completion"]
STYLES: tuple[Style, ...] = ("chat", "completion")

COMPLETION_SYSTEM = (
    "You are a text-completion assistant. Continue the text the user gives you from exactly where it stops."
)
CHAT_SYSTEM = (
    "You are an expert in spatio-temporal data: points of interest, trajectories, regions and coordinates. "
    "Coordinates are decimal degrees; south and west are negative; timestamps are Unix seconds (UTC). "
    "Keep your reasoning short, then finish with one line of the form\n"
    "FINAL ANSWER: <answer>"
)
OPTION_INSTRUCTION = "End your reply with the line FINAL ANSWER: <option number>."
"""Answer instructions name their slot in angle brackets, never with a letter or word that is itself an answer
(the old "FINAL ANSWER: N, where N is the option number" was echoed as ``N``, i.e. North); a literal echo of a
slot is unparsed."""
YES_NO_INSTRUCTION = "End your reply with the line FINAL ANSWER: <Yes or No>."
ANOMALY_INSTRUCTION = "End your reply with the line FINAL ANSWER: <normal or anomalous>."
POINT_INSTRUCTION = "End your reply with the line FINAL ANSWER: (<latitude>, <longitude>)."


def number_instruction(noun: str) -> str:
    """The answer instruction of a question whose options are numbered things ("region", "point")."""
    return f"End your reply with the line FINAL ANSWER: <{noun} number>."


def num(value: float, decimals: int) -> str:
    """A coordinate with up to ``decimals`` decimals and no trailing zeros (as the released files print)."""
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class Fmt:
    """Formats points, trajectories and polygons for one style (coordinate order and decimals)."""

    style: Style
    decimals: int = 5

    @property
    def lonlat(self) -> bool:
        return self.style == "completion"

    @property
    def pair_name(self) -> str:
        return "(longitude, latitude)" if self.lonlat else "(latitude, longitude)"

    @property
    def triple_name(self) -> str:
        return "(longitude, latitude, timestamp)" if self.lonlat else "(latitude, longitude, Unix timestamp)"

    def pt(self, lat: float, lon: float, decimals: int | None = None) -> str:
        d = self.decimals if decimals is None else decimals
        a, b = (lon, lat) if self.lonlat else (lat, lon)
        return f"({num(a, d)}, {num(b, d)})"

    def tpt(self, lat: float, lon: float, t: float) -> str:
        a, b = (lon, lat) if self.lonlat else (lat, lon)
        return f"({num(a, self.decimals)}, {num(b, self.decimals)}, {int(t)})"

    def traj(self, points: Sequence[Sequence[float]]) -> str:
        return "[" + ", ".join(self.tpt(*p) for p in points) + "]"

    def path(self, points: Sequence[Sequence[float]], decimals: int | None = None) -> str:
        return "[" + ", ".join(self.pt(p[0], p[1], decimals) for p in points) + "]"


def options_inline(options: Sequence[tuple[int, str]], sep: str = ", ", colon: bool = False) -> str:
    """``(1) North, (2) Northeast, ...`` (``(0): Eaton, TN (1): ...`` with colon=True and sep=" ")."""
    return sep.join(f"({n}){':' if colon else ''} {label}" for n, label in options)


def options_lines(options: Sequence[tuple[int, str]]) -> str:
    return "\n".join(f"({n}) {label}" for n, label in options)
