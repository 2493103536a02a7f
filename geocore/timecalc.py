"""Wall-clock arithmetic across places: parse times, resolve places to zones, add durations, convert.

A *place* is one of: an IANA zone name (``Europe/Berlin``), a fixed UTC offset (``UTC+2``, ``GMT-3:30``,
``UTC``), or a city with an optional country (``Mazatlan, Mexico``). Cities resolve first to the IANA zone
named after them (``Atikokan`` → America/Atikokan, ``Easter Island`` → Pacific/Easter), then to the GeoNames
gazetteer's zone for the most populous match. Durations are elapsed time: "in 4 hours" is the instant four
hours later, read on the wall clock of the target place (so a DST change in between moves the clock by 3 or
5 hours). Local times that a clock change skips or repeats raise ``ValueError`` (they name no single
instant). Every invalid input raises ``ValueError`` naming the argument.
"""

from __future__ import annotations

import importlib.resources
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import cache

from geocore import gazetteer
from geocore.timezones import canonical_zones, format_utc_offset, get_zone, localize

__all__ = [
    "CityZone",
    "Place",
    "add_elapsed",
    "at_place",
    "convert_between",
    "format_clock",
    "is_dst",
    "offsets_in_year",
    "parse_fixed_offset",
    "parse_local_datetime",
    "resolve_place",
    "transitions",
    "zone_countries",
    "zone_for_city",
]

_DATETIME_RE = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp]\.?[Mm]\.?)?)?\s*$"
)
_ZONED_RE = re.compile(r"^(.*?)\s*(?:Z|[+\-−]\d{1,2}(?::?\d{2})?|(?:UTC|GMT)(?:\s*[+\-−]\s*\d{1,2}(?::?\d{2})?)?|[A-Za-z]{2,5})\s*$")
"""A date and time followed by an offset or a zone abbreviation (``Z``, ``+05:00``, ``UTC+2``, ``EST``)."""
_OFFSET_RE = re.compile(r"^\s*(?:UTC|GMT)\s*(?:([+\-−])\s*(\d{1,2})(?:(?::|\.|h)?(\d{2}))?)?\s*$", re.IGNORECASE)


def parse_local_datetime(text: str, name: str = "time") -> datetime:
    """A naive wall-clock datetime from ``YYYY-MM-DD HH:MM`` (24-hour; ``T`` or a space between; seconds
    optional) or ``YYYY-MM-DD hh:MM AM/PM`` (12-hour). A date alone means midnight."""
    if not isinstance(text, str):
        raise ValueError(f"{name} must be a string like '2023-06-18 21:34', got {text!r}")
    m = _DATETIME_RE.match(text)
    if not m:
        zoned = _ZONED_RE.match(text)
        if zoned and _DATETIME_RE.match(zoned.group(1)):
            raise ValueError(f"{name} is the clock time at the place, without an offset or zone (the place sets "
                             f"them): write it as 'YYYY-MM-DD HH:MM', got {text!r}")
        raise ValueError(
            f"{name} must look like 'YYYY-MM-DD HH:MM' (24-hour) or 'YYYY-MM-DD hh:mm AM', got {text!r}"
        )
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    hour = int(m.group(4) or 0)
    minute = int(m.group(5) or 0)
    second = int(m.group(6) or 0)
    meridiem = (m.group(7) or "").replace(".", "").lower()
    if meridiem:
        if not 1 <= hour <= 12:
            raise ValueError(f"{name}: a 12-hour time needs an hour from 1 to 12, got {hour} in {text!r}")
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise ValueError(f"{name} is not a valid date and time ({exc}): {text!r}") from None


def parse_fixed_offset(text: str) -> timedelta | None:
    """``UTC+2``, ``GMT-3:30``, ``UTC+05:45``, ``UTC`` → the offset; None when ``text`` is not of that form.

    Offsets beyond ±14 h raise ValueError.
    """
    if not isinstance(text, str):
        return None
    m = _OFFSET_RE.match(text)
    if not m:
        return None
    if m.group(1) is None:
        return timedelta(0)
    sign = -1 if m.group(1) in "-−" else 1
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if minutes >= 60:
        raise ValueError(f"offset minutes must be below 60, got {text!r}")
    delta = sign * timedelta(hours=hours, minutes=minutes)
    if abs(delta) > timedelta(hours=14):
        raise ValueError(f"offset must be within UTC-14 to UTC+14, got {text!r}")
    return delta


def format_clock(dt: datetime) -> str:
    """``10:34 AM`` style 12-hour clock time (zero-padded hour)."""
    return dt.strftime("%I:%M %p")


def is_dst(dt: datetime) -> bool:
    """True if the aware ``dt`` is in daylight saving time (its zone's ``dst()`` is non-zero)."""
    d = dt.dst()
    return bool(d) and d != timedelta(0)


# --- places ---------------------------------------------------------------------------------------------


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    plain = re.sub(r"[’'`.()]", "", plain)
    return " ".join(re.sub(r"[-_/,]", " ", plain).split())


# Places named in tzdata's zone.tab comments (or their usual names) that the cities15000 gazetteer lacks.
_ALIASES: dict[str, str] = {
    "fernando de noronha": "America/Noronha",
    "diego garcia": "Indian/Chagos",
    "ittoqqortoormiit": "America/Scoresbysund",
    "pituffik": "America/Thule",
    "dumont durville": "Antarctica/DumontDUrville",
    "truk": "Pacific/Chuuk",
    "ponape": "Pacific/Pohnpei",
    "south pole": "Antarctica/McMurdo",
}
_GENERIC_SUFFIXES = ("research station", "station", "base", "islands", "island", "atoll", "city")


@cache
def zone_countries() -> dict[str, frozenset[str]]:
    """Canonical zone → ISO alpha-2 codes of the countries tzdata lists it for (zone.tab, zone1970.tab)."""
    out: dict[str, set[str]] = {}
    for filename in ("zone.tab", "zone1970.tab"):
        text = (importlib.resources.files("tzdata") / "zoneinfo" / filename).read_text(encoding="utf-8")
        for line in text.splitlines():
            if line.strip() and not line.startswith("#"):
                codes, _, zone = line.split("\t")[:3]
                out.setdefault(zone, set()).update(codes.split(","))
    return {k: frozenset(v) for k, v in out.items()}


@cache
def _zone_name_index() -> dict[str, tuple[str, ...]]:
    """Folded city part of each canonical zone (``Buenos Aires``, ``New Salem``) → zones."""
    index: dict[str, list[str]] = {}
    for zone in canonical_zones():
        index.setdefault(_fold(zone.rsplit("/", 1)[-1]), []).append(zone)
    for alias, zone in _ALIASES.items():
        index.setdefault(alias, []).append(zone)
    return {k: tuple(v) for k, v in index.items()}


@dataclass(frozen=True)
class CityZone:
    """The zone a city name resolved to and how: ``zone-name`` (an IANA zone is named after it) or
    ``gazetteer`` (GeoNames' zone of the most populous matching city)."""

    zone: str
    name: str
    country_code: str | None
    source: str
    lat: float | None = None
    lon: float | None = None


def _by_zone_name(key: str, cc: str | None) -> str | None:
    zones = _zone_name_index().get(key, ())
    countries = zone_countries()
    if cc is not None:
        zones = tuple(z for z in zones if cc in countries.get(z, frozenset()))
    return zones[0] if len(zones) == 1 else None


def zone_for_city(city: str, country: str | None = None) -> CityZone:
    """The IANA zone of a city (``country``: a name or ISO code, optional but it disambiguates).

    Raises ValueError when the city is unknown (in that country) or, without a country, ambiguous between
    zones.
    """
    if not isinstance(city, str) or not _fold(city):
        raise ValueError(f"city must be a non-empty place name, got {city!r}")
    cc = gazetteer.country_code(country) if country is not None and str(country).strip() else None
    key = _fold(city)
    keys = [key] + [key[: -len(s)].strip() for s in _GENERIC_SUFFIXES if key.endswith(" " + s)]
    for k in keys:
        zone = _by_zone_name(k, cc)
        if zone is not None:
            codes = zone_countries().get(zone, frozenset())
            return CityZone(zone=zone, name=city.strip(), country_code=cc or (min(codes) if len(codes) == 1 else None),
                            source="zone-name")
    found = gazetteer.find_city(city.strip(), cc)
    if not found:
        where = f" in {country}" if cc else ""
        raise ValueError(f"city {city!r} was not found{where}; give a larger nearby city or an IANA zone name")
    best = found[0]
    if cc is None and len({c.timezone for c in found[:5] if c.population >= best.population / 10}) > 1:
        options = ", ".join(f"{c.name} ({c.country})" for c in found[:4])
        raise ValueError(f"city {city!r} is ambiguous ({options}); add the country")
    return CityZone(zone=best.timezone, name=best.name, country_code=best.country_code, source="gazetteer",
                    lat=best.lat, lon=best.lon)


@dataclass(frozen=True)
class Place:
    """A resolved place: ``zone`` (IANA name) or a fixed ``offset``, with a display ``label``."""

    label: str
    zone: str | None = None
    offset: timedelta | None = None

    @property
    def tz(self) -> tzinfo:
        if self.zone is not None:
            return get_zone(self.zone)
        assert self.offset is not None
        return timezone(self.offset)

    def describe(self) -> str:
        return self.zone if self.zone is not None else format_utc_offset(self.offset or timedelta(0))


def resolve_place(place: str, name: str = "place") -> Place:
    """An IANA zone name, a fixed offset (``UTC+2``) or ``City[, Country]`` → :class:`Place`."""
    if not isinstance(place, str) or not place.strip():
        raise ValueError(f"{name} must be an IANA zone, a UTC offset like 'UTC+2' or 'City, Country', got {place!r}")
    text = place.strip()
    try:
        offset = parse_fixed_offset(text)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if offset is not None:
        return Place(label=text, offset=offset)
    if "/" in text and "," not in text:
        try:
            get_zone(text)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        return Place(label=text, zone=text)
    city, _, country = text.partition(",")
    try:
        found = zone_for_city(city.strip(), country.strip() or None)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    return Place(label=text, zone=found.zone)


def at_place(local: datetime, place: Place, name: str = "local") -> datetime:
    """The aware datetime of the naive wall-clock ``local`` at ``place`` (gaps and folds raise ValueError)."""
    if not isinstance(local, datetime):
        raise ValueError(f"{name} must be a datetime, got {type(local).__name__}")
    if local.tzinfo is not None:
        raise ValueError(f"{name} must be a naive wall-clock time in {place.label}")
    if place.zone is None:
        return local.replace(tzinfo=place.tz)
    try:
        return localize(local, place.zone)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def add_elapsed(local: datetime, place: Place, hours: float = 0.0, minutes: float = 0.0,
                to: Place | None = None) -> datetime:
    """The wall-clock time at ``to`` (default ``place``) after ``hours`` + ``minutes`` of elapsed time from the
    naive wall-clock ``local`` at ``place``. Negative durations go back in time."""
    total = timedelta(hours=hours, minutes=minutes)
    if abs(total) > timedelta(days=3660):
        raise ValueError(f"duration must be within ±10 years, got {total}")
    start = at_place(local, place, "local")
    return (start.astimezone(UTC) + total).astimezone((to or place).tz)


def convert_between(local: datetime, source: Place, target: Place) -> datetime:
    """The wall-clock time at ``target`` at the instant when it is ``local`` (naive) at ``source``."""
    return at_place(local, source, "local").astimezone(target.tz)


# --- offsets over a period -------------------------------------------------------------------------------

_STEP = timedelta(hours=6)


def transitions(zone: str, start: datetime, end: datetime,
                step: timedelta = _STEP) -> list[tuple[datetime, timedelta]]:
    """Offset changes of ``zone`` between two aware instants: (UTC instant, new offset), in order.

    Found by sampling every ``step`` (6 hours by default) and bisecting to the second; a zone must not change
    twice within one step (tzdata has no such case since 1970 even for a step of a day).
    """
    if step <= timedelta(0):
        raise ValueError(f"step must be positive, got {step}")
    if start.tzinfo is None or end.tzinfo is None:
        raise ValueError("start and end must be aware datetimes")
    if end < start:
        raise ValueError(f"end must not be before start, got {start} .. {end}")
    tz = get_zone(zone)

    def off(t: datetime) -> timedelta:
        o = t.astimezone(tz).utcoffset()
        assert o is not None
        return o

    out: list[tuple[datetime, timedelta]] = []
    t = start.astimezone(UTC)
    current = off(t)
    stop = end.astimezone(UTC)
    while t < stop:
        nxt = min(t + step, stop)
        new = off(nxt)
        if new != current:
            lo, hi = t, nxt
            while hi - lo > timedelta(seconds=1):
                mid = lo + (hi - lo) / 2
                mid = mid.replace(microsecond=0)
                if mid <= lo:
                    break
                if off(mid) == current:
                    lo = mid
                else:
                    hi = mid
            out.append((hi, new))
            current = new
        t = nxt
    return out


@cache
def offsets_in_year(zone: str, year: int) -> tuple[timedelta, ...]:
    """Every UTC offset ``zone`` uses at some moment of the local calendar ``year``, ascending (daily scan,
    see :func:`transitions`; cached)."""
    if isinstance(year, bool) or not isinstance(year, int) or not 1900 <= year <= 2100:
        raise ValueError(f"year must be an integer from 1900 to 2100, got {year!r}")
    start = localize(datetime(year, 1, 1), zone, nonexistent="shift_forward", ambiguous="earlier")
    end = localize(datetime(year + 1, 1, 1), zone, nonexistent="shift_forward", ambiguous="earlier")
    first = start.utcoffset()
    assert first is not None
    found = {first} | {o for t, o in transitions(zone, start, end, step=timedelta(days=1)) if t < end}
    return tuple(sorted(found))
