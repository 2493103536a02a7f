"""Build ``data/locations.json``: one representative city per (country, UTC-offset behaviour) of tzdata.

Run ``python -m tasks.geotemp.build_locations`` after a tzdata upgrade; a test checks the shipped file
against a rebuild.

Method (GeoTemp §3.1, step 1 and 3): start from tzdata's ``zone.tab`` (current geographic zones with the
country each is listed for; region-wide names such as ``Brazil/West``, ``Etc/*`` and retired or backward
names are not in it). Zones of one country that keep the same UTC offsets with the same change instants
through the reference year are one group; each group is represented by its most populous city (GeoNames
population where the gazetteer knows the place). This keeps every country of zone.tab and every UTC offset
in use while dropping near-duplicates (America/Detroit beside America/New_York).

A zone's display name is its city part (``America/Argentina/Buenos_Aires`` → Buenos Aires). Where that part
names an island or a country rather than a town (``America/Jamaica``, ``Europe/Isle_of_Man``), the nearest
GeoNames city in the same country within 30 km of the zone's zone.tab coordinates is used instead (Kingston,
Douglas); :data:`LABELS` spells out the rest (stations, island groups).
"""

from __future__ import annotations

import importlib.resources
import json
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from geocore import gazetteer
from geocore.geodesy import haversine_km
from geocore.timecalc import transitions
from geocore.timezones import get_zone

REFERENCE_YEAR = 2023
DATA_FILE = Path(__file__).resolve().parent / "data" / "locations.json"
NEAR_KM = 30.0
MATCH_KM = 100.0

# Display names for zones whose city part is not a usable place name, or where the nearest city is not the
# place the zone is named for.
LABELS: dict[str, str] = {
    "Antarctica/McMurdo": "McMurdo Station",
    "Antarctica/Casey": "Casey Station",
    "Antarctica/Davis": "Davis Station",
    "Antarctica/DumontDUrville": "Dumont d'Urville Station",
    "Antarctica/Mawson": "Mawson Station",
    "Antarctica/Palmer": "Palmer Station",
    "Antarctica/Rothera": "Rothera Station",
    "Antarctica/Syowa": "Syowa Station",
    "Antarctica/Troll": "Troll Station",
    "Antarctica/Vostok": "Vostok Station",
    "Antarctica/Macquarie": "Macquarie Island",
    "Australia/Lord_Howe": "Lord Howe Island",
    "America/Noronha": "Fernando de Noronha",
    "Pacific/Easter": "Easter Island",
    "Pacific/Galapagos": "Galapagos Islands",
    "Pacific/Chatham": "Chatham Islands",
    "Pacific/Marquesas": "Marquesas Islands",
    "Pacific/Gambier": "Gambier Islands",
    "Pacific/Kanton": "Kanton Island",
    "Pacific/Midway": "Midway Atoll",
    "Pacific/Wake": "Wake Island",
    "Pacific/Guadalcanal": "Honiara",
    "Indian/Chagos": "Diego Garcia",
    "America/Scoresbysund": "Ittoqqortoormiit",
    "Asia/Bahrain": "Manama",
    "America/Aruba": "Oranjestad",
    "Atlantic/Madeira": "Funchal",
    "America/Bahia_Banderas": "Bahia de Banderas",
    "Europe/Busingen": "Busingen",
    "America/Puerto_Rico": "San Juan",
    "America/Guatemala": "Guatemala City",
    "America/Panama": "Panama City",
    "America/Belize": "Belize City",
    "America/St_Johns": "St. John's",
    "America/Antigua": "Saint John's",
    "Asia/Kuwait": "Kuwait City",
    "Asia/Brunei": "Bandar Seri Begawan",
    "Asia/Ho_Chi_Minh": "Ho Chi Minh City",
    "Indian/Mahe": "Victoria",
    "Europe/Andorra": "Andorra la Vella",
    "Europe/Vatican": "Vatican City",
    "Africa/Ndjamena": "N'Djamena",
}
_QUOTES = str.maketrans({"’": "'", "‘": "'", "ʻ": "'", "`": "'"})


def _coord(text: str) -> tuple[float, float]:
    """zone.tab's ±DDMM[SS]±DDDMM[SS] → (lat, lon)."""
    m = re.fullmatch(r"([+-]\d{4,6})([+-]\d{5,7})", text)
    if not m:
        raise ValueError(f"bad zone.tab coordinate {text!r}")

    def part(s: str, deg: int) -> float:
        sign = -1.0 if s[0] == "-" else 1.0
        digits = s[1:]
        d, mi, se = int(digits[:deg]), int(digits[deg:deg + 2]), int(digits[deg + 2:] or 0)
        return sign * (d + mi / 60 + se / 3600)

    return part(m.group(1), 2), part(m.group(2), 3)


def zone_tab() -> list[tuple[str, str, float, float]]:
    """(country code, zone, lat, lon) rows of tzdata's zone.tab."""
    text = (importlib.resources.files("tzdata") / "zoneinfo" / "zone.tab").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            cc, coord, zone = line.split("\t")[:3]
            lat, lon = _coord(coord)
            rows.append((cc, zone, lat, lon))
    return rows


def signature(zone: str, year: int = REFERENCE_YEAR) -> tuple[object, ...]:
    """The zone's offset at the start of ``year`` (UTC, padded a day) and every change in it, to the second."""
    start = datetime(year, 1, 1, tzinfo=UTC) - timedelta(days=1)
    end = datetime(year + 1, 1, 1, tzinfo=UTC) + timedelta(days=1)
    first = start.astimezone(get_zone(zone)).utcoffset()
    return (first, *transitions(zone, start, end))


def _place(cc: str, zone: str, lat: float, lon: float) -> tuple[str, float, float, int | None]:
    """(display name, lat, lon, population or None) of the zone's city."""
    label = LABELS.get(zone, zone.rsplit("/", 1)[-1].replace("_", " "))
    same = [c for c in gazetteer.find_city(label, cc) if haversine_km(lat, lon, c.lat, c.lon) <= MATCH_KM]
    if same:
        return label, round(same[0].lat, 4), round(same[0].lon, 4), same[0].population
    if zone not in LABELS:
        near = [c for c, km in gazetteer.nearest_cities(lat, lon, 5) if c.country_code == cc and km <= NEAR_KM]
        if near:
            return near[0].name.translate(_QUOTES), round(near[0].lat, 4), round(near[0].lon, 4), near[0].population
    return label, round(lat, 4), round(lon, 4), None


def build(year: int = REFERENCE_YEAR) -> dict[str, object]:
    """The locations document: tzdata version, reference year, and the representatives sorted by zone."""
    import tzdata

    groups: dict[tuple[str, tuple[object, ...]], list[dict[str, object]]] = {}
    for cc, zone, lat, lon in zone_tab():
        name, la, lo, pop = _place(cc, zone, lat, lon)
        entry = {
            "zone": zone,
            "city": name,
            "country": gazetteer.country_name(cc),
            "country_code": cc,
            "continent": gazetteer.continent_of_country(cc),
            "lat": la,
            "lon": lo,
            "population": pop,
        }
        groups.setdefault((cc, signature(zone, year)), []).append(entry)
    chosen = []
    for members in groups.values():
        members.sort(key=lambda e: (-(e["population"] or 0), e["zone"]))  # type: ignore[operator]
        best = dict(members[0])
        best["group"] = sorted(str(m["zone"]) for m in members)
        chosen.append(best)
    chosen.sort(key=lambda e: str(e["zone"]))
    return {"tzdata": tzdata.IANA_VERSION, "reference_year": year, "locations": chosen}


def dumps(doc: dict[str, object]) -> str:
    """The file's exact text: one location per line, so diffs stay readable."""
    locs = doc["locations"]
    assert isinstance(locs, list)
    head = {k: v for k, v in doc.items() if k != "locations"}
    lines = [json.dumps(loc, ensure_ascii=False) for loc in locs]
    body = ",\n    ".join(lines)
    start = json.dumps(head, ensure_ascii=False)[:-1]
    return f'{start}, "locations": [\n    {body}\n]}}\n'


def main(argv: list[str] | None = None) -> int:
    doc = build()
    DATA_FILE.parent.mkdir(parents=True, exist_ok=True)
    DATA_FILE.write_text(dumps(doc), encoding="utf-8")
    locs = doc["locations"]
    assert isinstance(locs, list)
    print(f"wrote {len(locs)} locations to {DATA_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
