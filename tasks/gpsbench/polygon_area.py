"""GPSBench Pure GPS: area and perimeter of a spherical polygon (App. A.2, B.1, C.4).

3-6 cities from one continent within 50-2,000 km of an anchor and 50 km apart, sorted by angle around their
centroid (a simple polygon). Gold: area on the sphere R = 6371 km with great-circle edges and perimeter as the
sum of haversine edges. The area uses L'Huilier's theorem over the fan from vertex 0 with each triangle signed
by its orientation: for convex polygons this equals the paper's unsigned sum (kept as ``paper_area_km2``), for
concave ones it is the true area where the unsigned sum overestimates. Correct when the area is within ±5 %, as
the paper grades it; a perimeter, when given, is reported but not required. The error is the area's percent
error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypedDict

from shapely.geometry import Polygon

from geocore.polygons import sort_by_angle, spherical_perimeter_km, spherical_polygon_area_km2
from tasks.answers import extract, prompt_numbers
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.parsing import AreaAnswer, parse_area
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_regional
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task

TOLERANCE = 0.05
MIN_AREA_KM2 = 1000.0  # slivers of nearly collinear cities make 5 % meaningless
TEMPLATE = (
    "A polygon has these vertices, in order (latitude, longitude in decimal degrees):\n{vertices}\n"
    "Its edges are great-circle arcs between consecutive vertices, closing back to the first. Treat the Earth as "
    "a sphere of radius 6371 km. What are the polygon's area in square kilometres and its perimeter in "
    "kilometres?\nEnd your reply with the line FINAL ANSWER: <area> km², <perimeter> km."
)


class AreaTarget(TypedDict):
    area_km2: float
    perimeter_km: float
    paper_area_km2: float
    convex: bool


@register_task("gpsbench.polygon_area")
class PolygonAreaTask(GpsTask[AreaTarget, AreaAnswer]):
    toolsets = ("shapes",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[AreaTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            while True:
                n = rng.randint(3, 6)
                group = sample_regional(rng, n)
                pts = [rounded(c.lat, c.lon) for c in group]
                lons = [p[1] for p in pts]
                if max(lons) - min(lons) > 180.0:  # crosses the antimeridian: angle sort is meaningless
                    continue
                ordered = sort_by_angle(pts)
                shape = Polygon([(p[1], p[0]) for p in ordered])
                area = spherical_polygon_area_km2(ordered, signed=True)
                if shape.is_valid and area >= MIN_AREA_KM2:
                    break
            names = {rounded(c.lat, c.lon): c.name for c in group}
            perimeter = spherical_perimeter_km(ordered)
            vertices = "\n".join(f"{k + 1}. {fmt_point(*p)}" for k, p in enumerate(ordered))
            yield self.make(
                i, size, TEMPLATE.format(vertices=vertices),
                {"area_km2": round(area, 3), "perimeter_km": round(perimeter, 3),
                 "paper_area_km2": round(spherical_polygon_area_km2(ordered), 3), "convex": shape.convex_hull.equals(shape)},
                {"vertices": [list(p) for p in ordered], "cities": [names[p] for p in ordered],
                 "anchor_index": ordered.index(pts[0])},
                place_meta(group[0], n_vertices=len(ordered)),
            )

    def example_replies(self, sample: Sample[AreaTarget]) -> Replies:
        return examples.area(sample)

    def parse(self, text: str, sample: Sample[AreaTarget]) -> Parsed[AreaAnswer]:
        """Area (and perimeter when given) of the committed answer; two different areas are hedged."""
        given = prompt_numbers(sample.prompt)
        return extract(text, lambda seg: parse_area(seg, given), prompt=sample.prompt)

    def score(self, parsed: Parsed[AreaAnswer], sample: Sample[AreaTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed, "%")
        t, v = sample.target, parsed.answer
        area_err = abs(v["area_km2"] - t["area_km2"]) / t["area_km2"] * 100.0
        text = f"area {v['area_km2']:,.1f} km² vs {t['area_km2']:,.1f} ({area_err:.1f} %, tolerance ±5 %)"
        if v["perimeter_km"] is not None:
            per_err = abs(v["perimeter_km"] - t["perimeter_km"]) / t["perimeter_km"] * 100.0
            text += f"; perimeter {v['perimeter_km']:,.1f} km vs {t['perimeter_km']:,.1f} ({per_err:.1f} %, not graded)"
        return graded(area_err <= TOLERANCE * 100, area_err, "%", text)
