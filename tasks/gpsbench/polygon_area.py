"""GPSBench Pure GPS: area and perimeter of a spherical polygon (App. A.2, B.1, C.4).

3-6 cities from one continent within 50-2,000 km of an anchor and 50 km apart, sorted by angle around their
centroid (a simple polygon). Gold: area on the sphere R = 6371 km with great-circle edges and perimeter as the
sum of haversine edges. The area uses L'Huilier's theorem over the fan from vertex 0 with each triangle signed
by its orientation: for convex polygons this equals the paper's unsigned sum (kept as ``paper_area_km2``), for
concave ones it is the true area where the unsigned sum overestimates. Correct when area and perimeter are both
within ±5 %; the error is the area's percent error.
"""

from __future__ import annotations

from shapely.geometry import Polygon

from geocore.pointsets import polygon_area_km2
from geocore.polygons import sort_by_angle, spherical_perimeter_km, spherical_polygon_area_km2
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.parsing import (
    answer_segment,
    areas_km2,
    distances_km,
    is_formula,
    result_part,
    to_float,
)
from tasks.gpsbench.prompts import fmt_point, rounded
from tasks.gpsbench.sampling import sample_regional
from tasks.parsing import NUMBER_RE
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


@register_task("gpsbench.polygon_area")
class PolygonAreaTask(GpsTask):
    name = "gpsbench.polygon_area"
    toolsets = ("shapes",)

    def generate(self, seed: int, size: int) -> list[Sample]:
        rng = self.rng(seed)
        out = []
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
                area = polygon_area_km2(ordered)
                if shape.is_valid and area >= MIN_AREA_KM2:
                    break
            names = {rounded(c.lat, c.lon): c.name for c in group}
            perimeter = spherical_perimeter_km(ordered)
            vertices = "\n".join(f"{k + 1}. {fmt_point(*p)}" for k, p in enumerate(ordered))
            out.append(self.make(
                i, size, TEMPLATE.format(vertices=vertices),
                {"area_km2": round(area, 3), "perimeter_km": round(perimeter, 3),
                 "paper_area_km2": round(spherical_polygon_area_km2(ordered), 3), "convex": shape.convex_hull.equals(shape)},
                {"vertices": [list(p) for p in ordered], "cities": [names[p] for p in ordered],
                 "anchor_index": ordered.index(pts[0])},
                place_meta(group[0], n_vertices=len(ordered)),
            ))
        return out

    def parse(self, text: str, sample: Sample) -> Parsed:
        """Area (first number with an area unit) and perimeter (first distance that is not an area) from the
        FINAL ANSWER line; two bare numbers there are read as area then perimeter; without the line, the last
        area in the text and the first distance after it."""
        seg = answer_segment(text)
        if seg is None:
            found = areas_km2(text)
            if not found:
                return Parsed.failure(text, "no FINAL ANSWER line and no area with a unit in the text")
            area, (_, end) = found[-1]
            after = distances_km(text[end:])
            return Parsed.success(text, {"area_km2": area, "perimeter_km": after[0][0] if after else None})
        body = result_part(seg) if "=" in seg or "≈" in seg else seg
        found = areas_km2(body)
        if found:
            area, span = found[0]
            rest = body[: span[0]] + " " + body[span[1]:]
            dist = distances_km(rest)
            return Parsed.success(text, {"area_km2": area, "perimeter_km": dist[0][0] if dist else None})
        if is_formula(body):
            return Parsed.failure(text, "formula without a final value on the FINAL ANSWER line")
        nums = [to_float(m.group(0)) for m in NUMBER_RE.finditer(body)]
        if len(nums) in (1, 2) and not any(ch.isalpha() for ch in body.replace("km", "")):
            return Parsed.success(text, {"area_km2": nums[0], "perimeter_km": nums[1] if len(nums) == 2 else None})
        return Parsed.failure(text, "no area on the FINAL ANSWER line")

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        if not parsed.ok:
            return failed(parsed, "%")
        t, v = sample.target, parsed.value
        area_err = abs(v["area_km2"] - t["area_km2"]) / t["area_km2"] * 100.0
        text = f"area {v['area_km2']:,.1f} km² vs {t['area_km2']:,.1f} ({area_err:.1f} %)"
        if v["perimeter_km"] is None:
            return graded(False, area_err, "%", text + "; no perimeter given")
        per_err = abs(v["perimeter_km"] - t["perimeter_km"]) / t["perimeter_km"] * 100.0
        ok = area_err <= TOLERANCE * 100 and per_err <= TOLERANCE * 100
        return graded(ok, area_err, "%", text + f"; perimeter {v['perimeter_km']:,.1f} km vs "
                                            f"{t['perimeter_km']:,.1f} ({per_err:.1f} %); tolerance ±5 % each")
