"""GPSBench Applied: name disambiguation among same-named cities (App. B.2, C.6).

Name groups are GeoNames primary names (folded: case and accents ignored) shared by at least 4 cities of the
quota continents (the paper's 847 groups also counted alternate names; primary names keep every option a real
"X"). Four members with distinct labels ("Name, Country" or "Name, State, Country" where the state's name is
known offline) at least 20 km apart are offered; the asked coordinates are the answer's GeoNames point moved
100-500 m in a random direction; draws where another gazetteer place lies about as close to that point
(within 0.2 km of the answer's distance, e.g. twin towns across a state line) are redrawn. Multiple choice by letter or option text; a bare country (or state) name
counts when it singles out one option.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache

from geocore.gazetteer import City, admin1_name
from geocore.geodesy import destination, haversine_km
from tasks.answers import fold
from tasks.gpsbench.common import LETTERS, ChoiceTarget, ChoiceTask, city_label, options_block, place_meta
from tasks.gpsbench.sampling import cities_by_continent, city_grid
from tasks.records import Sample
from tasks.registry import register_task

MIN_APART_KM = 20.0
TEMPLATE = (
    "Several places are called {name}. Which one lies at {lat:.6f}, {lon:.6f} (latitude, longitude in decimal "
    "degrees)?\n{options}\nEnd your reply with the line FINAL ANSWER: <letter>."
)


@cache
def name_groups() -> tuple[tuple[City, ...], ...]:
    """Groups of at least 4 cities sharing a folded primary name, in a stable order."""
    groups: dict[str, list[City]] = {}
    for pool in cities_by_continent().values():
        for c in pool:
            groups.setdefault(fold(c.name), []).append(c)
    return tuple(tuple(g) for _, g in sorted(groups.items()) if len(g) >= 4)


def option_aliases(cities: Sequence[City]) -> list[list[str]]:
    """Per option: its full label, "Name, State" where known, and the country / state name when unique."""
    countries = [c.country for c in cities]
    states = [admin1_name(c.country_code, c.admin1_code) for c in cities]
    out = []
    for c, country, state in zip(cities, countries, states, strict=True):
        names = [city_label(c, with_admin1=True)]
        if state:
            names.append(f"{c.name}, {state}")
            if states.count(state) == 1:
                names.append(state)
        if countries.count(country) == 1:
            names += [f"{c.name}, {country}", country]
        out.append(names)
    return out


class NameTarget(ChoiceTarget):
    label: str
    geonameid: int


@register_task("gpsbench.name_disambiguation")
class NameDisambiguationTask(ChoiceTask[NameTarget]):
    track = "applied"
    toolsets = ("gazetteer",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[NameTarget]]:
        rng = self.rng(seed)
        groups = name_groups()
        for i in range(size):
            while True:
                group = list(rng.choice(groups))
                rng.shuffle(group)
                chosen: list[City] = []
                labels: set[str] = set()
                for c in group:
                    label = fold(city_label(c, with_admin1=True))
                    if label in labels or any(haversine_km(c.lat, c.lon, o.lat, o.lon) < MIN_APART_KM for o in chosen):
                        continue
                    chosen.append(c)
                    labels.add(label)
                    if len(chosen) == 4:
                        break
                if len(chosen) < 4:
                    continue
                answer = rng.randrange(4)
                gold = chosen[answer]
                lat, lon = destination(gold.lat, gold.lon, rng.uniform(0.0, 360.0), rng.uniform(0.1, 0.5))
                lat, lon = round(lat, 6), round(lon, 6)
                near = city_grid().near(lat, lon, 3.0)
                if near[0][0].geonameid == gold.geonameid and (len(near) == 1 or near[1][1] - near[0][1] >= 0.2):
                    break
            options = [city_label(c, with_admin1=True) for c in chosen]
            yield self.make(
                i, size, TEMPLATE.format(name=gold.name, lat=lat, lon=lon, options=options_block(options)),
                {"letter": LETTERS[answer], "index": answer, "label": options[answer], "geonameid": gold.geonameid},
                {"lat": lat, "lon": lon, "offset_m": round(haversine_km(lat, lon, gold.lat, gold.lon) * 1000.0, 1),
                 "aliases": option_aliases(chosen), "geonameids": [c.geonameid for c in chosen]},
                place_meta(gold, group_size=len(group)), choices=options,
            )
