"""GPSBench polygon area: regional sampling rules, gold against pyproj on the sphere, area parsing."""

from __future__ import annotations

import pytest
from geopy.distance import great_circle
from pyproj import Geod
from shapely.geometry import Polygon

from tasks import get_task
from tasks.records import Parsed

TASK = get_task("gpsbench.polygon_area")
ALL = TASK.generate(42, 80)
SPHERE = Geod(a=6_371_000, b=6_371_000)


def test_gold_and_sampling_rules_on_every_sample() -> None:
    sizes = set()
    for s in ALL:
        v = s.payload["vertices"]
        sizes.add(len(v))
        area, perimeter = SPHERE.polygon_area_perimeter([p[1] for p in v], [p[0] for p in v])
        assert s.target["area_km2"] == pytest.approx(abs(area) / 1e6, rel=1e-6)
        assert s.target["perimeter_km"] == pytest.approx(perimeter / 1000, rel=1e-6)
        assert Polygon([(p[1], p[0]) for p in v]).is_valid
        anchor = v[s.payload["anchor_index"]]
        for i, p in enumerate(v):
            for q in v[i + 1:]:
                assert great_circle(p, q, radius=6371).km >= 50 - 0.02
            if p != anchor:
                assert 50 - 0.02 <= great_circle(anchor, p, radius=6371).km <= 2000 + 0.02
        if s.target["convex"]:
            assert s.target["paper_area_km2"] == pytest.approx(s.target["area_km2"], rel=1e-9)
        else:
            assert s.target["paper_area_km2"] >= s.target["area_km2"]
        assert all(f"({p[0]:.4f}, {p[1]:.4f})" in s.prompt for p in v)
    assert sizes == {3, 4, 5, 6}
    assert len({s.meta["continent"] for s in ALL}) >= 4


@pytest.mark.parametrize(("text", "area", "perimeter"), [
    ("FINAL ANSWER: 30,829.07 km², 812.4 km", 30829.07, 812.4),
    ("FINAL ANSWER: area 3.08 × 10^4 km^2, perimeter 812 km", 30800.0, 812.0),
    ("FINAL ANSWER: 2.2 million sq km, 5,000 km", 2_200_000.0, 5000.0),
    ("FINAL ANSWER: Area = R² × E ≈ 2,200,000 km²", 2_200_000.0, None),
    ("FINAL ANSWER: 30829, 812", 30829.0, 812.0),
    ("I estimate 10 km² first. The area is 30,829 km² and the perimeter 812 km.", 30829.0, 812.0),
    ("FINAL ANSWER: 11,903 mi², 504.8 miles", 11903 * 2.589988110336, 504.8 * 1.609344),
])
def test_parser(text: str, area: float, perimeter: float | None) -> None:
    p = TASK.parse(text, ALL[0])
    assert p.ok and p.value["area_km2"] == pytest.approx(area)
    assert (p.value["perimeter_km"] is None) if perimeter is None else p.value["perimeter_km"] == pytest.approx(perimeter)


def test_formula_without_result_is_a_parse_failure() -> None:
    for text in ("FINAL ANSWER: A = R² · Σ E_i", "FINAL ANSWER: use L'Huilier's theorem"):
        assert not TASK.parse(text, ALL[0]).ok


def test_the_area_alone_is_graded_within_five_percent() -> None:
    s = ALL[0]
    a, p = s.target["area_km2"], s.target["perimeter_km"]
    assert TASK.score(Parsed.success("x", {"area_km2": a * 1.049, "perimeter_km": p * 0.951}), s).correct
    area_off = TASK.score(Parsed.success("x", {"area_km2": a * 1.06, "perimeter_km": p}), s)
    assert not area_off.correct and area_off.error == pytest.approx(6.0) and area_off.error_unit == "%"
    # the paper grades the area: a wrong or missing perimeter does not change the grade
    assert TASK.score(Parsed.success("x", {"area_km2": a, "perimeter_km": p * 1.06}), s).correct
    area_only = TASK.parse(f"The polygon is large.\nFINAL ANSWER: {a:.1f} km²", s)
    assert area_only.value["perimeter_km"] is None and TASK.score(area_only, s).correct
