"""GPSBench answer parsers that avoid the released scorer's faults.

- Options match whole words only ("north" is not found in "northeast", "no" not in "north"), by letter or by
  text, and an answer naming two different options is a parse failure, not a lucky hit.
- Numbers come from the FINAL ANSWER line (or, without one, the last matching value in the text), never the
  first number of the reasoning; a line that only states a formula ("A = R² × E") is a failure.
- Coordinates honour hemisphere letters and signs, DMS, labels (lat/lon) and otherwise the order the prompt
  asked for; thousands separators and unit words (km, miles, metres, km²) are converted.

Every parser returns a :class:`Parsed`; on failure the reason says what was missing and the raw text is kept.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tasks.parsing import DISTANCE_UNITS, FINAL_RE, final_answer_segment

# ----------------------------------------------------------------------------- text helpers

_MARKDOWN = re.compile(r"\*\*|__|`|\\\(|\\\)|\\\[|\\\]|\$")
_TRANSLIT = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ı": "i"})


def clean(text: str) -> str:
    """Drop markdown emphasis, code ticks and LaTeX delimiters; normalise minus signs and primes."""
    s = _MARKDOWN.sub("", text)
    return (s.replace("−", "-").replace("–", "-").replace("′", "'").replace("’", "'").replace("″", '"')
            .replace("”", '"').replace("“", '"').replace("º", "°").replace("˚", "°").replace("\u00a0", " "))


@lru_cache(maxsize=65_536)
def fold(text: str) -> str:
    """Lower-case, accent-free words separated by single spaces (punctuation becomes space)."""
    s = unicodedata.normalize("NFKD", text.casefold().translate(_TRANSLIT))
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = re.sub(r"['’`]", "", s)
    return " ".join(re.sub(r"[^0-9a-z]+", " ", s).split())


def contains_phrase(haystack_folded: str, phrase_folded: str) -> bool:
    """Whole-word containment of an already folded phrase in folded text."""
    return bool(phrase_folded) and f" {phrase_folded} " in f" {haystack_folded} "


def find_phrase(haystack_folded: str, phrase_folded: str) -> list[int]:
    """Start offsets (in the folded text) of every whole-word occurrence of a folded phrase."""
    if not phrase_folded:
        return []
    padded, needle, out, i = f" {haystack_folded} ", f" {phrase_folded} ", [], 0
    while (i := padded.find(needle, i)) >= 0:
        out.append(i)
        i += 1
    return out


def blank_phrase(haystack_folded: str, phrase_folded: str) -> str:
    """The folded text with every whole-word occurrence of the phrase replaced by '#' (same length)."""
    padded, needle = f" {haystack_folded} ", f" {phrase_folded} "
    while needle in padded:
        padded = padded.replace(needle, " " + "#" * len(phrase_folded) + " ")
    return padded[1:-1]


def answer_segment(text: str) -> str | None:
    """The FINAL ANSWER line, cleaned; None when the text has no FINAL ANSWER marker."""
    seg = final_answer_segment(text)
    return None if seg is None else clean(seg).strip()


def answer_block(text: str) -> str | None:
    """Everything after the last FINAL ANSWER marker (several lines), cleaned; None without a marker."""
    found = list(FINAL_RE.finditer(text))
    return None if not found else clean(text[found[-1].end():]).strip()


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in clean(text).splitlines() if ln.strip()]
    return lines[-1] if lines else ""


# ----------------------------------------------------------------------------- numbers

NUM = r"[-+]?(?:\d{1,3}(?:[,\u202f\u2009 ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_SCI = rf"(?P<num>{NUM})(?:\s*(?:[eE](?P<exp>[-+]?\d+)|[×x*]\s*10\s*\^\s*\(?(?P<exp2>[-+]?\d+)\)?))?" \
       r"(?:\s*(?P<mult>thousand|million|billion)\b)?"
SCI_RE = re.compile(_SCI, re.IGNORECASE)
_MULT = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_FORMULA = re.compile(
    r"\d\s*[×*/^+]\s*[\d(]|\d\s+-\s+\d|√|\bsqrt\b|\bsin\b|\bcos\b|\btan\b|\bacos\b|\basin\b|\batan2?\b|\barc|π|\bpi\b|"
    r"\bln\b|\blog\b",
    re.IGNORECASE)


def to_float(token: str) -> float:
    return float(re.sub(r"[,\u202f\u2009 ]", "", token).replace("−", "-"))


def sci_value(m: re.Match[str]) -> float:
    value = to_float(m.group("num"))
    exp = m.group("exp") or m.group("exp2")
    if exp is not None:
        value *= 10.0 ** max(-300, min(300, int(exp)))
    if m.group("mult"):
        value *= _MULT[m.group("mult").lower()]
    return value


def result_part(segment: str) -> str:
    """The part after the last '=' or '≈' (the result of a stated computation)."""
    parts = re.split(r"=|≈|:=|→|->", segment)
    return parts[-1].strip() if len(parts) > 1 else segment


def is_formula(segment: str) -> bool:
    """True when the text is a formula or a computation without one final value."""
    return _FORMULA.search(segment) is not None


# ----------------------------------------------------------------------------- units

_AREA_UNITS: dict[str, float] = {"km2": 1.0, "m2": 1e-6, "mi2": 2.589988110336, "ha": 0.01}
_AREA_UNIT_RE = (
    r"(?P<unit>km\s*(?:²|\^\s*2|2\b)|sq\.?\s*km\b|square\s+kilomet(?:er|re)s?\b|kilomet(?:er|re)s?\s+squared\b|"
    r"m\s*(?:²|\^\s*2|2\b)|square\s+met(?:er|re)s?\b|mi\s*(?:²|\^\s*2|2\b)|sq\.?\s*mi(?:les?)?\b|"
    r"square\s+miles?\b|hectares?\b|ha\b)"
)
AREA_RE = re.compile(rf"{_SCI}\s*{_AREA_UNIT_RE}", re.IGNORECASE)


def _area_unit(unit: str) -> float:
    u = fold(unit).replace(" ", "")
    if u.startswith(("km", "sqkm", "squarekilomet", "kilomet")):
        return _AREA_UNITS["km2"]
    if u.startswith(("mi", "sqmi", "squaremile")):
        return _AREA_UNITS["mi2"]
    if u.startswith(("ha", "hectare")):
        return _AREA_UNITS["ha"]
    return _AREA_UNITS["m2"]


def areas_km2(text: str) -> list[tuple[float, tuple[int, int]]]:
    """Every number with an area unit in ``text``, as (km², span)."""
    return [(sci_value(m) * _area_unit(m.group("unit")), m.span()) for m in AREA_RE.finditer(text)]


_DIST_UNIT_RE = (r"(?P<unit>kilomet(?:er|re)s?|kms?|nautical\s+miles?|nmi|miles?|mi|met(?:er|re)s?|m)"
                 r"(?![\w²^])")
DIST_RE = re.compile(rf"{_SCI}\s*{_DIST_UNIT_RE}", re.IGNORECASE)


def distances_km(text: str) -> list[tuple[float, tuple[int, int]]]:
    """Every number with a distance unit (not an area unit) in ``text``, as (km, span)."""
    out = []
    for m in DIST_RE.finditer(text):
        unit = re.sub(r"\s+", " ", m.group("unit").lower())
        factor = DISTANCE_UNITS.get(unit, DISTANCE_UNITS.get(unit.rstrip("s"), None))
        if factor is None:
            factor = 1.852 if unit.startswith("nautical") else 1.0
        out.append((sci_value(m) * factor, m.span()))
    return out


# ----------------------------------------------------------------------------- options and words

@dataclass(frozen=True)
class Choice:
    """Outcome of option matching: the chosen index, or why none could be chosen."""

    index: int | None
    reason: str = ""


_LETTER_START = re.compile(r"^\s*(?:option|answer|choice)?\s*\(?([A-Z])\)?(?=[\s).:,\-]|$)")
_LETTER_WORD = re.compile(r"\b(?:option|answer|choice)\s*\(?([A-Z])\)?(?![A-Za-z])", re.IGNORECASE)
_LETTER_PAREN = re.compile(r"(?<![A-Za-z])\(([A-Z])\)|(?<![A-Za-z(])([A-Z])\)")


def _letters(segment: str, n: int) -> set[int]:
    found: set[int] = set()
    valid = {chr(65 + i) for i in range(n)}
    m = _LETTER_START.match(segment)
    if m and m.group(1) in valid:
        found.add(ord(m.group(1)) - 65)
    for m in _LETTER_WORD.finditer(segment):
        letter = m.group(1).upper()
        if letter in valid:
            found.add(ord(letter) - 65)
    for m in _LETTER_PAREN.finditer(segment):
        letter = m.group(1) or m.group(2)
        if letter in valid:
            found.add(ord(letter) - 65)
    return found


def match_option_texts(segment: str, aliases: Sequence[Sequence[str]]) -> set[int]:
    """Indices of options whose text (or an alias) occurs as whole words; longer phrases are matched first and
    consumed, so "Springfield, Illinois" is not also counted as "Springfield"."""
    text = fold(segment)
    phrases = sorted(((fold(a), i) for i, names in enumerate(aliases) for a in names if fold(a)),
                     key=lambda p: -len(p[0]))
    found: set[int] = set()
    for phrase, i in phrases:
        if contains_phrase(text, phrase):
            found.add(i)
            text = blank_phrase(text, phrase)
    return found


def choose_option(segment: str, aliases: Sequence[Sequence[str]], letters: bool = True) -> Choice:
    """Pick one option by letter (A, (B), "option C") or by whole-word text; ambiguity is a failure."""
    by_letter = _letters(segment, len(aliases)) if letters else set()
    by_text = match_option_texts(segment, aliases)
    if by_letter and by_text and not (by_letter & by_text):
        return Choice(None, f"letter {sorted(chr(65 + i) for i in by_letter)} disagrees with option text")
    chosen = (by_letter & by_text) or by_letter or by_text
    if len(chosen) == 1:
        return Choice(next(iter(chosen)))
    if not chosen:
        return Choice(None, "no option named")
    return Choice(None, "several options named: " + ", ".join(sorted(chr(65 + i) for i in chosen)))


DIRECTIONS_8: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIRECTION_NAMES: dict[str, str] = {
    "N": "North", "NE": "Northeast", "E": "East", "SE": "Southeast",
    "S": "South", "SW": "Southwest", "W": "West", "NW": "Northwest",
}
_WORD_DIR = {"north": "N", "south": "S", "east": "E", "west": "W",
             "northeast": "NE", "northwest": "NW", "southeast": "SE", "southwest": "SW"}
_ABBREV = re.compile(r"(?<![A-Za-z0-9°'\".])(NNE|ENE|ESE|SSE|SSW|WSW|WNW|NNW|NE|NW|SE|SW|N|E|S|W)(?![A-Za-z0-9'])")


def parse_direction(segment: str) -> Choice:
    """One of the 8 compass directions named in ``segment`` (words or abbreviations, whole words only).

    "north-east", "North East", "northeast" and "NE" are NE; "north" inside "northeast" does not count as N.
    Two different directions, or a 16-point direction (NNE, north-northeast), are failures.
    """
    words = fold(segment).split()
    found: set[str] = set()
    sixteen = False
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in ("north", "south") and nxt in ("east", "west"):
            d = _WORD_DIR[w + nxt]
            i += 2
        elif w in _WORD_DIR:
            d = _WORD_DIR[w]
            i += 1
        else:
            i += 1
            continue
        if len(d) == 1 and i < len(words) and (words[i] in ("northeast", "northwest", "southeast", "southwest")
                                               or (words[i] in ("north", "south") and i + 1 < len(words)
                                                   and words[i + 1] in ("east", "west"))):
            sixteen = True
        found.add(d)
    for m in _ABBREV.finditer(clean(segment)):
        if len(m.group(1)) == 3:
            sixteen = True
        else:
            found.add(m.group(1))
    if sixteen:
        return Choice(None, "a 16-point direction was given; the question asks for one of 8")
    if len(found) == 1:
        return Choice(DIRECTIONS_8.index(next(iter(found))))
    if not found:
        return Choice(None, "no compass direction named")
    return Choice(None, "several directions named: " + ", ".join(sorted(found)))


def parse_yes_no(segment: str) -> bool | None:
    """True for a whole-word yes, False for a whole-word no; None if neither or both ("no" is not in "north")."""
    words = set(fold(segment).split())
    yes, no = "yes" in words, "no" in words
    return yes if yes != no else None


# ----------------------------------------------------------------------------- angles and coordinates

_ANGLE_BODY = r"""
    (?:(?P<label>\b(?:latitude|longitude|lat|lon|long|lng)\b)\.?\s*(?:[:=]|is|of)?\s*)?
    {pre}
    (?P<sign>[-+])?\s*
    (?<![\d.])(?P<deg>\d++(?:\.\d++)?)(?!,\d)
    (?:\s*(?P<degmark>°|deg(?:rees)?\b|d(?=\s*\d)))?
    (?:\s*(?P<min>\d++(?:\.\d++)?)\s*(?:'(?!')|min(?:utes)?\b)
       (?:\s*(?P<sec>\d++(?:\.\d++)?)\s*(?:"|''|sec(?:onds)?\b))?
    )?
    {post}
    """
_ANGLE_POST = re.compile(
    _ANGLE_BODY.format(pre="", post=r"(?:\s*(?P<post>[NSEW](?![A-Za-z])|north\b|south\b|east\b|west\b))?"),
    re.VERBOSE | re.IGNORECASE)
_ANGLE_PRE = re.compile(
    _ANGLE_BODY.format(pre=r"(?:(?<![A-Za-z])(?P<pre>[NSEW])\s*)?", post=""), re.VERBOSE | re.IGNORECASE)
_PREFIX_STYLE = re.compile(r"(?<![A-Za-z])[NSEW]\s*[-+]?\d")


@dataclass(frozen=True)
class Angle:
    """A signed angle found in text, with its hemisphere letter and axis label when given."""

    value: float
    hemisphere: str | None
    label: str | None
    span: tuple[int, int]
    dms: bool


def find_angles(segment: str) -> list[Angle]:
    """Angles in ``segment`` (decimal or DMS), signed by hemisphere letters and signs, in order."""
    s = clean(segment)
    first_digit = re.search(r"\d", s)
    prefix = _PREFIX_STYLE.search(s)
    regex = _ANGLE_PRE if prefix and first_digit and prefix.end() - 1 == first_digit.start() else _ANGLE_POST
    out: list[Angle] = []
    for m in regex.finditer(s):
        groups = m.groupdict()
        pre = groups.get("pre")
        post = groups.get("post")
        if pre and pre != pre.upper():
            pre = None
        hem_token = post or pre
        hem = None
        if hem_token:
            letter = hem_token[0].upper()
            if len(hem_token) > 1 or hem_token.isupper():
                hem = letter
        try:
            deg = float(m.group("deg"))
            minutes = float(m.group("min")) if m.group("min") else 0.0
            seconds = float(m.group("sec")) if m.group("sec") else 0.0
        except ValueError:
            continue
        if minutes >= 60 or seconds >= 60:
            continue
        value = deg + minutes / 60.0 + seconds / 3600.0
        negative = m.group("sign") == "-" or hem in ("S", "W")
        label = m.group("label")
        axis = None
        if label:
            axis = "lat" if label.lower().startswith("lat") else "lon"
        out.append(Angle(-value if negative else value, hem, axis, m.span(), bool(m.group("min"))))
    return out


def _axis(a: Angle) -> str | None:
    if a.label:
        return a.label
    if a.hemisphere in ("N", "S"):
        return "lat"
    if a.hemisphere in ("E", "W"):
        return "lon"
    return None


@dataclass(frozen=True)
class Pair:
    lat: float | None
    lon: float | None
    reason: str = ""
    lon_first: bool = False
    dms: bool = False


def pair_from_angles(angles: Sequence[Angle]) -> Pair:
    """(lat, lon) from the first two angles: labels, then hemisphere letters, then lat-before-lon order."""
    labelled = {a.label: a for a in reversed(angles) if a.label}
    if "lat" in labelled and "lon" in labelled:
        a_lat, a_lon = labelled["lat"], labelled["lon"]
        lon_first = a_lon.span[0] < a_lat.span[0]
    else:
        if len(angles) < 2:
            return Pair(None, None, "fewer than two coordinates")
        a, b = angles[0], angles[1]
        xa, xb = _axis(a), _axis(b)
        if xa and xb and xa == xb:
            return Pair(None, None, f"both values are {'latitudes' if xa == 'lat' else 'longitudes'}")
        if xa == "lon" or xb == "lat":
            a_lat, a_lon, lon_first = b, a, True
        else:
            a_lat, a_lon, lon_first = a, b, False
    if abs(a_lat.value) > 90:
        return Pair(None, None, f"latitude {a_lat.value} out of range")
    if abs(a_lon.value) > 180:
        return Pair(None, None, f"longitude {a_lon.value} out of range")
    return Pair(a_lat.value, a_lon.value, lon_first=lon_first, dms=a_lat.dms and a_lon.dms)


def parse_pair(text: str) -> Pair:
    """(lat, lon) from the FINAL ANSWER line, or from the last two coordinates in the text without one."""
    seg = answer_segment(text)
    if seg is not None:
        body = result_part(seg)
        pair = pair_from_angles(find_angles(body))
        if pair.lat is None and body != seg:
            pair = pair_from_angles(find_angles(seg))
        return pair
    angles = find_angles(text)
    if len(angles) < 2:
        return Pair(None, None, "no FINAL ANSWER line and no coordinate pair in the text")
    return pair_from_angles(angles[-2:])


def parse_single_angle(segment: str, axis: str) -> tuple[float | None, str]:
    """One latitude or longitude from ``segment``: the labelled one for ``axis`` if several are given."""
    angles = find_angles(segment)
    if not angles:
        return None, "no angle found"
    chosen = [a for a in angles if _axis(a) == axis] or [a for a in angles if _axis(a) is None]
    if not chosen:
        return None, f"the value given is not a {'latitude' if axis == 'lat' else 'longitude'}"
    value = chosen[0].value
    limit = 90.0 if axis == "lat" else 180.0
    if abs(value) > limit:
        return None, f"{value} out of range for a {'latitude' if axis == 'lat' else 'longitude'}"
    return value, ""


def integers(segment: str) -> list[int]:
    """Integers of the bracketed list in ``segment`` (or all standalone integers when there is no list)."""
    m = re.search(r"[\[{(]([^\]})]*)[\]})]", segment)
    body = m.group(1) if m else segment
    return [int(x) for x in re.findall(r"(?<![\d.\-])\d{1,4}(?![\d.]\d)", body)]


# ----------------------------------------------------------------------------- projected coordinates

_ZONE = re.compile(r"\bzone\s*:?\s*(\d{1,2})\s*([C-HJ-NP-X])?(?![A-Za-z])", re.IGNORECASE)
_ZONE_START = re.compile(r"^\s*(\d{1,2})\s?([C-HJ-NP-X])(?![A-Za-z\d])")
_HEMI_WORD = re.compile(r"\b(north(?:ern)?|south(?:ern)?)\s+hemisphere\b", re.IGNORECASE)
_PLAIN = re.compile(rf"(?<![\w.])({NUM})(?:\s*(km|m)\b)?", re.IGNORECASE)


@dataclass(frozen=True)
class Projected:
    """Two projected coordinates in metres (easting/x, northing/y) with the UTM zone when stated."""

    first: float | None
    second: float | None
    zone: int | None = None
    hemisphere: str | None = None
    reason: str = ""


def _labelled(segment: str, names: str, suffix: str) -> float | None:
    m = re.search(rf"(?:\b(?:{names})\b)\s*[:=]?\s*({NUM})\s*(km|m)?\b", segment, re.IGNORECASE)
    if m is None and suffix:
        m = re.search(rf"({NUM})\s*(km|m)?\s*(?:{suffix})(?![A-Za-z])", segment)
    if m is None:
        return None
    value = to_float(m.group(1))
    return value * 1000.0 if (m.group(2) or "").lower() == "km" else value


def _plain_numbers(segment: str) -> list[float]:
    out = []
    for m in _PLAIN.finditer(segment):
        value = to_float(m.group(1))
        out.append(value * 1000.0 if (m.group(2) or "").lower() == "km" else value)
    return out


def parse_utm(segment: str) -> Projected:
    """Zone, hemisphere, easting and northing from text like "Zone 46N, 732668.8 E, 2143080.8 N" or
    "Easting: 240,718 m, Northing: 9,850,361 m"; unlabelled numbers are taken as easting then northing."""
    s = clean(segment)
    zone: int | None = None
    hemisphere: str | None = None
    m = _ZONE.search(s) or _ZONE_START.search(s)
    if m:
        zone = int(m.group(1))
        letter = (m.group(2) or "").upper()
        if letter in ("N", "S"):
            hemisphere = letter
        elif letter:
            hemisphere = "N" if letter >= "N" else "S"
        s = s[: m.start()] + " " + s[m.end():]
    w = _HEMI_WORD.search(s)
    if w:
        hemisphere = "N" if w.group(1).lower().startswith("north") else "S"
        s = s[: w.start()] + " " + s[w.end():]
    easting = _labelled(s, "easting|e", "mE|E|easting")
    northing = _labelled(s, "northing|n", "mN|N|northing")
    if easting is None or northing is None:
        nums = [x for x in _plain_numbers(s) if abs(x) >= 100]
        if easting is None and northing is None and len(nums) >= 2:
            easting, northing = nums[0], nums[1]
        elif easting is None and northing is not None:
            rest = [x for x in nums if x != northing]
            easting = rest[0] if rest else None
        elif northing is None and easting is not None:
            rest = [x for x in nums if x != easting]
            northing = rest[0] if rest else None
    if easting is None or northing is None:
        return Projected(None, None, zone, hemisphere, "easting and northing not both found")
    return Projected(easting, northing, zone, hemisphere)


def parse_xy(segment: str) -> Projected:
    """Web Mercator x and y in metres from "x = -8,237,642.3 m, y = 4,970,241.3 m" or two plain numbers."""
    s = clean(segment)
    x = _labelled(s, "x|easting", "")
    y = _labelled(s, "y|northing", "")
    if x is None or y is None:
        nums = _plain_numbers(s)
        if x is None and y is None and len(nums) >= 2:
            x, y = nums[0], nums[1]
    if x is None or y is None:
        return Projected(None, None, reason="x and y not both found")
    return Projected(x, y)


_BEARING_DEG = re.compile(rf"({NUM})\s*(?:°|deg(?:rees?)?\b)(?:\s*(\d+(?:\.\d+)?)\s*')?", re.IGNORECASE)


def parse_bearing_segment(segment: str) -> tuple[float | None, str]:
    """A bearing in degrees from a FINAL ANSWER line: the first number marked with ° or "degrees" (with
    optional arc-minutes), else a lone number (a compass word in brackets may follow); normalised to [0, 360)."""
    s = result_part(clean(segment))
    m = _BEARING_DEG.search(s)
    if m:
        value = to_float(m.group(1)) + (float(m.group(2)) / 60.0 if m.group(2) else 0.0)
        return value % 360.0, ""
    bare = re.sub(r"\([^)]*\)", " ", s)
    bare = re.sub(r"\b(?:approx(?:imately)?|about|around|roughly|bearing|is|of|the|initial)\b|[~≈:]", " ", bare,
                  flags=re.IGNORECASE)
    bare = re.sub(r"[A-Za-z\-]+$", "", bare.strip()).strip().rstrip(".")
    if re.fullmatch(NUM, bare):
        return to_float(bare) % 360.0, ""
    if is_formula(s):
        return None, "formula without a final value"
    return None, "no bearing in degrees on the FINAL ANSWER line"


def last_bearing(text: str) -> float | None:
    found = list(_BEARING_DEG.finditer(clean(text)))
    if not found:
        return None
    m = found[-1]
    return (to_float(m.group(1)) + (float(m.group(2)) / 60.0 if m.group(2) else 0.0)) % 360.0
