"""GeoTemp generation: every gold recomputed with pytz (properly localised), prompts, determinism, splits."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest
from geotemp_oracle import pytz_gold, pytz_offsets

from tasks.geotemp.locations import locations, pair_count
from tasks.geotemp.probe import TimeZoneProbeTask
from tasks.geotemp.templates import STYLE_SUFFIX, ordinal
from tasks.geotemp.timetasks import (
    GeoTempTimeTask,
    TimePlaceTask,
    TimeTimePlaceTask,
    TimeTimeTask,
    VerificationTask,
)
from tasks.registry import TASKS

TimeTimePlaceInjectTzTask = TASKS.get("geotemp.time_time_place.inject_tz")
TimeTimePlaceReplaceCityTask = TASKS.get("geotemp.time_time_place.replace_city")
TIME_TASKS = [VerificationTask, TimeTimeTask, TimePlaceTask, TimeTimePlaceTask, TimeTimePlaceInjectTzTask,
              TimeTimePlaceReplaceCityTask]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def _offset(td: timedelta) -> str:
    minutes = int(td.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    h, m = divmod(abs(minutes), 60)
    return f"UTC{sign}{h}" + (f":{m:02d}" if m else "")


@pytest.mark.parametrize("cls", TIME_TASKS)
def test_every_gold_matches_pytz(cls: type[GeoTempTimeTask]) -> None:
    task = cls(size=600)
    for s in task.generate(seed=11, size=600):
        start, target, off1, off2 = pytz_gold(s)
        assert s.target["datetime"] == target.strftime("%Y-%m-%dT%H:%M"), s.prompt
        assert s.target["weekday"] == target.strftime("%A")
        assert s.target["utc_offset"] == _offset(off2) == s.meta["offset"]
        assert s.target["day_shift"] == (target.date() - start.date()).days
        assert s.payload["start_utc_offset"] == _offset(off1)
        assert start.year == task.year


def test_large_time_time_place_set_matches_pytz_including_dst_crossings() -> None:
    samples = TimeTimePlaceTask(size=6000).generate(seed=5, size=6000)
    crossing = 0
    for s in samples:
        _, target, _, _ = pytz_gold(s)
        assert s.target["datetime"] == target.strftime("%Y-%m-%dT%H:%M")
        crossing += s.meta["crosses_transition"]
    assert crossing > 0  # elapsed-time gold across clock changes is exercised


@pytest.mark.parametrize("cls", TIME_TASKS)
def test_prompt_states_the_inputs_the_gold_was_computed_from(cls: type[GeoTempTimeTask]) -> None:
    for s in cls().samples(limit=60):
        start = datetime.fromisoformat(s.payload["start"])
        hour = start.hour % 12 or 12
        when = (f"Today is {start:%A}, {MONTHS[start.month - 1]} {ordinal(start.day)} at {hour:02d}:"
                f"{start.minute:02d} {'AM' if start.hour < 12 else 'PM'} in {start.year} in ")
        assert s.prompt.startswith(when)
        assert s.prompt.endswith("?" + STYLE_SUFFIX[s.meta["style"]])
        assert s.messages[0].role == "system" and "FINAL ANSWER" in s.messages[0].content
        hours = s.payload["hours"]
        if hours is not None:
            assert f" in {hours} hour{'s' if hours != 1 else ''}" in s.prompt
        l1, l2 = s.payload["l1"], s.payload["l2"]
        variant = s.payload["variant"]
        if variant == "replace_city":
            assert l1["city"] not in s.prompt and f"in the {s.payload['start_utc_offset']} time zone." in s.prompt
            assert s.prompt.count(f"the {s.target['utc_offset']} time zone") >= 1
        else:
            assert f"{l1['city']}, {l1['country']}" in s.prompt
            if l2:
                assert f"{l2['city']}, {l2['country']}" in s.prompt
        if variant == "inject_tz":
            assert f"(time zone {s.payload['start_utc_offset']})." in s.prompt
            assert f"(time zone {s.target['utc_offset']})?" in s.prompt


def test_variants_share_items_with_the_base_template() -> None:
    base = TimeTimePlaceTask().samples(limit=30)
    for cls in (TimeTimePlaceInjectTzTask, TimeTimePlaceReplaceCityTask):
        other = cls().samples(limit=30)
        assert [s.id.split("/", 1)[1] for s in other] == [s.id.split("/", 1)[1] for s in base]
        assert [s.target for s in other] == [s.target for s in base]
        assert [(s.payload["l1"], s.payload["l2"], s.payload["start"], s.payload["hours"]) for s in other] == [
            (s.payload["l1"], s.payload["l2"], s.payload["start"], s.payload["hours"]) for s in base]


def test_deterministic_splits_styles_and_distinct_pairs() -> None:
    task = TimePlaceTask(size=300)
    a, b = task.generate(7, 300), task.generate(7, 300)
    assert a == b and a != task.generate(8, 300)
    assert Counter(s.split for s in a) == {"train": 180, "dev": 30, "test": 90}
    assert Counter(s.meta["style"] for s in a) == {"neutral": 100, "cot": 100, "short": 100}
    assert len({(s.payload["l1"]["zone"], s.payload["l2"]["zone"]) for s in a}) == 300
    assert all(s.payload["l1"] != s.payload["l2"] for s in a)
    assert len({s.id for s in a}) == 300 and a[0].id == "geotemp.time_place/train/00000"


def test_sizes_and_options() -> None:
    assert TimeTimePlaceTask.paper_size == pair_count()
    with pytest.raises(ValueError, match="size must be within"):
        TimeTimeTask().generate(1, pair_count() + 1)
    with pytest.raises(ValueError, match="styles"):
        TimeTimeTask(styles=("loud",))
    with pytest.raises(ValueError, match="year"):
        TimeTimeTask(year=1800)
    leap = TimePlaceTask(size=40, year=2024, styles=("short",))
    samples = leap.generate(1, 40)
    assert {s.meta["style"] for s in samples} == {"short"}
    assert all(s.payload["start"].startswith("2024-") for s in samples)
    for s in samples:
        assert s.target["datetime"] == pytz_gold(s)[1].strftime("%Y-%m-%dT%H:%M")


def test_probe_gold_is_every_offset_of_the_year_per_pytz() -> None:
    task = TimeZoneProbeTask()
    samples = task.samples(split="train", limit=200) + task.samples(split="test")
    assert len({s.payload["location"]["zone"] for s in samples}) == len(samples)
    for s in samples:
        want = sorted(int(o.total_seconds() // 60) for o in pytz_offsets(s.target["zone"], 2023))
        assert s.target["offset_minutes"] == want
        assert s.meta["offset"] in s.target["offsets"]
        loc = s.payload["location"]
        assert f"{loc['city']}, {loc['country']} (as in 2023)" in s.prompt and f'"{loc["city"]}: UTC±X"' in s.prompt
    assert TimeZoneProbeTask.paper_size == len(locations())
