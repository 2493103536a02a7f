"""STBench answer parsing on the shared answer layer (:mod:`tasks.answers`), replacing the released parsers.

The released parsers (``code/result_parser.py``) take the first digit of the reply as the option (so "10" is
option 1, options ≥ 10 are unreachable, and ``1 2 3 4 5`` or an echo of the option list is option 1), assign with
``==`` in the anomaly parser (so "Abnormal"/"Anomaly" never map to "anomalous"), crash in trajectory prediction
after a failed first pass and accept coordinates only inside Xi'an's box. What this module does instead:

- **Where the answer is** (:func:`tasks.answers.find_answer`): the last ``FINAL ANSWER:`` line; in completion
  style (the prompt ends in a stub such as ``Answer: Option (``) the reply's first line, which continues the stub;
  in a free chat reply the line that commits ("the answer is ...", "Therefore ..."), else the last paragraph.
- **One answer or a hedge**: every option the answer names counts — option numbers (any number of digits, as
  ``3``, ``(3)``, ``3)``, ``option 3``, ``Region 3`` where the options are regions), option texts as whole words
  with aliases ("bicycle" for bike), upper-case compass abbreviations (``NE``) where the options are compass
  points, and bracketed region lists (``[3, 4]``) matched as whole lists. One option named (``3) East``, a number
  with its own text) is answered; two or more (``1 or 3``, ``1 2 3 4 5``, the option list echoed, a number whose
  text is another option's) are hedged; none is unparsed.
- yes/no and normal/anomalous as whole words ("no" is not in "north"; "not anomalous" is normal); both at once
  ("yes and no", "normal or anomalous") are hedged.
- a coordinate pair in any bracket style or none, labelled (lat/lon, N/S/E/W) or in the asked order, the order
  checked against a reference point when both readings are valid; two different pairs are hedged, and points of
  the given history are dropped while another pair remains.
- a literal echo of the prompt's placeholder (``FINAL ANSWER: <option number>``) is unparsed; a reply that
  declines ("I cannot determine ...") is refused.

Every parser returns a :class:`~tasks.records.Parsed` and never raises.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Literal, TypedDict, TypeVar

from geocore.sphere import EARTH_RADIUS_KM, central_angle
from tasks.answers import (
    Answer,
    clean,
    coordinate_pair,
    decide,
    extract,
    find_answer,
    fold,
    option,
    yes_no_values,
)
from tasks.records import Parsed

Options = Sequence[tuple[int, str]]
_V = TypeVar("_V")

_LIST = re.compile(r"\[\s?\d+(?:\s?,\s?\d+)*\s?\]")
_COMPASS = {"N": "north", "NE": "northeast", "E": "east", "SE": "southeast", "S": "south", "SW": "southwest",
            "W": "west", "NW": "northwest"}
_ABBREV = re.compile(r"(?<![\w°'\".])(?<!\d\s)(NE|NW|SE|SW|N|E|S|W)(?![\w'-])")
_LEAD_NUMBER = re.compile(r"^\s?(\d{1,3})(?=\s?\(|\s?$)")
_NOUN_LABEL = re.compile(r"^([A-Za-z]+)\s(\d+)$")
_PARAGRAPH_CAP = 2_000
# "5. **Determine the direction:**": a numbered step of the reasoning, not option 5 (its words are still read)
_STEP = re.compile(r"(?m)^[ \t]*\d{1,2}[.)][ \t]+(?=[*_`]*[A-Za-z])")


def _list_key(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text))


def _committed(text: str, completion: bool) -> Answer | None:
    """The committed answer; without a FINAL ANSWER line or a committing cue, the reply's last paragraph (so a
    reply that only lists the options, one per line, is read whole), with numbered step markers removed."""
    answer = find_answer(text, completion=completion)
    if answer is None or answer.source != "last_line":
        return answer
    tail = text[-_PARAGRAPH_CAP:].strip()
    block = _STEP.sub("", re.split(r"\n\s*\n", tail)[-1])
    return Answer(" ".join(clean(block).split()), "last_line")


def _extract(text: str, find: Callable[[str], Parsed[_V]], prompt: str | None, completion: bool) -> Parsed[_V]:
    """Run ``find`` on the committed answer, with the placeholder-echo and refusal rules of the answer layer."""
    if not isinstance(text, str):
        return Parsed.failure("", "empty reply")
    try:
        return extract(text, find, prompt=prompt, completion=completion, locate=_committed)
    except Exception as exc:  # pragma: no cover - defensive: a parser must never take a run down
        return Parsed.failure(text, f"parser error: {exc!r}")


# ----------------------------------------------------------------------------- options

class _OptionReader:
    """Rewrites an answer segment so :func:`tasks.answers.option` sees every way STBench names an option."""

    def __init__(self, options: Options, aliases: Mapping[int, Sequence[str]] | None) -> None:
        self.numbers = [int(n) for n, _ in options]
        labels = [str(label) for _, label in options]
        self.lists = {_list_key(lab): k for k, lab in enumerate(labels) if _LIST.fullmatch(lab.strip())}
        self.texts: list[list[str]] = []
        for k, (n, label) in enumerate(options):
            names = [] if k in self.lists.values() else [str(label)]
            names += [str(a) for a in (aliases or {}).get(int(n), ())]
            self.texts.append([*names, f"listoption{k}"])
        named = [(m.group(1).lower(), int(m.group(2))) if (m := _NOUN_LABEL.match(lab.strip())) else None
                 for lab in labels]
        numbered = all(x is not None and x[1] == n for x, n in zip(named, self.numbers, strict=True))
        nouns = {x[0] for x in named if x is not None}
        self.noun = nouns.pop() if numbered and len(nouns) == 1 else None  # "Region 3" is option (3)
        self.compass = bool(labels) and all(fold(lab) in _COMPASS.values() for lab in labels)

    def rewrite(self, segment: str) -> str:
        s = _LIST.sub(lambda m: f" listoption{self.lists[k]} " if (k := _list_key(m.group(0))) in self.lists
                      else " ‹list› ", segment)
        if self.noun:  # "Region 3" is option 3 where the options are "Region 1", "Region 2", ...
            s = re.sub(rf"\b{self.noun}s?\s?#?\s?(\d+)\b(?!\.\d)", r"(\1)", s, flags=re.IGNORECASE)
        s = _LEAD_NUMBER.sub(r"(\1) ", s)  # "3 (Southwest)": the leading number is a label too
        if self.compass:
            s = _ABBREV.sub(lambda m: f" {_COMPASS[m.group(1)]} ", s)
        return s

    def find(self, segment: str) -> Parsed[int]:
        if not self.numbers:
            return Parsed.failure(segment, "the question has no options")
        first = self.numbers[0]
        contiguous = self.numbers == list(range(first, first + len(self.numbers)))
        parsed = option(self.rewrite(segment), self.texts, letters=False, numbers=contiguous, first_number=first)
        if parsed.ok:
            return Parsed.success(segment, self.numbers[parsed.answer])
        if parsed.status == "hedged" and isinstance(parsed.value, list):
            named = [self.numbers[k] for k in parsed.value if isinstance(k, int) and 0 <= k < len(self.numbers)]
            return Parsed.hedged(segment, f"{len(named)} different options named: {named}", candidates=named)
        return parsed.no_answer()


def parse_option(text: str, options: Options, aliases: Mapping[int, Sequence[str]] | None = None, *,
                 prompt: str | None = None, completion: bool = False) -> Parsed[int]:
    """The chosen option number (int), or hedged/unparsed/refused: see the module docstring."""
    return _extract(text, _OptionReader(options, aliases).find, prompt, completion)


# ----------------------------------------------------------------------------- two-way answers

_NEGATORS = frozenset({"not", "no", "isnt", "without", "never"})
_ANOMALY = {"anomalous": "anomalous", "anomaly": "anomalous", "abnormal": "anomalous", "anomalously": "anomalous",
            "detour": "anomalous", "normal": "normal"}
_FLIP = {"anomalous": "normal", "normal": "anomalous"}


def _yes_no(segment: str) -> Parsed[str]:
    return decide(segment, ["yes" if v else "no" for v in yes_no_values(segment)], what="yes/no")


def _anomaly(segment: str) -> Parsed[str]:
    words = fold(segment).split()
    found = []
    for i, w in enumerate(words):
        if w in _ANOMALY:
            negated = any(p in _NEGATORS for p in words[max(0, i - 2):i])
            found.append(_FLIP[_ANOMALY[w]] if negated else _ANOMALY[w])
    return decide(segment, found, what="normal/anomalous verdict")


def parse_yes_no(text: str, *, prompt: str | None = None, completion: bool = False) -> Parsed[str]:
    """"yes" or "no" (whole words; "true"/"false" accepted); both are hedged."""
    return _extract(text, _yes_no, prompt, completion)


def parse_anomaly(text: str, *, prompt: str | None = None, completion: bool = False) -> Parsed[str]:
    """"anomalous" (also anomaly, abnormal, detour) or "normal"; "not anomalous" is normal and vice versa."""
    return _extract(text, _anomaly, prompt, completion)


# ----------------------------------------------------------------------------- coordinates

def _valid(lat: float, lon: float) -> bool:
    return math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180


class LatLon(TypedDict):
    """A point read from an answer, in degrees."""

    lat: float
    lon: float


def _km(a: tuple[float, float], b: tuple[float, float]) -> float:
    return EARTH_RADIUS_KM * central_angle(a[0], a[1], b[0], b[1])


def _point_finder(order: str, reference: tuple[float, float] | None,
                  given: Collection[tuple[float, float]]) -> Callable[[str], Parsed[LatLon]]:
    lon_first = order == "lonlat"

    def find(segment: str) -> Parsed[LatLon]:
        parsed = coordinate_pair(segment, lon_first=lon_first, given=given)
        if parsed.status == "unparsed":  # e.g. a latitude > 90 in the asked order: try the other one
            other = coordinate_pair(segment, lon_first=not lon_first, given=given)
            parsed = other if other.status != "unparsed" else parsed
        if not parsed.ok:
            return parsed.no_answer()
        lat, lon = float(parsed.answer["lat"]), float(parsed.answer["lon"])
        if reference is not None and _valid(lon, lat) and _km((lon, lat), reference) < _km((lat, lon), reference):
            lat, lon = lon, lat  # both readings valid: the one near the last known point
        return Parsed.success(segment, LatLon(lat=lat, lon=lon))

    return find


def parse_point(
    text: str,
    order: Literal["latlon", "lonlat"] = "latlon",
    reference: tuple[float, float] | None = None,
    prefer: Literal["first", "last"] = "last",
    *,
    prompt: str | None = None,
    completion: bool | None = None,
    given: Collection[tuple[float, float]] = (),
) -> Parsed[LatLon]:
    """A point as {"lat", "lon"} from the committed answer; two different pairs are hedged.

    ``order`` is the order the prompt asked for; when both readings of a pair are valid coordinates, the one
    nearer ``reference`` (e.g. the last known point) wins. ``given`` points (the history, as (lat, lon)) are not
    the answer while another pair remains. ``prefer="first"`` (kept for callers of the old API) means the reply
    continues a completion stub, as ``completion=True`` does.
    """
    comp = prefer == "first" if completion is None else completion
    return _extract(text, _point_finder(order, reference, given), prompt, comp)
