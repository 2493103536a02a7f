"""GeoTemp prompt templates (Table 1, §4.1, §6.4, §7), worded for a chat model with a FINAL ANSWER line.

Every time question opens with "Today is {weekday, month day at hh:mm AM/PM} in {year} in {place}." and asks
one of: Verification "What time is it now in {l1}?", TimeTime "What time is it in {x} hours?", TimePlace
"What time is it now in {l2}?", TimeTimePlace "What time is it in {x} hours in {l2}?". The instruction style
adds nothing (neutral), "Think step by step." (cot) or a request for a short answer (short).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

Style = Literal["neutral", "cot", "short"]
STYLES: tuple[Style, ...] = ("neutral", "short", "cot")
STYLE_SUFFIX: dict[str, str] = {
    "neutral": "",
    "cot": " Think step by step.",
    "short": " Keep your answer short and just answer with the correct time and date.",
}

TIME_SYSTEM_PROMPT = (
    "You answer questions about dates, times and places around the world. Times are the local clock times of "
    "the places named. End your reply with one line of the form\n"
    "FINAL ANSWER: hh:mm AM/PM, Weekday, Month Day, Year"
)
PROBE_SYSTEM_PROMPT = (
    "You answer questions about time zones around the world. End your reply with one line of the form\n"
    "FINAL ANSWER: <city>: UTC<offset>\n"
    "where <offset> is the signed offset in hours, with minutes where the zone has them (for example +9, -3, +5:30)."
)

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def ordinal(day: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, 22nd, 23rd, 31st."""
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def clock(dt: datetime) -> str:
    """``09:34 PM``: zero-padded 12-hour time, as the paper writes it."""
    hour = dt.hour % 12 or 12
    return f"{hour:02d}:{dt.minute:02d} {'AM' if dt.hour < 12 else 'PM'}"


def today_is(dt: datetime, place: str) -> str:
    """``Today is Sunday, June 18th at 09:34 PM in 2023 in Mazatlan, Mexico.``"""
    return (f"Today is {_WEEKDAYS[dt.weekday()]}, {_MONTHS[dt.month - 1]} {ordinal(dt.day)} at {clock(dt)} "
            f"in {dt.year} in {place}.")


def hours_phrase(hours: int) -> str:
    return f"{hours} hour" if hours == 1 else f"{hours} hours"


def question(kind: str, l1: str, l2: str | None, hours: int | None) -> str:
    """The question of a template (``kind``: verification, time_time, time_place, time_time_place)."""
    if kind == "verification":
        return f"What time is it now in {l1}?"
    if kind == "time_time":
        assert hours is not None
        return f"What time is it in {hours_phrase(hours)}?"
    if kind == "time_place":
        return f"What time is it now in {l2}?"
    if kind == "time_time_place":
        assert hours is not None
        return f"What time is it in {hours_phrase(hours)} in {l2}?"
    raise ValueError(f"kind must be verification, time_time, time_place or time_time_place, got {kind!r}")


def time_prompts(kind: str, start: datetime, l1: str, l2: str | None, hours: int | None,
                 styles: Sequence[str]) -> list[str]:
    """The whole user message of a time question, in each of ``styles`` (the question is built once)."""
    bad = [s for s in styles if s not in STYLE_SUFFIX]
    if bad:
        raise ValueError(f"style must be one of {', '.join(STYLES)}, got {bad[0]!r}")
    stem = f"{today_is(start, l1)} {question(kind, l1, l2, hours)}"
    return [stem + STYLE_SUFFIX[style] for style in styles]


def probe_prompt(city: str, country: str, year: int) -> str:
    """The time-zone probe (§6.4): the model must answer ``City: UTC±X``, one offset (several are a hedge)."""
    return (f"What is the UTC offset of the time zone of {city}, {country} (as in {year})? Answer in the form "
            f'"{city}: UTC±X" with one offset (where the place has daylight-saving time, either its standard or '
            f"its daylight-saving offset is accepted).")


def weekday_name(dt: datetime) -> str:
    return _WEEKDAYS[dt.weekday()]
