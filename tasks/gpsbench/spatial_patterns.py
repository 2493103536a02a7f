"""GPSBench Applied: spatial patterns, the geographic outlier among five cities, by name only (App. B.2, C.6).

A main continent and a different outlier continent, both quota-weighted; four unambiguously named cities from
the main one and one from the outlier's (countries that straddle continents left out). Each city's distance to
the centroid of the five is measured; the draw is kept only if, with both the spherical and the arithmetic
centroid, exactly one city lies farther than twice the median distance, it is the outlier, and it is more than
1.3 times as far as the second farthest (the paper's clarity checks).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Iterator
from typing import Literal

from geocore.gazetteer import City
from geocore.pointsets import centroid_distances_km
from tasks.gpsbench.common import LETTERS, ChoiceTarget, ChoiceTask, options_block, place_meta
from tasks.gpsbench.regions import CONTINENT_QUOTAS
from tasks.gpsbench.sampling import cities_by_continent, continent_is_clear, far_enough, is_unambiguous
from tasks.records import Sample
from tasks.registry import register_task

CLARITY = 1.3
TEMPLATE = (
    "Which of these places is the geographic outlier, the one farthest from the centre of the group?\n{options}\n"
    "End your reply with the line FINAL ANSWER: <letter>."
)


def outlier_is_clear(points: list[tuple[float, float]], outlier: int) -> bool:
    """The paper's checks under both centroid definitions."""
    methods: tuple[Literal["spherical", "arithmetic"], ...] = ("spherical", "arithmetic")
    for method in methods:
        _, d = centroid_distances_km(points, method)
        med = statistics.median(d)
        far = [k for k, x in enumerate(d) if x > 2.0 * med]
        ranked = sorted(d, reverse=True)
        if far != [outlier] or ranked[0] <= CLARITY * ranked[1]:
            return False
    return True


def _accept(continent: str) -> Callable[[City], bool]:
    return lambda c: c.continent == continent and continent_is_clear(c) and is_unambiguous(c)


class OutlierTarget(ChoiceTarget):
    name: str
    distances_km: list[float]


@register_task("gpsbench.spatial_patterns")
class SpatialPatternsTask(ChoiceTask[OutlierTarget]):
    track = "applied"
    toolsets = ("gazetteer", "shapes")

    def draw(self, seed: int, size: int) -> Iterator[Sample[OutlierTarget]]:
        rng = self.rng(seed)
        names = list(CONTINENT_QUOTAS)
        weights = [CONTINENT_QUOTAS[n] for n in names]
        for i in range(size):
            while True:
                main = rng.choices(names, weights=weights)[0]
                odd = rng.choices([n for n in names if n != main], weights=[CONTINENT_QUOTAS[n] for n in names if n != main])[0]
                group = _sample_in(rng, main, 4) + _sample_in(rng, odd, 1)
                order = list(range(5))
                rng.shuffle(order)
                cities = [group[k] for k in order]
                outlier = order.index(4)
                pts = [(c.lat, c.lon) for c in cities]
                if len({c.name.casefold() for c in cities}) == 5 and outlier_is_clear(pts, outlier):
                    break
            _, dist = centroid_distances_km(pts, "spherical")
            labels = [c.name for c in cities]
            yield self.make(
                i, size, TEMPLATE.format(options=options_block(labels)),
                {"letter": LETTERS[outlier], "index": outlier, "name": labels[outlier],
                 "distances_km": [round(d, 3) for d in dist]},
                {"geonameids": [c.geonameid for c in cities], "points": [list(p) for p in pts],
                 "aliases": [[n] for n in labels]},
                place_meta(group[0], main_continent=main, outlier_continent=odd), choices=labels,
            )


def _sample_in(rng: random.Random, continent: str, n: int) -> list[City]:
    """``n`` unambiguously named cities of one continent, at least 100 km apart."""
    pool = cities_by_continent()[continent]
    accept = _accept(continent)
    chosen: list[City] = []
    for _ in range(20_000):
        if len(chosen) == n:
            return chosen
        c = rng.choice(pool)
        if c not in chosen and accept(c) and far_enough(c, chosen, 100.0):
            chosen.append(c)
    raise RuntimeError(f"could not sample {n} cities in {continent}")


