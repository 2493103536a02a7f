"""GPSBench Applied: relative position of two cities of one continent, by name only (App. A.3, B.2, C.6).

An anchor city from a quota-weighted continent and a second city of the same continent in a distance band that
cycles 200-500 km (hardest), 500-1,000, 1,000-2,000, 2,000-3,000 km (easiest). Both names must be unambiguous
in the gazetteer (the most populous place of that name, at least twice the population of any namesake), since
the prompt shows names only. Gold is the initial bearing from the GeoNames coordinates binned into 8 sectors;
pairs within 2° of a sector boundary are redrawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from geocore.gazetteer import City
from geocore.geodesy import compass_point, initial_bearing
from tasks.answers import DIRECTION_NAMES, DIRECTIONS_8
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, place_meta
from tasks.gpsbench.relative_position_pure import (
    DIRECTION_RULE,
    DirectionTarget,
    near_boundary,
    parse_direction_answer,
    score_direction,
)
from tasks.gpsbench.sampling import cities_by_continent, is_unambiguous, pick_continent, pick_in_band
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task

BANDS_KM: tuple[tuple[float, float, str], ...] = (
    (200.0, 500.0, "hardest"), (500.0, 1000.0, "hard"), (1000.0, 2000.0, "medium"), (2000.0, 3000.0, "easy"),
)
TEMPLATE = (
    "In which direction is {b} from {a}? {rule}\nEnd your reply with the line FINAL ANSWER: <one of North, "
    "Northeast, East, Southeast, South, Southwest, West, Northwest>."
)


def _other_unambiguous(anchor: City, city: City) -> bool:
    """A city of another name than ``anchor`` whose name is unambiguous."""
    return city.name != anchor.name and is_unambiguous(city)


@register_task("gpsbench.relative_position_applied")
class RelativePositionAppliedTask(GpsTask[DirectionTarget, str]):
    track = "applied"
    toolsets = ("gazetteer",)
    answer_kind = "option"
    answer_options = "choices"

    def draw(self, seed: int, size: int) -> Iterator[Sample[DirectionTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            lo, hi, difficulty = BANDS_KM[i % len(BANDS_KM)]
            while True:
                anchor = rng.choice(cities_by_continent()[pick_continent(rng)])
                if not is_unambiguous(anchor):
                    continue
                other = pick_in_band(rng, anchor, lo, hi, accept=partial(_other_unambiguous, anchor))
                if other is None:
                    continue
                deg = initial_bearing(anchor.lat, anchor.lon, other.lat, other.lon)
                if not near_boundary(deg):
                    break
            direction = compass_point(deg, 8)
            yield self.make(
                i, size, TEMPLATE.format(a=anchor.name, b=other.name, rule=DIRECTION_RULE),
                {"direction": direction, "name": DIRECTION_NAMES[direction], "bearing_deg": round(deg, 4)},
                {"cities": [anchor.name, other.name], "geonameids": [anchor.geonameid, other.geonameid],
                 "points": [[anchor.lat, anchor.lon], [other.lat, other.lon]]},
                place_meta(anchor, difficulty=difficulty, distance_band=f"{lo:.0f}-{hi:.0f} km"),
                choices=[DIRECTION_NAMES[d] for d in DIRECTIONS_8],
            )

    def example_replies(self, sample: Sample[DirectionTarget]) -> Replies:
        return examples.direction(sample)

    def parse(self, text: str, sample: Sample[DirectionTarget]) -> Parsed[str]:
        return parse_direction_answer(text, sample)

    def score(self, parsed: Parsed[str], sample: Sample[DirectionTarget]) -> Score:
        return score_direction(parsed, sample)
