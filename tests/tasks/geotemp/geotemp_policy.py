"""A perfect tool user for GeoTemp prompts: reads the prompt, plans timezone tool calls, answers from results.

Used by the tool-ceiling tests (direct tool calls), the scripted agent loop and the compare CLI test.
"""

from __future__ import annotations

import json
import re
from typing import Any

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
TIME_RE = re.compile(
    r"Today is \w+, (?P<month>\w+) (?P<day>\d+)\w\w at (?P<clock>\d\d:\d\d [AP]M) in (?P<year>\d{4}) in "
    r"(?P<p1>.+?)\. What time is it(?: now)?(?: in (?P<hours>\d+) hours?)?(?: in (?P<p2>.+?))?\?"
)
PROBE_RE = re.compile(r"time zone of (?P<city>[^,]+), (?P<country>.+?) \(as in (?P<year>\d{4})\)\?")


def place_arg(text: str) -> str:
    """The tool argument for a place as the prompt names it (city, city with an injected offset, or offset)."""
    m = re.fullmatch(r"the (UTC[+-]\d+(?::\d\d)?) time zone", text)
    if m:
        return m.group(1)
    return re.sub(r"\s*\(time zone UTC[^)]*\)$", "", text)


def plan(prompt: str) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls that answer a GeoTemp prompt; the last one's result holds the answer."""
    m = PROBE_RE.search(prompt)
    if m:
        return [("city_timezone", {"city": m.group("city"), "country": m.group("country")})]
    m = TIME_RE.search(prompt)
    if not m:
        raise AssertionError(f"not a GeoTemp prompt: {prompt!r}")
    month = MONTHS.index(m.group("month")) + 1
    start = f"{m.group('year')}-{month:02d}-{int(m.group('day')):02d} {m.group('clock')}"
    p1 = place_arg(m.group("p1"))
    p2 = place_arg(m.group("p2")) if m.group("p2") else None
    if m.group("hours"):
        args: dict[str, Any] = {"local_time": start, "place": p1, "hours": int(m.group("hours"))}
        if p2:
            args["to_place"] = p2
        return [("add_duration", args)]
    return [("convert_time", {"local_time": start, "from_place": p1, "to_place": p2 or p1})]


def follow_up(prompt: str, result: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A second call after city_timezone for the probe: the offset in force in mid-January of the year."""
    m = PROBE_RE.search(prompt)
    if m and "zone" in result and "utc_offset" not in result:
        return ("utc_offset", {"place": result["zone"], "local_time": f"{m.group('year')}-01-15 12:00"})
    return None


def final_text(prompt: str, result: dict[str, Any]) -> str:
    """The FINAL ANSWER line from the last tool result."""
    m = PROBE_RE.search(prompt)
    if m:
        return f"FINAL ANSWER: {m.group('city')}: {result['utc_offset']}"
    return f"The tool says {result['local_time']}.\nFINAL ANSWER: {result['time_12h']}, {result['date']}"


def run_tools(prompt: str, tools: dict[str, Any]) -> tuple[str, list[tuple[str, dict[str, Any]]], dict[str, Any]]:
    """Execute the plan with real tools (``tool.invoke``); return the final text, the calls made and the last
    tool result (the one the answer is read from)."""
    calls = list(plan(prompt))
    result = json.loads(tools[calls[0][0]].invoke(calls[0][1]))
    more = follow_up(prompt, result)
    if more:
        calls.append(more)
        result = json.loads(tools[more[0]].invoke(more[1]))
    return final_text(prompt, result), calls, result
