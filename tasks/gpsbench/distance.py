"""GPSBench Pure GPS: distance calculation (Appendix B.1).

Two cities from quota-weighted continents at least 50 km apart; gold is the haversine distance on a sphere of
R = 6371 km computed from the coordinates exactly as printed; correct within max(5 km, 5 %).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TypedDict

from geocore.geodesy import haversine_km
from tasks.answers import extract, prompt_numbers, quantity
from tasks.base import GeneratedTask, stable_seed
from tasks.gpsbench.common import BREAKDOWNS, SYSTEM_MESSAGE
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.regions import subregion
from tasks.gpsbench.sampling import sample_global
from tasks.records import GoldCall, Message, Parsed, Sample
from tasks.registry import register_task
from tasks.scorers import WithinKm

MIN_SEPARATION_KM = 50.0
KM_PER_MILE = 1.609344

TEMPLATE = (
    "Point A is at {a} and point B is at {b} (latitude, longitude in decimal degrees). "
    "What is the great-circle distance between them in kilometres? Treat the Earth as a sphere of radius "
    "6371 km.\nEnd your reply with the line FINAL ANSWER: X km, where X is the distance."
)


SCORER = WithinKm(floor_km=5.0, share=0.05)
"""The paper's tolerance: max(5 km, 5 % of the distance)."""


def tolerance_km(gold_km: float) -> float:
    """The paper's tolerance: max(5 km, 5 % of the distance)."""
    return SCORER.tolerance(gold_km)


class DistanceTarget(TypedDict):
    km: float
    miles: float


@register_task("gpsbench.distance")
class DistanceTask(GeneratedTask[DistanceTarget, float]):
    family = "gpsbench"
    breakdowns = BREAKDOWNS
    scorer = SCORER
    toolsets = ("geodesy",)
    answer_kind = "quantity"
    answer_units = ("km", "mi", "m")
    default_size = 200

    def draw(self, seed: int, size: int) -> Iterator[Sample[DistanceTarget]]:
        rng = random.Random(stable_seed(self.item_key, seed))  # a variant draws its base's items
        for i in range(size):
            a, b = sample_global(rng, 2, MIN_SEPARATION_KM)
            (la1, lo1), (la2, lo2) = rounded(a.lat, a.lon), rounded(b.lat, b.lon)
            km = haversine_km(la1, lo1, la2, lo2)
            split = self.split_of(i)
            yield Sample.unchecked(
                id=self.sample_id(split, i),
                task=self.name,
                split=split,
                messages=(SYSTEM_MESSAGE, Message.unchecked("user", TEMPLATE.format(a=fmt_point(la1, lo1),
                                                                                     b=fmt_point(la2, lo2)))),
                target={"km": round(km, 3), "miles": round(km / KM_PER_MILE, 3)},
                payload={"points": [[la1, lo1], [la2, lo2]], "cities": [a.name, b.name]},
                meta={
                    "track": "pure",
                    "continent": a.continent,
                    "continents": f"{a.continent}-{b.continent}",
                    "subregion": subregion(a.country_code, a.continent),
                },
            )

    def gold_call(self, sample: Sample[DistanceTarget]) -> GoldCall:
        """``distance_km`` over the printed points (the haversine of the generator)."""
        (la1, lo1), (la2, lo2) = sample.payload["points"]
        gold = float(sample.target["km"])
        return GoldCall(tools=("distance_km", "geodesic_distance_km"), args={"lat1": la1, "lon1": lo1, "lat2": la2,
                        "lon2": lo2}, result_key="distance_km", gold=gold, tolerance=tolerance_km(gold),
                        symmetric=True)

    def parse(self, text: str, sample: Sample[DistanceTarget]) -> Parsed[float]:
        """The distance (km; miles and metres converted) of the committed answer, or a bare number there (km, as
        asked); the radius and other given values are not the answer; two different distances are hedged."""
        given = prompt_numbers(sample.prompt)
        return extract(text, lambda seg: quantity(seg, "distance", given=given), prompt=sample.prompt)
