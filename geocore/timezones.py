"""IANA time zones: offsets, DST-aware localisation, conversion, and lat/lon → zone.

Built on stdlib ``zoneinfo`` with the ``tzdata`` package (never pytz: pytz needs ``localize`` and gives
LMT offsets when used with ``datetime.replace``). Zones are read from the tzdata package itself: plain
``ZoneInfo(name)`` prefers the system's /usr/share/zoneinfo, whose release may be older (2025b on the build
machine, which disagrees with tzdata 2026f for America/Havana from November 2026). Every invalid input raises
``ValueError`` naming the argument.

Conventions:

- A *naive* ``instant`` passed to :func:`utc_offset` means UTC.
- A naive wall-clock time passed to :func:`localize` (or to :func:`convert` with ``from_zone``) means local
  time in that zone; DST gaps and folds are handled explicitly, never silently.
"""

from __future__ import annotations

import difflib
import importlib.resources
import threading
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo

from geocore import validation

if TYPE_CHECKING:
    from timezonefinder import TimezoneFinder

__all__ = [
    "AmbiguousTimeError",
    "NonexistentTimeError",
    "canonical_zones",
    "convert",
    "format_utc_offset",
    "get_zone",
    "is_canonical_zone",
    "localize",
    "utc_offset",
    "utc_offset_hours",
    "zone_at",
]

Nonexistent = Literal["raise", "shift_forward", "shift_backward"]
Ambiguous = Literal["raise", "earlier", "later"]


class NonexistentTimeError(ValueError):
    """A wall-clock time that never happens in the zone (skipped by a forward clock change)."""


class AmbiguousTimeError(ValueError):
    """A wall-clock time that happens twice in the zone (repeated by a backward clock change)."""


class _PackagedZone(ZoneInfo):
    """A ZoneInfo read from the tzdata package; pickles back through :func:`get_zone`."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (get_zone, (self.key,))

    def __repr__(self) -> str:
        return f"ZoneInfo(key={self.key!r})"


_ZONES: dict[str, ZoneInfo] = {}
_ZONES_LOCK = threading.Lock()


@cache
def _available() -> frozenset[str]:
    """Zone names shipped by the tzdata package."""
    text = (importlib.resources.files("tzdata") / "zones").read_text(encoding="utf-8")
    return frozenset(text.split())


def _load(name: str) -> ZoneInfo:
    """One shared instance per name, read from the tzdata package (never the system's /usr/share/zoneinfo)."""
    with _ZONES_LOCK:
        zone = _ZONES.get(name)
        if zone is None:
            path = importlib.resources.files("tzdata") / "zoneinfo"
            for part in name.split("/"):
                path = path / part
            with path.open("rb") as fh:
                zone = _PackagedZone.from_file(fh, key=name)
            _ZONES[name] = zone
        return zone


def _suggest(name: str) -> list[str]:
    zones = sorted(_available())
    exact_case = [z for z in zones if z.lower() == name.lower().replace(" ", "_")]
    close = difflib.get_close_matches(name, zones, n=3, cutoff=0.6)
    return list(dict.fromkeys(exact_case + close))


def get_zone(name: str) -> ZoneInfo:
    """Return the ``ZoneInfo`` for an exact IANA name; unknown names raise ValueError with close names.

    Zones are read from the ``tzdata`` package, not from the system database that ``ZoneInfo(name)`` would
    prefer: results then follow the pinned tzdata release on every machine. One instance per name (so
    datetimes in the same zone compare wall-clock-wise); it is not ``==`` to ``ZoneInfo(name)``.
    """
    zone = _ZONES.get(name) if isinstance(name, str) else None
    if zone is not None:  # loaded before, so valid
        return zone
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"zone must be a non-empty IANA time zone name, got {name!r}")
    if name in _available():
        return _load(name)
    hint = _suggest(name)
    extra = f"; did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
    raise ValueError(f"zone {name!r} is not a known IANA time zone{extra}")


def _instant(instant: datetime, name: str = "instant") -> datetime:
    """An aware datetime: naive values are taken as UTC."""
    if not isinstance(instant, datetime):
        raise ValueError(f"{name} must be a datetime, got {type(instant).__name__}")
    if instant.tzinfo is None or instant.utcoffset() is None:
        return instant.replace(tzinfo=UTC)
    return instant


def utc_offset(zone: str, instant: datetime) -> timedelta:
    """UTC offset of ``zone`` at ``instant`` (aware; a naive ``instant`` is read as UTC), DST included."""
    tz = get_zone(zone)
    offset = _instant(instant).astimezone(tz).utcoffset()
    assert offset is not None
    return offset


def utc_offset_hours(zone: str, instant: datetime) -> float:
    """:func:`utc_offset` in hours, e.g. 5.75 for Asia/Kathmandu, -3.5 for America/St_Johns in winter."""
    return utc_offset(zone, instant).total_seconds() / 3600.0


def format_utc_offset(td: timedelta) -> str:
    """Format an offset as ``UTC+5:30``, ``UTC-3``, ``UTC+0`` (seconds shown only if non-zero: ``UTC+0:53:28``)."""
    if not isinstance(td, timedelta):
        raise ValueError(f"td must be a timedelta, got {type(td).__name__}")
    total = td.total_seconds()
    if abs(total) >= 86400:
        raise ValueError(f"td must be strictly within ±24 h, got {td}")
    if total != int(total):
        raise ValueError(f"td must be a whole number of seconds, got {td}")
    seconds = int(total)
    sign = "-" if seconds < 0 else "+"
    hours, rest = divmod(abs(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if secs:
        return f"UTC{sign}{hours}:{minutes:02d}:{secs:02d}"
    if minutes:
        return f"UTC{sign}{hours}:{minutes:02d}"
    return f"UTC{sign}{hours}"


def _round_trips(local: datetime) -> bool:
    """True if the aware ``local`` survives local → UTC → local with the same wall time."""
    back = local.astimezone(UTC).astimezone(local.tzinfo)
    return back.replace(tzinfo=None) == local.replace(tzinfo=None)


def localize(
    naive: datetime,
    zone: str,
    *,
    nonexistent: Nonexistent = "raise",
    ambiguous: Ambiguous = "raise",
) -> datetime:
    """Attach ``zone`` to a naive wall-clock time, handling DST gaps and folds explicitly.

    - Ordinary time: the aware datetime with that wall time.
    - Gap (the wall time is skipped, e.g. 2023-03-26 02:30 Europe/Berlin): ``"raise"`` raises
      :class:`NonexistentTimeError`; ``"shift_forward"`` reads it with the offset in force *before* the
      change, so the result is later by the gap length (02:30 → 03:30+02:00, as RFC 5545 and Java do;
      pandas' ``shift_forward`` would give 03:00); ``"shift_backward"`` reads it with the offset *after* the
      change, earlier by the gap length (02:30 → 01:30+01:00). The returned wall time always exists.
    - Fold (the wall time happens twice, e.g. 2023-10-29 02:30 Europe/Berlin): ``"raise"`` raises
      :class:`AmbiguousTimeError`; ``"earlier"`` picks the first occurrence (fold=0, +02:00 there);
      ``"later"`` the second (fold=1, +01:00).
    """
    if not isinstance(naive, datetime):
        raise ValueError(f"naive must be a datetime, got {type(naive).__name__}")
    if naive.tzinfo is not None:
        raise ValueError(f"naive must be a naive datetime (no tzinfo), got tzinfo={naive.tzinfo!r}")
    if nonexistent not in ("raise", "shift_forward", "shift_backward"):
        raise ValueError(f"nonexistent must be 'raise', 'shift_forward' or 'shift_backward', got {nonexistent!r}")
    if ambiguous not in ("raise", "earlier", "later"):
        raise ValueError(f"ambiguous must be 'raise', 'earlier' or 'later', got {ambiguous!r}")
    tz = get_zone(zone)
    first = naive.replace(tzinfo=tz, fold=0)
    second = naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() == second.utcoffset():
        return first  # no clock change at this wall time (in a gap or a fold the two readings differ)
    if not _round_trips(first):
        # In a gap zoneinfo gives fold=0 the pre-transition offset and fold=1 the post-transition one.
        if nonexistent == "raise":
            raise NonexistentTimeError(
                f"naive {naive.isoformat()} does not exist in {zone} (skipped by a clock change); "
                "pass nonexistent='shift_forward' or 'shift_backward'"
            )
        chosen = first if nonexistent == "shift_forward" else second
        return chosen.astimezone(UTC).astimezone(tz)
    if first.utcoffset() != second.utcoffset():
        if ambiguous == "raise":
            raise AmbiguousTimeError(
                f"naive {naive.isoformat()} is ambiguous in {zone} (repeated by a clock change: "
                f"{format_utc_offset(first.utcoffset() or timedelta())} then "
                f"{format_utc_offset(second.utcoffset() or timedelta())}); pass ambiguous='earlier' or 'later'"
            )
        return first if ambiguous == "earlier" else second
    return first


def convert(
    dt: datetime,
    to_zone: str,
    from_zone: str | None = None,
    **localize_kwargs: Any,
) -> datetime:
    """Convert ``dt`` to ``to_zone``.

    An aware ``dt`` converts directly (``from_zone`` must then be None). A naive ``dt`` is a wall time in
    ``from_zone`` (required) and is first passed to :func:`localize` with ``localize_kwargs``
    (``nonexistent=``, ``ambiguous=``).
    """
    if not isinstance(dt, datetime):
        raise ValueError(f"dt must be a datetime, got {type(dt).__name__}")
    target = get_zone(to_zone)
    aware = dt.tzinfo is not None and dt.utcoffset() is not None
    if aware:
        if from_zone is not None:
            raise ValueError("from_zone must be None when dt is aware (its tzinfo already fixes the instant)")
        if localize_kwargs:
            raise ValueError(f"localize_kwargs only apply to a naive dt, got {sorted(localize_kwargs)}")
        return dt.astimezone(target)
    if from_zone is None:
        raise ValueError("from_zone is required when dt is naive")
    unknown = set(localize_kwargs) - {"nonexistent", "ambiguous"}
    if unknown:
        raise ValueError(f"localize_kwargs accepts only 'nonexistent' and 'ambiguous', got {sorted(unknown)}")
    return localize(dt, from_zone, **localize_kwargs).astimezone(target)


@cache
def _finder() -> TimezoneFinder:
    from timezonefinder import TimezoneFinder

    return TimezoneFinder()


def _nautical_zone(lon: float) -> str:
    """``Etc/GMT±N`` for the 15°-wide nautical zone of ``lon`` (POSIX sign: Etc/GMT+3 is UTC-3)."""
    n = int(round(lon / 15.0))
    return "Etc/GMT" if n == 0 else f"Etc/GMT{-n:+d}"


def zone_at(lat: float, lon: float) -> str:
    """IANA zone at a point, from timezonefinder's boundary data.

    On land: the land zone (e.g. Europe/Paris). At sea: timezonefinder's ocean zone, an ``Etc/GMT±N``
    nautical zone (Etc/GMT+3 means UTC-3); if it has none, ``Etc/GMT±N`` with N = round(lon / 15).
    """
    la = validation.lat(lat)
    lo = validation.lon(lon)
    name = _finder().timezone_at(lat=la, lng=lo)
    return name if name else _nautical_zone(lo)


def _tab_zones(filename: str) -> set[str]:
    text = (importlib.resources.files("tzdata") / "zoneinfo" / filename).read_text(encoding="utf-8")
    out: set[str] = set()
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            out.add(line.split("\t")[2])
    return out


@cache
def _canonical() -> frozenset[str]:
    """Zones named in tzdata's zone.tab and zone1970.tab (the geographic, current names)."""
    names = _tab_zones("zone.tab") | _tab_zones("zone1970.tab")
    return frozenset(names & _available())


def is_canonical_zone(name: str) -> bool:
    """True if ``name`` is a current geographic IANA zone (listed in tzdata's zone.tab or zone1970.tab).

    False for Etc/*, UTC, legacy (US/*, Canada/*, EST, ...) and backward links (Asia/Calcutta, Europe/Kiev)
    and for unknown names. Case-sensitive.
    """
    return isinstance(name, str) and name in _canonical()


def canonical_zones() -> list[str]:
    """Sorted list of canonical zones (see :func:`is_canonical_zone`); about 420 names."""
    return sorted(_canonical())
