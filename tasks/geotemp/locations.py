"""GeoTemp's locations: one representative city per (country, UTC-offset behaviour) of tzdata's zone.tab.

The list ships as ``data/locations.json`` (built by :mod:`tasks.geotemp.build_locations`, which explains the
selection). Each location names its IANA zone; gold answers always come from that zone.
"""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True, slots=True)
class Location:
    """A city of one IANA zone, with the country name shown beside it in prompts."""

    zone: str
    city: str
    country: str
    country_code: str
    continent: str
    lat: float
    lon: float
    population: int | None
    group: tuple[str, ...]

    @property
    def label(self) -> str:
        """``City, Country`` as prompts show it (the country disambiguates London, UK from London, Canada)."""
        return f"{self.city}, {self.country}"

    def brief(self) -> dict[str, str]:
        """City, country and zone, as sample payloads carry them: one dict per location, shared by every sample
        (samples are frozen and never change their payloads; do not change it)."""
        return _brief(self.city, self.country, self.zone)


@cache
def _brief(city: str, country: str, zone: str) -> dict[str, str]:
    return {"city": city, "country": country, "zone": zone}


@cache
def locations() -> tuple[Location, ...]:
    """All locations, sorted by zone name (stable order: sample ids depend on it)."""
    text = (importlib.resources.files("tasks.geotemp") / "data" / "locations.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    return tuple(
        Location(
            zone=row["zone"], city=row["city"], country=row["country"], country_code=row["country_code"],
            continent=row["continent"], lat=float(row["lat"]), lon=float(row["lon"]),
            population=row["population"], group=tuple(row["group"]),
        )
        for row in doc["locations"]
    )


def pair_count() -> int:
    """Ordered pairs of distinct locations: the full l1 × l2 grid of one template."""
    n = len(locations())
    return n * (n - 1)


def pair(index: int) -> tuple[Location, Location]:
    """The ``index``-th ordered pair (l1, l2) with l1 ≠ l2, l1-major."""
    locs = locations()
    n = len(locs)
    if not 0 <= index < n * (n - 1):
        raise ValueError(f"index must be within [0, {n * (n - 1)}), got {index}")
    a, b = divmod(index, n - 1)
    return locs[a], locs[b if b < a else b + 1]
