"""GPSBench Applied: proximity, which of four cities is nearest to a reference city, by name only (App. B.2).

Five globally balanced, unambiguously named cities at least 100 km apart: the first is the reference, the rest
are the options. Gold is the candidate with the smallest haversine distance (R = 6371 km, GeoNames coordinates);
draws where the runner-up is within 5 % of the nearest are redrawn so the answer is clear.
"""

from __future__ import annotations

from collections.abc import Iterator

from geocore.gazetteer import City
from geocore.geodesy import haversine_km
from tasks.gpsbench.common import LETTERS, ChoiceTarget, ChoiceTask, options_block, place_meta
from tasks.gpsbench.sampling import is_unambiguous, sample_global_where
from tasks.records import Sample
from tasks.registry import register_task

CLEAR_RATIO = 0.95
TEMPLATE = (
    "Which of these places is closest to {ref} (great-circle distance)?\n{options}\n"
    "End your reply with the line FINAL ANSWER: <letter>."
)


def _distinct_names(cities: list[City]) -> bool:
    return len({c.name.casefold() for c in cities}) == len(cities)


class ProximityTarget(ChoiceTarget):
    name: str
    distances_km: list[float]


@register_task("gpsbench.proximity")
class ProximityTask(ChoiceTask[ProximityTarget]):
    track = "applied"
    toolsets = ("gazetteer",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[ProximityTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            while True:
                ref, *cands = sample_global_where(rng, 5, 100.0, is_unambiguous)
                km = [haversine_km(ref.lat, ref.lon, c.lat, c.lon) for c in cands]
                order = sorted(range(4), key=km.__getitem__)
                if km[order[0]] <= CLEAR_RATIO * km[order[1]] and _distinct_names([ref, *cands]):
                    break
            gold = order[0]
            names = [c.name for c in cands]
            yield self.make(
                i, size, TEMPLATE.format(ref=ref.name, options=options_block(names)),
                {"letter": LETTERS[gold], "index": gold, "name": names[gold], "distances_km": [round(d, 3) for d in km]},
                {"reference": ref.name, "geonameids": [ref.geonameid] + [c.geonameid for c in cands],
                 "aliases": [[n] for n in names]},
                place_meta(ref), choices=names,
            )
