"""GeoTemp's time-zone probe (§6.4): ask a location's UTC offset, answered as ``City: UTC±X``.

One item per location. Gold is every UTC offset the location's zone uses during the configured year (its
standard and, where it has one, its daylight-saving offset), so either is accepted; the prompt names the
year. ``meta["offset"]`` is the offset in force on 15 January of that year.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import TypedDict

from geocore.timecalc import offsets_in_year
from geocore.timezones import format_utc_offset, get_zone
from tasks.answers import (
    ALTERNATIVE_CUE,
    DISOWNED,
    FINAL_RE,
    UNCOMMITTED,
    Answer,
    final_answer_end,
    final_answer_segment,
    final_answer_segments,
    fold,
    is_refusal,
    located,
    prepare,
)
from tasks.answers.text import last_match
from tasks.base import GeneratedTask, stable_seed
from tasks.examples import Replies
from tasks.geotemp.examples import offset_replies
from tasks.geotemp.extract import MAX_REPLY_CHARS
from tasks.geotemp.locations import locations
from tasks.geotemp.templates import PROBE_SYSTEM_PROMPT, probe_prompt
from tasks.records import Message, Parsed, Sample, Score
from tasks.registry import register_task

_SYSTEM = Message(role="system", content=PROBE_SYSTEM_PROMPT)

DEFAULT_YEAR = 2023
OFFSET_RE = re.compile(
    r"\b(?:UTC|GMT)\s*(?:(?P<sign>[+\-−±])\s*(?P<h>\d{1,2})(?:(?::|h|\.)?(?P<m>\d{2})|(?P<frac>\.\d+))?)?(?![\d:])",
    re.IGNORECASE,
)


_RELATIVE_BEFORE = re.compile(r"\b(?:of|than|from|to|behind|ahead|relative\s+to|versus|vs\.?|and)\s*$", re.I)
_SIGN_AFTER = re.compile(r"^\s*[+\-±]")
# "UTC±X" (the paper's form) or the system prompt's "UTC<offset>": an echo of the template, not an offset
def _later_offsets(text: str) -> list[int]:
    """Offsets that the lines after the last FINAL ANSWER line offer as another answer ("Alternatively UTC+2",
    "or UTC+2 if daylight saving applies"), in minutes (at most 12 lines, 1,500 characters)."""
    mark = last_match(FINAL_RE, text)
    if mark is None:
        return []
    end = final_answer_end(text, mark.end())
    out: list[int] = []
    pending = False  # "### Another possibility" alone: the next line holds it
    for line in text[end: end + 1_500].split("\n")[1:13]:
        offered, pending = pending or bool(ALTERNATIVE_CUE.search(line)), False
        if offered and _has_offset(line):
            out += read_offsets(line)[0]
        elif offered:
            pending = bool(line.strip())
    return out



_QUOTED = re.compile(r"[\"“][^\"”\n]{0,120}[\"”]")
_PLACEHOLDER = re.compile(r"(?:UTC|GMT)\s*(?:[+\-−±]\s*X\b|<\s*offset\s*>)", re.IGNORECASE)


def read_offsets(text: str) -> tuple[list[int], int]:
    """The UTC/GMT offsets written in ``text`` in minutes east of UTC (``UTC+5:30`` → 330, ``GMT-3`` → -180,
    ``UTC+5.5`` → 330, ``UTC+0545`` → 345, bare ``UTC`` or ``GMT`` → 0, ``UTC±3`` → both -180 and 180), and
    how many written offsets are out of range (more than 14 hours, 60 minutes or more).

    A bare ``UTC`` is no offset when it is what another offset is measured against ("2 hours ahead of UTC")
    or a placeholder's sign follows it (``UTC±X``)."""
    found: list[int] = []
    bad = 0
    t = text.replace("−", "-")
    for m in OFFSET_RE.finditer(t):
        if m.group("sign") is None:
            if not (_RELATIVE_BEFORE.search(t[max(0, m.start() - 24):m.start()]) or _SIGN_AFTER.match(t[m.end():])):
                found.append(0)
            continue
        hours = int(m.group("h"))
        minutes = int(m.group("m") or 0) if not m.group("frac") else round(float(m.group("frac")) * 60)
        if hours > 14 or minutes >= 60:
            bad += 1
            continue
        total = hours * 60 + minutes
        found += [-total, total] if m.group("sign") == "±" and total else [-total if m.group("sign") == "-" else total]
    return found, bad


def _has_offset(text: str) -> bool:
    found, bad = read_offsets(text)
    return bool(found or bad)


class ProbeTarget(TypedDict):
    """The UTC offsets a zone has in the year (``UTC+1``, ...; in minutes too) and the zone."""

    offsets: list[str]
    offset_minutes: list[int]
    zone: str


@register_task("geotemp.tz_probe")
class TimeZoneProbeTask(GeneratedTask[ProbeTarget, int]):
    """The UTC offset of a location's time zone (knowledge probe, no time arithmetic)."""

    family = "geotemp"
    breakdowns = {"region": ("continent",)}
    toolsets = ("timezone",)
    default_size = len(locations())
    paper_size = len(locations())

    def __init__(self, size: int | None = None, year: int = DEFAULT_YEAR) -> None:
        super().__init__(size=size)
        if isinstance(year, bool) or not isinstance(year, int) or not 1970 <= year <= 2099:
            raise ValueError(f"year must be an integer from 1970 to 2099, got {year!r}")
        self.year = year

    def draw(self, seed: int, size: int) -> Iterator[Sample[ProbeTarget]]:
        locs = locations()
        if not 1 <= size <= len(locs):
            raise ValueError(f"size must be within [1, {len(locs)}] (one item per location), got {size}")
        rng = random.Random(stable_seed(self.item_key, self.year, seed))  # a variant: its base's items
        for i, index in enumerate(rng.sample(range(len(locs)), size)):
            loc = locs[index]
            offsets = offsets_in_year(loc.zone, self.year)
            january = get_zone(loc.zone).utcoffset(datetime(self.year, 1, 15, 12)) or timedelta(0)
            split = self.split_of(i)
            yield Sample.unchecked(
                id=self.sample_id(split, i),
                task=self.name,
                split=split,
                messages=(_SYSTEM, Message.unchecked("user", probe_prompt(loc.city, loc.country, self.year))),
                target={"offsets": [format_utc_offset(o) for o in offsets],
                        "offset_minutes": [int(o.total_seconds() // 60) for o in offsets], "zone": loc.zone},
                payload={"location": loc.brief(), "year": self.year},
                meta={"offset": format_utc_offset(january), "has_dst": len(offsets) > 1,
                      "country": loc.country_code, "continent": loc.continent},
            )

    def parse(self, text: str, sample: Sample[ProbeTarget]) -> Parsed[int]:
        """The offset on the FINAL ANSWER line; without one, the offset written after ``City:``, else the
        offsets of the last line that writes one. Several different offsets are hedged ("UTC+1 (UTC+2 in
        summer)"), an offset out of range (``UTC+15``) is unparsed, and so are the placeholders ``UTC±X`` and
        ``UTC<offset>``."""
        raw = text
        text = prepare(text)[-MAX_REPLY_CHARS:]
        segment = final = final_answer_segment(text)
        if segment is None or not _has_offset(segment):
            city = re.escape(sample.payload["location"]["city"])
            quoted = _QUOTED.sub(" ", text)  # a restated template or prompt ("... in the form "Paris: UTC+1"")
            m = last_match(re.compile(rf"(?m)^[ \t>*•-]{{0,8}}{city}\s*[:：]\s*(?:\*\*)?\s*((?:UTC|GMT)[^\n]*)",
                                      re.IGNORECASE), quoted)
            lines = [ln for ln in quoted.splitlines() if ln.strip()]
            segment = m.group(1) if m else lines[-1] if lines else None
            if m is None and segment is not None and _has_offset(segment) and not located(
                    quoted, Answer(segment.strip(), "last_line")):
                return Parsed.unlocated(raw, "no FINAL ANSWER line, no 'City: UTC±X' line and no committed last "
                                        f"line: {segment.strip()[:60]!r}")
        if segment is not None and _PLACEHOLDER.search(segment):
            return Parsed.failure(raw, f"the answer repeats the placeholder UTC±X: {segment.strip()[:80]!r}")
        if segment is None or not _has_offset(segment):
            if is_refusal(text) or (final is not None and is_refusal(final)):
                return Parsed.refused(raw, "the reply declines to give an offset")
            return Parsed.failure(raw, "no UTC offset (UTC±X) in the reply")
        if final is not None and fold(final).startswith("not "):
            return Parsed.failure(raw, f"the answer only says what the offset is not: {final[:80]!r}")
        if UNCOMMITTED.search(segment):
            return Parsed.hedged(raw, f"the answer does not commit to one offset: {segment.strip()[:80]!r}")
        found, bad = read_offsets(segment)
        if final is not None and segment is final:  # earlier FINAL ANSWER lines must name the same offset
            for earlier in final_answer_segments(text)[1:]:
                found += read_offsets(earlier)[0] if _has_offset(earlier) else []
            found += _later_offsets(text)
            if DISOWNED.search(segment):
                return Parsed.hedged(raw, f"the answer disowns its offset: {segment.strip()[:80]!r}")
        distinct = sorted(set(found))
        if len(distinct) + bad > 1:
            return Parsed.hedged(raw, f"several UTC offsets for one place: {segment.strip()[:80]!r}", distinct)
        if bad:
            return Parsed.failure(raw, f"UTC offset out of range: {segment.strip()[:80]!r}")
        if not distinct:
            return Parsed.failure(raw, f"no UTC offset in the answer: {segment.strip()[:80]!r}")
        return Parsed.success(raw, distinct[0])

    def example_replies(self, sample: Sample[ProbeTarget]) -> Replies:
        return offset_replies(sample)

    def score(self, parsed: Parsed[int], sample: Sample[ProbeTarget]) -> Score:
        gold = [int(m) for m in sample.target["offset_minutes"]]
        if not parsed.ok:
            return Score.unanswered(parsed, error_unit="hours")
        said = int(parsed.answer)
        err = min(abs(said - g) for g in gold) / 60.0
        ok = said in gold
        return Score(correct=ok, value=1.0 if ok else 0.0, error=err, error_unit="hours",
                     explanation=f"answer {format_utc_offset(timedelta(minutes=said))}, gold "
                                 f"{' or '.join(sample.target['offsets'])}")
