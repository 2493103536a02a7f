"""The ``timezone`` tool set against pytz (properly localised): offsets, conversions, durations, look-ups."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

import pytest
import pytz
from pydantic import ValidationError

from tools.registry import get_toolset, toolset_names

TOOLS = {t.name: t for t in get_toolset("timezone")}
ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham",
         "America/St_Johns", "Africa/Casablanca", "Antarctica/Troll", "America/Sao_Paulo", "Pacific/Kiritimati"]


def call(name: str, **args: object) -> dict:
    return json.loads(TOOLS[name].invoke(args))


def _fmt(td: timedelta) -> str:
    minutes = int(td.total_seconds() // 60)
    h, m = divmod(abs(minutes), 60)
    return f"UTC{'-' if minutes < 0 else '+'}{h}" + (f":{m:02d}" if m else "")


def _random_local(rng: random.Random, zone: str) -> datetime:
    """A local 2023 time that exists once in ``zone`` (pytz agrees: no gap, no fold)."""
    tz = pytz.timezone(zone)
    while True:
        naive = datetime(2023, 1, 1) + timedelta(minutes=rng.randrange(365 * 1440))
        try:
            tz.localize(naive, is_dst=None)
            return naive
        except (pytz.NonExistentTimeError, pytz.AmbiguousTimeError):
            continue


def test_registered_with_a_small_documented_surface() -> None:
    assert "timezone" in toolset_names()
    assert set(TOOLS) == {"utc_offset", "convert_time", "add_duration", "city_timezone", "timezone_at_point"}
    for tool in TOOLS.values():
        assert tool.description and "Returns JSON" in tool.func.__doc__ and "Returns JSON" not in tool.description
    assert "24-hour" in TOOLS["convert_time"].args_schema.model_json_schema()["properties"]["local_time"]["description"]


def test_convert_and_add_match_pytz() -> None:
    rng = random.Random(4)
    for _ in range(150):
        z1, z2 = rng.sample(ZONES, 2)
        naive = _random_local(rng, z1)
        hours = rng.randint(-30, 30)
        start = pytz.timezone(z1).localize(naive, is_dst=None)
        now_there = start.astimezone(pytz.timezone(z2))
        later = (start.astimezone(pytz.utc) + timedelta(hours=hours)).astimezone(pytz.timezone(z2))
        text = naive.strftime("%Y-%m-%d %H:%M")
        conv = call("convert_time", local_time=text, from_place=z1, to_place=z2)
        assert conv["local_time"] == now_there.strftime("%Y-%m-%d %H:%M")
        assert conv["utc_offset"] == _fmt(now_there.utcoffset()) and conv["weekday"] == now_there.strftime("%A")
        added = call("add_duration", local_time=text, place=z1, hours=hours, to_place=z2)
        assert added["local_time"] == later.strftime("%Y-%m-%d %H:%M")
        off = call("utc_offset", place=z1, local_time=text)
        assert off["utc_offset"] == _fmt(start.utcoffset()) and off["is_dst"] == bool(start.dst())
        assert off["utc_time"] == start.astimezone(pytz.utc).strftime("%Y-%m-%d %H:%M")


def test_elapsed_time_across_a_clock_change() -> None:
    # 2023-03-26 01:30 in Berlin + 1 h of elapsed time is 03:30 (the clock jumps 02:00 → 03:00).
    out = call("add_duration", local_time="2023-03-26 01:30", place="Europe/Berlin", hours=1)
    assert out["local_time"] == "2023-03-26 03:30" and out["utc_offset"] == "UTC+2" and out["is_dst"]


def test_places_as_cities_offsets_and_twelve_hour_times() -> None:
    out = call("convert_time", local_time="2023-06-18 09:34 PM", from_place="Mazatlan, Mexico",
               to_place="Luxembourg, Luxembourg")
    assert (out["local_time"], out["time_12h"], out["zone"]) == ("2023-06-19 06:34", "06:34 AM", "Europe/Luxembourg")
    fixed = call("add_duration", local_time="2023-06-18 21:34", place="UTC-7", hours=4, to_place="UTC+2")
    assert fixed["local_time"] == "2023-06-19 10:34" and fixed["zone"] == "UTC+2"
    assert call("utc_offset", place="UTC+5:45", local_time="2023-01-01 00:00")["utc_offset_hours"] == 5.75
    assert call("city_timezone", city="Novokuznetsk", country="Russia")["zone"] == "Asia/Novokuznetsk"
    assert call("city_timezone", city="Kingston", country="Jamaica")["zone"] == "America/Jamaica"
    assert call("city_timezone", city="Easter Island", country="Chile")["zone"] == "Pacific/Easter"
    assert call("timezone_at_point", lat=-33.87, lon=151.21)["zone"] == "Australia/Sydney"
    assert call("timezone_at_point", lat=0.0, lon=-160.0)["zone"] == "Etc/GMT+11"


@pytest.mark.parametrize(
    ("name", "args", "needle"),
    [
        ("convert_time", {"local_time": "June 18 9pm", "from_place": "UTC", "to_place": "UTC+1"}, "YYYY-MM-DD"),
        ("convert_time", {"local_time": "2023-02-30 10:00", "from_place": "UTC", "to_place": "UTC+1"}, "valid date"),
        ("convert_time", {"local_time": "2023-06-18 13:00 PM", "from_place": "UTC", "to_place": "UTC"}, "1 to 12"),
        ("add_duration", {"local_time": "2023-03-26 02:30", "place": "Europe/Berlin", "hours": 1}, "does not exist"),
        ("utc_offset", {"place": "Europe/Berlln", "local_time": "2023-01-01 00:00"}, "Europe/Berlin"),
        ("utc_offset", {"place": "UTC+15", "local_time": "2023-01-01 00:00"}, "place: offset must be within UTC-14"),
        ("city_timezone", {"city": "Qwxyzzz", "country": "France"}, "not found"),
        ("city_timezone", {"city": "Springfield"}, "ambiguous"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_the_problem(name: str, args: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        TOOLS[name].invoke(args)


def test_schema_validation_rejects_out_of_range_numbers() -> None:
    with pytest.raises(ValidationError):
        TOOLS["timezone_at_point"].invoke({"lat": 95, "lon": 0})
    with pytest.raises(ValidationError):
        TOOLS["add_duration"].invoke({"local_time": "2023-01-01 00:00", "place": "UTC", "hours": 1e9})
