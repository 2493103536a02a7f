"""Latitudes, longitudes and coordinate pairs in an answer segment: signs, hemisphere letters, DMS, labels and
the order the prompt asked for. Several different pairs ("(lat, lon) or (lat', lon')") are a hedge."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TypedDict, final

from tasks.answers.decide import decide
from tasks.answers.numbers import result_part
from tasks.answers.text import clean
from tasks.records import Parsed

_ANGLE_BODY = r"""
    (?:(?P<label>\b(?:latitude|longitude|lat|lon|long|lng)\b)\.?\s?(?:[:=]|is|of)?\s?)?
    {pre}
    (?P<sign>[-+])?\s?
    (?<![\w.])(?P<deg>\d++(?:\.\d++)?)(?!,\d)
    (?:\s?(?P<degmark>°|deg(?:rees)?\b|d(?=\s?\d)))?
    (?:\s?(?P<min>\d++(?:\.\d++)?)\s?(?:'(?!')|min(?:utes)?\b)
       (?:\s?(?P<sec>\d++(?:\.\d++)?)\s?(?:"|''|sec(?:onds)?\b)|(?P<bare>\d++(?:\.\d++)?)(?![\d.°'"]))?
    )?
    (?!\s?(?:km|m|mi|miles?|met(?:er|re)s?|kilomet(?:er|re)s?|%)(?![A-Za-z]))
    {post}
    """
_ANGLE_POST = re.compile(
    _ANGLE_BODY.format(pre="", post=r"(?:\s?(?P<post>[NSEW](?![A-Za-z])|north\b|south\b|east\b|west\b))?"),
    re.VERBOSE | re.IGNORECASE)
_ANGLE_PRE = re.compile(
    _ANGLE_BODY.format(pre=r"(?:(?<![A-Za-z])(?P<pre>[NSEW])\s?)?", post=""), re.VERBOSE | re.IGNORECASE)
_PREFIX_STYLE = re.compile(r"(?<![A-Za-z])[NSEW]\s?[-+]?\d")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Angle:
    """A signed angle found in text, with its hemisphere letter and axis label when given."""

    value: float
    hemisphere: str | None
    label: str | None
    span: tuple[int, int]
    dms: bool

    @property
    def axis(self) -> str | None:
        """"lat" or "lon" when a label or hemisphere letter says which, else None."""
        if self.label:
            return self.label
        if self.hemisphere in ("N", "S"):
            return "lat"
        if self.hemisphere in ("E", "W"):
            return "lon"
        return None


def find_angles(segment: str) -> list[Angle]:
    """Angles in ``segment`` (decimal or DMS), signed by hemisphere letters and signs, in order; numbers with
    a distance unit or a percent sign are not angles."""
    s = " ".join(clean(segment).split())
    first_digit = _DIGIT.search(s)
    prefix = _PREFIX_STYLE.search(s)
    regex = _ANGLE_PRE if prefix and first_digit and prefix.end() - 1 == first_digit.start() else _ANGLE_POST
    out: list[Angle] = []
    for m in regex.finditer(s):
        groups = m.groupdict()
        pre, post = groups.get("pre"), groups.get("post")
        if pre and pre != pre.upper():
            pre = None
        hem_token = post or pre
        hem = None
        if hem_token and (len(hem_token) > 1 or hem_token.isupper()):
            hem = hem_token[0].upper()
        deg = float(m.group("deg"))
        minutes = float(m.group("min")) if m.group("min") else 0.0
        sec = m.group("sec") or m.group("bare")  # seconds right after the minutes' mark need no mark of their own
        seconds = float(sec) if sec else 0.0
        if minutes >= 60 or seconds >= 60:
            continue
        value = deg + minutes / 60.0 + seconds / 3600.0
        negative = m.group("sign") == "-" or hem in ("S", "W")
        label = m.group("label")
        axis = ("lat" if label.lower().startswith("lat") else "lon") if label else None
        out.append(Angle(-value if negative else value, hem, axis, m.span(), bool(m.group("min"))))
    return out


@final
class PairAnswer(TypedDict):
    """A parsed coordinate pair: the position and how it was written."""

    lat: float
    lon: float
    dms: bool
    lon_first: bool


@dataclass(frozen=True)
class Pair:
    """A (lat, lon) pair, or why none could be formed."""

    lat: float | None
    lon: float | None
    reason: str = ""
    lon_first: bool = False
    dms: bool = False


def pair_from_angles(angles: Sequence[Angle], lon_first: bool = False) -> Pair:
    """(lat, lon) from two angles: labels, then hemisphere letters, then the asked order (lat first unless
    ``lon_first``)."""
    if len(angles) < 2:
        return Pair(None, None, "fewer than two coordinates")
    a, b = angles[0], angles[1]
    xa, xb = a.axis, b.axis
    if xa and xb and xa == xb:
        return Pair(None, None, f"both values are {'latitudes' if xa == 'lat' else 'longitudes'}")
    if xa == "lon" or xb == "lat" or (xa is None and xb is None and lon_first):
        a_lat, a_lon, swapped = b, a, True
    else:
        a_lat, a_lon, swapped = a, b, False
    if abs(a_lat.value) > 90:
        return Pair(None, None, f"latitude {a_lat.value} out of range")
    if abs(a_lon.value) > 180:
        return Pair(None, None, f"longitude {a_lon.value} out of range")
    return Pair(a_lat.value, a_lon.value, lon_first=swapped, dms=a_lat.dms and a_lon.dms)


def pairs(segment: str, lon_first: bool = False) -> list[Pair]:
    """Every coordinate pair in ``segment``: angles taken two by two in order (a single angle left over at the
    end is ignored). After "=" only the result counts when it holds a pair."""
    body = result_part(segment)
    angles = find_angles(body)
    if len(angles) < 2 and body != segment:
        angles = find_angles(segment)
    return [pair_from_angles(angles[k:k + 2], lon_first) for k in range(0, len(angles) - 1, 2)]


def _same_pair(a: Pair, b: Pair, tol: float = 5e-4) -> bool:
    return abs((a.lat or 0) - (b.lat or 0)) <= tol and abs((a.lon or 0) - (b.lon or 0)) <= tol


def coordinate_pair(segment: str, *, lon_first: bool = False,
                    given: Collection[tuple[float, float]] = ()) -> Parsed[PairAnswer]:
    """One (lat, lon) pair from an answer segment, as ``{"lat", "lon", "dms", "lon_first"}``. Two different pairs
    are hedged (the same position in DMS and decimal is one); pairs printed in the prompt (``given``, as
    (lat, lon)) are dropped when another remains; no pair is unparsed with the reason."""
    found = pairs(segment, lon_first)
    good = [p for p in found if p.lat is not None and p.lon is not None]
    if not good:
        return Parsed.failure(segment, found[0].reason if found else "fewer than two coordinates")
    fresh = [p for p in good if not any(_same_pair(p, Pair(g[0], g[1]), 1e-9) for g in given)] or good
    parsed = decide(segment, [(p.lat, p.lon) for p in fresh], what="coordinate pair",
                    same=lambda a, b: _same_pair(Pair(*a), Pair(*b)))
    if not parsed.ok:
        return parsed.no_answer()
    p = next(q for q in fresh if (q.lat, q.lon) == parsed.answer)
    assert p.lat is not None and p.lon is not None  # fresh holds complete pairs only
    return Parsed.success(segment, PairAnswer(lat=p.lat, lon=p.lon, dms=p.dms, lon_first=p.lon_first))


def single_angle(segment: str, axis: str) -> Parsed[float]:
    """One latitude (``axis="lat"``) or longitude from ``segment``: the one labelled for ``axis`` when several
    are given; two different values for the axis are hedged; a value out of the axis's range is kept (the
    scorer finds it wrong)."""
    angles = find_angles(result_part(segment)) or find_angles(segment)
    if not angles:
        return Parsed.failure(segment, "no angle found")
    chosen = [a for a in angles if a.axis == axis] or [a for a in angles if a.axis is None]
    name = "latitude" if axis == "lat" else "longitude"
    if not chosen:
        return Parsed.failure(segment, f"the value given is not a {name}")
    # a value out of range for the axis (a longitude given as the latitude) is still the answer, a wrong one
    return decide(segment, [a.value for a in chosen], what=name, same=lambda x, y: abs(x - y) <= 5e-4)
