"""Extract the time (and the day) that a free-text reply gives as its answer to a GeoTemp time question.

What it reads:

- clock times: ``10:34 AM``, ``10:34am``, ``10.34 p.m.``, ``22:34``, ``22h34``, ``10:34:00``, ``7 PM``,
  ``1949 hours``, ``noon``/``midday``, ``midnight``, ``12:00 noon``, ``7:15 in the evening``;
- times in words: ``seven o'clock``, ``7 o'clock in the morning``, ``half past seven``, ``a quarter to
  eight``, ``ten past nine``, ``eleven eleven at night``, ``seven thirty PM`` (a bare number word is a time
  only with AM/PM or a part of the day after it, or where an answer stands: "it is seven thirty");
- the day beside that time: named dates (``June 19th, 2023``, ``19 June``, ``the 19th of June``), numeric
  dates (``2023-06-19``, ``19.06.2023``, ``06/19/2023``; with ``/`` and both parts ≤ 12 both readings are
  kept), weekday names, and relative days (``the next day``, ``tomorrow``, ``the previous day``, ``the same
  day``);
- a time zone written beside the time (``10:34 AM CEST``, ``08:34 UTC``, ``10:34 (UTC+2)``, ``(UTC 01:42)``).

Which time is the answer: the time on the last ``FINAL ANSWER:`` line that holds one; else the first time
after the last "the answer is" / "Answer:" that has one (to the end of its sentence); otherwise the
concluding time of the text: the last time mentioned, skipping operands of arithmetic (``02:32 PM + 7 hours``),
reference times (``from 07:47 PM``, ``since it is 3 PM``), UTC times when the question's zone is not UTC,
times the reply explicitly places somewhere other than the asked place (``In New York, that's 4:34 AM``), and
asides in parentheses after an earlier time (``10:34 AM (08:34 UTC)``).

Hedges (scoring policy: never credited): an answer that offers several different times is ``hedged``:
alternatives (``03:42 AM, 04:42 AM or 05:42 AM``, ``either 3:00 PM or 4:00 PM``), a range (``between 3 PM
and 4 PM``; on the answer line also ``3:00-4:00 PM``, ``3 PM to 4 PM``, ``3:00 PM, 4:00 PM``), and a different
time in brackets after the answer (``03:42 AM (or 04:42 AM if DST applies)``). The UTC rule: when the question
asks for a local time, a time labelled UTC/GMT (``In Athens: 03:42 (UTC 01:42).``) restates the answer in UTC
and is no second candidate; the answer is 03:42. The same clock time written twice, and a time the reply places
at another named place, are no second candidate either. A reply with no time that declines is ``refused``.

The day is taken from the same sentence as the answer time (the nearest date there), else from the next
sentence when that one holds no time of its own (``Date: Monday, June 19``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from tasks.answers import (
    ALTERNATIVE_CUE,
    DISOWNED,
    FINAL_RE,
    UNCOMMITTED,
    Answer,
    final_answer_end,
    final_answer_segment,
    fold,
    is_refusal,
    located,
    next_line,
    prepare,
    split_reasoning,
)
from tasks.records import AnswerStatus, Parsed

MAX_REPLY_CHARS = 8_000
"""Only the last this many characters of a reply are parsed (its answer is at the end), keeping parsing fast."""

MONTHS: dict[str, int] = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}
WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
    "tues": 1, "thurs": 3,
}

_MONTH = r"(?P<month>January|February|March|April|May|June|July|August|September|October|November|December|" \
         r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
_MONTH2 = _MONTH.replace("?P<month>", "?P<month2>")
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_DAY2 = _DAY.replace("?P<day>", "?P<day2>")
_YEAR_AFTER = r"(?:(?:,|\s)\s*(?:in\s+|of\s+)?(?P<year>(?:19|20)\d\d)\b)?"
_YEAR_AFTER2 = _YEAR_AFTER.replace("?P<year>", "?P<year2>")
DATE_RE = re.compile(
    rf"\b{_MONTH}\s+{_DAY}\b{_YEAR_AFTER}"
    rf"|\b(?:the\s+)?{_DAY2}\s+(?:of\s+)?{_MONTH2}\b{_YEAR_AFTER2}"
    r"|\b(?P<iy>(?:19|20)\d\d)[-/](?P<im>[01]?\d)[-/](?P<id>[0-3]?\d)(?!\d)"
    r"|(?<![\d.:/])(?P<na>[0-3]?\d)(?P<sep>[/.])(?P<nb>[0-3]?\d)(?P=sep)(?P<ny>(?:19|20)?\d\d)(?![\d.:/]\d)",
    re.IGNORECASE,
)
WEEKDAY_RE = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs)\b", re.I)
RELATIVE_RE = re.compile(
    r"\b(?P<next>tomorrow|(?:the\s+)?(?:next|following)\s+(?:day|morning|afternoon|evening|night)|"
    r"the\s+day\s+after|a\s+day\s+later|overnight\s+into)\b"
    r"|\b(?P<prev>yesterday|(?:the\s+)?(?:previous|prior|preceding)\s+(?:day|morning|afternoon|evening|night)|"
    r"the\s+day\s+before|the\s+night\s+before|a\s+day\s+earlier)\b"
    r"|\b(?P<same>(?:the\s+)?same\s+day|today|tonight|this\s+(?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)

_MERIDIEM = r"(?P<mer>[ap])\s?m\b"
_CLOCK = (
    r"(?<![\d:.,+\-−±/])(?P<h>[0-2]?\d)\s?(?:(?::|：)\s?(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?|(?:\.|h)(?P<m2>[0-5]\d))"
    rf"(?![\d:]|\.\d)(?:\s*{_MERIDIEM})?"
)
_HOUR_MER = r"(?<![\d:.,+\-−±/])(?P<h2>1[0-2]|0?[1-9])\s*(?P<mer2>[ap])\s?m\b"
_MILITARY = r"(?<![\d:.,+\-−±/])(?P<mil>(?:[01]\d|2[0-3])[0-5]\d)\s*(?:hours|hrs|h)\b"
_WORD = r"\b(?P<word>noon|midday|midnight)\b"
TIME_RE = re.compile(f"{_CLOCK}|{_HOUR_MER}|{_MILITARY}|{_WORD}", re.IGNORECASE)

_UNIT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_NUMBER_WORDS: dict[str, int] = {
    **{w: i + 1 for i, w in enumerate(_UNIT_WORDS)}, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
}
_HOUR_W = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT_W = "(?:" + "|".join(_UNIT_WORDS) + ")"
_MINUTE_W = (rf"(?:(?:twenty|thirty|forty|fifty)(?:[- ]{_UNIT_W})?|ten|eleven|twelve|thirteen|fourteen|fifteen|"
             rf"sixteen|seventeen|eighteen|nineteen|o[h']?[- ]{_UNIT_W})")
_HOUR_N = rf"(?:{_HOUR_W}|1[0-2]|0?[1-9])"
_WORD_CLOCK_RE = re.compile(
    rf"\b(?P<oc>{_HOUR_N}|1[3-9]|2[0-4]|0)\s+o['’]?\s?clock\b"
    rf"|\bhalf\s+past\s+(?P<half>{_HOUR_N})\b"
    rf"|\b(?:a\s+)?quarter\s+(?P<qdir>past|after|to|till|before)\s+(?P<qh>{_HOUR_N})\b"
    rf"|\b(?P<mm>{_MINUTE_W}|{_UNIT_W}|[1-5]?\d\s+minutes)\s+(?:minutes\s+)?(?P<mdir>past|after|to|till|before)\s+"
    rf"(?P<mh>{_HOUR_N})\b"
    rf"|\b(?P<wh>{_HOUR_W})(?:\s+(?P<wm>{_MINUTE_W}))?\b(?!\s*(?:hours?|minutes?|days?)\b)",
    re.IGNORECASE,
)
_MERIDIEM_AFTER = re.compile(r"^\s*(?P<mer>[ap])\s?m\b", re.IGNORECASE)


def _word_number(token: str) -> int:
    """``seven`` → 7, ``forty-five`` → 45, ``oh five`` → 5, ``12`` → 12, ``10 minutes`` → 10."""
    t = token.casefold().replace("minutes", "").strip()
    if t[:1].isdigit():
        return int(t)
    parts = [p for p in re.split(r"[- ]", t) if p not in ("o", "oh", "o'")]
    return sum(_NUMBER_WORDS[p] for p in parts)


def _word_clock(m: re.Match[str], before: str, after: str) -> tuple[int, int] | None:
    """Hour (1-12, or 0-24 for "17 o'clock") and minute of a time written in words, or None when the words
    are not a time here: a bare number word ("seven", "eleven eleven") is a time only when AM/PM or a part of
    the day follows it, or it stands where an answer does ("it is seven thirty")."""
    g = m.groupdict()
    if g["oc"]:
        return _word_number(g["oc"]), 0
    if g["half"]:
        return _word_number(g["half"]), 30
    if g["qh"]:
        h = _word_number(g["qh"])
        return (h, 15) if g["qdir"].lower() in ("past", "after") else (h - 1, 45)
    if g["mh"]:
        h, minute = _word_number(g["mh"]), _word_number(g["mm"])
        if not 1 <= minute <= 59:
            return None
        return (h, minute) if g["mdir"].lower() in ("past", "after") else (h - 1, 60 - minute)
    h, minute = _word_number(g["wh"]), _word_number(g["wm"]) if g["wm"] else 0
    if minute > 59:
        return None
    if not (_MERIDIEM_AFTER.match(after) or _DAYPART_AFTER.match(after)
            or (g["wm"] and _WORD_TIME_OK_BEFORE.search(before))):
        return None
    return h, minute

_ZONE_AFTER = re.compile(
    r"^\s*\(?\s*(?P<zone>(?:UTC|GMT)(?:\s*[+\-−±]\s*\d{1,2}(?::?\d{2})?)?|Z\b|[A-Z]{2,5}T\b|[A-Z]{3,4}\b(?=\)))",
)
_ZONE_BEFORE = re.compile(
    r"(?<![\w+\-])(?P<zone>(?:UTC|GMT)(?:\s*[+\-−±]\s*\d{1,2}(?::?\d{2})?)?)(?:\s+time)?\s*(?:[:=]|\bis\b)?\s*$"
)
"""A zone written just before a time: ``(UTC 01:42)``, ``UTC: 01:42``, ``GMT+2 time is 03:42``."""
_UTC_ZERO = re.compile(r"^(?:UTC|GMT)(?:\s*[+\-−±]\s*0{1,2}(?::?00)?)?$|^Z$")
_DURATION_AFTER = re.compile(r"^\s*(?:hours?|hrs?|h\b|minutes?|mins?)", re.IGNORECASE)
_DURATION_CONTEXT_AFTER = re.compile(
    r"^\s*(?:hours?|hrs?|h)\b\s*(?:ahead|behind|later|earlier|difference|apart|from|of|to\b|and\b|forward|back)",
    re.IGNORECASE,
)
_DURATION_CONTEXT_BEFORE = re.compile(
    r"(?:difference|offset|ahead|behind|add|adding|added|plus|minus|subtract\w*|by|of|[+\-])\s*$", re.IGNORECASE
)
_OPERAND_AFTER = re.compile(
    r"^\s*(?:\(\s*[^()]{0,12}\)\s*)?(?:(?:[+\-−]|plus\b|minus\b|\+)\s*\(?\s*\d|=)", re.IGNORECASE
)
_REFERENCE_BEFORE = re.compile(
    r"(?:\bfrom|\bsince|\bafter|\bstarting\s+(?:at|from)|\bbeginning\s+at|\bcurrent\s+time\s+(?:of|is)|"
    r"\bstart\s+time\s+(?:of|is))\s+(?:it\s+(?:is|was)\s+|it's\s+|the\s+current\s+time\s+of\s+)?(?:\(|\*)?\s*$",
    re.IGNORECASE,
)
_WORD_TIME_OK_BEFORE = re.compile(
    r"(?:\b(?:be|is|it's|at|exactly|precisely|was|becomes|answer)|[:=]|^)\s*$", re.IGNORECASE
)
_DAYPART_AFTER = re.compile(r"^\s*(?:in\s+the\s+(?P<pm>afternoon|evening)|in\s+the\s+(?P<am>morning)|"
                            r"(?P<night>at\s+night|tonight))\b", re.IGNORECASE)
_NOON_AFTER = re.compile(r"^\s*(?P<w>noon|midday|midnight)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(*\[]?[A-Z0-9])|\n+")
_ABBREV = re.compile(
    r"\b(St|Mt|Ft|Dr|Mr|Mrs|Ms|No|vs|approx|etc|e\.g|i\.e|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.", re.I
)


Source = Literal["final_answer", "answer_marker", "text"]


class TimeAnswer(BaseModel):
    """The extracted answer: a 24-hour clock time and whatever day information stands beside it."""

    model_config = ConfigDict(frozen=True)

    hour: int
    minute: int
    dates: tuple[tuple[int | None, int, int], ...] = ()  # (year or None, month, day) readings of one date
    weekday: int | None = None  # 0 = Monday
    day_shift: int | None = None  # relative day: -1 previous, 0 same, +1 next
    zone: str | None = None
    source: Source = "text"
    snippet: str = ""


@dataclass(frozen=True)
class Extraction:
    """The answer, or why there is none; ``status`` follows the scoring policy (``tasks.records.AnswerStatus``)."""

    answer: TimeAnswer | None
    reason: str = ""
    status: AnswerStatus = "unparsed"

    def __post_init__(self) -> None:
        if self.answer is not None:
            object.__setattr__(self, "status", "answered")

    def parsed(self, raw: str) -> Parsed[dict[str, Any]]:
        """The task-level parse of this extraction (value: the answer's JSON form)."""
        if self.answer is not None:
            return Parsed.success(raw, self.answer.model_dump())
        if self.status == "hedged":
            return Parsed.hedged(raw, self.reason)
        if self.status == "refused":
            return Parsed.refused(raw, self.reason)
        if self.status == "unlocated":
            return Parsed.unlocated(raw, self.reason)
        return Parsed.failure(raw, self.reason)


@dataclass(frozen=True)
class _Time:
    start: int
    end: int
    hour: int
    minute: int
    zone: str | None
    is_utc: bool
    operand: bool
    reference: bool
    in_parens: bool


_SLASH_ALTERNATIVE = re.compile(r"(?<=[A-Za-z)])/(?=\s?\d)|(?<=\b\d{4})/(?=\d{1,2}[:.h]\d\d)")


_ISO_OFFSET = re.compile(r"(?:(?<=\d)T|(?<![\d:]))(\d{2}:\d{2})(?:(?<=T\d\d:\d\d)|(?=:\d{2}))(?::\d{2}(?:\.\d{1,6})?)?"
                         r"([+-]\d{2}:?\d{2})(?![\d:])")
"""An ISO 8601 time with its UTC offset (``2023-06-19T14:30:00-05:00``): one time, never a range."""


def normalize(text: str) -> str:
    """Unify spellings the patterns rely on (a.m., dashes, odd spaces, markdown), keeping the text's words."""
    t = text.replace("\u202f", " ").replace("\u00a0", " ").replace("\u2009", " ")
    t = t.replace("−", "-").replace("–", "-").replace("—", " - ")
    t = re.sub(r"\b([AaPp])\.\s?[Mm]\.?(?=\W|$)", lambda m: m.group(1).upper() + "M", t)
    t = t.replace("**", "").replace("__", "").replace("`", "")
    t = re.sub(r"\\\[|\\\]|\\\(|\\\)|\\text\{([^}]*)\}", lambda m: m.group(1) or " ", t)
    t = re.sub(r"(?m)^[ \t]*#+[ \t]*", "", t)  # not \s*: quadratic over blank lines
    t = _SLASH_ALTERNATIVE.sub(" / ", t)  # "03:37 PM/06:37 PM", "..., 2023/06:37 PM": a slash before a time
    t = _ISO_OFFSET.sub(lambda m: f" {m.group(1)} (UTC{m.group(2)})", t)  # 14:30:00-05:00: a time and its offset
    return _ABBREV.sub(lambda m: m.group(1), t)


def _hour24(h: int, mer: str, after: str) -> int:
    """The 24-hour hour of a clock hour ``h`` with its AM/PM (``mer``: "a", "p" or "") or a part of the day
    written after it; without either the hour is read as a 24-hour hour."""
    if mer:  # "13:52 PM" and "00:34 AM" keep their 24-hour reading
        return h % 24 if h == 0 or h > 12 else h % 12 + (12 if mer == "p" else 0)
    noon = _NOON_AFTER.match(after)
    part = _DAYPART_AFTER.match(after)
    if noon and h == 12:
        return 0 if noon.group("w").lower() == "midnight" else 12
    if part and 1 <= h <= 11:  # "2 at night" is 02:00, "9 at night" 21:00
        late = part.group("pm") or (part.group("night") and h >= 6)
        return h + 12 if late else h
    if part and h == 12 and part.group("am"):
        return 0
    return h % 24


def _clock_matches(text: str) -> list[tuple[int, int, int, int]]:
    """(start, end, hour, minute) of every clock time written with digits or the words noon and midnight."""
    out = []
    for m in TIME_RE.finditer(text):
        before, after = text[max(0, m.start() - 60):m.start()], text[m.end():m.end() + 40]
        if m.group("word"):
            word = m.group("word").lower()
            prev = text[max(0, m.start() - 16):m.start()]
            if re.search(r"\b12[:.]00\s*$", prev):
                continue  # "12:00 midnight": the clock time before it is read with the word
            if not re.search(r"\b12\s*$", prev) and not _WORD_TIME_OK_BEFORE.search(before):
                continue  # "after midnight", "crosses midnight": a boundary, not an answer
            hour, minute = (0, 0) if word == "midnight" else (12, 0)
        elif m.group("mil"):
            hour, minute = int(m.group("mil")[:2]), int(m.group("mil")[2:])
        else:
            h = int(m.group("h") if m.group("h") is not None else m.group("h2"))
            minute = int(m.group("m") or m.group("m2") or 0)
            mer = (m.group("mer") or m.group("mer2") or "").lower()
            if m.group("h") is not None and _DURATION_AFTER.match(after) and (
                    _DURATION_CONTEXT_AFTER.match(after) or _DURATION_CONTEXT_BEFORE.search(before)):
                continue  # "a difference of 5:30 hours", "add 2:30 hours": a duration
            if m.group("m2") and not mer and "." in m.group(0):
                continue  # "10.34" without AM/PM is a decimal, not a time
            if h > 24 or (h == 24 and minute):
                continue
            hour = _hour24(h, mer, after)
        out.append((m.start(), m.end(), hour, minute))
    return out


def _word_matches(text: str, taken: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """(start, end, hour, minute) of times written in words ("half past seven", "eleven eleven at night",
    "7 o'clock in the morning") that do not overlap a time in ``taken``."""
    out = []
    for m in _WORD_CLOCK_RE.finditer(text):
        if any(s < m.end() and m.start() < e for s, e, _, _ in taken):
            continue
        before, after = text[max(0, m.start() - 60):m.start()], text[m.end():m.end() + 40]
        found = _word_clock(m, before, after)
        if found is None:
            continue
        h, minute = found
        h = 12 if h == 0 and not m.group("oc") else h  # "quarter to one" is 12:45
        if h > 24 or (h == 24 and minute):
            continue
        mer = _MERIDIEM_AFTER.match(after)
        end = m.end() + (mer.end() if mer else 0)
        out.append((m.start(), end, _hour24(h, mer.group("mer").lower() if mer else "", after), minute))
    return out


def _times(text: str) -> list[_Time]:
    """Every clock time in ``text`` with what surrounds it (zone, operand, reference, inside brackets)."""
    out: list[_Time] = []
    clocks = _clock_matches(text)
    for start, end, hour, minute in sorted(clocks + _word_matches(text, clocks)):
        before = text[max(0, start - 60):start]
        tail = text[end:end + 24]
        zm = _ZONE_AFTER.match(tail)
        zb = None if zm else _ZONE_BEFORE.search(before)
        zone = zm.group("zone") if zm else zb.group("zone") if zb else None
        is_utc = bool(zone and _UTC_ZERO.match(re.sub(r"\s+", "", zone)))
        rest = text[end + (zm.end() if zm else 0):][:40]
        operand = bool(_OPERAND_AFTER.match(rest))
        reference = bool(_REFERENCE_BEFORE.search(before))
        opened = before.rfind("(") > before.rfind(")")
        out.append(_Time(start, end, hour, minute, zone, is_utc, operand, reference, opened))
    return out


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    return spans


def _date_readings(m: re.Match[str]) -> tuple[tuple[int | None, int, int], ...]:
    g = m.groupdict()
    if g.get("month") or g.get("month2"):
        name = (g.get("month") or g.get("month2") or "").lower().rstrip(".")
        if name == "may" and not (m.group(0).count("May") or m.group(0).count("MAY")):
            return ()  # the verb "may"
        day = int(g.get("day") or g.get("day2") or 0)
        year = g.get("year") or g.get("year2")
        return ((int(year) if year else None, MONTHS[name], day),) if 1 <= day <= 31 else ()
    if g.get("iy"):
        month, day = int(g["im"]), int(g["id"])
        return ((int(g["iy"]), month, day),) if 1 <= month <= 12 and 1 <= day <= 31 else ()
    a, b, y = int(g["na"]), int(g["nb"]), int(g["ny"])
    year = y + 2000 if y < 100 else y
    readings: list[tuple[int | None, int, int]] = []
    if g["sep"] == "/" and 1 <= a <= 12 and 1 <= b <= 31:
        readings.append((year, a, b))  # month/day (US)
    if 1 <= b <= 12 and 1 <= a <= 31 and (year, b, a) not in readings:
        readings.append((year, b, a))  # day/month (always for "19.06.2023"; both readings for "06/07/2023")
    return tuple(readings)


_Found = TypeVar("_Found")


def _nearest(matches: list[tuple[int, int, _Found]], point: tuple[int, int]) -> _Found | None:
    best: _Found | None = None
    best_d: int | None = None
    for s, e, value in matches:
        d = s - point[1] if s >= point[1] else point[0] - e
        d = max(d, 0) + (0 if s >= point[1] else 1)  # ties go to what follows the time
        if best_d is None or d < best_d:
            best, best_d = value, d
    return best


def _day_info(text: str, span: tuple[int, int], time_span: tuple[int, int]) -> tuple[
        tuple[tuple[int | None, int, int], ...], int | None, int | None]:
    """Dates, weekday and relative day within ``span`` nearest the time."""
    seg = text[span[0]:span[1]]
    off = span[0]
    dates: list[tuple[int, int, tuple[tuple[int | None, int, int], ...]]] = []
    date_spans: list[tuple[int, int]] = []
    for m in DATE_RE.finditer(seg):
        readings = _date_readings(m)
        s, e = off + m.start(), off + m.end()
        if readings and not (s < time_span[1] and e > time_span[0]):
            dates.append((s, e, readings))
            date_spans.append((s, e))
    weekdays = [(off + m.start(), off + m.end(), WEEKDAYS[m.group(1).lower()]) for m in WEEKDAY_RE.finditer(seg)]
    rel: list[tuple[int, int, int]] = []
    for m in RELATIVE_RE.finditer(seg):
        step = 1 if m.group("next") else -1 if m.group("prev") else 0
        rel.append((off + m.start(), off + m.end(), step))
    found_dates = _nearest(dates, time_span)
    weekday = _nearest(weekdays, time_span)
    shift = _nearest(rel, time_span)
    return (found_dates or ()), weekday, shift


_PLACE = r"(?P<p>[A-Z][\w'’-]*(?:[ -](?:[A-Z][\w'’-]*|de|da|do|del|la|el|es|of|and|au|aux|sur))*)"
_PLACE_AFTER = re.compile(rf"^[^.;\n]{{0,60}}?\b(?:in|at)\s+(?:the\s+city\s+of\s+)?{_PLACE}")
_PLACE_BEFORE = re.compile(
    rf"\b(?:[Ii]n|[Ff]or|[Ii]f\s+you\s+meant)\s+{_PLACE}(?:\s+time)?(?:\s+instead)?\s*,?\s*(?:it(?:'s|\s+is|\s+will\s+be|\s+would\s+be)|that(?:'s|\s+is|\s+would\s+be)|"
    r"the\s+(?:local\s+)?time\s+(?:is|will\s+be|would\s+be))?\s*[:=]?\s*$"
)
_PLACE_LABEL = re.compile(rf"(?:^|\n)[ \t]*(?:[-*•]|\d+\.)?[ \t]*{_PLACE}[ \t]*[:：][ \t]*$")
_NOT_PLACES = frozenset([*MONTHS, *WEEKDAYS, "utc", "gmt", "the", "this", "that", "total", "summary", "conclusion",
                         "addition", "order", "other", "short", "case", "step", "python", "local", "military", "time",
                         "answer", "result", "now", "note", "output", "current", "start", "end", "target",
                         "so", "therefore", "thus", "then", "hence", "date", "clock"])


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def _place_of(text: str, t: _Time) -> str | None:
    """The place a time is said to be in: ``10:34 AM in Paris``, ``In Paris, it's 10:34 AM``, ``- Paris: 10:34``."""
    after = _PLACE_AFTER.match(text[t.end:t.end + 90].split(" when ")[0].split(" which ")[0])
    ahead = text[max(0, t.start - 90):t.start]
    m = _PLACE_BEFORE.search(ahead) or _PLACE_LABEL.search(ahead) or after
    if not m:
        return None
    place = m.group("p")
    return None if place.split()[0].casefold().rstrip(".") in _NOT_PLACES else place


def _elsewhere(text: str, t: _Time, place: str | None) -> bool:
    """True when the time is explicitly placed somewhere other than the asked ``place`` (City, Country)."""
    if not place:
        return False
    said = _place_of(text, t)
    if said is None:
        return False
    said_f = _fold(said)
    names = [_fold(part) for part in place.split(",") if _fold(part)]
    return not any(n in said_f or said_f in n for n in names)


def _pick(times: list[_Time], utc_target: bool, text: str = "", place: str | None = None) -> _Time | None:
    """The concluding time among candidates (see the module docstring)."""
    pool = [t for t in times if not t.operand]
    pool = [t for t in pool if not t.reference] or pool
    if not utc_target:
        pool = [t for t in pool if not t.is_utc] or pool
    if place:
        pool = [t for t in pool if not _elsewhere(text, t, place)] or pool
    kept = []
    outside = False  # a time outside brackets was kept
    for t in pool:
        if t.in_parens and outside:
            continue  # an aside after the answer: "10:34 AM (08:34 UTC)", "(If you meant ..., 3 PM.)"
        kept.append(t)
        outside = outside or not t.in_parens
    return kept[-1] if kept else None


def _answer_from(text: str, times: list[_Time], chosen: _Time, source: Source,
                 region: tuple[int, int] | None = None) -> TimeAnswer:
    """The answer with the day information of its sentence (``region`` for a marked answer), else of the
    next sentence when that one holds no time of its own."""
    sentences = _sentences(text)
    span = region or next(((s, e) for s, e in sentences if s <= chosen.start < e), sentences[-1])
    dates, weekday, shift = _day_info(text, span, (chosen.start, chosen.end))
    if not dates and weekday is None and shift is None:
        nxt = next(((s, e) for s, e in sentences if s >= span[1]), None)
        if nxt is not None and not any(nxt[0] <= t.start < nxt[1] for t in times):
            dates, weekday, shift = _day_info(text, nxt, (chosen.start, chosen.end))
    return TimeAnswer(hour=chosen.hour, minute=chosen.minute, dates=dates, weekday=weekday, day_shift=shift,
                      zone=chosen.zone, source=source, snippet=text[span[0]:span[1]].strip()[:200])


_ZONE_LABEL_AT_START = re.compile(r"^\s*(?:[A-Z]{2,5}T|UTC|GMT)?\s*(?:\([^()]{0,12}\))?")
_OR_LINK = re.compile(r"^[^.!?\n]{0,40}$")
_OR_WORD = re.compile(r"(?:^|\s|,)(?:or|either)\b|^\s*/\s*$", re.IGNORECASE)
_LIST_LINK = re.compile(r"^\s*[,;]\s*(?:and\s+)?$")
_RANGE_LINK = re.compile(r"^\s*(?:-|to|until|till|through)\s*$", re.IGNORECASE)
_BETWEEN_LINK = re.compile(r"^\s*and\s*$", re.IGNORECASE)
_BETWEEN_BEFORE = re.compile(r"\bbetween\s*$", re.IGNORECASE)
_ARITHMETIC_AFTER = re.compile(r"^\s*(?:[A-Z]{2,5}T|UTC|GMT)?\s*(?:=|is\s+\d)")
_RANGE_TAIL = re.compile(r"^\s*(?:[AP]M\s*)?(?:-|to|until|till)\s*[0-2]?\d(?::[0-5]\d)?\s*(?:[AP]M\b|$|[,;.)])",
                         re.IGNORECASE)
"""An answer like ``3:00-4:00 PM`` or ``3-4 PM``: the second time is not read as a clock time on its own."""


def _link(text: str, a: _Time, b: _Time, committed: bool) -> str | None:
    """How two consecutive times are joined: "or" (an alternative), "list" (a comma), "range" (a dash, "to",
    "between ... and"), or None when other words stand between them. Dash or "to" ranges count only inside a
    committed answer (a FINAL ANSWER line or an "answer is" sentence); elsewhere a comma list is a hedge only
    from three times on."""
    between = _ZONE_LABEL_AT_START.sub("", text[a.end:b.start], count=1)
    if _OR_LINK.match(between) and _OR_WORD.search(between):
        return "or"
    if _BETWEEN_LINK.match(between) and _BETWEEN_BEFORE.search(text[max(0, a.start - 20):a.start]):
        return "range"
    if _LIST_LINK.match(between):
        return "list"
    if committed and _RANGE_LINK.match(between) and not _ARITHMETIC_AFTER.match(text[b.end:b.end + 20]):
        return "range"
    return None


def _counts(text: str, t: _Time, utc_target: bool, place: str | None) -> bool:
    """Whether a time is a candidate answer at all: not an operand or a reference time, not a UTC restatement
    when the question asks for a local time, and not placed somewhere other than the asked place."""
    return (not t.operand and not t.reference and (utc_target or not t.is_utc)
            and not _elsewhere(text, t, place))


def _hedge(text: str, times: list[_Time], chosen: _Time, *, committed: bool, utc_target: bool,
           place: str | None) -> str | None:
    """Why the chosen time is one of several candidates, or None when it stands alone.

    Candidates joined to the chosen time by "or", "/", a comma list or a range ("03:42 AM, 04:42 AM or 05:42
    AM", "between 3 PM and 4 PM", "FINAL ANSWER: 3:00-4:00 PM"), and a different time in brackets after it
    ("03:42 AM (or 04:42 AM if DST applies)"). A time in brackets labelled UTC (``(UTC 01:42)``, ``(01:42
    UTC)``) restates the answer in UTC when the question asks for a local time: it is no second candidate; nor
    is the same clock time written again ("10:34 PM (22:34)"), nor a time placed at another named place.
    """
    order = sorted(times, key=lambda x: x.start)
    i = order.index(chosen)
    group = [chosen]
    kinds: set[str] = set()
    ends: set[int] = set()  # ends of a range: "10:00 AM - 11:00 AM" reads the first as an operand
    for step in (-1, 1):
        j = i
        while 0 <= j + step < len(order):
            a, b = (order[j + step], order[j]) if step < 0 else (order[j], order[j + step])
            kind = _link(text, a, b, committed)
            if kind is None:
                break
            kinds.add(kind)
            if kind == "range":
                ends.update((id(a), id(b)))
            group.append(order[j + step])
            j += step
    if committed and _RANGE_TAIL.match(text[chosen.end:chosen.end + 30]):
        return "a range of times"
    if committed:  # the answer line commits to one time: any other candidate time on it is a second answer
        group = times
    if committed or "or" in kinds or "range" in kinds or len(group) >= 3:
        others = {(t.hour, t.minute) for t in group if t is not chosen and (
            _counts(text, t, utc_target, place) or (id(t) in ends and not t.reference))}
        others.discard((chosen.hour, chosen.minute))
        if others:
            return "a range of times" if kinds == {"range"} else "alternative times"
    for t in order[i + 1:]:
        opened = text.rfind("(", chosen.end, t.start)
        if opened < 0 or text.find(")", opened, t.start) >= 0 or opened - chosen.end > 80:
            continue
        if (t.hour, t.minute) != (chosen.hour, chosen.minute) and _counts(text, t, utc_target, place):
            return "an alternative time in brackets"
    return None


_AFTER_CAP = 1_500
_AFTER_LINES = 12
_DST_SHIFT = re.compile(
    r"\b(?:daylight|DST|summer\s+time|standard\s+time|winter\s+time)\b[^\n]{0,80}?\b(?:an?|one|two|1|2)\s+hours?\s+"
    r"(?:later|earlier|ahead|behind|more|less)\b|\b(?:an?|one|two|1|2)\s+hours?\s+(?:later|earlier|ahead|behind|more|less)"
    r"\b[^\n]{0,80}?\b(?:daylight|DST|summer\s+time|standard\s+time|winter\s+time)\b", re.IGNORECASE)
"""A time offered under another daylight-saving assumption without writing it ("one hour later if DST applies")."""


def _second_answer(text: str, times: list[_Time], chosen: _Time, span: tuple[int, int], *, utc_target: bool,
                   place: str | None) -> str | None:
    """Why a committed answer is no single answer, or None: it offers two weekdays or two dates ("Monday or
    Tuesday"), disowns itself ("..., which I believe is wrong"), or one of its next lines offers another time
    or day ("4:00 PM if daylight saving applies", "Alternatively, Tuesday"). Reads at most :data:`_AFTER_CAP`
    characters after the answer."""
    segment = text[span[0]:span[1]]
    line_end = text.find("\n", span[1], span[1] + _AFTER_CAP)
    if DISOWNED.search(text[span[0]:line_end if line_end >= 0 else span[1] + 200]):
        return "the stated answer disowns its value"
    days = {WEEKDAYS[m.group(1).lower()] for m in WEEKDAY_RE.finditer(segment)}
    if len(days) > 1 and ALTERNATIVE_CUE.search(segment):
        return "the stated answer offers two weekdays"
    dates = {r for m in DATE_RE.finditer(segment) for r in _date_readings(m)[:1]}
    if len({(mo, d) for _, mo, d in dates}) > 1 and ALTERNATIVE_CUE.search(segment):
        return "the stated answer offers two dates"
    if _DST_SHIFT.search(text[span[0]:span[1] + _AFTER_CAP]):
        return "the stated answer offers another time under daylight saving"
    pos = span[1]
    limit = span[1] + _AFTER_CAP
    pending = False
    for _ in range(_AFTER_LINES):
        nl = text.find("\n", pos, limit)
        if nl < 0:
            break
        start, pos = nl + 1, text.find("\n", nl + 1, limit)
        pos = limit if pos < 0 else pos
        line = text[start:pos]
        offered, pending = pending or bool(ALTERNATIVE_CUE.search(line)), False
        if not offered:
            continue
        others = [x for x in times if start <= x.start < pos and _counts(text, x, utc_target, place)
                  and (x.hour, x.minute) != (chosen.hour, chosen.minute)]
        if others:
            return f"a later line offers another time: {line.strip()[:80]!r}"
        said = {WEEKDAYS[m.group(1).lower()] for m in WEEKDAY_RE.finditer(line)} - days
        if said and days:
            return f"a later line offers another day: {line.strip()[:80]!r}"
        pending = not any(start <= x.start < pos for x in times)  # "### Another possibility": read the next line
    return None


def _final_segments(text: str) -> list[tuple[int, int]]:
    """Spans of the answer after each FINAL ANSWER marker (:func:`tasks.answers.final_answer_end`), last first."""
    out = []
    for m in reversed(list(FINAL_RE.finditer(text))):
        start = m.end()
        out.append((start, final_answer_end(text, start)))  # its line, a list under it, "or ..." lines
    return out


_ANSWER_MARK = re.compile(r"\banswer\s*(?:(?:is|would\s+be|will\s+be)\b\s*[:：]?|[:：])", re.IGNORECASE)


def _answer_segments(text: str) -> list[tuple[int, int]]:
    """Spans after each "answer is" / "Answer:" marker to the end of its sentence, last marker first."""
    sentences = _sentences(text)
    out = []
    for m in reversed(list(_ANSWER_MARK.finditer(text))):
        end = next((e for s, e in sentences if s <= m.start() < e), len(text))
        out.append((m.end(), end))
    return out


def _finals_disagree(times: list[_Time], marked: list[tuple[int, int, Source]], chosen: _Time,
                     utc_target: bool) -> bool:
    """Whether an earlier FINAL ANSWER line commits to a different clock time than the chosen one."""
    for start, end, source in marked[1:]:
        other = _first_in([x for x in times if start <= x.start < end], utc_target) if source == "final_answer" \
            else None
        if other is not None and (other.hour, other.minute) != (chosen.hour, chosen.minute):
            return True
    return False


def _first_in(times: list[_Time], utc_target: bool) -> _Time | None:
    pool = [x for x in times if not x.operand] or times
    if not utc_target:
        pool = [x for x in pool if not x.is_utc] or pool
    return pool[0] if pool else None


def extract_time_answer(text: str, *, utc_target: bool = False, place: str | None = None) -> Extraction:
    """The answer time of a reply, with its day information.

    ``utc_target`` says the asked place is on UTC (then times marked UTC/GMT are not set aside); ``place``
    (``City, Country``) is the asked place: a time the reply explicitly puts somewhere else ("In New York,
    that's 4:34 AM") is set aside when another candidate remains. A reply offering several candidate times
    is ``hedged`` (see :func:`_hedge`); one without a time that declines to answer is ``refused``.
    """
    if not isinstance(text, str) or not text.strip():
        return Extraction(None, "empty reply")
    answer_text = prepare(text)
    if not answer_text.strip():
        return Extraction(None, "no answer after the reasoning (the reply ends inside its reasoning block)"
                          if split_reasoning(text)[0] else "empty reply")
    t = normalize(answer_text[-MAX_REPLY_CHARS:])
    times = _times(t)
    marked: list[tuple[int, int, Source]] = [(s, e, "final_answer") for s, e in _final_segments(t)]
    marked += [(s, e, "answer_marker") for s, e in _answer_segments(t)]
    for start, end, source in marked:
        inside = [x for x in times if start <= x.start < end]
        chosen = _first_in(inside, utc_target)
        if chosen is not None:
            if fold(t[start:end]).startswith("not "):
                return Extraction(None, "the stated answer only says what the time is not")
            why = _hedge(t, inside, chosen, committed=True, utc_target=utc_target, place=place)
            if not why and UNCOMMITTED.search(next_line(t, start)[:2 * (end - start) + 200]):
                why = "a time it does not commit to (plus or minus, give or take, not sure of ...)"
            if why:
                return Extraction(None, f"the stated answer offers {why}", status="hedged")
            if source == "final_answer" and _finals_disagree(times, marked, chosen, utc_target):
                return Extraction(None, "FINAL ANSWER lines with different times", status="hedged")
            why = _second_answer(t, times, chosen, (start, end), utc_target=utc_target, place=place)
            if why:
                return Extraction(None, why, status="hedged")
            return Extraction(_answer_from(t, times, chosen, source, (start, end)))
    if not times:
        final = final_answer_segment(t)
        if is_refusal(t) or (final is not None and is_refusal(final)):
            return Extraction(None, "the reply declines to give a time", status="refused")
        return Extraction(None, "no clock time in the reply")
    chosen = _pick(times, utc_target, t, place)
    if chosen is None:
        return Extraction(None, "only arithmetic operands, no resulting time")
    why = _hedge(t, times, chosen, committed=False, utc_target=utc_target, place=place) or _weighed(
        t, times, chosen, utc_target=utc_target, place=place)
    if not why and UNCOMMITTED.search(next_line(t, chosen.start)):
        why = "a time it does not commit to (plus or minus, give or take, not sure of ...)"
    if why:
        return Extraction(None, f"the reply offers {why}", status="hedged")
    if not _concludes(t, times, chosen, place):
        return Extraction(None, "no answer label or committed sentence; the last time in the reply is not a "
                          "commitment", status="unlocated")
    return Extraction(_answer_from(t, times, chosen, "text"))


def _concludes(text: str, times: list[_Time], chosen: _Time, place: str | None) -> bool:
    """Whether a reply without an answer label commits to ``chosen`` (scoring policy rule 1): the time is on the
    reply's last line and that line is an answer (:func:`tasks.answers.located`), or it is the reply's only
    candidate time (others are operands or references) stated in a sentence ("It will be 6:40 AM tomorrow.");
    A line labelled with the asked place ("Managua: 09:39 PM") commits wherever it is; never the last time in
    sight."""
    line_start = text.rfind("\n", 0, chosen.start) + 1
    city = fold(place.split(",")[0]) if place else ""
    if city and fold(text[line_start:chosen.start]).removesuffix(" at") == city:
        return True
    start = text.rstrip().rfind("\n") + 1
    if chosen.start >= start:
        return located(text, Answer(text[start:].strip(), "last_line"))
    if any(x is not chosen and not (x.operand or x.reference) for x in times):
        return False
    span = next(((s, e) for s, e in _sentences(text) if s <= chosen.start < e), None)
    sentence = text[span[0]:span[1]] if span else ""
    return located(text, Answer(" ".join(sentence.split()), "last_line"))


def _weighed(text: str, times: list[_Time], chosen: _Time, *, utc_target: bool, place: str | None) -> str | None:
    """Why the concluding sentence weighs two times ("My best guess is 8:45 PM, but 9:45 PM is also plausible"),
    or None: another candidate time in the chosen time's sentence, with a word that offers an alternative."""
    span = next(((s, e) for s, e in _sentences(text) if s <= chosen.start < e), None)
    if span is None or not ALTERNATIVE_CUE.search(text[span[0]:span[1]]):
        return None
    others = [x for x in times if span[0] <= x.start < span[1] and x is not chosen and _counts(text, x, utc_target, place)
              and (x.hour, x.minute) != (chosen.hour, chosen.minute)]
    return "alternative times in its concluding sentence" if others else None
