"""geocore.timecalc against pytz (properly localised) and tzdata's own tables."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import pytz
from hypothesis import given, settings
from hypothesis import strategies as st

from geocore import timecalc as tc
from geocore.timezones import canonical_zones

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Havana", "Africa/Casablanca",
         "Pacific/Chatham", "Antarctica/Troll", "Asia/Tehran", "America/Santiago", "Europe/Dublin"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2023-06-18 21:34", datetime(2023, 6, 18, 21, 34)),
        ("2023-06-18T21:34:05", datetime(2023, 6, 18, 21, 34, 5)),
        ("2023-06-18 09:34 PM", datetime(2023, 6, 18, 21, 34)),
        ("2023-06-18 12:10 a.m.", datetime(2023, 6, 18, 0, 10)),
        ("2023-6-8 12:00 pm", datetime(2023, 6, 8, 12, 0)),
        ("2023-06-18", datetime(2023, 6, 18)),
    ],
)
def test_parse_local_datetime(text: str, expected: datetime) -> None:
    assert tc.parse_local_datetime(text) == expected


@pytest.mark.parametrize("text", ["18/06/2023 21:34", "2023-06-18 25:00", "2023-02-29 10:00", "2023-06-18 00:30 PM", 42])
def test_parse_local_datetime_rejects(text: object) -> None:
    with pytest.raises(ValueError, match="when"):
        tc.parse_local_datetime(text, "when")  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["2023-06-01T10:00+05:00", "2023-06-01T10:00Z", "2023-06-01 10:00 UTC",
                                  "2023-06-01 10:00 UTC+2", "2023-06-01 10:00 AM EST", "2023-06-01 10:00:00 -0330"])
def test_a_time_with_an_offset_is_told_to_drop_it(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        tc.parse_local_datetime(text, "local_time")
    assert str(caught.value) == ("local_time is the clock time at the place, without an offset or zone (the place "
                                 f"sets them): write it as 'YYYY-MM-DD HH:MM', got {text!r}")


@pytest.mark.parametrize("text", ["10:00 UTC", "2023-06-01 10:00 in Paris", "soon UTC"])
def test_other_bad_times_keep_the_format_message(text: str) -> None:
    with pytest.raises(ValueError, match="must look like 'YYYY-MM-DD HH:MM'"):
        tc.parse_local_datetime(text, "local_time")


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("UTC", 0), ("GMT", 0), ("UTC+2", 120), ("utc-3:30", -210), ("GMT+05:45", 345), ("UTC −7", -420),
     ("UTC+0530", 330), ("Europe/Paris", None), ("Paris", None)],
)
def test_parse_fixed_offset(text: str, minutes: int | None) -> None:
    got = tc.parse_fixed_offset(text)
    assert (None if got is None else got.total_seconds() / 60) == minutes


def test_zone_for_city_routes() -> None:
    assert tc.zone_for_city("Buenos Aires", "Argentina").zone == "America/Argentina/Buenos_Aires"
    assert tc.zone_for_city("Atikokan", "CA").source == "zone-name"
    assert tc.zone_for_city("Lord Howe Island", "Australia").zone == "Australia/Lord_Howe"
    assert tc.zone_for_city("Fernando de Noronha", "Brazil").zone == "America/Noronha"
    found = tc.zone_for_city("Munich", "Germany")
    assert (found.zone, found.source, found.country_code) == ("Europe/Berlin", "gazetteer", "DE")
    assert tc.zone_for_city("London", "Canada").zone == "America/Toronto"
    assert tc.zone_for_city("London").zone == "Europe/London"
    with pytest.raises(ValueError, match="ambiguous"):
        tc.zone_for_city("Springfield")
    with pytest.raises(ValueError, match="not found"):
        tc.zone_for_city("Atikokan", "France")
    with pytest.raises(ValueError, match="city"):
        tc.zone_for_city("  ")


def test_zone_countries_cover_every_canonical_zone() -> None:
    countries = tc.zone_countries()
    assert set(canonical_zones()) <= set(countries)
    assert "LI" in countries["Europe/Zurich"] and countries["Europe/Vaduz"] == {"LI"}


@pytest.mark.parametrize("zone", ZONES)
def test_transitions_match_pytz_table(zone: str) -> None:
    start, end = datetime(2022, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
    ours = tc.transitions(zone, start, end)
    tz = pytz.timezone(zone)
    lo, hi = start.replace(tzinfo=None), end.replace(tzinfo=None)
    prev = pytz.utc.localize(lo).astimezone(tz).utcoffset()
    theirs = []
    for when, info in zip(tz._utc_transition_times, tz._transition_info, strict=False):
        if lo < when < hi and info[0] != prev:  # pytz also lists changes of name or DST flag alone
            theirs.append((when.replace(tzinfo=UTC), info[0]))
            prev = info[0]
    assert ours == theirs


@pytest.mark.parametrize("zone", ZONES + ["Asia/Kolkata", "Pacific/Apia"])
def test_offsets_in_year(zone: str) -> None:
    tz = pytz.timezone(zone)
    seen = {tz.localize(datetime(2023, 1, 1) + timedelta(hours=h), is_dst=False).utcoffset()
            for h in range(0, 365 * 24, 5)}
    assert set(tc.offsets_in_year(zone, 2023)) == seen
    with pytest.raises(ValueError, match="year"):
        tc.offsets_in_year(zone, 3000)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(ZONES), st.sampled_from(ZONES), st.integers(0, 365 * 1440 - 1), st.integers(-72, 72))
def test_add_elapsed_matches_pytz(z1: str, z2: str, minute: int, hours: int) -> None:
    naive = datetime(2023, 1, 1) + timedelta(minutes=minute)
    tz1 = pytz.timezone(z1)
    try:
        start = tz1.localize(naive, is_dst=None)
    except (pytz.NonExistentTimeError, pytz.AmbiguousTimeError):
        with pytest.raises(ValueError):
            tc.add_elapsed(naive, tc.Place(z1, zone=z1), hours)
        return
    want = (start.astimezone(pytz.utc) + timedelta(hours=hours)).astimezone(pytz.timezone(z2))
    got = tc.add_elapsed(naive, tc.Place(z1, zone=z1), hours, to=tc.Place(z2, zone=z2))
    assert got.replace(tzinfo=None) == want.replace(tzinfo=None) and got.utcoffset() == want.utcoffset()
    conv = tc.convert_between(naive, tc.Place(z1, zone=z1), tc.Place(z2, zone=z2))
    assert conv.replace(tzinfo=None) == start.astimezone(pytz.timezone(z2)).replace(tzinfo=None)


def test_resolve_place_and_errors() -> None:
    assert tc.resolve_place("Asia/Kathmandu").zone == "Asia/Kathmandu"
    assert tc.resolve_place("UTC-3:30").offset == timedelta(hours=-3, minutes=-30)
    assert tc.resolve_place("Mazatlan, Mexico").zone == "America/Mazatlan"
    with pytest.raises(ValueError, match="to_place"):
        tc.resolve_place("Mars/Olympus", "to_place")
    with pytest.raises(ValueError, match="duration"):
        tc.add_elapsed(datetime(2023, 1, 1), tc.Place("UTC", offset=timedelta(0)), hours=1e6)
    assert tc.format_clock(datetime(2023, 1, 1, 0, 5)) == "12:05 AM"
