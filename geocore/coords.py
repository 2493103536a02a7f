"""Coordinate formats and projections: DMS, UTM and Web Mercator (degrees, lat then lon)."""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pyproj import Transformer

from geocore import validation as check

_HEMISPHERES = {"lat": ("N", "S"), "lon": ("E", "W")}


# ----------------------------------------------------------------------------- DMS

@dataclass(frozen=True)
class DMS:
    """An unsigned angle in degrees, minutes, seconds with its hemisphere letter N, S, E or W."""

    degrees: int
    minutes: int
    seconds: float
    hemisphere: str

    def __post_init__(self) -> None:
        for name in ("degrees", "minutes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ValueError(f"{name} must be an int, got {value!r}")
        if self.hemisphere not in ("N", "S", "E", "W"):
            raise ValueError(f"hemisphere must be one of N, S, E, W, got {self.hemisphere!r}")
        if not 0 <= self.minutes < 60:
            raise ValueError(f"minutes must be within [0, 60), got {self.minutes!r}")
        if not 0.0 <= check.finite(self.seconds, "seconds") < 60.0:
            raise ValueError(f"seconds must be within [0, 60), got {self.seconds!r}")
        if self.degrees < 0:
            raise ValueError(f"degrees must be >= 0, got {self.degrees!r}")

    def to_decimal(self) -> float:
        """Signed decimal degrees (S and W negative)."""
        return dms_to_decimal(self.degrees, self.minutes, self.seconds, self.hemisphere)

    def __str__(self) -> str:
        return _format_one(self.to_decimal(), "lat" if self.hemisphere in "NS" else "lon", 2)


def decimal_to_dms(value: float, axis: Literal["lat", "lon"]) -> DMS:
    """Split decimal degrees GPSBench's way: deg = floor(|x|), min = floor(frac*60), sec = rest*60.

    The hemisphere follows the sign (0 is N or E). Seconds are not rounded; use ``format_dms`` to print.
    """
    if axis not in _HEMISPHERES:
        raise ValueError(f"axis must be 'lat' or 'lon', got {axis!r}")
    x = check.lat(value, "value") if axis == "lat" else check.lon(value, "value")
    a = abs(x)
    deg = math.floor(a)
    rest = (a - deg) * 60.0
    minutes = math.floor(rest)
    seconds = (rest - minutes) * 60.0
    if seconds >= 60.0:  # float edge cases only
        seconds, minutes = 0.0, minutes + 1
    if minutes >= 60:
        minutes, deg = 0, deg + 1
    return DMS(int(deg), int(minutes), seconds, _HEMISPHERES[axis][x < 0])


def dms_to_decimal(degrees: float, minutes: float, seconds: float, hemisphere: str) -> float:
    """Signed decimal degrees from unsigned degrees, minutes [0, 60), seconds [0, 60) and N/S/E/W."""
    d = check.non_negative(degrees, "degrees")
    m = check.non_negative(minutes, "minutes")
    s = check.non_negative(seconds, "seconds")
    if m >= 60:
        raise ValueError(f"minutes must be < 60, got {minutes!r}")
    if s >= 60:
        raise ValueError(f"seconds must be < 60, got {seconds!r}")
    h = hemisphere.strip().upper() if isinstance(hemisphere, str) else None
    if h not in ("N", "S", "E", "W"):
        raise ValueError(f"hemisphere must be one of N, S, E, W, got {hemisphere!r}")
    value = d + m / 60.0 + s / 3600.0
    limit = 90.0 if h in "NS" else 180.0
    if value > limit:
        raise ValueError(f"degrees: {value} exceeds {limit} for hemisphere {h}")
    return -value if h in "SW" else value


def _format_one(value: float, axis: Literal["lat", "lon"], decimals: int) -> str:
    total = round(abs(value) * 3600.0, decimals)  # round once, in seconds, then carry
    deg = int(total // 3600)
    minutes = int((total - deg * 3600) // 60)
    seconds = total - deg * 3600 - minutes * 60
    width = decimals + 3 if decimals else 2
    hem = _HEMISPHERES[axis][value < 0 and total > 0]
    return f"{deg}°{minutes:02d}'{seconds:0{width}.{decimals}f}\"{hem}"


def format_dms(lat: float, lon: float, seconds_decimals: int = 2) -> str:
    """Format a position like ``40°26'46.30"N, 79°58'56.00"W`` (seconds rounded, carried into minutes)."""
    lat, lon = check.lat(lat, "lat"), check.lon(lon, "lon")
    if isinstance(seconds_decimals, bool) or not isinstance(seconds_decimals, int) or not 0 <= seconds_decimals <= 9:
        raise ValueError(f"seconds_decimals must be an int within [0, 9], got {seconds_decimals!r}")
    return f"{_format_one(lat, 'lat', seconds_decimals)}, {_format_one(lon, 'lon', seconds_decimals)}"


_TOKEN = re.compile(
    r"""
    (?P<num>\d+(?:\.\d*)?|\.\d+)
    |(?P<sign>[-+])
    |(?P<word>north|south|east|west)
    |(?P<deg>°|degrees?|deg|d)
    |(?P<min>'|minutes?|mins?|m)
    |(?P<sec>"|seconds?|secs?|s)
    |(?P<hem>[nsew])
    |(?P<ws>[\s,:]+)
    """,
    re.IGNORECASE | re.VERBOSE,
)
_NORMALISE = str.maketrans({
    "′": "'", "’": "'", "‘": "'", "´": "'", "`": "'", "″": '"', "”": '"', "“": '"',
    "º": "°", "˚": "°", "−": "-", "–": "-",
})
_ORDER = ("deg", "min", "sec")


def _tokens(text: str) -> list[tuple[str, str, bool]]:
    """(kind, text, attached-to-previous-token) triples; ValueError on any unknown character."""
    s = text.translate(_NORMALISE).replace("''", '"').strip()
    out: list[tuple[str, str, bool]] = []
    pos, attached = 0, False
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if m is None:
            raise ValueError(f"text {text!r}: unexpected character {s[pos]!r}")
        kind, tok = m.lastgroup or "", m.group()
        pos = m.end()
        if kind == "ws":
            attached = False
            continue
        if kind == "word":
            kind, tok = "hem", tok[0]
        elif kind == "sec" and tok in ("S", "s") and (tok == "S" or not (attached and _nums(out) >= 2)):
            kind = "hem"  # S, or an s not glued to a number after the minutes, is the southern hemisphere
        out.append((kind, tok.upper() if kind == "hem" else tok, attached))
        attached = True
    return out


def _nums(tokens: list[tuple[str, str, bool]]) -> int:
    return sum(1 for k, _, _ in tokens if k == "num")


def _parse_angle(text: str) -> tuple[float, str | None]:
    """Signed degrees and hemisphere letter (or None) of one angle in DD or DMS notation."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {text!r}")
    toks = _tokens(text)
    hem: str | None = None
    if toks and toks[0][0] == "hem":
        hem = toks.pop(0)[1]
    if toks and toks[-1][0] == "hem":
        if hem is not None:
            raise ValueError(f"text {text!r}: two hemisphere letters")
        hem = toks.pop()[1]
    sign = 1.0
    if toks and toks[0][0] == "sign":
        sign = -1.0 if toks.pop(0)[1] == "-" else 1.0
        if sign < 0 and hem is not None:
            raise ValueError(f"text {text!r}: a minus sign and a hemisphere letter together are ambiguous")
    parts: dict[str, str] = {}
    last = -1
    i = 0
    while i < len(toks):
        kind, tok, _ = toks[i]
        if kind != "num":
            raise ValueError(f"text {text!r}: unexpected {tok!r}")
        unit = toks[i + 1][0] if i + 1 < len(toks) and toks[i + 1][0] in _ORDER else None
        slot = _ORDER.index(unit) if unit else last + 1
        if slot <= last or slot >= 3:
            raise ValueError(f"text {text!r}: degrees, minutes and seconds out of order")
        parts[_ORDER[slot]] = tok
        last = slot
        i += 2 if unit else 1
    if "deg" not in parts:
        raise ValueError(f"text {text!r}: no degrees found")
    given = [k for k in _ORDER if k in parts]
    if any("." in parts[k] for k in given[:-1]):
        raise ValueError(f"text {text!r}: only the last component may have decimals")
    deg, minutes, seconds = (float(parts.get(k, 0.0)) for k in _ORDER)
    if minutes >= 60 or seconds >= 60:
        raise ValueError(f"text {text!r}: minutes and seconds must be < 60")
    value = deg + minutes / 60.0 + seconds / 3600.0
    limit = 90.0 if hem in ("N", "S") else 180.0
    if value > limit:
        raise ValueError(f"text {text!r}: {value} degrees exceeds {limit}")
    return (-value if hem in ("S", "W") else sign * value), hem


def parse_dms(text: str) -> float:
    """Signed decimal degrees from one angle: ``40°26'46.3"N``, ``40 26 46.3 N``, ``40d26m46.3s N``,
    ``N 40° 26′ 46.3″``, ``-40.446``, ``40°26.77'S`` ... ValueError quoting the text on failure."""
    return _parse_angle(text)[0]


def parse_coordinate_pair(text: str) -> tuple[float, float]:
    """(lat, lon) from "lat, lon" in decimal degrees or DMS; hemisphere letters may put lon first."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {text!r}")
    s = text.strip().strip("()[]").strip()
    seps = [c for c in ",;" if s.count(c) == 1]
    if seps:
        cuts = [s.index(seps[0])]
        skip = 1
    else:
        cuts = [i for i in range(1, len(s)) if s[i - 1].isspace() and not s[i].isspace()]
        cuts += [i for i in range(1, len(s)) if s[i - 1] in "NSEWnsew" and (s[i].isdigit() or s[i] in "+-.")]
        skip = 0
    found: set[tuple[float, float]] = set()
    for cut in cuts:
        try:
            (va, ha), (vb, hb) = _parse_angle(s[:cut]), _parse_angle(s[cut + skip :])
        except ValueError:
            continue
        if ha in ("E", "W") or hb in ("N", "S"):
            (va, ha), (vb, hb) = (vb, hb), (va, ha)
        if ha in ("E", "W") or hb in ("N", "S") or abs(va) > 90.0:
            continue
        found.add((va, vb))
    if len(found) != 1:
        why = "ambiguous" if found else "not a 'lat, lon' pair"
        raise ValueError(f"text {text!r} is {why}")
    return found.pop()


# ----------------------------------------------------------------------------- UTM

_BANDS = "CDEFGHJKLMNPQRSTUVWXX"  # 8° bands from -80; X is stretched to 84°N


@dataclass(frozen=True)
class UTM:
    """A UTM position: easting and northing in metres, zone 1..60, hemisphere 'N' or 'S'."""

    easting: float
    northing: float
    zone: int
    hemisphere: str


def _zone_arg(zone: int) -> int:
    if isinstance(zone, bool) or not isinstance(zone, int) or not 1 <= zone <= 60:
        raise ValueError(f"zone must be an int within [1, 60], got {zone!r}")
    return zone


def _utm_lat(lat: float) -> float:
    x = check.lat(lat, "lat")
    if not -80.0 <= x <= 84.0:
        raise ValueError(f"lat must be within [-80, 84] degrees for UTM, got {x}")
    return x


def simple_utm_zone(lon: float) -> int:
    """GPSBench's zone formula floor((lon + 180) / 6) + 1 (App. C.5), with lon = 180 taken as -180.

    Unlike ``utm_zone`` it ignores the Norway (32V) and Svalbard (31X-37X) exceptions.
    """
    x = check.lon(lon, "lon")
    return int(math.floor((x + 180.0) / 6.0)) % 60 + 1


def utm_zone(lat: float, lon: float) -> tuple[int, str]:
    """(zone number, latitude band letter C..X) including the Norway and Svalbard exceptions."""
    x, y = _utm_lat(lat), check.lon(lon, "lon")
    band = _BANDS[int((x + 80.0) // 8)]
    zone = simple_utm_zone(y)
    if 56.0 <= x < 64.0 and 3.0 <= y < 12.0:
        zone = 32
    elif x >= 72.0 and 0.0 <= y < 42.0:
        zone = 31 if y < 9.0 else 33 if y < 21.0 else 35 if y < 33.0 else 37
    return zone, band


@lru_cache(maxsize=256)
def _transformer(src: str, dst: str) -> Transformer:
    return Transformer.from_crs(src, dst, always_xy=True)


def _epsg_utm(zone: int, hemisphere: str) -> str:
    return f"EPSG:{(32600 if hemisphere == 'N' else 32700) + zone}"


def to_utm(lat: float, lon: float, zone: int | None = None) -> UTM:
    """UTM coordinates on WGS84 (EPSG:326xx north, 327xx south); zone defaults to ``utm_zone``."""
    x, y = _utm_lat(lat), check.lon(lon, "lon")
    z = utm_zone(x, y)[0] if zone is None else _zone_arg(zone)
    hem = "N" if x >= 0 else "S"
    e, n = _transformer("EPSG:4326", _epsg_utm(z, hem)).transform(y, x)
    if not (math.isfinite(e) and math.isfinite(n)):
        raise ValueError(f"lat, lon ({x}, {y}) cannot be projected to UTM zone {z}")
    return UTM(e, n, z, hem)


def from_utm(easting: float, northing: float, zone: int, hemisphere: str) -> tuple[float, float]:
    """(lat, lon) of a WGS84 UTM coordinate."""
    e, n = check.finite(easting, "easting"), check.finite(northing, "northing")
    z = _zone_arg(zone)
    hem = hemisphere.strip().upper() if isinstance(hemisphere, str) else None
    if hem not in ("N", "S"):
        raise ValueError(f"hemisphere must be 'N' or 'S', got {hemisphere!r}")
    lon, lat = _transformer(_epsg_utm(z, hem), "EPSG:4326").transform(e, n)
    if not (math.isfinite(lat) and math.isfinite(lon)):
        raise ValueError(f"easting, northing ({e}, {n}) are outside UTM zone {z}{hem}")
    return (lat, lon)


# ----------------------------------------------------------------------------- Web Mercator

WEB_MERCATOR_MAX_LAT = 85.051129
_R_3857 = 6378137.0
_X_MAX = math.pi * _R_3857
_Y_MAX = _R_3857 * math.log(math.tan(math.pi / 4 + math.radians(WEB_MERCATOR_MAX_LAT) / 2))


def to_web_mercator(lat: float, lon: float) -> tuple[float, float]:
    """(x, y) metres in EPSG:3857 (sphere R = 6378137 m); |lat| must be <= 85.051129."""
    x, y = check.lat(lat, "lat"), check.lon(lon, "lon")
    if abs(x) > WEB_MERCATOR_MAX_LAT:
        raise ValueError(f"lat must be within ±{WEB_MERCATOR_MAX_LAT} degrees for Web Mercator, got {x}")
    return _transformer("EPSG:4326", "EPSG:3857").transform(y, x)


def from_web_mercator(x: float, y: float) -> tuple[float, float]:
    """(lat, lon) of an EPSG:3857 position in metres."""
    ex, ny = check.finite(x, "x"), check.finite(y, "y")
    if abs(ex) > _X_MAX * (1 + 1e-12):
        raise ValueError(f"x must be within ±{_X_MAX} m, got {ex}")
    if abs(ny) > _Y_MAX * (1 + 1e-12):
        raise ValueError(f"y must be within ±{_Y_MAX} m, got {ny}")
    lon, lat = _transformer("EPSG:3857", "EPSG:4326").transform(ex, ny)
    return (lat, max(-180.0, min(180.0, lon)))
