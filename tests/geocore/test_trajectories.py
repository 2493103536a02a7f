"""geocore.trajectories and geocore.regions against geopy, pyproj and independent constructions."""

from __future__ import annotations

import math

import pytest
from geopy.distance import great_circle
from hypothesis import given, settings
from hypothesis import strategies as st
from pyproj import Geod

from geocore import geodesy
from geocore.regions import LocalFrame, boundary_distance_m, regions_containing, regions_crossed
from geocore.trajectories import (
    compare_trajectories,
    displace_middle_third,
    distance_to_path_m,
    encounters,
    extrapolate,
    max_offset_from_chord_m,
    path_length_m,
    position_at,
    trajectory,
    trajectory_stats,
)

GEOD = Geod(ellps="WGS84")
# A walk north along a meridian in Xi'an: 0.001° of latitude every 60 s.
WALK = [(34.25 + 0.001 * i, 108.92, 1_477_967_000 + 60 * i) for i in range(6)]


def test_length_and_speeds_match_geopy() -> None:
    ref = sum(great_circle(a[:2], b[:2], radius=6371.0).m for a, b in zip(WALK[:-1], WALK[1:], strict=True))
    s = trajectory_stats(WALK)
    assert s.length_m == pytest.approx(ref, rel=1e-9) == pytest.approx(path_length_m([p[:2] for p in WALK]))
    assert s.duration_s == 300 and s.n_points == 6
    assert s.mean_speed_mps == pytest.approx(ref / 300) and s.median_speed_mps == pytest.approx(ref / 300)
    assert s.detour_ratio == pytest.approx(1.0) and s.max_offset_from_chord_m == pytest.approx(0.0, abs=1e-6)


def test_trajectory_validation_names_the_bad_point() -> None:
    with pytest.raises(ValueError, match=r"points\[1\]\.t"):
        trajectory([(0, 0, 10), (0, 0, 5)])
    with pytest.raises(ValueError, match=r"points\[0\] must be a \(lat, lon, t\)"):
        trajectory([(0, 0)])
    with pytest.raises(ValueError, match=r"trajectory\[1\]\.lat"):
        trajectory_stats([(0, 0, 0), (95, 0, 1)])
    with pytest.raises(ValueError, match="different times"):
        extrapolate([(0, 0, 5), (0, 1, 5)])


def test_distance_to_path_against_pyproj() -> None:
    path = [(34.25, 108.90), (34.25, 108.95), (34.30, 108.95)]
    # 100 m due north of the first (east-west) segment, via the WGS84 forward problem
    lon, lat, _ = GEOD.fwd(108.92, 34.25, 0.0, 100.0)
    d, k = distance_to_path_m(lat, lon, path)
    assert k == 0 and d == pytest.approx(100.0, rel=0.005)
    mid = ((path[1][0] + path[2][0]) / 2, path[1][1])
    assert distance_to_path_m(*mid, path) == (pytest.approx(0.0, abs=1e-6), 1)
    assert distance_to_path_m(34.25, 108.90, [(34.26, 108.90)])[0] == pytest.approx(
        great_circle((34.25, 108.90), (34.26, 108.90), radius=6371.0).m, rel=1e-4)


def test_position_at_and_compare() -> None:
    assert position_at(WALK, WALK[0][2] - 1) is None and position_at(WALK, WALK[-1][2] + 1) is None
    lat, lon = position_at(WALK, WALK[1][2] + 30)  # type: ignore[misc]
    assert lat == pytest.approx(34.2515) and lon == 108.92
    same = compare_trajectories(WALK[::2], WALK)
    assert same.n_compared == 3 + 5 and same.max_deviation_m == pytest.approx(0.0, abs=1e-6) and same.same(1.0)
    shifted = compare_trajectories(WALK, [(a, b, t + 10_000) for a, b, t in WALK])
    assert shifted.n_compared == 0 and shifted.time_overlap_s == 0 and not shifted.same(1e9)


def test_encounters_need_crossing_and_time_overlap() -> None:
    a = [(0.0, 0.0, 0), (1.0, 1.0, 100)]
    b = [(0.0, 1.0, 50), (1.0, 0.0, 150)]
    assert encounters(a, b) == [(0, 0)]
    assert encounters(a, [(p, q, t + 101) for p, q, t in b]) == []  # the spans no longer overlap
    assert encounters(a, [(p, q, t + 50) for p, q, t in b]) == [(0, 0)]  # sharing the instant t=100 counts
    parallel = [(0.0, 0.1, 0), (1.0, 1.1, 100)]
    assert encounters(a, parallel) == []
    # two crossings over time: B goes back across A
    b2 = [(0.0, 1.0, 0), (1.0, 0.0, 50), (0.5, 0.0, 60), (0.5, 1.0, 90)]
    assert encounters(a, b2) == [(0, 0), (0, 2)]


def test_extrapolate_matches_destination() -> None:
    # 300 m east every 30 s; the prediction is 300 m further east
    lon2, lat2, _ = GEOD.fwd(108.92, 34.25, 90.0, 300.0)
    traj = [(34.25, 108.92, 0), (lat2, lon2, 30)]
    lat, lon, t = extrapolate(traj)
    lon3, lat3, _ = GEOD.fwd(lon2, lat2, 90.0, 300.0)
    assert t == 60 and GEOD.inv(lon, lat, lon3, lat3)[2] < 1.0
    assert extrapolate(traj, 0)[:2] == pytest.approx((lat2, lon2))


def test_displace_middle_third_moves_only_the_middle_sideways() -> None:
    traj = [(0.0, 0.001 * i, i) for i in range(9)]  # due east along the equator
    out = displace_middle_third(traj, 250.0)
    assert [p[2] for p in out] == [p[2] for p in traj]
    for i, (p, q) in enumerate(zip(traj, out, strict=True)):
        if 3 <= i < 6:  # left of an eastward chord is north
            assert q[1] == pytest.approx(p[1]) and great_circle(p[:2], q[:2], radius=6371.0).m == pytest.approx(250, rel=1e-3)
            assert q[0] > 0
        else:
            assert q == p
    assert max_offset_from_chord_m(out) == pytest.approx(250.0, rel=1e-3)
    xt = max(abs(geodesy.cross_track_km(q[0], q[1], 0, 0, 0, 0.008)) for q in out) * 1000
    assert xt == pytest.approx(250.0, rel=1e-3)
    with pytest.raises(ValueError, match="chord"):
        displace_middle_third([(0, 0, 0), (0, 1, 1), (0, 0, 2)], 10)


def test_local_frame_round_trip_and_scale() -> None:
    f = LocalFrame(34.25, 108.92)
    x, y = f.to_xy(34.26, 108.93)
    assert f.to_latlon(x, y) == pytest.approx((34.26, 108.93))
    assert math.hypot(x, y) == pytest.approx(great_circle((34.25, 108.92), (34.26, 108.93), radius=6371.0).m, rel=1e-3)
    with pytest.raises(ValueError, match="lat0"):
        LocalFrame(89.0, 0.0)


SQ = [[(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)],  # region 0: lon 0..1
      [(0.0, 2.0), (0.0, 3.0), (1.0, 3.0), (1.0, 2.0)],  # region 1: lon 2..3
      [(0.0, 1.0), (0.0, 2.0), (1.0, 2.0), (1.0, 1.0)]]  # region 2: between them, sharing edges


def test_regions_containing_boundary_convention() -> None:
    assert regions_containing(0.5, 0.5, SQ) == [0]
    assert regions_containing(0.5, 1.0, SQ) == [0, 2] and regions_containing(0.5, 1.0, SQ, boundary="exclude") == []
    assert regions_containing(5.0, 5.0, SQ) == []
    with pytest.raises(ValueError, match="boundary"):
        regions_containing(0.5, 0.5, SQ, boundary="maybe")  # type: ignore[arg-type]
    assert regions_containing(0.5, 0.2, [[(0, 0), (1, 1), (0, 1), (1, 0)]]) == [0]  # a bow tie: even-odd rule


def test_regions_crossed_order_repeats_and_boundaries() -> None:
    assert regions_crossed([(0.5, 0.5), (0.5, 2.5)], SQ) == [0, 2, 1]
    assert regions_crossed([(0.5, 2.5), (0.5, 0.5)], SQ) == [1, 2, 0]
    assert regions_crossed([(0.5, 0.5), (0.5, 1.5), (0.5, 0.6)], SQ) == [0, 2, 0]
    assert regions_crossed([(0.5, 0.2), (0.5, 0.4), (0.5, 0.8)], SQ) == [0]  # consecutive repeats merged
    assert regions_crossed([(0.0, -1.0), (0.0, 4.0)], SQ) == []  # runs along the edges only
    assert regions_crossed([(-1.0, 0.5), (0.0, 1.0), (-1.0, 1.5)], SQ) == []  # touches a corner
    assert regions_crossed([(0.5, 0.5)], SQ) == [0]


def _box_entry(a: tuple[float, float], b: tuple[float, float], box: tuple[float, float, float, float]) -> float | None:
    """Liang–Barsky: parameter where segment a→b enters the open box (lat0, lat1, lon0, lon1), else None."""
    t0, t1 = 0.0, 1.0
    for p, q in ((-(b[0] - a[0]), a[0] - box[0]), (b[0] - a[0], box[1] - a[0]),
                 (-(b[1] - a[1]), a[1] - box[2]), (b[1] - a[1], box[3] - a[1])):
        if p == 0:
            if q <= 0:
                return None
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    return t0 if t0 < t1 else None


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 21), st.integers(-5, 53)), min_size=2, max_size=6))
def test_regions_crossed_matches_box_clipping(grid: list[tuple[int, int]]) -> None:
    path = [(i / 16, j / 16) for i, j in grid]  # exact binary fractions, edge contacts included
    boxes = [(0.0, 1.0, 0.0, 0.875), (0.0, 1.0, 2.125, 3.0), (0.0, 1.0, 1.0, 2.0)]
    regions = [[(b[0], b[2]), (b[0], b[3]), (b[1], b[3]), (b[1], b[2])] for b in boxes]
    entries = []
    for k, (a, b) in enumerate(zip(path[:-1], path[1:], strict=True)):
        for r, box in enumerate(boxes):
            t = _box_entry(a, b, box)
            if t is not None and a != b:
                entries.append((k, t, r))
    expected: list[int] = []
    for _, _, r in sorted(entries):
        if not expected or expected[-1] != r:
            expected.append(r)
    assert regions_crossed(path, regions) == expected


def test_boundary_distance_m() -> None:
    square = [(0.0, 0.0), (0.0, 0.01), (0.01, 0.01), (0.01, 0.0)]
    d = boundary_distance_m(0.005, 0.002, square)
    assert d == pytest.approx(great_circle((0.005, 0.0), (0.005, 0.002), radius=6371.0).m, rel=1e-3)
