"""pytz as an independent oracle for GeoTemp tests (always through localize / astimezone)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytz

from tasks.records import Sample


def pytz_offsets(zone: str, year: int) -> set[timedelta]:
    """Offsets a zone uses from local 1 January to local 31 December of ``year``, read from pytz's own
    transition table (its copy of the tz database)."""
    tz = pytz.timezone(zone)
    start = tz.localize(datetime(year, 1, 1), is_dst=False).astimezone(pytz.utc).replace(tzinfo=None)
    end = tz.localize(datetime(year + 1, 1, 1), is_dst=False).astimezone(pytz.utc).replace(tzinfo=None)
    found = {pytz.utc.localize(start).astimezone(tz).utcoffset()}
    for when, info in zip(getattr(tz, "_utc_transition_times", []), getattr(tz, "_transition_info", []),
                          strict=False):
        if start <= when < end:
            found.add(info[0])
    return found


def pytz_gold(sample: Sample) -> tuple[datetime, datetime, timedelta, timedelta]:
    """(start, target) as aware pytz datetimes and their offsets, recomputed from the payload with pytz."""
    p = sample.payload
    tz1 = pytz.timezone(p["l1"]["zone"])
    start = tz1.localize(datetime.fromisoformat(p["start"]), is_dst=None)  # raises inside a gap or fold
    target_zone = (p["l2"] or p["l1"])["zone"]
    later = start.astimezone(pytz.utc) + timedelta(hours=p["hours"] or 0)
    target = later.astimezone(pytz.timezone(target_zone))
    return start, target, start.utcoffset(), target.utcoffset()
