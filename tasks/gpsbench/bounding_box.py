"""GPSBench Pure GPS: bounding box of 3-8 cities (App. B.1).

Globally balanced cities (proportional continent allocation from 6 on), at least 100 km apart. Each sample asks
one quantity, in turn: the bounds (plain min/max of latitudes and longitudes, no antimeridian wrap, as the
paper), the centre of the bounds, the centroid (arithmetic mean) or the diagonal (haversine between the
south-west and north-east corners). Tolerances: ±0.01° per coordinate; max(5 km, 5 %) for the diagonal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Required, TypedDict, cast

from geocore.pointsets import box_summary
from tasks.answers import PairAnswer, coordinate_pair, decide, extract, find_angles, prompt_numbers, quantity
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_balanced
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task
from tasks.scorers import PairWithinDegrees, WithinKm, lon_diff

QUANTITIES = ("bounds", "center", "centroid", "diagonal")
TOLERANCE_DEG = 0.01
score_pair = PairWithinDegrees(TOLERANCE_DEG)
"""The centre and midpoint answers: both coordinates within ±0.01°."""
ASK = {
    "bounds": ("the bounding box: the minimum and maximum latitude and the minimum and maximum longitude (plain "
               "minimum and maximum, no wrap-around at ±180°)", "min_lat, max_lat, min_lon, max_lon"),
    "center": ("the centre of the bounding box: the midpoint of the minimum and maximum latitude and of the "
               "minimum and maximum longitude (plain minimum and maximum, no wrap-around at ±180°)",
               "latitude, longitude"),
    "centroid": ("the centroid of the points: the arithmetic mean of their latitudes and of their longitudes",
                 "latitude, longitude"),
    "diagonal": ("the length of the bounding box's diagonal: the great-circle distance from (min_lat, min_lon) to "
                 "(max_lat, max_lon) on a sphere of radius 6371 km (plain minimum and maximum, no wrap-around)",
                 "<distance> km"),
}
TEMPLATE = ("Here are {n} points (latitude, longitude in decimal degrees):\n{points}\nCompute {what}.\n"
            "End your reply with the line FINAL ANSWER: {form}.")


def parse_bounds(segment: str) -> Parsed[list[float]]:
    """Four numbers (min_lat, max_lat, min_lon, max_lon); a multiple of four that are not one repeated box is
    hedged."""
    values = [a.value for a in find_angles(segment)]
    if len(values) < 4:
        return Parsed.failure(segment, f"expected 4 numbers (min_lat, max_lat, min_lon, max_lon), found {len(values)}")
    boxes = [tuple(values[k:k + 4]) for k in range(0, len(values) - 3, 4)]
    if len(values) % 4:
        return Parsed.hedged(segment, f"{len(values)} numbers where 4 bounds were asked", candidates=values[:20])
    parsed = decide(segment, boxes, what="bounding box")
    return Parsed.success(segment, list(parsed.answer)) if parsed.ok else parsed.no_answer()


score_diagonal = WithinKm(floor_km=5.0, share=0.05)
"""The diagonal: within max(5 km, 5 %), as GPSBench's distance."""


class BoxTarget(TypedDict, total=False):
    """The asked quantity and its gold: the four bounds, the diagonal in km, or a centre (lat, lon)."""

    quantity: Required[str]
    bounds: list[float]
    km: float
    lat: float
    lon: float


@register_task("gpsbench.bounding_box")
class BoundingBoxTask(GpsTask[BoxTarget, PairAnswer | float | list[float]]):
    toolsets = ("shapes",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[BoxTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            group = sample_balanced(rng, rng.randint(3, 8), 100.0)
            pts = [rounded(c.lat, c.lon) for c in group]
            box = box_summary(pts)
            quantity = QUANTITIES[i % len(QUANTITIES)]
            target = BoxTarget(quantity=quantity)
            if quantity == "bounds":
                target["bounds"] = [box.min_lat, box.max_lat, box.min_lon, box.max_lon]
            elif quantity == "diagonal":
                target["km"] = round(box.diagonal_km, 3)
            else:
                lat, lon = box.center if quantity == "center" else box.centroid
                target["lat"], target["lon"] = round(lat, 6), round(lon, 6)
            what, form = ASK[quantity]
            listing = "\n".join(f"{k + 1}. {fmt_point(*p)}" for k, p in enumerate(pts))
            yield self.make(
                i, size, TEMPLATE.format(n=len(pts), points=listing, what=what, form=form), target,
                {"points": [list(p) for p in pts], "cities": [c.name for c in group]},
                place_meta(group[0], quantity=quantity, n_points=len(pts)),
            )

    def example_replies(self, sample: Sample[BoxTarget]) -> Replies:
        quantity = sample.target["quantity"]
        if quantity == "diagonal":
            return score_diagonal.replies(sample)
        return examples.bounds(sample) if quantity == "bounds" else score_pair.replies(sample)

    def parse(self, text: str, sample: Sample[BoxTarget]) -> Parsed[PairAnswer | float | list[float]]:
        """The asked quantity from the committed answer: a (lat, lon) pair, a distance, or the four bounds;
        the listed points restated beside it are not the answer; two different answers are hedged."""
        q = sample.target["quantity"]
        if q in ("center", "centroid"):
            given = [tuple(p) for p in sample.payload["points"]]
            return extract(text, lambda seg: coordinate_pair(seg, given=given), prompt=sample.prompt)
        if q == "diagonal":
            numbers = prompt_numbers(sample.prompt)
            return extract(text, lambda seg: quantity(seg, "distance", given=numbers), prompt=sample.prompt)
        return extract(text, parse_bounds, prompt=sample.prompt)

    def score(self, parsed: Parsed[PairAnswer | float | list[float]], sample: Sample[BoxTarget]) -> Score:
        t = sample.target
        q = t["quantity"]
        if not parsed.ok:
            return failed(parsed, "km" if q == "diagonal" else "deg")
        v = parsed.answer
        if q == "diagonal" and isinstance(v, (int, float)):
            return score_diagonal(cast("Parsed[float]", parsed), sample)
        if q == "bounds" and isinstance(v, list):
            g = t["bounds"]
            err = max(abs(v[0] - g[0]), abs(v[1] - g[1]), lon_diff(v[2], g[2]), lon_diff(v[3], g[3]))
            return graded(err <= TOLERANCE_DEG, err, "deg", f"answer {v}, gold {g}, error {err:.4f}°")
        assert isinstance(v, dict), f"a {q} answer is a coordinate pair"
        return score_pair(cast("Parsed[PairAnswer]", parsed), sample)
