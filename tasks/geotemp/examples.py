"""The example replies of GeoTemp's answers (:mod:`tasks.examples`): a clock time with its date, and a city's UTC
offset."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from tasks.examples import Example, Replies, placeholder
from tasks.records import Sample

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def clock_line(dt: datetime) -> str:
    hour = dt.hour % 12 or 12
    return (f"{hour:02d}:{dt.minute:02d} {'AM' if dt.hour < 12 else 'PM'}, {dt.strftime('%A')}, "
            f"{MONTHS[dt.month - 1]} {dt.day}, {dt.year}")


def clock_only(dt: datetime) -> str:
    hour = dt.hour % 12 or 12
    return f"{hour:02d}:{dt.minute:02d} {'AM' if dt.hour < 12 else 'PM'}"


def time_replies(sample: Sample[Any]) -> Replies:
    """The gold time and date in the prompt's form; the wrong one three hours later."""
    dt = datetime.fromisoformat(sample.target["datetime"])
    w1, w2 = dt + timedelta(hours=1), dt + timedelta(hours=2)
    return Replies(clock_line(dt), clock_line(dt + timedelta(hours=3)),
                   [clock_line(dt), clock_line(w1), clock_line(w2)], seps=("; ", " or "), extra=[
        Example("times_listed", f"FINAL ANSWER: {clock_only(dt)}, {clock_only(w1)} or {clock_only(w2)}", "hedged",
                False),
        Example("dst_alternative", f"FINAL ANSWER: {clock_only(dt)} (or {clock_only(w1)} if DST applies)", "hedged",
                False),
        Example("time_range", f"FINAL ANSWER: between {clock_only(dt)} and {clock_only(w1)}", "hedged", False),
        Example("template_echo", "FINAL ANSWER: hh:mm AM/PM, Weekday, Month Day, Year", "unparsed", False),
    ])


def offset(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    h, mm = divmod(abs(minutes), 60)
    return f"UTC{sign}{h}" + (f":{mm:02d}" if mm else "")


def offset_replies(sample: Sample[Any]) -> Replies:
    """``City: UTC+h`` as the prompt asks; the wrong offset three hours off."""
    m = re.search(r'form "(.+?): UTC', sample.prompt)
    city = m.group(1) if m else "City"
    minutes = [int(x) for x in sample.target["offset_minutes"]]
    wrong = minutes[0] + 180 if minutes[0] <= 600 else minutes[0] - 180
    others = [m_ for m_ in (minutes[0] + 60, minutes[0] - 60) if m_ not in minutes]
    return Replies(f"{city}: {offset(minutes[0])}", f"{city}: {offset(wrong)}",
                   [f"{city}: {offset(minutes[0])}", *(f"{city}: {offset(x)}" for x in others)], seps=("; ", " or "),
                   labelled=True, extra=[
        Example("offsets_or", f"FINAL ANSWER: {city}: {offset(minutes[0])} or {offset(others[0])}", "hedged", False),
        Example("system_template_echo", "FINAL ANSWER: " + (placeholder(sample.messages[0].content) or "City: UTC+X"),
                "unparsed", False),
    ])
