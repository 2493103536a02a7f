"""GPSBench Pure GPS: great-circle interpolation (App. B.1, C.3).

Two globally balanced cities at least 500 km apart (and short of antipodal), a fraction f in {0.25, 0.5, 0.75};
gold is the slerp point from the printed coordinates. Correct when latitude and longitude are both within
±0.01° (longitude with wrap-around); the error is the larger of the two differences in degrees.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypedDict

from geocore.geodesy import haversine_km, interpolate
from tasks.answers import PairAnswer, coordinate_pair, extract
from tasks.gpsbench.common import GpsTask, place_meta
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_global
from tasks.records import Parsed, Sample
from tasks.registry import register_task
from tasks.scorers import PairWithinDegrees

TOLERANCE_DEG = 0.01
FRACTIONS = (0.25, 0.5, 0.75)
MAX_KM = 19_000.0  # stay clear of antipodal pairs, whose great circle is ill-defined
TEMPLATE = (
    "Point A is at {a} and point B is at {b} (latitude, longitude in decimal degrees). Find the point that lies "
    "{f:g} of the way from A to B along the great circle (shortest path on a sphere).\n"
    "End your reply with the line FINAL ANSWER: latitude, longitude (decimal degrees, 4 decimals, negative for "
    "south and west)."
)


class InterpolationTarget(TypedDict):
    lat: float
    lon: float
    fraction: float


@register_task("gpsbench.interpolation")
class InterpolationTask(GpsTask[InterpolationTarget, PairAnswer]):
    toolsets = ("geodesy",)
    scorer = PairWithinDegrees(TOLERANCE_DEG)
    answer_kind = "coordinate"

    def draw(self, seed: int, size: int) -> Iterator[Sample[InterpolationTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            while True:
                a, b = sample_global(rng, 2, 500.0)
                (la1, lo1), (la2, lo2) = rounded(a.lat, a.lon), rounded(b.lat, b.lon)
                if haversine_km(la1, lo1, la2, lo2) <= MAX_KM:
                    break
            f = rng.choice(FRACTIONS)
            lat, lon = interpolate(la1, lo1, la2, lo2, f)
            yield self.make(
                i, size, TEMPLATE.format(a=fmt_point(la1, lo1), b=fmt_point(la2, lo2), f=f),
                {"lat": round(lat, 6), "lon": round(lon, 6), "fraction": f},
                {"points": [[la1, lo1], [la2, lo2]], "fraction": f, "cities": [a.name, b.name]},
                place_meta(a, continents=f"{a.continent}-{b.continent}", fraction=f),
            )

    def parse(self, text: str, sample: Sample[InterpolationTarget]) -> Parsed[PairAnswer]:
        """The (lat, lon) pair of the committed answer (hemisphere letters, signs, labels, DMS); the endpoints
        restated beside it are not the answer; two different pairs are hedged."""
        given = [tuple(p) for p in sample.payload["points"]]
        return extract(text, lambda seg: coordinate_pair(seg, given=given), prompt=sample.prompt)

