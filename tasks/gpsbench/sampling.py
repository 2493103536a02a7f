"""City sampling with continent quotas and minimum separations (GPSBench Appendix A)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from functools import cache
from itertools import accumulate

import numpy as np

from geocore.gazetteer import City, cities, find_city
from geocore.geodesy import haversine_km
from geocore.sphere import EARTH_RADIUS_KM, central_angle, unit_vector, unit_vector_np
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
    names, cumulative = _continent_weights()
    return rng.choices(names, cum_weights=cumulative, k=1)[0]


@cache
def _continent_weights() -> tuple[list[str], list[float]]:
    """The continents and their cumulative quota weights (what ``choices`` would accumulate on every call)."""
    names = list(CONTINENT_QUOTAS)
    return names, list(accumulate(CONTINENT_QUOTAS[n] for n in names))


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


# ----------------------------------------------------------------------------- fast vector helpers

@cache
def city_vectors() -> tuple[tuple[City, ...], np.ndarray]:
    """All continent-pool cities (geonameid order) and their unit vectors (N x 3)."""
    return _pool(), unit_vector_np(*city_columns())


@cache
def _pool() -> tuple[City, ...]:
    return tuple(c for group in cities_by_continent().values() for c in group)


@cache
def city_columns() -> tuple[np.ndarray, np.ndarray]:
    """Latitudes and longitudes of the :func:`city_vectors` pool, in its order."""
    pool = _pool()
    lat = np.fromiter((c.lat for c in pool), dtype=float, count=len(pool))
    lon = np.fromiter((c.lon for c in pool), dtype=float, count=len(pool))
    return lat, lon


@cache
def _continent_slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, group in cities_by_continent().items():
        out[name] = slice(start, start + len(group))
        start += len(group)
    return out


# ----------------------------------------------------------------------------- name checks

@cache
def is_unambiguous(city: City) -> bool:
    """Whether the city's name alone points to it: it is the most populous gazetteer match of its name (names,
    ASCII names and alternate names) and any other match has at most half its population."""
    found = find_city(city.name)
    if not found or found[0].geonameid != city.geonameid:
        return False
    return len(found) == 1 or found[1].population * 2 <= city.population


# Countries spanning two continents, and outlying parts filed under a far continent (Hawaii under North
# America, the Canaries, Ceuta and Melilla under Europe, the Azores and Madeira): a continent question
# about them would test the GeoNames convention rather than geography.
_TRANSCONTINENTAL = frozenset({"RU", "KZ", "TR", "EG", "GE", "AZ", "AM", "CY", "UM"})
_OUTLYING_ADMIN1 = frozenset({("US", "HI"), ("ES", "53"), ("ES", "CE"), ("ES", "ML"), ("PT", "20"), ("PT", "10"),
                              ("EC", "01"), ("CL", "05")})


def continent_is_clear(city: City) -> bool:
    """Whether the city's GeoNames continent is also its plain geographic continent."""
    return city.country_code not in _TRANSCONTINENTAL and (city.country_code, city.admin1_code) not in _OUTLYING_ADMIN1


# ----------------------------------------------------------------------------- samplers

def sample_global_where(
    rng: random.Random, n: int, min_separation_km: float, accept: Callable[[City], bool], max_tries: int = 20_000
) -> list[City]:
    """Like :func:`sample_global`, keeping only cities for which ``accept`` is true."""
    pools = cities_by_continent()
    chosen: list[City] = []
    for _ in range(max_tries):
        if len(chosen) == n:
            return chosen
        city = rng.choice(pools[pick_continent(rng)])
        if city not in chosen and accept(city) and far_enough(city, chosen, min_separation_km):
            chosen.append(city)
    raise RuntimeError(f"could not sample {n} cities {min_separation_km} km apart in {max_tries} tries")


def quota_allocation(rng: random.Random, n: int) -> list[str]:
    """Continents for ``n`` cities by proportional allocation (largest remainder, ties broken at random),
    in random order: GPSBench's rule for samples of 6 or more cities."""
    names = list(CONTINENT_QUOTAS)
    exact = {c: CONTINENT_QUOTAS[c] * n for c in names}
    counts = {c: int(exact[c]) for c in names}
    order = sorted(names, key=lambda c: (-(exact[c] - counts[c]), rng.random()))
    for c in order[: n - sum(counts.values())]:
        counts[c] += 1
    out = [c for c in names for _ in range(counts[c])]
    rng.shuffle(out)
    return out


def sample_balanced(
    rng: random.Random, n: int, min_separation_km: float = 100.0, accept: Callable[[City], bool] | None = None,
    max_tries: int = 20_000,
) -> list[City]:
    """``n`` globally balanced cities: weighted continents below 6 cities, proportional allocation from 6 on."""
    if n < 6:
        return sample_global_where(rng, n, min_separation_km, accept or (lambda c: True), max_tries)
    pools = cities_by_continent()
    chosen: list[City] = []
    for continent in quota_allocation(rng, n):
        for _ in range(max_tries):
            city = rng.choice(pools[continent])
            if city not in chosen and (accept is None or accept(city)) and far_enough(city, chosen, min_separation_km):
                chosen.append(city)
                break
        else:
            raise RuntimeError(f"could not place a city in {continent} {min_separation_km} km from the others")
    return chosen


def in_band(lat: float, lon: float, lo_km: float, hi_km: float, continent: str | None = None
            ) -> tuple[tuple[City, ...], np.ndarray]:
    """(pool, indices into it) of the cities lo_km..hi_km from the point, over one continent's pool or all."""
    pool, vec = city_vectors()
    if continent is not None:
        sl = _continent_slices()[continent]
        pool, vec = pool[sl], vec[sl]
    dots = vec @ unit_vector(lat, lon)
    lo_cos, hi_cos = math.cos(min(math.pi, hi_km / EARTH_RADIUS_KM)), math.cos(min(math.pi, lo_km / EARTH_RADIUS_KM))
    return pool, np.flatnonzero((dots >= lo_cos) & (dots <= hi_cos))


def pick_in_band(
    rng: random.Random, anchor: City, lo_km: float, hi_km: float, accept: Callable[[City], bool] | None = None,
    same_continent: bool = True, tries: int = 40,
) -> City | None:
    """A random city at lo_km..hi_km from ``anchor`` (same continent by default) passing ``accept``."""
    pool, idx = in_band(anchor.lat, anchor.lon, lo_km, hi_km, anchor.continent if same_continent else None)
    if idx.size == 0:
        return None
    for _ in range(tries):
        city = pool[int(idx[rng.randrange(idx.size)])]
        if city != anchor and (accept is None or accept(city)):
            return city
    return None


def sample_regional(
    rng: random.Random, n: int, min_km: float = 50.0, max_km: float = 2000.0, min_separation_km: float = 50.0,
    max_tries: int = 200,
) -> list[City]:
    """GPSBench App. A.2: a quota-weighted continent, an anchor city, then n - 1 cities 50-2,000 km from the
    anchor, all at least 50 km apart (returned unsorted, anchor first)."""
    for _ in range(max_tries):
        continent = pick_continent(rng)
        anchor = rng.choice(cities_by_continent()[continent])
        pool, idx = in_band(anchor.lat, anchor.lon, min_km, max_km, continent)
        if idx.size < 2 * n:
            continue
        chosen = [anchor]
        for _ in range(50 * n):
            if len(chosen) == n:
                break
            city = pool[int(idx[rng.randrange(idx.size)])]
            if city not in chosen and far_enough(city, chosen, min_separation_km):
                chosen.append(city)
        if len(chosen) == n:
            return chosen
    raise RuntimeError(f"could not sample a regional set of {n} cities")


class CityGrid:
    """Cities bucketed in 1° cells for fast "who is near this point" checks over small radii."""

    def __init__(self, pool: Sequence[City]) -> None:
        self.cells: dict[tuple[int, int], list[City]] = {}
        for c in pool:
            self.cells.setdefault((math.floor(c.lat), math.floor(c.lon)), []).append(c)

    def near(self, lat: float, lon: float, radius_km: float) -> list[tuple[City, float]]:
        """Cities within ``radius_km`` (<= 500) of the point, as (city, km), nearest first."""
        dlat = int(math.ceil(radius_km / 110.0))
        coslat = max(math.cos(math.radians(min(89.0, abs(lat) + dlat))), 0.01)
        dlon = min(180, int(math.ceil(radius_km / (111.0 * coslat))))
        out = []
        la, lo = math.floor(lat), math.floor(lon)
        for i in range(la - dlat, la + dlat + 1):
            for j in range(lo - dlon, lo + dlon + 1):
                jj = (j + 180) % 360 - 180
                for c in self.cells.get((i, jj), ()):
                    d = EARTH_RADIUS_KM * central_angle(lat, lon, c.lat, c.lon)
                    if d <= radius_km:
                        out.append((c, d))
        out.sort(key=lambda t: (t[1], t[0].geonameid))
        return out


@cache
def city_grid() -> CityGrid:
    """A grid over every gazetteer city (all continents, Antarctica included)."""
    return CityGrid(cities())
