"""Golds of the synthesised STBench tasks, recomputed independently (own formulas, pyproj, geopy, shapely)."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache

import numpy as np
import pytest
from geopy.distance import geodesic, great_circle
from pyproj import Geod, Transformer
from shapely.geometry import LineString, Point, Polygon

from geocore.gazetteer import cities
from tasks import get_task
from tasks.records import Sample

N = 32
GEOD = Geod(ellps="WGS84")


@cache
def samples(name: str, n: int = N) -> list[Sample]:
    return get_task(name, size=n).generate(5, n)


def utm(lat: float, lon: float) -> Transformer:
    zone = int((lon + 180) // 6) + 1
    return Transformer.from_crs("EPSG:4326", f"EPSG:{32600 + zone if lat >= 0 else 32700 + zone}", always_xy=True)


def projector(points: list[list[float]]):
    tr = utm(points[0][0], points[0][1])
    return lambda p: tr.transform(p[1], p[0])


def test_direction_is_the_spherical_initial_bearing_in_8_sectors() -> None:
    names = ["North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest"]
    for s in samples("stbench.direction", 120):
        (la1, lo1), (la2, lo2) = map(lambda p: map(math.radians, p), (s.payload["a"], s.payload["b"]))
        theta = math.degrees(math.atan2(math.sin(lo2 - lo1) * math.cos(la2),
                                        math.cos(la1) * math.sin(la2) - math.sin(la1) * math.cos(la2) * math.cos(lo2 - lo1)))
        theta %= 360.0
        sector = int(((theta + 22.5) % 360.0) // 45.0)
        assert s.target["option"] == sector + 1 and s.target["label"] == names[sector]
        assert min((theta - 22.5) % 45, 45 - (theta - 22.5) % 45) >= 1.0  # clear of the sector edges
        az = GEOD.inv(s.payload["a"][1], s.payload["a"][0], s.payload["b"][1], s.payload["b"][0])[0] % 360
        assert int(((az + 22.5) % 360.0) // 45.0) == sector  # the ellipsoid agrees thanks to the margin
        assert s.payload["options"] == [[i + 1, n] for i, n in enumerate(names)]


def test_point_region_one_region_holds_the_point_clear_of_boundaries() -> None:
    counts = Counter()
    for s in samples("stbench.point_region"):
        lat, lon = s.payload["point"]
        project = projector(s.payload["regions"][0])
        polys = [Polygon([project(p) for p in r]) for r in s.payload["regions"]]
        pt = Point(project((lat, lon)))
        holding = [i + 1 for i, poly in enumerate(polys) if poly.covers(pt)]
        assert holding == [s.target["option"]]
        assert min(poly.exterior.distance(pt) for poly in polys) >= 4.9  # metres in UTM
        assert all(not a.intersects(b) for i, a in enumerate(polys) for b in polys[i + 1:])  # no overlap
        counts[s.meta["n_regions"]] += 1
        assert len(s.payload["regions"]) == s.meta["n_regions"] == len(s.payload["options"])
    assert set(counts) == {2, 3, 4, 5}


def _dense_regions(path: list[list[float]], regions: list[list[list[float]]]) -> list[int]:
    project = projector(regions[0])
    polys = [Polygon([project(p) for p in r]) for r in regions]
    seq: list[int] = []
    for a, b in zip(path[:-1], path[1:], strict=True):
        line = LineString([project(a), project(b)])
        steps = max(1, int(line.length / 0.5))
        for k in range(steps + 1):
            pt = line.interpolate(k / steps, normalized=True)
            inside = [i + 1 for i, poly in enumerate(polys) if poly.contains(pt)]
            if inside and (not seq or seq[-1] != inside[0]):
                seq.append(inside[0])
    return seq


def test_trajectory_region_matches_dense_sampling() -> None:
    lengths = Counter()
    for s in samples("stbench.trajectory_region"):
        gold = s.target["regions"]
        assert _dense_regions(s.payload["path"], s.payload["regions"]) == gold
        labels = [lab for _, lab in s.payload["options"]]
        assert len(set(labels)) == 5 and labels.count(s.target["label"]) == 1
        assert len(s.payload["path"]) == s.meta["length"]
        lengths[s.meta["length"]] += 1
    assert set(lengths) == {2, 4, 6, 8, 10}


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def test_trajectory_trajectory_counts_crossings_with_overlapping_times() -> None:
    seen = Counter()
    for s in samples("stbench.trajectory_trajectory", 24):
        a, b = s.payload["trajectory_a"], s.payload["trajectory_b"]
        count = 0
        for p1, p2 in zip(a[:-1], a[1:], strict=True):
            for q1, q2 in zip(b[:-1], b[1:], strict=True):
                crosses = (_cross(p1, p2, q1) * _cross(p1, p2, q2) < 0) and (_cross(q1, q2, p1) * _cross(q1, q2, p2) < 0)
                overlap = max(p1[2], q1[2]) <= min(p2[2], q2[2])
                count += crosses and overlap
        assert count == s.target["count"] and s.target["label"] == f"{count} times"
        assert [lab for _, lab in s.payload["options"]].count(f"{count} times") == 1
        seen[count] += 1
    assert len(seen) >= 3


def test_point_trajectory_true_option_is_a_midpoint_and_others_far() -> None:
    for s in samples("stbench.point_trajectory"):
        traj = s.payload["trajectory"]
        project = projector(traj)
        line = LineString([project(p) for p in traj])
        cands = s.payload["candidates"]
        gold = cands[s.target["option"] - 1]
        k = s.payload["segment"]
        assert gold == pytest.approx([(traj[k][0] + traj[k + 1][0]) / 2, (traj[k][1] + traj[k + 1][1]) / 2], abs=1e-6)
        for i, c in enumerate(cands):
            if i + 1 != s.target["option"]:
                assert line.distance(Point(project(c))) >= 199.0


def _speed(traj: list[list[float]]) -> float:
    length = sum(geodesic(p[:2], q[:2]).m for p, q in zip(traj[:-1], traj[1:], strict=True))
    return length / (traj[-1][2] - traj[0][2])


def test_trajectory_identification_construction() -> None:
    by = Counter()
    for s in samples("stbench.trajectory_identification"):
        a = [tuple(p) for p in s.payload["sequence_1"]]
        b = [tuple(p) for p in s.payload["sequence_2"]]
        strategy = s.meta["strategy"]
        by[strategy, s.target["answer"]] += 1
        short, long_ = sorted((a, b), key=len)
        if strategy == "downsampling":
            assert set(short) < set(long_)
        elif strategy == "staggered":
            assert not set(a) & set(b) and abs(len(a) - len(b)) <= 1
            merged = sorted([(p[2], 0) for p in a] + [(p[2], 1) for p in b])
            assert all(x[1] != y[1] for x, y in zip(merged[:-1], merged[1:], strict=True))  # interleaved
        elif strategy == "temporal_offset":
            shift = {q[2] - p[2] for p in short for q in long_ if p[:2] == q[:2]}
            assert len(shift) == 1 and abs(shift.pop()) > long_[-1][2] - long_[0][2]
        else:
            times = {p[2]: p for p in long_}
            moved = [great_circle(p[:2], times[p[2]][:2]).m for p in short if p[2] in times]
            assert max(moved) >= 350 and min(moved) < 10
        assert s.target["answer"] == ("yes" if strategy in ("downsampling", "staggered") else "no")
    assert by == Counter({("downsampling", "yes"): N // 4, ("staggered", "yes"): N // 4,
                          ("spatial_offset", "no"): N // 4, ("temporal_offset", "no"): N // 4})


def test_anomaly_offsets_from_the_chord() -> None:
    labels = Counter()
    for s in samples("stbench.anomaly_detection"):
        traj = s.payload["trajectory"]
        project = projector(traj)
        xy = [project(p) for p in traj]
        chord = LineString([xy[0], xy[-1]])
        ratio = max(Point(p).distance(_line_through(xy[0], xy[-1])) for p in xy) / chord.length
        label = s.target["answer"]
        assert (ratio >= 0.175) if label == "anomalous" else (ratio <= 0.095)
        labels[label] += 1
    assert labels["normal"] >= 10 and labels["anomalous"] >= 10


def _line_through(a, b) -> LineString:
    dx, dy = b[0] - a[0], b[1] - a[1]
    return LineString([(a[0] - 100 * dx, a[1] - 100 * dy), (b[0] + 100 * dx, b[1] + 100 * dy)])


def test_classification_speeds_fit_the_mode() -> None:
    bands = {"pedestrian": (0, 2.05), "bike": (2.95, 6.85), "car": (7.95, 60)}
    modes = Counter()
    for s in samples("stbench.trajectory_classification", 30):
        mode = s.target["label"]
        low, high = bands[mode]
        assert low <= _speed(s.payload["trajectory"]) <= high
        assert s.payload["options"] == [[1, "car"], [2, "bike"], [3, "pedestrian"]]
        modes[mode] += 1
    assert modes == Counter({"car": 10, "bike": 10, "pedestrian": 10})


def test_prediction_gold_follows_the_last_leg() -> None:
    for s in samples("stbench.trajectory_prediction"):
        hist = s.payload["history"]
        assert all(q[2] - p[2] == 30 for p, q in zip(hist[:-1], hist[1:], strict=True))
        assert s.target["t"] == hist[-1][2] + 30 and 2 <= len(hist) <= 8
        project = projector(hist)
        (x1, y1), (x2, y2) = project(hist[-2]), project(hist[-1])
        gx, gy = project((s.target["lat"], s.target["lon"]))
        assert math.hypot(gx - (2 * x2 - x1), gy - (2 * y2 - y1)) <= 25.5
        assert great_circle(hist[-1][:2], (s.target["lat"], s.target["lon"])).m >= 150


def test_admin_region_gold_is_the_nearest_city_and_options_share_a_division() -> None:
    all_cities = cities()
    by_id = {c.geonameid: c for c in all_cities}
    lat_r = np.radians([c.lat for c in all_cities])
    lon_r = np.radians([c.lon for c in all_cities])
    for s in samples("stbench.admin_region", 20):
        lat, lon = map(math.radians, s.payload["point"])
        h = np.sin((lat_r - lat) / 2) ** 2 + np.cos(lat) * np.cos(lat_r) * np.sin((lon_r - lon) / 2) ** 2
        nearest = all_cities[int(np.argmin(h))]
        assert nearest.geonameid == s.target["geonameid"]
        assert great_circle(s.payload["point"], (nearest.lat, nearest.lon)).km <= 2.51
        opts = [by_id[c["geonameid"]] for c in s.payload["cities"]]
        assert len({(c.country_code, c.admin1_code) for c in opts}) == 1 and len({c.name for c in opts}) == 5
        assert [n for n, _ in s.payload["options"]] == [0, 1, 2, 3, 4]
        assert s.payload["options"][s.target["option"]][1].startswith(nearest.name + ", ")
