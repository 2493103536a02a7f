"""City sampling with continent quotas and minimum separations (GPSBench Appendix A)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from geocore.gazetteer import City, cities
from geocore.geodesy import haversine_km
from tasks.gpsbench.regions import CONTINENT_QUOTAS


@cache
def cities_by_continent() -> dict[str, tuple[City, ...]]:
    """GeoNames cities15000 grouped by continent code, in geonameid order (stable across runs)."""
    groups: dict[str, list[City]] = {c: [] for c in CONTINENT_QUOTAS}
    for city in sorted(cities(), key=lambda c: c.geonameid):
        if city.continent in groups:
            groups[city.continent].append(city)
    return {k: tuple(v) for k, v in groups.items()}


def pick_continent(rng: random.Random) -> str:
    """A continent drawn with the paper's quota weights."""
    names = list(CONTINENT_QUOTAS)
    return rng.choices(names, weights=[CONTINENT_QUOTAS[n] for n in names], k=1)[0]


def far_enough(city: City, chosen: Sequence[City], min_km: float) -> bool:
    return all(haversine_km(city.lat, city.lon, c.lat, c.lon) >= min_km for c in chosen)


def sample_global(rng: random.Random, n: int, min_separation_km: float = 100.0, max_tries: int = 10_000) -> list[City]:
    """``n`` distinct cities, each from a quota-weighted continent, pairwise at least ``min_separation_km`` apart."""
    pools = cities_by_continent()
    chosen: list[City] = []
    for _ in range(max_tries):
        if len(chosen) == n:
            return chosen
        city = rng.choice(pools[pick_continent(rng)])
        if city not in chosen and far_enough(city, chosen, min_separation_km):
            chosen.append(city)
    raise RuntimeError(f"could not sample {n} cities {min_separation_km} km apart in {max_tries} tries")
