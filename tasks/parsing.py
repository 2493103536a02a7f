"""Answer extraction shared by task families: the FINAL ANSWER line, numbers, units."""

from __future__ import annotations

import re

FINAL_RE = re.compile(r"final\s+answer\s*[:：]", re.IGNORECASE)
# 1,234,567.89 | 1 234 567.89 (thin or plain spaces between groups) | 1234.5 | .5
NUMBER = r"[-+−]?(?:\d{1,3}(?:[,\u202f\u2009 ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
NUMBER_RE = re.compile(NUMBER)
KM_PER_MILE = 1.609344
DISTANCE_UNITS: dict[str, float] = {
    "km": 1.0, "kms": 1.0, "kilometer": 1.0, "kilometers": 1.0, "kilometre": 1.0, "kilometres": 1.0,
    "mi": KM_PER_MILE, "mile": KM_PER_MILE, "miles": KM_PER_MILE,
    "m": 0.001, "meter": 0.001, "meters": 0.001, "metre": 0.001, "metres": 0.001,
    "nm": 1.852, "nmi": 1.852, "nautical miles": 1.852,
}
_UNIT_ALT = "|".join(sorted((re.escape(u) for u in DISTANCE_UNITS), key=len, reverse=True))
DISTANCE_RE = re.compile(rf"({NUMBER})\s*(?:\*\*)?\s*({_UNIT_ALT})\b", re.IGNORECASE)


def final_answer_segment(text: str) -> str | None:
    """The text after the last ``FINAL ANSWER:`` marker up to the end of its line (markdown stripped)."""
    matches = list(FINAL_RE.finditer(text))
    if not matches:
        return None
    rest = text[matches[-1].end():].strip().strip("*").strip()
    line = rest.split("\n", 1)[0] if rest else ""
    if not line.strip() and "\n" in rest:  # "FINAL ANSWER:\n 123 km"
        line = rest.strip().split("\n", 1)[0]
    return line.replace("**", "").replace("`", "").strip()


def to_float(token: str) -> float:
    """Parse a number token with thousands separators and a Unicode minus."""
    return float(re.sub(r"[,\u202f\u2009 ]", "", token).replace("−", "-"))


def first_distance_km(segment: str) -> float | None:
    """The first number with a distance unit in ``segment``, converted to km; None when there is none."""
    m = DISTANCE_RE.search(segment)
    if not m:
        return None
    return to_float(m.group(1)) * DISTANCE_UNITS[m.group(2).lower()]


def last_distance_km(text: str) -> float | None:
    """The last number with a distance unit in ``text``, converted to km."""
    found = list(DISTANCE_RE.finditer(text))
    if not found:
        return None
    m = found[-1]
    return to_float(m.group(1)) * DISTANCE_UNITS[m.group(2).lower()]


def first_number(segment: str) -> float | None:
    """The first number anywhere in ``segment``."""
    m = NUMBER_RE.search(segment)
    return to_float(m.group(0)) if m else None


_BARE = re.compile(rf"(?:approx(?:imately)?\.?|about|around|roughly|~|≈)?\s*({NUMBER})\s*\.?", re.IGNORECASE)


def bare_number(segment: str) -> float | None:
    """``segment`` as one number ("2280", "≈ 2,280."), or None when it holds anything else (a formula, words)."""
    m = _BARE.fullmatch(segment.strip())
    return to_float(m.group(1)) if m else None
