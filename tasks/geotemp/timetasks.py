"""GeoTemp's four time templates (Verification, TimeTime, TimePlace, TimeTimePlace) and the two
knowledge-injection variants of TimeTimePlace (§7).

Each item is an ordered pair (l1, l2) of distinct locations drawn without replacement from the full
l1 × l2 grid (§3.1 step 3: every template is applied to every pair, so ``size`` reaches the grid), a local
start time at l1 drawn uniformly at minute resolution within the configured year (times that a clock change
skips or repeats are drawn again: they name no single instant), and for the "in x hours" templates x from 1
to 9 hours. Item i gets instruction style ``styles[i % len(styles)]``.

Gold comes from the IANA database through ``zoneinfo`` (tzdata package): "in x hours" is elapsed time, so
a daylight-saving change inside the interval moves the clock by x ± 1 hours; ``meta["crosses_transition"]``
marks those items. Variants share the base template's items (same seed stream), so answers pair up by id.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from typing import Any, ClassVar

from geocore.timecalc import is_dst
from geocore.timezones import AmbiguousTimeError, NonexistentTimeError, format_utc_offset, get_zone, localize
from tasks.base import GeneratedTask, gc_paused, shared_stream, stable_seed
from tasks.examples import Replies
from tasks.geotemp.examples import time_replies
from tasks.geotemp.extract import extract_time_answer
from tasks.geotemp.judge import DatetimeGold, judge_time
from tasks.geotemp.locations import Location, pair, pair_count
from tasks.geotemp.styles import ALL_STYLES
from tasks.geotemp.templates import STYLES, TIME_SYSTEM_PROMPT, clock, time_prompts, weekday_name
from tasks.records import SPLITS, GoldCall, Message, Parsed, Sample, Score, Split
from tasks.registry import Variant, register_task

DEFAULT_YEAR = 2023
_SYSTEM = Message(role="system", content=TIME_SYSTEM_PROMPT)
MIN_HOURS, MAX_HOURS = 1, 9


def random_local_start(rng: random.Random, zone: str, year: int) -> datetime:
    """An aware local time in ``zone``, uniform over the minutes of ``year``'s local calendar, never inside a
    DST gap or fold."""
    days = (date(year + 1, 1, 1) - date(year, 1, 1)).days
    while True:
        naive = datetime(year, 1, 1) + timedelta(days=rng.randrange(days), minutes=rng.randrange(1440))
        try:
            return localize(naive, zone)
        except (NonexistentTimeError, AmbiguousTimeError):  # skipped or repeated by a clock change
            continue


@cache
def _offset_text(off: timedelta) -> str:
    return format_utc_offset(off)


def offset_text(dt: datetime) -> str:
    """``UTC+5:30`` style offset of an aware datetime."""
    off = dt.utcoffset()
    assert off is not None
    return _offset_text(off)


def iso_minute(dt: datetime) -> str:
    """``2023-06-19T10:34`` (faster than strftime, which dominates generation time)."""
    return dt.isoformat(timespec="minutes")[:16]


class TimeGold(DatetimeGold):
    """The gold of a time question (besides ``datetime``): its time, clock, date and weekday, the day shift from
    the start date and the zone's offset then."""

    time: str
    clock: str
    date: str
    weekday: str
    day_shift: int
    utc_offset: str


class TimeTarget(TimeGold):
    """A time question's gold and the IANA zone of the place asked about."""

    zone: str


def gold_target(target: datetime, start: datetime) -> TimeGold:
    """The typed gold of a time question: the local target time, its date and weekday, its day shift from the
    start date, and the zone's offset then."""
    stamp = iso_minute(target)
    return {
        "datetime": stamp,
        "time": stamp[11:],
        "clock": clock(target),
        "date": stamp[:10],
        "weekday": weekday_name(target),
        "day_shift": (target.date() - start.date()).days,
        "utc_offset": offset_text(target),
    }


def asked_place(payload: dict[str, Any]) -> str | None:
    """``City, Country`` of the place the question asks about (None when cities are replaced by offsets)."""
    if payload.get("variant") == "replace_city":
        return None
    loc = payload.get("l2") or payload["l1"]
    return f"{loc['city']}, {loc['country']}"


@dataclass(frozen=True, slots=True)
class TimeItem:
    """One drawn item of a template: index, places, local start time at l1 and x hours (or None), with what
    every variant renders from it, computed once: the gold, the offsets and the DST breakdown."""

    index: int
    l1: Location
    l2: Location
    start: datetime
    hours: int | None
    gold: TimeTarget
    start_iso: str
    start_offset: str
    target_offset: str
    offset_diff_hours: float
    dst_l1: bool
    dst_target: bool
    crosses_transition: bool


def time_item(index: int, l1: Location, l2: Location, start: datetime, hours: int | None, uses_l2: bool) -> TimeItem:
    """The item and its facts: the asked place is l2 (``uses_l2``) or l1, the asked time ``hours`` after
    ``start`` (elapsed time)."""
    target_place = l2 if uses_l2 else l1
    tz = get_zone(target_place.zone)
    target = (start.astimezone(UTC) + timedelta(hours=hours or 0)).astimezone(tz)
    diff = (target.utcoffset() or timedelta(0)) - (start.utcoffset() or timedelta(0))
    return TimeItem(
        index, l1, l2, start, hours,
        gold={**gold_target(target, start), "zone": target_place.zone},
        start_iso=iso_minute(start),
        start_offset=offset_text(start),
        target_offset=offset_text(target),
        offset_diff_hours=diff.total_seconds() / 3600.0,
        dst_l1=is_dst(start),
        dst_target=is_dst(target),
        crosses_transition=start.astimezone(tz).utcoffset() != target.utcoffset(),
    )


class GeoTempTimeTask(GeneratedTask[TimeTarget, dict[str, Any]]):
    """Shared generator, parser and scorer of the four time templates."""

    family = "geotemp"
    breakdowns = {"region": ("continent_l1",), "style": ("style",)}
    toolsets = ("timezone",)
    answer_kind = "time"
    default_size = 300
    paper_size = pair_count()
    kind: ClassVar[str]
    variant: ClassVar[str] = "plain"
    """How the prompt names the places: ``plain`` (cities), ``inject_tz`` (each city with its UTC offset) or
    ``replace_city`` (offsets alone); the knowledge-injection variants of §7 set it."""
    all_styles: ClassVar[bool] = False
    """Each item in every style (the ``.styles`` variant, :mod:`tasks.geotemp.styles`)."""
    uses_hours: ClassVar[bool] = False
    uses_l2: ClassVar[bool] = False

    def __init__(self, size: int | None = None, year: int = DEFAULT_YEAR, styles: Sequence[str] = STYLES) -> None:
        super().__init__(size=size)
        if isinstance(year, bool) or not isinstance(year, int) or not 1970 <= year <= 2099:
            raise ValueError(f"year must be an integer from 1970 to 2099, got {year!r}")
        bad = [s for s in styles if s not in STYLES]
        if not styles or bad:
            raise ValueError(f"styles must be a non-empty subset of {STYLES}, got {tuple(styles)!r}")
        self.year = year
        self.styles = tuple(styles)

    def _place_texts(self, item: TimeItem) -> tuple[str, str]:
        if self.variant == "inject_tz":  # l1's offset at the start time, l2's at the asked time
            return (f"{item.l1.label} (time zone {item.start_offset})",
                    f"{item.l2.label} (time zone {item.target_offset})")
        if self.variant == "replace_city":
            return f"the {item.start_offset} time zone", f"the {item.target_offset} time zone"
        return item.l1.label, item.l2.label

    def items(self, seed: int, size: int) -> Iterator[TimeItem]:
        """The drawn items in order. Drawn once per process and shared by the template's variants
        (:func:`tasks.base.shared_stream`); items are drawn in sequence from one stream, so a limited run draws
        the items up to the last one it returns."""
        grid = pair_count()
        if not 1 <= size <= grid:
            raise ValueError(f"size must be within [1, {grid}] (the l1 × l2 grid), got {size}")
        stream = shared_stream(("geotemp", self.kind, self.year, seed, size))
        return stream.replay(lambda: self._draw(seed, size))

    def _draw(self, seed: int, size: int) -> Iterator[TimeItem]:
        rng = random.Random(stable_seed("geotemp", self.kind, self.year, seed))
        picks = rng.sample(range(pair_count()), size)
        for i, index in enumerate(picks):
            l1, l2 = pair(index)
            start = random_local_start(rng, l1.zone, self.year)
            hours = rng.randint(MIN_HOURS, MAX_HOURS) if self.uses_hours else None
            yield time_item(i, l1, l2, start, hours, self.uses_l2)

    def draw(self, seed: int, size: int) -> Iterator[Sample[TimeTarget]]:
        for item in self.items(seed, size):
            yield from self._item_samples(item)

    @gc_paused()
    def samples(self, *, split: Split = "test", limit: int | None = None, seed: int = 42) -> list[Sample[TimeTarget]]:
        """The split's samples; ``limit`` counts items (a ``.styles`` item gives one sample per style, so a
        limited run holds whole items, as the per-item majority vote needs). Items come from one stream, so
        drawing stops after the last item returned: a limited run at paper size starts at once."""
        if split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        out: list[Sample[TimeTarget]] = []
        taken = 0
        for item in self.items(seed, self.size):
            if limit is not None and taken >= limit:
                break
            if self.split_of(item.index) == split:
                out += self._item_samples(item)
                taken += 1
        return out

    def _item_samples(self, item: TimeItem) -> list[Sample[TimeTarget]]:
        """The item in every style with styled ids (the ``.styles`` variant), else in style ``index mod n``."""
        if self.all_styles:
            return self.samples_of(item, self.styles, styled_ids=True)
        return self.samples_of(item, (self.styles[item.index % len(self.styles)],))

    def samples_of(self, item: TimeItem, styles: Sequence[str], *, styled_ids: bool = False) -> list[Sample[TimeTarget]]:
        """The item in each of ``styles``. Ids ``<name>/<split>/<index>``, or with ``styled_ids``
        ``<name>[<style>]/<split>/<index>`` and ``meta["item"]`` the plain id. The samples of an item share its
        gold and location dicts (samples are frozen and never change them): 1.8 million at paper size."""
        i, l1, l2 = item.index, item.l1, item.l2
        uses_l2 = self.uses_l2
        p1, p2 = self._place_texts(item)
        split = self.split_of(i)
        plain_id = self.sample_id(split, i)
        variant, gold = self.variant, item.gold
        l1_brief, l2_brief = l1.brief(), l2.brief() if uses_l2 else None
        place_texts = [p1, p2] if uses_l2 else [p1]
        l2_meta = {"country_l2": l2.country_code, "continent_l2": l2.continent} if uses_l2 else {}
        item_meta = {"item": plain_id} if styled_ids else {}
        out = []
        prompts = time_prompts(self.kind, item.start, p1, p2 if uses_l2 else None, item.hours, styles)
        for style, prompt in zip(styles, prompts, strict=True):
            out.append(Sample.unchecked(
                id=f"{self.name}[{style}]/{split}/{i:05d}" if styled_ids else plain_id,
                task=self.name,
                split=split,
                messages=(_SYSTEM, Message.unchecked("user", prompt)),
                target=gold,
                payload={"template": self.kind, "variant": variant, "style": style, "year": self.year,
                         "start": item.start_iso, "start_utc_offset": item.start_offset, "hours": item.hours,
                         "l1": l1_brief, "l2": l2_brief, "place_texts": place_texts},
                meta={"style": style, "variant": variant, "offset": item.target_offset,
                      "offset_l1": item.start_offset, "offset_diff_hours": item.offset_diff_hours,
                      "day_shift": gold["day_shift"], "dst_l1": item.dst_l1, "dst_target": item.dst_target,
                      "crosses_transition": item.crosses_transition, "country_l1": l1.country_code,
                      "continent_l1": l1.continent, **l2_meta, **item_meta},
            ))
        return out

    def gold_call(self, sample: Sample[TimeTarget]) -> GoldCall | None:
        """The ``timezone`` tool over the generator's IANA computation: ``convert_time`` (l1 to l2),
        ``add_duration`` (hours later, read at l2 or l1) or, for verification, ``convert_time`` within l1.
        None when cities are replaced by offsets."""
        p = sample.payload
        if p.get("variant") == "replace_city":
            return None
        here = f"{p['l1']['city']}, {p['l1']['country']}"
        there = f"{p['l2']['city']}, {p['l2']['country']}" if p.get("l2") else here
        start = str(p["start"]).replace("T", " ")
        gold = str(sample.target["datetime"]).replace("T", " ")
        if p.get("hours") is None:
            return GoldCall(tools=("convert_time",), args={"local_time": start, "from_place": here, "to_place": there},
                            result_key="local_time", gold=gold, generic=("python",))
        return GoldCall(tools=("add_duration",), args={"local_time": start, "place": here, "hours": p["hours"],
                        "to_place": there}, result_key="local_time", gold=gold, generic=("python",))

    def parse(self, text: str, sample: Sample[TimeTarget]) -> Parsed[dict[str, Any]]:
        """The time (and any date, weekday or relative day beside it) the reply gives as its answer: the
        FINAL ANSWER line when it holds a time, else the concluding time of the free text; several candidate
        times are hedged (``tasks.geotemp.extract``)."""
        found = extract_time_answer(text, utc_target=sample.target.get("utc_offset") == "UTC+0",
                                    place=asked_place(sample.payload))
        return found.parsed(text)

    def score(self, parsed: Parsed[dict[str, Any]], sample: Sample[TimeTarget]) -> Score:
        return judge_time(parsed, sample.target, sample.payload["start"])

    def example_replies(self, sample: Sample[TimeTarget]) -> Replies:
        return time_replies(sample)


@register_task("geotemp.verification", variants=(ALL_STYLES,))
class VerificationTask(GeoTempTimeTask):
    """Verification: the time now at l1, as the prompt gave it."""

    kind = "verification"


@register_task("geotemp.time_time", variants=(ALL_STYLES,))
class TimeTimeTask(GeoTempTimeTask):
    """TimeTime: the time at l1 in x hours (temporal reasoning only)."""

    kind = "time_time"
    uses_hours = True


@register_task("geotemp.time_place", variants=(ALL_STYLES,))
class TimePlaceTask(GeoTempTimeTask):
    """TimePlace: the time now at l2 (needs both zones)."""

    kind = "time_place"
    uses_l2 = True


@register_task("geotemp.time_time_place", variants=(
    Variant("inject_tz", {"variant": "inject_tz"}, 'Each city with its UTC offset beside it ("add time zone", §7).'),
    Variant("replace_city", {"variant": "replace_city"}, 'Each city replaced by its UTC offset ("replace by time '
                                                           'zone", §7).'),
    ALL_STYLES,
))
class TimeTimePlaceTask(GeoTempTimeTask):
    """TimeTimePlace: the time at l2 in x hours."""

    kind = "time_time_place"
    uses_hours = True
    uses_l2 = True
