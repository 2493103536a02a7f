"""geocore.timezones against pytz (properly localized) as an independent oracle, plus property tests."""

from __future__ import annotations

import copy
import pickle
import random
import zoneinfo
from datetime import UTC, datetime, timedelta

import pytest
import pytz
from hypothesis import given, settings
from hypothesis import strategies as st

from geocore import timezones as tz
from geocore.timezones import AmbiguousTimeError, NonexistentTimeError

ZONES = [
    "Europe/Berlin",
    "Europe/London",
    "Europe/Dublin",  # negative DST in tzdata's main format
    "Europe/Moscow",
    "America/New_York",
    "America/Los_Angeles",
    "America/St_Johns",  # -3:30 / -2:30
    "America/Sao_Paulo",
    "America/Santiago",
    "America/Havana",  # DST switches at midnight
    "Australia/Sydney",
    "Australia/Lord_Howe",  # 30-minute DST
    "Australia/Adelaide",
    "Asia/Kathmandu",  # +5:45
    "Asia/Kolkata",
    "Asia/Tehran",
    "Asia/Tokyo",
    "Pacific/Chatham",  # +12:45 / +13:45
    "Pacific/Apia",  # skipped 2011-12-30
    "Pacific/Kiritimati",  # +14
    "Africa/Casablanca",  # Ramadan switches
    "Antarctica/Troll",  # 2-hour DST
]

START = datetime(1975, 1, 1)
END = datetime(2036, 12, 31)


def _random_naive(rng: random.Random) -> datetime:
    span = int((END - START).total_seconds())
    return START + timedelta(seconds=rng.randrange(0, span, 60))


def _pytz_kind(naive: datetime, zone: str) -> str:
    try:
        pytz.timezone(zone).localize(naive, is_dst=None)
    except pytz.NonExistentTimeError:
        return "gap"
    except pytz.AmbiguousTimeError:
        return "fold"
    return "ok"


def _transitions(zone: str) -> list[tuple[datetime, timedelta, timedelta]]:
    """(UTC instant, offset before, offset after) for pytz's offset changes in [START, END]."""
    ptz = pytz.timezone(zone)
    times = getattr(ptz, "_utc_transition_times", [])  # pytz keeps its table here
    infos = getattr(ptz, "_transition_info", [])
    out = []
    for i in range(1, len(times)):
        before, after = infos[i - 1][0], infos[i][0]
        t = times[i]
        if before == after or not START < t < END:
            continue
        if i + 1 < len(times) and times[i + 1] - t < timedelta(days=2):
            continue
        if times[i - 1] > t - timedelta(days=2):
            continue
        out.append((t, before, after))
    return out


# --- utc_offset ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("zone", ZONES)
def test_utc_offset_matches_pytz_at_random_instants(zone: str) -> None:
    rng = random.Random(zone)
    ptz = pytz.timezone(zone)
    for _ in range(300):
        naive_utc = _random_naive(rng)
        expected = pytz.utc.localize(naive_utc).astimezone(ptz).utcoffset()
        assert tz.utc_offset(zone, naive_utc.replace(tzinfo=UTC)) == expected, naive_utc
        assert tz.utc_offset(zone, naive_utc) == expected  # naive instant = UTC


@pytest.mark.parametrize("zone", ZONES)
def test_utc_offset_just_around_transitions(zone: str) -> None:
    for t, before, after in _transitions(zone):
        assert tz.utc_offset(zone, t - timedelta(seconds=1)) == before
        assert tz.utc_offset(zone, t) == after


def test_utc_offset_accepts_instants_in_any_zone() -> None:
    instant = pytz.timezone("Asia/Tokyo").localize(datetime(2024, 7, 1, 9, 0))
    assert tz.utc_offset("Europe/Berlin", instant) == timedelta(hours=2)
    assert tz.utc_offset("Europe/Berlin", instant.astimezone(UTC)) == timedelta(hours=2)


@pytest.mark.parametrize(
    ("zone", "instant", "hours"),
    [
        ("Asia/Kathmandu", datetime(2024, 1, 15, 12), 5.75),
        ("Asia/Kolkata", datetime(2024, 6, 15, 12), 5.5),
        ("America/St_Johns", datetime(2024, 1, 15, 12), -3.5),
        ("America/St_Johns", datetime(2024, 7, 15, 12), -2.5),
        ("Australia/Lord_Howe", datetime(2024, 7, 15, 12), 10.5),
        ("Australia/Lord_Howe", datetime(2024, 1, 15, 12), 11.0),
        ("Pacific/Chatham", datetime(2024, 7, 15, 12), 12.75),
        ("Pacific/Chatham", datetime(2024, 1, 15, 12), 13.75),
        ("Europe/Dublin", datetime(2024, 1, 15, 12), 0.0),
        ("Europe/Dublin", datetime(2024, 7, 15, 12), 1.0),
        ("Pacific/Kiritimati", datetime(2024, 7, 15, 12), 14.0),
        ("America/Sao_Paulo", datetime(2024, 1, 15, 12), -3.0),  # no DST since 2019
    ],
)
def test_utc_offset_hours_known_values(zone: str, instant: datetime, hours: float) -> None:
    assert tz.utc_offset_hours(zone, instant) == hours


@pytest.mark.parametrize(
    ("td", "text"),
    [
        (timedelta(hours=5, minutes=30), "UTC+5:30"),
        (timedelta(hours=5, minutes=45), "UTC+5:45"),
        (timedelta(hours=-3), "UTC-3"),
        (timedelta(hours=-3, minutes=-30), "UTC-3:30"),
        (timedelta(0), "UTC+0"),
        (timedelta(hours=14), "UTC+14"),
        (timedelta(hours=-9, minutes=-30), "UTC-9:30"),
        (timedelta(minutes=53, seconds=28), "UTC+0:53:28"),
    ],
)
def test_format_utc_offset(td: timedelta, text: str) -> None:
    assert tz.format_utc_offset(td) == text


def test_format_utc_offset_of_a_zone() -> None:
    assert tz.format_utc_offset(tz.utc_offset("Asia/Kathmandu", datetime(2024, 1, 1))) == "UTC+5:45"
    assert tz.format_utc_offset(tz.utc_offset("America/St_Johns", datetime(2024, 1, 1))) == "UTC-3:30"


@pytest.mark.parametrize("bad", [timedelta(hours=24), timedelta(hours=-25), 5.5, timedelta(microseconds=1)])
def test_format_utc_offset_rejects(bad: object) -> None:
    with pytest.raises(ValueError, match="td"):
        tz.format_utc_offset(bad)  # type: ignore[arg-type]


# --- get_zone ------------------------------------------------------------------------------------------


def test_get_zone_returns_one_zoneinfo_per_name() -> None:
    zone = tz.get_zone("Europe/Paris")
    assert isinstance(zone, zoneinfo.ZoneInfo)
    assert zone.key == str(zone) == "Europe/Paris"
    assert tz.get_zone("Europe/Paris") is zone


def test_zones_come_from_the_tzdata_package_not_the_system() -> None:
    # tzdata 2026f keeps Cuba on daylight time from March 2026 to November 2027; older system data does not.
    assert tz.utc_offset_hours("America/Havana", datetime(2026, 12, 9, 12)) == -4.0


def test_zone_datetimes_pickle_and_copy() -> None:
    got = tz.localize(datetime(2024, 7, 1, 12), "Asia/Kathmandu")
    again = pickle.loads(pickle.dumps(got))
    assert again == got and again.tzinfo is got.tzinfo
    assert copy.deepcopy(got).tzinfo is got.tzinfo


@pytest.mark.parametrize(
    ("name", "hint"),
    [("Europe/Pariss", "Europe/Paris"), ("europe/paris", "Europe/Paris"), ("America/New York", "America/New_York")],
)
def test_unknown_zone_names_zone_and_suggests(name: str, hint: str) -> None:
    with pytest.raises(ValueError, match="zone") as err:
        tz.get_zone(name)
    assert hint in str(err.value)


@pytest.mark.parametrize("bad", ["", "   ", None, 42, "Mars/Olympus_Mons", "../etc/passwd", "/etc/localtime"])
def test_bad_zone_raises_value_error(bad: object) -> None:
    with pytest.raises(ValueError, match="zone"):
        tz.get_zone(bad)  # type: ignore[arg-type]


def test_unknown_zone_in_other_functions() -> None:
    with pytest.raises(ValueError, match="zone"):
        tz.utc_offset("Nowhere/City", datetime(2024, 1, 1))
    with pytest.raises(ValueError, match="zone"):
        tz.localize(datetime(2024, 1, 1), "Nowhere/City")
    with pytest.raises(ValueError, match="zone"):
        tz.convert(datetime(2024, 1, 1, tzinfo=UTC), "Nowhere/City")


def test_utc_offset_rejects_non_datetime() -> None:
    with pytest.raises(ValueError, match="instant"):
        tz.utc_offset("Europe/Paris", "2024-01-01")  # type: ignore[arg-type]


# --- localize: gaps and folds ----------------------------------------------------------------------------


def test_berlin_gap_raises() -> None:
    with pytest.raises(NonexistentTimeError, match="does not exist"):
        tz.localize(datetime(2023, 3, 26, 2, 30), "Europe/Berlin")
    assert issubclass(NonexistentTimeError, ValueError)


def test_berlin_gap_shift_forward_is_later_by_the_gap() -> None:
    got = tz.localize(datetime(2023, 3, 26, 2, 30), "Europe/Berlin", nonexistent="shift_forward")
    assert got.replace(tzinfo=None) == datetime(2023, 3, 26, 3, 30)
    assert got.utcoffset() == timedelta(hours=2)
    assert got.astimezone(UTC) == datetime(2023, 3, 26, 1, 30, tzinfo=UTC)


def test_berlin_gap_shift_backward_is_earlier_by_the_gap() -> None:
    got = tz.localize(datetime(2023, 3, 26, 2, 30), "Europe/Berlin", nonexistent="shift_backward")
    assert got.replace(tzinfo=None) == datetime(2023, 3, 26, 1, 30)
    assert got.utcoffset() == timedelta(hours=1)


def test_berlin_fold() -> None:
    naive = datetime(2023, 10, 29, 2, 30)
    with pytest.raises(AmbiguousTimeError, match="ambiguous"):
        tz.localize(naive, "Europe/Berlin")
    assert issubclass(AmbiguousTimeError, ValueError)
    earlier = tz.localize(naive, "Europe/Berlin", ambiguous="earlier")
    later = tz.localize(naive, "Europe/Berlin", ambiguous="later")
    assert earlier.utcoffset() == timedelta(hours=2)
    assert later.utcoffset() == timedelta(hours=1)
    assert later - earlier == timedelta(0)  # same zone: wall-clock arithmetic; compare instants instead
    assert later.astimezone(UTC) - earlier.astimezone(UTC) == timedelta(hours=1)
    assert earlier.replace(tzinfo=None) == later.replace(tzinfo=None) == naive


def test_lord_howe_half_hour_fold_and_gap() -> None:
    # DST ends 2024-04-07 02:00 (+11 -> +10:30): 01:30-02:00 happens twice.
    fold = datetime(2024, 4, 7, 1, 45)
    assert tz.localize(fold, "Australia/Lord_Howe", ambiguous="earlier").utcoffset() == timedelta(hours=11)
    assert tz.localize(fold, "Australia/Lord_Howe", ambiguous="later").utcoffset() == timedelta(hours=10, minutes=30)
    # DST starts 2024-10-06 02:00 (+10:30 -> +11): 02:00-02:30 is skipped.
    gap = datetime(2024, 10, 6, 2, 15)
    with pytest.raises(NonexistentTimeError):
        tz.localize(gap, "Australia/Lord_Howe")
    fwd = tz.localize(gap, "Australia/Lord_Howe", nonexistent="shift_forward")
    assert fwd.replace(tzinfo=None) == datetime(2024, 10, 6, 2, 45)


def test_dublin_negative_dst_fold() -> None:
    # Irish Standard Time (+1) in summer, GMT in winter; 2023-10-29 01:30 happens twice.
    naive = datetime(2023, 10, 29, 1, 30)
    assert tz.localize(naive, "Europe/Dublin", ambiguous="earlier").utcoffset() == timedelta(hours=1)
    assert tz.localize(naive, "Europe/Dublin", ambiguous="later").utcoffset() == timedelta(0)


def test_apia_skipped_day() -> None:
    with pytest.raises(NonexistentTimeError):
        tz.localize(datetime(2011, 12, 30, 12, 0), "Pacific/Apia")
    got = tz.localize(datetime(2011, 12, 30, 12, 0), "Pacific/Apia", nonexistent="shift_forward")
    assert got.replace(tzinfo=None) == datetime(2011, 12, 31, 12, 0)


@pytest.mark.parametrize("zone", ZONES)
def test_localize_matches_pytz_around_every_transition(zone: str) -> None:
    checked = 0
    for t, before, after in _transitions(zone):
        lo, hi = sorted((t + before, t + after))
        width = hi - lo
        candidates = [lo - timedelta(minutes=1), lo, lo + width / 2, hi - timedelta(minutes=1), hi]
        for naive in candidates:
            naive = naive.replace(microsecond=0)
            kind = _pytz_kind(naive, zone)
            if kind == "ok":
                got = tz.localize(naive, zone)
                assert got.utcoffset() == pytz.timezone(zone).localize(naive, is_dst=None).utcoffset()
                assert got.replace(tzinfo=None) == naive
            elif kind == "gap":
                assert after > before
                with pytest.raises(NonexistentTimeError):
                    tz.localize(naive, zone)
                fwd = tz.localize(naive, zone, nonexistent="shift_forward")
                back = tz.localize(naive, zone, nonexistent="shift_backward")
                assert fwd.astimezone(UTC).replace(tzinfo=None) == naive - before
                assert back.astimezone(UTC).replace(tzinfo=None) == naive - after
                assert fwd.replace(tzinfo=None) == naive + (after - before)
                assert back.replace(tzinfo=None) == naive - (after - before)
                for d in (fwd, back):  # the returned wall time exists
                    assert d.astimezone(UTC).astimezone(d.tzinfo).replace(tzinfo=None) == d.replace(tzinfo=None)
            else:
                assert before > after
                with pytest.raises(AmbiguousTimeError):
                    tz.localize(naive, zone)
                earlier = tz.localize(naive, zone, ambiguous="earlier")
                later = tz.localize(naive, zone, ambiguous="later")
                assert earlier.astimezone(UTC).replace(tzinfo=None) == naive - before
                assert later.astimezone(UTC).replace(tzinfo=None) == naive - after
                assert earlier.replace(tzinfo=None) == later.replace(tzinfo=None) == naive
            checked += 1
    assert checked > 0 or zone in {"Asia/Kolkata", "Asia/Tokyo", "Asia/Kathmandu", "Pacific/Kiritimati"}


@pytest.mark.parametrize("zone", ZONES)
def test_localize_matches_pytz_at_random_wall_times(zone: str) -> None:
    rng = random.Random("wall" + zone)
    ptz = pytz.timezone(zone)
    for _ in range(200):
        naive = _random_naive(rng)
        if _pytz_kind(naive, zone) != "ok":
            continue
        got = tz.localize(naive, zone)
        assert got.utcoffset() == ptz.localize(naive, is_dst=None).utcoffset(), naive


def test_localize_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="naive"):
        tz.localize(datetime(2024, 1, 1, tzinfo=UTC), "Europe/Paris")
    with pytest.raises(ValueError, match="naive"):
        tz.localize("2024-01-01", "Europe/Paris")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nonexistent"):
        tz.localize(datetime(2024, 1, 1), "Europe/Paris", nonexistent="NaT")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ambiguous"):
        tz.localize(datetime(2024, 1, 1), "Europe/Paris", ambiguous=True)  # type: ignore[arg-type]


# --- convert ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("zone", ZONES)
def test_convert_aware_matches_pytz(zone: str) -> None:
    rng = random.Random("convert" + zone)
    ptz = pytz.timezone(zone)
    for _ in range(100):
        naive_utc = _random_naive(rng)
        got = tz.convert(naive_utc.replace(tzinfo=UTC), zone)
        want = pytz.utc.localize(naive_utc).astimezone(ptz)
        assert got.replace(tzinfo=None) == want.replace(tzinfo=None)
        assert got.utcoffset() == want.utcoffset()
        assert got.tzinfo is tz.get_zone(zone)


def test_convert_naive_with_from_zone_matches_pytz() -> None:
    rng = random.Random(7)
    for _ in range(300):
        src, dst = rng.sample(ZONES, 2)
        naive = _random_naive(rng)
        if _pytz_kind(naive, src) != "ok":
            continue
        got = tz.convert(naive, dst, src)
        want = pytz.timezone(src).localize(naive, is_dst=None).astimezone(pytz.timezone(dst))
        assert got.replace(tzinfo=None) == want.replace(tzinfo=None)
        assert got.utcoffset() == want.utcoffset()


def test_convert_known_example() -> None:
    got = tz.convert(datetime(2024, 7, 1, 9, 0), "Asia/Kathmandu", "America/New_York")
    assert got.replace(tzinfo=None) == datetime(2024, 7, 1, 18, 45)


def test_convert_passes_localize_options() -> None:
    naive = datetime(2023, 10, 29, 2, 30)
    with pytest.raises(AmbiguousTimeError):
        tz.convert(naive, "UTC", "Europe/Berlin")
    got = tz.convert(naive, "UTC", "Europe/Berlin", ambiguous="later")
    assert got.replace(tzinfo=None) == datetime(2023, 10, 29, 1, 30)
    got = tz.convert(datetime(2023, 3, 26, 2, 30), "UTC", "Europe/Berlin", nonexistent="shift_forward")
    assert got.replace(tzinfo=None) == datetime(2023, 3, 26, 1, 30)


def test_convert_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="from_zone"):
        tz.convert(datetime(2024, 1, 1), "Europe/Paris")
    with pytest.raises(ValueError, match="from_zone"):
        tz.convert(datetime(2024, 1, 1, tzinfo=UTC), "Europe/Paris", "Asia/Tokyo")
    with pytest.raises(ValueError, match="dt"):
        tz.convert("2024-01-01", "Europe/Paris", "UTC")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="localize_kwargs"):
        tz.convert(datetime(2024, 1, 1), "Europe/Paris", "UTC", fold=1)


@settings(max_examples=300, deadline=None)
@given(
    naive=st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2037, 12, 31)),
    src=st.sampled_from(ZONES + ["UTC", "Asia/Kathmandu"]),
    dst=st.sampled_from(ZONES + ["UTC"]),
)
def test_convert_there_and_back_is_identity(naive: datetime, src: str, dst: str) -> None:
    start = tz.localize(naive, src, nonexistent="shift_forward", ambiguous="later")
    there = tz.convert(start, dst)
    back = tz.convert(there, src)
    assert back == start
    assert back.replace(tzinfo=None) == start.replace(tzinfo=None)
    assert back.utcoffset() == start.utcoffset()
    assert back.fold == start.fold


@settings(max_examples=200, deadline=None)
@given(
    naive=st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2037, 12, 31)),
    src=st.sampled_from(ZONES),
)
def test_localize_agrees_with_pytz_classification(naive: datetime, src: str) -> None:
    naive = naive.replace(microsecond=0)
    kind = _pytz_kind(naive, src)
    if kind == "gap":
        with pytest.raises(NonexistentTimeError):
            tz.localize(naive, src)
    elif kind == "fold":
        with pytest.raises(AmbiguousTimeError):
            tz.localize(naive, src)
    else:
        assert tz.localize(naive, src).utcoffset() == pytz.timezone(src).localize(naive).utcoffset()


# --- zone_at -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lat", "lon", "zone"),
    [
        (48.8566, 2.3522, "Europe/Paris"),
        (-33.8688, 151.2093, "Australia/Sydney"),
        (27.7172, 85.3240, "Asia/Kathmandu"),
        (40.7128, -74.0060, "America/New_York"),
        (35.6762, 139.6503, "Asia/Tokyo"),
        (47.5615, -52.7126, "America/St_Johns"),
        (-31.5553, 159.0821, "Australia/Lord_Howe"),
        (-43.9535, -176.5597, "Pacific/Chatham"),
        (53.3498, -6.2603, "Europe/Dublin"),
        (-23.5505, -46.6333, "America/Sao_Paulo"),
    ],
)
def test_zone_at_known_places(lat: float, lon: float, zone: str) -> None:
    assert tz.zone_at(lat, lon) == zone


def test_zone_at_sea_gives_nautical_zone() -> None:
    assert tz.zone_at(30.0, -40.0) == "Etc/GMT+3"  # UTC-3
    assert tz.utc_offset_hours(tz.zone_at(30.0, -40.0), datetime(2024, 1, 1)) == -3.0
    assert tz.zone_at(0.0, -150.0) == "Etc/GMT+10"


@pytest.mark.parametrize(("lon", "zone"), [(0.0, "Etc/GMT"), (-45.0, "Etc/GMT+3"), (100.0, "Etc/GMT-7"), (180.0, "Etc/GMT-12"), (-180.0, "Etc/GMT+12")])
def test_nautical_fallback(lon: float, zone: str) -> None:
    assert tz._nautical_zone(lon) == zone
    assert zone in zoneinfo.available_timezones()


@pytest.mark.parametrize(("lat", "lon", "name"), [(91, 0, "lat"), (-90.5, 0, "lat"), (0, 181, "lon"), (float("nan"), 0, "lat"), (0, "east", "lon")])
def test_zone_at_rejects_bad_coordinates(lat: object, lon: object, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        tz.zone_at(lat, lon)  # type: ignore[arg-type]


# --- canonical zones --------------------------------------------------------------------------------------


def test_canonical_zones() -> None:
    zones = tz.canonical_zones()
    assert zones == sorted(zones)
    assert 350 < len(zones) < 500
    assert set(zones) <= zoneinfo.available_timezones()
    assert len(set(zones)) == len(zones)
    for name in ["Europe/Paris", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Europe/Kyiv", "Europe/Oslo"]:
        assert tz.is_canonical_zone(name), name
    for name in ["Etc/UTC", "UTC", "Etc/GMT+3", "US/Eastern", "Canada/Eastern", "Asia/Calcutta", "Europe/Kiev", "EST", "CET", "SystemV/AST4", "Nowhere/City", "europe/paris", None]:
        assert not tz.is_canonical_zone(name), name  # type: ignore[arg-type]


def test_zone_at_land_results_are_canonical() -> None:
    rng = random.Random(3)
    for _ in range(300):
        lat, lon = rng.uniform(-60, 75), rng.uniform(-180, 180)
        zone = tz.zone_at(lat, lon)
        assert tz.is_canonical_zone(zone) or zone.startswith("Etc/"), (lat, lon, zone)
