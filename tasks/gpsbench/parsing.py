"""GPSBench-only extractors built on the shared layer (:mod:`tasks.answers`): UTM and Web Mercator coordinates,
bearings, index lists and polygon area. Each returns a :class:`Parsed` whose status follows the scoring policy:
two different values are hedged, nothing is unparsed."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TypedDict, final

from tasks.answers import (
    NUM,
    bare_number,
    clean,
    decide,
    is_formula,
    numbers,
    quantities,
    result_part,
    same_value,
    to_float,
)
from tasks.records import Parsed

_ZONE = re.compile(r"\b(?:utm\s?)?zone\s?(?:number\s?)?:?\s?(\d{1,2})\s?([C-HJ-NP-X])?(?![A-Za-z])|\butm\s?:?\s?(\d{1,2})"
                   r"\s?([C-HJ-NP-X])?(?![A-Za-z\d])", re.IGNORECASE)
_ZONE_START = re.compile(r"^\s?(\d{1,2})\s?([C-HJ-NP-X])(?![A-Za-z\d])")
_BAND = re.compile(r"(?<![\w.,])(\d{1,2})\s?([C-HJ-NP-X])(?![A-Za-z\d])(?=[^\d]{0,12}\d{5})")
"""A zone and band written before the coordinates ("... is 33T, 500000 E"): the zone, not a northing."""
_HEMI_WORD = re.compile(r"\b(north(?:ern)?|south(?:ern)?)\s+hemisphere\b", re.IGNORECASE)
_UNIT_AFTER = re.compile(r"\s?(km|m)\b", re.IGNORECASE)


def _metres(segment: str, names: str, suffix: str) -> list[float]:
    """Values labelled ``names`` before them ("easting: 500000") or ``suffix`` after them ("500000 mE")."""
    out = [to_float(m.group(1)) * (1000.0 if (m.group(2) or "").lower() == "km" else 1.0) for m in re.finditer(
        rf"(?:\b(?:{names})\b)\s?[:=]?\s?({NUM})\s?(km|m)?\b", segment, re.IGNORECASE)]
    if suffix:
        out += [to_float(m.group(1)) * (1000.0 if (m.group(2) or "").lower() == "km" else 1.0) for m in re.finditer(
            rf"(?<![\w.])({NUM})\s?(km|m)?\s?(?:{suffix})(?![A-Za-z])", segment)]
    return out


def _plain_metres(segment: str) -> list[float]:
    out = []
    for n in numbers(segment):
        unit = _UNIT_AFTER.match(segment, n.end)
        out.append(n.value * (1000.0 if unit and unit.group(1).lower() == "km" else 1.0))
    return out


def _one(values: list[float], what: str, segment: str) -> Parsed[float]:
    return decide(segment, values, what=what, same=same_value(0.0, 1e-6))


@final
class ProjectedAnswer(TypedDict):
    """Two projected coordinates in metres (easting/northing or x/y) and the UTM zone and hemisphere if given."""

    first: float
    second: float
    zone: int | None
    hemisphere: str | None


def parse_projected(segment: str, kind: str) -> Parsed[ProjectedAnswer]:
    """Two projected coordinates in metres as ``{"first", "second", "zone", "hemisphere"}``.

    ``kind="utm"`` reads "Zone 46N, 732668.8 E, 2143080.8 N" or "Easting: 240,718 m, Northing: 9,850,361 m";
    ``kind="webmercator"`` reads "x = -8,237,642.3 m, y = 4,970,241.3 m". Unlabelled numbers are taken in order;
    more than two of them, or two different values for one label, are hedged.
    """
    s = clean(segment)
    zone: int | None = None
    hemisphere: str | None = None
    if kind == "utm":
        m = _ZONE.search(s) or _ZONE_START.search(s) or _BAND.search(s)
        if m:
            zone = int(m.group(1) or m.group(3))
            letter = (m.group(2) or (m.group(3) and m.group(4)) or "").upper() if m.re is _ZONE else \
                (m.group(2) or "").upper()
            if letter in ("N", "S"):
                hemisphere = letter
            elif letter:
                hemisphere = "N" if letter >= "N" else "S"
            s = s[: m.start()] + " " + s[m.end():]
        w = _HEMI_WORD.search(s)
        if w:
            hemisphere = "N" if w.group(1).lower().startswith("north") else "S"
            s = s[: w.start()] + " " + s[w.end():]
        first, second = _metres(s, "easting|e", "mE|E|easting"), _metres(s, "northing|n", "mN|N|northing")
        names = ("easting", "northing")
    else:
        first, second = _metres(s, "x|easting", ""), _metres(s, "y|northing", "")
        names = ("x", "y")
    if not first and not second:
        plain = [x for x in _plain_metres(s) if kind != "utm" or abs(x) >= 100]
        if len(plain) > 2:
            return Parsed.hedged(segment, f"{len(plain)} numbers where two ({' and '.join(names)}) were asked",
                                 candidates=plain[:20])
        if len(plain) == 2:
            first, second = [plain[0]], [plain[1]]
    elif not first or not second:
        rest = [x for x in _plain_metres(s) if x not in first + second and (kind != "utm" or abs(x) >= 100)]
        if len(rest) == 1:
            first, second = (first or rest), (second or rest)
    a, b = _one(first, names[0], segment), _one(second, names[1], segment)
    for part in (a, b):
        if part.status == "hedged":
            return part.no_answer()
    if not (a.ok and b.ok):
        return Parsed.failure(segment, f"{names[0]} and {names[1]} not both found")
    return Parsed.success(segment, ProjectedAnswer(first=a.answer, second=b.answer, zone=zone, hemisphere=hemisphere))


_COMPASS_NOTE = re.compile(r"\([^()]{0,40}\)|\b(?:N|NE|E|SE|S|SW|W|NW|north|south|east|west|northeast|northwest|"
                           r"southeast|southwest|north-east|north-west|south-east|south-west)\b", re.IGNORECASE)
_FILLER = re.compile(r"\b(?:approx(?:imately)?|about|around|roughly|bearing|initial|is|of|the)\b|[~≈:]",
                     re.IGNORECASE)


def parse_bearing(segment: str, given: Collection[float] = ()) -> Parsed[float]:
    """A bearing in degrees normalised to [0, 360): numbers marked with ° or "degrees" (arc-minutes added), else
    a lone number (a compass word or a bracket may follow). Two different bearings are hedged."""
    s = clean(segment)
    found = quantities(s, "angle", given)
    if found:
        values = []
        for q in found:
            minutes = re.match(r"\s?(\d{1,2}(?:\.\d+)?)\s?'", s[q.end:q.end + 12])
            values.append((q.value + (float(minutes.group(1)) / 60.0 if minutes else 0.0)) % 360.0)
        return decide(segment, values, what="bearing", same=lambda a, b: min(abs(a - b), 360 - abs(a - b)) <= 0.05)
    bare = _FILLER.sub(" ", _COMPASS_NOTE.sub(" ", result_part(s)))
    value = bare_number(" ".join(bare.split()))
    if value is not None:
        return Parsed.success(segment, value % 360.0)
    if is_formula(s):
        return Parsed.failure(segment, "formula without a final value")
    return Parsed.failure(segment, "no bearing in degrees")


_LIST = re.compile(r"[\[{(]([^\[\]{}()]{0,400})[\]})]")
_INT = re.compile(r"(?<![\d.\-])\d{1,4}(?![\d.]\d)")


def parse_index_list(segment: str) -> Parsed[list[int]]:
    """The integer list of an answer (a bracketed list, or the standalone integers without brackets), as a
    sorted list; two different bracketed lists are hedged; a range "0-7" is not a list."""
    lists = [sorted({int(x) for x in _INT.findall(m.group(1))}) for m in _LIST.finditer(segment)]
    lists = [x for x in lists if x]
    if not lists:
        if re.search(r"\d\s?(?:-|to)\s?\d", segment):
            return Parsed.hedged(segment, "a range of indices, not a list")
        found = sorted({int(x) for x in _INT.findall(segment)})
        lists = [found] if found else []
    return decide(segment, lists, what="index list")


class AreaAnswer(TypedDict):
    """An area in km² and the perimeter in km when one was given."""

    area_km2: float
    perimeter_km: float | None


def parse_area(segment: str, given: Collection[float] = ()) -> Parsed[AreaAnswer]:
    """Area (km²) and, when given, perimeter (km) as ``{"area_km2", "perimeter_km"}``: the area is the quantity
    with an area unit (two different areas are hedged); the perimeter is optional and not graded. Two bare
    numbers are read as area then perimeter, one as the area."""
    s = clean(segment)
    areas = quantities(s, "area", given)
    if areas:
        area = decide(segment, [q.value for q in areas], what="area", same=same_value(0.01))
        if not area.ok:
            return area.no_answer()
        rest = "".join(" " if any(q.start <= k < q.end for q in areas) else ch for k, ch in enumerate(s))
        dist = quantities(rest, "distance", given)
        return Parsed.success(segment, AreaAnswer(area_km2=area.answer, perimeter_km=dist[0].value if dist else None))
    body = result_part(s)
    if is_formula(body):
        return Parsed.failure(segment, "formula without a final area")
    nums = [n.value for n in numbers(body)]
    if len(nums) in (1, 2) and not any(ch.isalpha() for ch in body.replace("km", "")):
        return Parsed.success(segment, AreaAnswer(area_km2=nums[0], perimeter_km=nums[1] if len(nums) == 2 else None))
    if len(nums) > 2:
        return Parsed.hedged(segment, f"{len(nums)} numbers and no area unit", candidates=nums[:20])
    return Parsed.failure(segment, "no area in km²")
