"""GPSBench missing-data probe: infer a city's missing latitude or longitude (§4.2.2).

A city from a quota-weighted continent, shown as "Name, Country" with one GeoNames coordinate (5 decimals);
samples alternate between hiding the latitude and the longitude. Gold is the GeoNames value; correct within
±0.1° (longitude with wrap-around). Difficulty follows population as in place association. Draws are redrawn
when a namesake in the same country shares the shown coordinate within 0.1° but not the hidden one.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Literal, TypedDict

from geocore.gazetteer import City
from tasks.answers import extract, fold, single_angle
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.place_association import difficulty_of
from tasks.gpsbench.sampling import cities_by_continent, sample_global
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task
from tasks.scorers import lon_diff

TOLERANCE_DEG = 0.1
TEMPLATE = (
    "The city of {name} ({country}) lies at {known_name} {known:.5f}°. What is its {missing_name}?\n"
    "End your reply with the line FINAL ANSWER: <{missing_name} in decimal degrees, negative for {neg}>."
)


@cache
def _namesakes() -> dict[tuple[str, str], tuple[City, ...]]:
    out: dict[tuple[str, str], list[City]] = {}
    for pool in cities_by_continent().values():
        for c in pool:
            out.setdefault((fold(c.name), c.country_code), []).append(c)
    return {k: tuple(v) for k, v in out.items() if len(v) > 1}


def _ambiguous(city: City, missing: str) -> bool:
    for other in _namesakes().get((fold(city.name), city.country_code), ()):
        if other.geonameid == city.geonameid:
            continue
        if missing == "lon":
            shown_close, hidden_far = abs(other.lat - city.lat) <= 0.1, lon_diff(other.lon, city.lon) > 0.1
        else:
            shown_close, hidden_far = lon_diff(other.lon, city.lon) <= 0.1, abs(other.lat - city.lat) > 0.1
        if shown_close and hidden_far:
            return True
    return False


class MissingTarget(TypedDict):
    missing: Literal["lat", "lon"]
    value: float


@register_task("gpsbench.missing_data")
class MissingDataTask(GpsTask[MissingTarget, float]):
    track = "applied"
    toolsets = ("gazetteer",)
    answer_kind = "number"

    def draw(self, seed: int, size: int) -> Iterator[Sample[MissingTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            missing: Literal["lat", "lon"] = "lon" if i % 2 == 0 else "lat"
            while True:
                city = sample_global(rng, 1, 0.0)[0]
                if not _ambiguous(city, missing):
                    break
            lat, lon = round(city.lat, 5), round(city.lon, 5)
            known_name, missing_name = ("latitude", "longitude") if missing == "lon" else ("longitude", "latitude")
            prompt = TEMPLATE.format(name=city.name, country=city.country, known_name=known_name,
                                     known=lat if missing == "lon" else lon, missing_name=missing_name,
                                     neg="west" if missing == "lon" else "south")
            yield self.make(
                i, size, prompt, {"missing": missing, "value": lon if missing == "lon" else lat},
                {"city": city.name, "country": city.country, "lat": lat, "lon": lon, "geonameid": city.geonameid},
                place_meta(city, difficulty=difficulty_of(city.population), missing=missing),
            )

    def example_replies(self, sample: Sample[MissingTarget]) -> Replies:
        return examples.missing_value(sample)

    def parse(self, text: str, sample: Sample[MissingTarget]) -> Parsed[float]:
        """The latitude or longitude asked for, from the committed answer (signs and N/S/E/W letters); the
        shown coordinate is not the answer; two different values are hedged."""
        axis = sample.target["missing"]
        return extract(text, lambda seg: single_angle(seg, axis), prompt=sample.prompt)

    def score(self, parsed: Parsed[float], sample: Sample[MissingTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed, "deg")
        gold = float(sample.target["value"])
        err = lon_diff(parsed.answer, gold) if sample.target["missing"] == "lon" else abs(parsed.answer - gold)
        return graded(err <= TOLERANCE_DEG, err, "deg",
                      f"answer {parsed.answer:.4f}°, gold {gold:.4f}° (±{TOLERANCE_DEG}°)")
