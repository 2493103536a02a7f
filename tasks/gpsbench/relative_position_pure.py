"""GPSBench Pure GPS: relative position of two cities on different continents (App. B.1).

Two globally balanced cities at least 100 km apart on different continents; gold is the initial bearing from A
to B binned into 8 sectors of 45°. Pairs whose bearing lies within 2° of a sector boundary are redrawn so the
answer does not hinge on rounding. Answers are whole-word direction names or abbreviations.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypedDict

from geocore.geodesy import compass_point, initial_bearing
from tasks.answers import DIRECTION_NAMES, DIRECTIONS_8, direction, extract
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_global
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task

BOUNDARY_MARGIN_DEG = 2.0
DIRECTION_RULE = ("The direction is the initial great-circle bearing from the first place to the second, binned "
                  "into 8 sectors of 45° centred on North (0°), Northeast (45°), East (90°), Southeast (135°), South "
                  "(180°), Southwest (225°), West (270°) and Northwest (315°).")
TEMPLATE = (
    "Point A is at {a} and point B is at {b} (latitude, longitude in decimal degrees). In which direction is B "
    "from A? {rule}\nEnd your reply with the line FINAL ANSWER: <one of North, Northeast, East, Southeast, South, "
    "Southwest, West, Northwest>."
)


def near_boundary(bearing: float, margin: float = BOUNDARY_MARGIN_DEG) -> bool:
    """Whether a bearing lies within ``margin`` degrees of an 8-sector boundary (22.5° + k·45°)."""
    offset = (bearing - 22.5) % 45.0
    return min(offset, 45.0 - offset) < margin


def parse_direction_answer(text: str, sample: Sample[DirectionTarget]) -> Parsed[str]:
    """One of the 8 directions in the committed answer; two different directions are hedged."""
    return extract(text, direction, prompt=sample.prompt)


def score_direction(parsed: Parsed[str], sample: Sample[DirectionTarget]) -> Score:
    if not parsed.ok:
        return failed(parsed)
    gold = sample.target["direction"]
    steps = abs(DIRECTIONS_8.index(parsed.answer) - DIRECTIONS_8.index(gold))
    steps = min(steps, 8 - steps)
    return graded(parsed.answer == gold, float(steps * 45), "deg",
                  f"answer {DIRECTION_NAMES[parsed.answer]}, gold {DIRECTION_NAMES[gold]} "
                  f"(bearing {sample.target['bearing_deg']:.1f}°)")


class DirectionTarget(TypedDict):
    direction: str
    name: str
    bearing_deg: float


@register_task("gpsbench.relative_position_pure")
class RelativePositionPureTask(GpsTask[DirectionTarget, str]):
    toolsets = ("geodesy",)
    answer_kind = "option"
    answer_options = "choices"

    def draw(self, seed: int, size: int) -> Iterator[Sample[DirectionTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            while True:
                a, b = sample_global(rng, 2, 100.0)
                (la1, lo1), (la2, lo2) = rounded(a.lat, a.lon), rounded(b.lat, b.lon)
                deg = initial_bearing(la1, lo1, la2, lo2)
                if a.continent != b.continent and not near_boundary(deg):
                    break
            direction = compass_point(deg, 8)
            yield self.make(
                i, size, TEMPLATE.format(a=fmt_point(la1, lo1), b=fmt_point(la2, lo2), rule=DIRECTION_RULE),
                {"direction": direction, "name": DIRECTION_NAMES[direction], "bearing_deg": round(deg, 4)},
                {"points": [[la1, lo1], [la2, lo2]], "cities": [a.name, b.name]},
                place_meta(a, continents=f"{a.continent}-{b.continent}"),
                choices=[DIRECTION_NAMES[d] for d in DIRECTIONS_8],
            )

    def example_replies(self, sample: Sample[DirectionTarget]) -> Replies:
        return examples.direction(sample)

    def parse(self, text: str, sample: Sample[DirectionTarget]) -> Parsed[str]:
        return parse_direction_answer(text, sample)

    def score(self, parsed: Parsed[str], sample: Sample[DirectionTarget]) -> Score:
        return score_direction(parsed, sample)
