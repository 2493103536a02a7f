"""Numbers and quantities with units in an answer segment, in linear time.

Numbers are tokenised once (:func:`numbers`) and units are read right after each token, so no regular
expression rescans a digit run. A value is dropped as *not the answer* when it is a given parameter ("R = 6371 km",
"with epsilon = 1.5 km", a value printed in the prompt while other values remain), a tolerance ("± 5 km") or an
operand of a stated computation ("2 × 6371 km × 0.19 = 2424 km").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tasks.answers.decide import decide
from tasks.answers.text import last_match
from tasks.records import Parsed

# 1,234,567.89 | 1 234 567.89 (plain or thin spaces) | 1234.5 | .5 ; never starts inside a word or a number
NUM = r"[-+]?(?:\d{1,3}(?:[,\u202f\u2009 ]\d{3})++(?!\d)(?:\.\d++)?|\d++(?:\.\d++)?|\.\d++)"
_NUMBER = re.compile(
    rf"(?<![\w.])(?P<num>{NUM})"
    r"(?:\s?(?:[eE](?P<exp>[-+]?\d{1,3})(?!\d)|[×x*]\s?10\s?\^\s?\(?(?P<exp2>[-+]?\d{1,3})\)?))?"
    r"(?:\s(?P<mult>thousand|million|billion)\b)?", re.IGNORECASE)
NUMBER_RE = re.compile(NUM)
_MULT = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
KM_PER_MILE = 1.609344


def to_float(token: str) -> float:
    """A number token with thousands separators (comma, thin space) and a Unicode minus, as a float."""
    return float(re.sub(r"[,\u202f\u2009 ]", "", token).replace("−", "-"))


@dataclass(frozen=True)
class Number:
    """A number found in text, with its span (including an exponent or multiplier word)."""

    value: float
    start: int
    end: int


def numbers(text: str) -> list[Number]:
    """Every number in ``text``, in order (scientific notation and "million" words applied)."""
    out = []
    for m in _NUMBER.finditer(text):
        value = to_float(m.group("num"))
        exp = m.group("exp") or m.group("exp2")
        if exp is not None:
            value = float(f"{value!r}e{int(exp)}")  # "5e400" is inf, not an OverflowError
        if m.group("mult"):
            value *= _MULT[m.group("mult").lower()]
        out.append(Number(value, m.start(), m.end()))
    return out


_FORMULA = re.compile(
    r"\d\s?[×*/^+]\s?[\d(]|\d\s-\s\d|√|\bsqrt\b|\bsin\b|\bcos\b|\btan\b|\bacos\b|\basin\b|\batan2?\b|\barc|π|\bpi\b|"
    r"\bln\b|\blog\b", re.IGNORECASE)


def is_formula(segment: str) -> bool:
    """True when the text holds a formula or a computation."""
    return _FORMULA.search(segment) is not None


def result_part(segment: str) -> str:
    """The part after the last '=', '≈' or arrow (the result of a stated computation), else the segment."""
    parts = re.split(r"=|≈|→|->", segment)
    return parts[-1].strip() if len(parts) > 1 else segment


_BARE = re.compile(rf"(?:approx(?:imately)?\.?|about|around|roughly|~|≈)?\s?({NUM})\s?\.?", re.IGNORECASE)


def bare_number(segment: str) -> float | None:
    """``segment`` as one number ("2280", "≈ 2,280."), or None when it holds anything else."""
    m = _BARE.fullmatch(segment.strip())
    return to_float(m.group(1)) if m else None


# ----------------------------------------------------------------------------- units

DISTANCE_UNITS: dict[str, float] = {
    "km": 1.0, "kms": 1.0, "kilometer": 1.0, "kilometers": 1.0, "kilometre": 1.0, "kilometres": 1.0,
    "mi": KM_PER_MILE, "mile": KM_PER_MILE, "miles": KM_PER_MILE,
    "m": 0.001, "meter": 0.001, "meters": 0.001, "metre": 0.001, "metres": 0.001,
    "nm": 1.852, "nmi": 1.852, "nautical mile": 1.852, "nautical miles": 1.852,
}
_DIST_UNIT = re.compile(r"\s?(?:\*\*)?\s?(?P<unit>kilomet(?:er|re)s?|kms?|nautical\smiles?|nmi|miles?|mi|"
                        r"met(?:er|re)s?|m)(?![\w²^])", re.IGNORECASE)
_AREA_UNIT = re.compile(
    r"\s?(?:\*\*)?\s?(?P<unit>km\s?(?:²|\^\s?2|2\b)|sq\.?\s?km\b|square\skilomet(?:er|re)s?\b|"
    r"kilomet(?:er|re)s?\ssquared\b|m\s?(?:²|\^\s?2|2\b)|square\smet(?:er|re)s?\b|mi\s?(?:²|\^\s?2|2\b)|"
    r"sq\.?\s?mi(?:les?)?\b|square\smiles?\b|hectares?\b|ha\b)", re.IGNORECASE)
_DEG_UNIT = re.compile(r"\s?(?:°|deg(?:rees?)?\b)", re.IGNORECASE)
_TOLERANCE_BEFORE = re.compile(r"(?:±|\+/-|\+-|plus or minus|within|error of|margin of)\s?$", re.IGNORECASE)
_PARAM_BEFORE = re.compile(
    r"(?:\b(?:R|r|radius|epsilon|eps|ε|σ|sigma|tolerance)\s?(?:=|:|of|is)\s?|\b(?:with|using|given|assuming)\s"
    r"(?:an?\s|the\s)?(?:[A-Za-z]+\s){0,3}(?:of\s|=\s?|is\s)?)$")
_OPERATOR_AFTER = re.compile(r"\s?[×*/^+·]")
_OPERATOR_BEFORE = re.compile(r"[×*/^·]\s?$")
_EQUALS = re.compile(r"=|≈|→|->")
_RANGE_BEFORE = re.compile(rf"(?<![\w.])(?P<num>{NUM})\s?(?:-|~|to|and|or|/)\s?$", re.IGNORECASE)
_BOUND_BEFORE = re.compile(r"(?:\b(?:at least|at most|more than|less than|greater than|fewer than|no more than|"
                           r"no less than|over|under|up to|above|below|in excess of)|[<>≤≥])\s?$", re.IGNORECASE)


def _area_factor(unit: str) -> float:
    u = re.sub(r"[\s.]", "", unit.lower())
    if u.startswith(("km", "sqkm", "squarekilomet", "kilomet")):
        return 1.0
    if u.startswith(("mi", "sqmi", "squaremile")):
        return 2.589988110336
    if u.startswith(("ha", "hectare")):
        return 0.01
    return 1e-6


def _dist_factor(unit: str) -> float:
    u = " ".join(unit.lower().split())
    return DISTANCE_UNITS.get(u, DISTANCE_UNITS.get(u.rstrip("s"), 1.852 if u.startswith("nautical") else 1.0))


@dataclass(frozen=True)
class Quantity:
    """A number with a unit, converted (km, km² or degrees), with its span."""

    value: float
    start: int
    end: int


def quantities(segment: str, kind: str, given: Collection[float] = ()) -> list[Quantity]:
    """Every ``kind`` quantity ("distance" in km, "area" in km², "angle" in degrees) in ``segment`` that can be
    the answer: given parameters, tolerances and operands of a computation are left out, and when a computation
    ends in "= value", only values after the last "=" count."""
    out: list[Quantity] = []
    for n in numbers(segment):
        before = segment[max(0, n.start - 40): n.start]
        if kind == "area":
            m = _AREA_UNIT.match(segment, n.end)
            factor = _area_factor(m.group("unit")) if m else 0.0
        elif kind == "distance":
            m = None if _AREA_UNIT.match(segment, n.end) else _DIST_UNIT.match(segment, n.end)
            factor = _dist_factor(m.group("unit")) if m else 0.0
        else:
            m = _DEG_UNIT.match(segment, n.end)
            factor = 1.0
        if m is None or _TOLERANCE_BEFORE.search(before) or _PARAM_BEFORE.search(before):
            continue
        if _OPERATOR_AFTER.match(segment, m.end()) or _OPERATOR_BEFORE.search(before):
            continue
        value = n.value if kind == "angle" else abs(n.value)
        span = segment[max(0, n.start - 40): n.start]
        low = _RANGE_BEFORE.search(span)
        if low is not None:  # "1212-2424 km", "1212 or 2424 km": the first value shares the unit
            first = to_float(low.group("num"))
            out.append(Quantity((first if kind == "angle" else abs(first)) * factor, n.start - len(span) + low.start(),
                                n.start))
        out.append(Quantity(value * factor, n.start, m.end()))
    return drop_given(after_last_equals(segment, out), given)


def after_last_equals(segment: str, found: Sequence[Quantity]) -> list[Quantity]:
    """The quantities after the last '=' (or '≈', arrow) when some are, else all of them."""
    last = last_match(_EQUALS, segment)
    if last is None:
        return list(found)
    after = [q for q in found if q.start >= last.end()]
    return after or list(found)


def drop_given(found: Sequence[Quantity], given: Collection[float], rel: float = 1e-9) -> list[Quantity]:
    """``found`` without values printed in the prompt (``given``), unless nothing else would remain."""
    if not given:
        return list(found)
    kept = [q for q in found if not any(abs(q.value - g) <= rel * max(1.0, abs(g)) for g in given)]
    return kept or list(found)


def prompt_numbers(prompt: str) -> set[float]:
    """Every number printed in a prompt (its absolute values), for :func:`drop_given`."""
    return {abs(n.value) for n in numbers(prompt[-8_000:])}


def same_value(rel: float = 0.01, absolute: float = 1e-9):  # type: ignore[no-untyped-def]
    """An equality for :func:`decide`: two values within ``rel`` of each other (or ``absolute``) are one."""
    def eq(a: float, b: float) -> bool:
        return abs(a - b) <= max(absolute, rel * max(abs(a), abs(b)))
    return eq


def quantity(segment: str, kind: str, *, given: Collection[float] = (), bare: bool = True, what: str | None = None,
             rel: float = 0.01) -> Parsed[float]:
    """One ``kind`` quantity from an answer segment (see :func:`quantities`): two different values ("X km or
    Y km", "1212-2424 km", "X (or Y)") are hedged; the same value in two units is one answer. With ``bare``, a
    segment that is only a number counts in the asked unit. A formula without a final value is unparsed."""
    label = what or kind
    found = quantities(segment, kind, given)
    bound = next((q for q in found if _BOUND_BEFORE.search(segment[max(0, q.start - 20): q.start])), None)
    if bound is not None:
        return Parsed.hedged(segment, f"a bound, not one {label}: {segment[max(0, bound.start - 20): bound.end]!r}")
    if found:
        return decide(segment, [q.value for q in found], what=label, same=same_value(rel))
    if bare:
        value = bare_number(result_part(segment))
        if value is not None and (kind == "angle" or value >= 0):
            return Parsed.success(segment, value)
        loose = [n.value for n in numbers(result_part(segment))]
        if loose and not is_formula(segment):
            return decide(segment, loose, what=label, same=same_value(rel))
    if is_formula(segment):
        return Parsed.failure(segment, f"a formula without a final {label}")
    return Parsed.failure(segment, f"no {label} with a unit")
