"""STBench administrative region determination (ARD, §4.2, Table 5), from GeoNames instead of Yelp.

A point 0.2–2.5 km from a GeoNames city (population ≥ 15,000) is shown with that city and four other cities
of the same first-level division (state, province) as options numbered from 0, as in the paper. The gold is
the city the point was drawn around; the draw is kept only when that city is also the nearest GeoNames city
to the point by a clear margin (the runner-up at least 1.5× and 1 km farther) and every other option lies
10 km or more away, so the answer does not hinge on where a municipal boundary runs. Half the items are in
the United States (the paper's Yelp cities are), half anywhere.
"""

from __future__ import annotations

import random
from collections import defaultdict
from functools import cache

from geocore.gazetteer import City, admin1_name, cities, nearest_cities
from geocore.geodesy import destination, haversine_km
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, OptionTarget, OptionTask
from tasks.stbench.prompts import OPTION_INSTRUCTION, Fmt, num, options_inline, options_lines

N_OPTIONS = 5


@cache
def _groups() -> dict[tuple[str, str], tuple[City, ...]]:
    """Cities per (country, admin1) with at least 5 distinct names."""
    groups: dict[tuple[str, str], list[City]] = defaultdict(list)
    for c in cities():
        if c.admin1_code:
            groups[(c.country_code, c.admin1_code)].append(c)
    return {k: tuple(v) for k, v in groups.items() if len({c.name for c in v}) >= N_OPTIONS}


@cache
def _pools() -> dict[str, tuple[City, ...]]:
    members = [c for g in _groups().values() for c in g]
    return {"US": tuple(c for c in members if c.country_code == "US"), "world": tuple(members)}


def place_label(city: City) -> str:
    """"Nashville, TN" in the US (the paper's style), else "City, Division" or "City, Country"."""
    if city.country_code == "US":
        return f"{city.name}, {city.admin1_code}"
    division = admin1_name(city.country_code, city.admin1_code)
    return f"{city.name}, {division or city.country}"


class AdminRegionTarget(OptionTarget):
    geonameid: int


@register_task("stbench.admin_region", variants=(COMPLETION,))
class AdminRegionTask(OptionTask[AdminRegionTarget]):
    """Which of five same-state cities is a point in."""

    toolsets = ("gazetteer",)
    paper_size = 5000

    def make(self, rng: random.Random, index: int) -> Item[AdminRegionTarget]:
        pool_name = "US" if rng.random() < 0.5 else "world"
        pool = _pools()[pool_name]
        return self.retry(lambda: self._draw(rng, pool, pool_name))

    def _draw(self, rng: random.Random, pool: tuple[City, ...], pool_name: str) -> Item[AdminRegionTarget] | None:
        city = pool[rng.randrange(len(pool))]
        lat, lon = destination(city.lat, city.lon, rng.uniform(0, 360), rng.uniform(0.2, 2.5))
        lat, lon = round(lat, 6), round(lon, 6)
        (first, d1), (_, d2) = nearest_cities(lat, lon, 2)
        if first.geonameid != city.geonameid or d2 < max(1.5 * d1, d1 + 1.0):
            return None
        group = _groups()[(city.country_code, city.admin1_code)]
        others = [c for c in group if c.name != city.name and haversine_km(lat, lon, c.lat, c.lon) >= 10.0]
        names = sorted({c.name for c in others})
        if len(names) < N_OPTIONS - 1:
            return None
        picked_names = rng.sample(names, N_OPTIONS - 1)
        picked = [max((c for c in others if c.name == n), key=lambda c: c.population) for n in picked_names]
        choices = [city, *picked]
        rng.shuffle(choices)
        options = [(i, place_label(c)) for i, c in enumerate(choices)]
        gold = choices.index(city)
        return Item(
            payload={"point": [lat, lon], "cities": [{"name": c.name, "geonameid": c.geonameid, "lat": c.lat,
                                                       "lon": c.lon} for c in choices]},
            target={"option": gold, "label": options[gold][1], "geonameid": city.geonameid},
            meta={"country": city.country_code, "admin1": f"{city.country_code}-{city.admin1_code}",
                  "pool": pool_name, "continent": city.continent},
            options=options,
        )

    def render(self, item: Item[AdminRegionTarget], fmt: Fmt) -> str:
        lat, lon = item.payload["point"]
        opts = item.options or []
        if fmt.lonlat:
            return (
                "Question: Here are the coordinates of a location and the places where it may lie: "
                f'{{ "latitude": {num(lat, 6)}, "longitude": {num(lon, 6)}, '
                f'"options": "{options_inline(opts, sep=" ", colon=True)}" }} '
                "Which place is the location in? Answer with the option number only.\nAnswer: Option ("
            )
        return (
            f"A location is at latitude {num(lat, 6)}, longitude {num(lon, 6)}. In which of these places is it?\n"
            f"{options_lines(opts)}\n{OPTION_INSTRUCTION}"
        )
