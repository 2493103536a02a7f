"""pytz as an independent oracle for GeoTemp tests (always through localize / astimezone)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytz


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
