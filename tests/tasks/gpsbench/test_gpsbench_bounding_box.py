"""GPSBench bounding box: gold by plain min/max, means and geopy; per-quantity parsing and tolerances."""

from __future__ import annotations

from collections import Counter

import pytest
from geopy.distance import great_circle

from tasks import get_task
from tasks.records import Parsed

TASK = get_task("gpsbench.bounding_box")
ALL = TASK.generate(42, 80)


def test_gold_on_every_sample() -> None:
    assert Counter(s.target["quantity"] for s in ALL) == {"bounds": 20, "center": 20, "centroid": 20, "diagonal": 20}
    sizes = set()
    for s in ALL:
        pts = s.payload["points"]
        sizes.add(len(pts))
        lats, lons = [p[0] for p in pts], [p[1] for p in pts]
        t = s.target
        if t["quantity"] == "bounds":
            assert t["bounds"] == [min(lats), max(lats), min(lons), max(lons)]
        elif t["quantity"] == "center":
            assert (t["lat"], t["lon"]) == pytest.approx(((min(lats) + max(lats)) / 2, (min(lons) + max(lons)) / 2))
        elif t["quantity"] == "centroid":
            assert (t["lat"], t["lon"]) == pytest.approx((sum(lats) / len(pts), sum(lons) / len(pts)))
        else:
            km = great_circle((min(lats), min(lons)), (max(lats), max(lons)), radius=6371.0).km
            assert t["km"] == pytest.approx(km, abs=1e-3)
        for i, p in enumerate(pts):
            assert all(great_circle(p, q, radius=6371).km >= 100 - 0.05 for q in pts[i + 1:])
    assert sizes == set(range(3, 9))


def sample(q: str):  # type: ignore[no-untyped-def]
    return next(s for s in ALL if s.target["quantity"] == q)


def test_bounds_parsing_with_letters_and_tolerance() -> None:
    s = sample("bounds")
    a, b, c, d = s.target["bounds"]
    assert TASK.score(TASK.parse(f"FINAL ANSWER: {a}, {b}, {c}, {d}", s), s).correct
    lettered = (f"FINAL ANSWER: {abs(a)}°{'S' if a < 0 else 'N'}, {abs(b)}°{'S' if b < 0 else 'N'}, "
                f"{abs(c)}°{'W' if c < 0 else 'E'}, {abs(d)}°{'W' if d < 0 else 'E'}")
    assert TASK.score(TASK.parse(lettered, s), s).correct
    assert not TASK.score(TASK.parse(f"FINAL ANSWER: {a}, {b}, {c + 0.02}, {d}", s), s).correct
    assert not TASK.parse(f"FINAL ANSWER: {a}, {b}", s).ok


def test_centre_centroid_and_diagonal() -> None:
    for q in ("center", "centroid"):
        s = sample(q)
        good = TASK.score(TASK.parse(f"FINAL ANSWER: {s.target['lat'] + 0.009:.4f}, {s.target['lon']:.4f}", s), s)
        assert good.correct and good.error_unit == "deg"
    s = sample("diagonal")
    km = s.target["km"]
    assert TASK.score(TASK.parse(f"FINAL ANSWER: {km * 1.04:,.1f} km", s), s).correct
    assert TASK.score(TASK.parse(f"FINAL ANSWER: {km / 1.609344:,.1f} miles", s), s).correct
    assert not TASK.score(Parsed.success("x", km * 1.06), s).correct
