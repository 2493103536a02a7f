"""The ``timezone`` tool set: UTC offsets, time conversion between places, elapsed-time arithmetic and zone
look-ups, over geocore.timezones / geocore.timecalc (IANA tz database from the tzdata package)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from geocore import timecalc as tc
from geocore.timezones import format_utc_offset, zone_at
from tools._common import Lat, Lon, make_tool, result
from tools.registry import toolset

TIME_DOC = "Local time, 'YYYY-MM-DD HH:MM' (24-hour; AM/PM also read)"
PLACE_DOC = "IANA zone ('Europe/Paris'), UTC offset ('UTC-3:30') or 'City, Country'"


class OffsetArgs(BaseModel):
    place: str = Field(description=PLACE_DOC)
    local_time: str = Field(description=TIME_DOC)


class ConvertArgs(BaseModel):
    local_time: str = Field(description=TIME_DOC + " at from_place")
    from_place: str = Field(description=PLACE_DOC)
    to_place: str = Field(description=PLACE_DOC)


class AddArgs(BaseModel):
    local_time: str = Field(description=TIME_DOC + " at place")
    place: str = Field(description=PLACE_DOC)
    hours: float = Field(ge=-87_600, le=87_600, description="Elapsed hours, -87600 to 87600 (negative goes back)")
    minutes: float = Field(default=0, ge=-1440, le=1440, description="Extra minutes, -1440 to 1440 (default 0)")
    to_place: str | None = Field(default=None, description="Read the result here instead (default: place)")


class CityArgs(BaseModel):
    city: str = Field(description="City name, e.g. 'Novokuznetsk'")
    country: str = Field(default="", description="Country name or ISO code (recommended)")


class PointArgs(BaseModel):
    lat: Lat
    lon: Lon


def _describe(dt: datetime, place: tc.Place) -> dict[str, object]:
    offset = dt.utcoffset() or timedelta(0)
    return {
        "local_time": dt.strftime("%Y-%m-%d %H:%M"),
        "time_12h": dt.strftime("%I:%M %p"),
        "weekday": dt.strftime("%A"),
        "date": f"{dt:%A}, {dt:%B} {dt.day}, {dt.year}",
        "zone": place.describe(),
        "utc_offset": format_utc_offset(offset),
        "is_dst": tc.is_dst(dt),
    }


def utc_offset(place: str, local_time: str) -> str:
    """UTC offset in force at a place at a given local date and time (daylight saving time included).
    Returns JSON {"zone", "utc_offset" (e.g. "UTC+2"), "utc_offset_hours", "is_dst", "abbreviation",
    "utc_time" ('YYYY-MM-DD HH:MM' in UTC)}."""
    where = tc.resolve_place(place, "place")
    naive = tc.parse_local_datetime(local_time, "local_time")
    aware = tc.at_place(naive, where, "local_time")
    offset = aware.utcoffset() or timedelta(0)
    return result(zone=where.describe(), utc_offset=format_utc_offset(offset),
                  utc_offset_hours=offset.total_seconds() / 3600.0, is_dst=tc.is_dst(aware),
                  abbreviation=aware.tzname(), utc_time=aware.astimezone(UTC).strftime("%Y-%m-%d %H:%M"))


def convert_time(local_time: str, from_place: str, to_place: str) -> str:
    """The local time at to_place at the same instant as local_time at from_place (daylight saving time
    applied). Returns JSON {"local_time" ('YYYY-MM-DD HH:MM', 24-hour),
    "time_12h", "weekday", "date", "zone", "utc_offset", "is_dst"} for to_place."""
    src = tc.resolve_place(from_place, "from_place")
    dst = tc.resolve_place(to_place, "to_place")
    naive = tc.parse_local_datetime(local_time, "local_time")
    return result(**_describe(tc.convert_between(naive, src, dst), dst))


def add_duration(local_time: str, place: str, hours: float, minutes: float = 0,
                 to_place: str | None = None) -> str:
    """Local date and time after hours (+ minutes) elapse from local_time at place, read at to_place (clock
    changes in between applied).
    Returns JSON {"local_time" ('YYYY-MM-DD HH:MM', 24-hour), "time_12h", "weekday", "date", "zone",
    "utc_offset", "is_dst"}."""
    src = tc.resolve_place(place, "place")
    dst = tc.resolve_place(to_place, "to_place") if to_place else src
    naive = tc.parse_local_datetime(local_time, "local_time")
    return result(**_describe(tc.add_elapsed(naive, src, hours, minutes, to=dst), dst))


def city_timezone(city: str, country: str = "") -> str:
    """IANA time zone of a city (country recommended to tell apart places with the same name).
    Returns JSON {"zone" (e.g. "Asia/Novokuznetsk"), "matched" (place found), "country_code", "source"}."""
    found = tc.zone_for_city(city, country or None)
    return result(zone=found.zone, matched=found.name, country_code=found.country_code, source=found.source)


def timezone_at_point(lat: float, lon: float) -> str:
    """IANA time zone at a point (at sea: an Etc/GMT±N nautical zone, where Etc/GMT+3 means UTC-3). Returns JSON {"zone"}."""
    return result(zone=zone_at(lat, lon))


@toolset("timezone", "UTC offsets, time conversion between places, elapsed-time arithmetic, zone look-ups")
def timezone_tools() -> list[BaseTool]:
    """UTC offsets, time conversion between places, elapsed-time arithmetic and zone look-ups."""
    return [
        make_tool(utc_offset, OffsetArgs),
        make_tool(convert_time, ConvertArgs),
        make_tool(add_duration, AddArgs),
        make_tool(city_timezone, CityArgs),
        make_tool(timezone_at_point, PointArgs),
    ]
