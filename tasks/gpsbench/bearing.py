"""GPSBench Pure GPS: initial bearing with its 8-point compass name (App. B.1, C.2).

Two globally balanced cities at least 100 km apart; gold is the spherical forward azimuth from the printed
coordinates, normalised to [0, 360). Correct within ±5° with wrap-around at 0/360; the compass name is checked
and reported but not required. The error is the absolute angular difference in degrees.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypedDict

from geocore.geodesy import compass_point, initial_bearing
from tasks.answers import DIRECTION_NAMES, direction, extract, prompt_numbers
from tasks.gpsbench.common import GpsTask, angle_diff, failed, graded, place_meta
from tasks.gpsbench.parsing import parse_bearing
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_global
from tasks.records import GoldCall, Parsed, Sample, Score
from tasks.registry import register_task

TOLERANCE_DEG = 5.0
TEMPLATE = (
    "Point A is at {a} and point B is at {b} (latitude, longitude in decimal degrees). What is the initial "
    "great-circle bearing from A to B, in degrees clockwise from true north (0 to 360), and which of the 8 "
    "compass directions (N, NE, E, SE, S, SW, W, NW; 45° sectors centred on each) does it fall in?\n"
    "End your reply with the line FINAL ANSWER: <bearing>° (<direction>)."
)


class BearingTarget(TypedDict):
    bearing_deg: float
    compass: str


class BearingAnswer(TypedDict):
    bearing_deg: float
    compass: str | None


@register_task("gpsbench.bearing")
class BearingTask(GpsTask[BearingTarget, BearingAnswer]):
    toolsets = ("geodesy",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[BearingTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            a, b = sample_global(rng, 2, 100.0)
            (la1, lo1), (la2, lo2) = rounded(a.lat, a.lon), rounded(b.lat, b.lon)
            deg = initial_bearing(la1, lo1, la2, lo2)
            compass = compass_point(deg, 8)
            yield self.make(
                i, size, TEMPLATE.format(a=fmt_point(la1, lo1), b=fmt_point(la2, lo2)),
                {"bearing_deg": round(deg, 4), "compass": compass},
                {"points": [[la1, lo1], [la2, lo2]], "cities": [a.name, b.name]},
                place_meta(a, continents=f"{a.continent}-{b.continent}"),
            )

    def gold_call(self, sample: Sample[BearingTarget]) -> GoldCall:
        """``initial_bearing`` over the printed points (the generator's spherical azimuth)."""
        (la1, lo1), (la2, lo2) = sample.payload["points"]
        return GoldCall(tools=("initial_bearing",), args={"lat1": la1, "lon1": lo1, "lat2": la2, "lon2": lo2},
                        result_key="bearing_deg", gold=float(sample.target["bearing_deg"]), tolerance=TOLERANCE_DEG,
                        angle=True)

    def parse(self, text: str, sample: Sample[BearingTarget]) -> Parsed[BearingAnswer]:
        """The bearing (degrees) of the committed answer, plus its compass word if one is given (reported, not
        graded); two different bearings are hedged."""
        given = prompt_numbers(sample.prompt)

        def find(seg: str) -> Parsed:
            deg = parse_bearing(seg, given)
            if not deg.ok:
                return deg
            compass = direction(seg)
            return Parsed.success(seg, {"bearing_deg": deg.value, "compass": compass.value if compass.ok else None})

        return extract(text, find, prompt=sample.prompt)

    def score(self, parsed: Parsed[BearingAnswer], sample: Sample[BearingTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed, "deg")
        gold = float(sample.target["bearing_deg"])
        err = angle_diff(float(parsed.answer["bearing_deg"]), gold)
        ok = err <= TOLERANCE_DEG
        given = parsed.answer.get("compass")
        compass = (f"; compass {DIRECTION_NAMES[given]} ({'right' if given == sample.target['compass'] else 'wrong'})"
                   if given else "; no compass name")
        return graded(ok, err, "deg", f"answer {parsed.answer['bearing_deg']:.2f}°, gold {gold:.2f}° "
                                      f"(±{TOLERANCE_DEG}°){compass}")
