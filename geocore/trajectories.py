"""Timed trajectories: length, speeds, distance to a path, encounters, matching, extrapolation, detours.

A trajectory is a sequence of (lat, lon, t) with t in seconds (e.g. Unix time), non-decreasing. A path is a
sequence of (lat, lon). Lengths use the haversine on a sphere of R = 6371 km; shapes that need a plane
(offsets from a chord, distance to a path, extrapolation, displacement) use a :class:`LocalFrame` in metres.
Topology (whether segments cross) is planar in the (lon, lat) degree plane, as in :mod:`geocore.polygons`.
Between samples an object moves in a straight line at constant speed.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from geocore import validation as check
from geocore.geodesy import haversine_km
from geocore.polygons import _intersect
from geocore.regions import LocalFrame

TrajPoint = tuple[float, float, float]
LatLon = tuple[float, float]

__all__ = [
    "MatchReport",
    "TrajectoryStats",
    "compare_trajectories",
    "displace_middle_third",
    "distance_to_path_m",
    "encounters",
    "extrapolate",
    "max_offset_from_chord_m",
    "path_length_m",
    "position_at",
    "trajectory",
    "trajectory_stats",
]


def trajectory(points: Sequence[Sequence[float]], name: str = "points", min_len: int = 1) -> list[TrajPoint]:
    """Validate (lat, lon, t) triples with non-decreasing t; ValueError naming the bad entry."""
    if points is None or len(points) < max(min_len, 1):
        raise ValueError(f"{name} needs at least {max(min_len, 1)} (lat, lon, t) points, got {len(points or [])}")
    out: list[TrajPoint] = []
    for i, p in enumerate(points):
        plain = _plain_point(p)
        if plain is not None and not (out and plain[2] < out[-1][2]):
            out.append(plain)
            continue
        if p is None or len(p) != 3:
            raise ValueError(f"{name}[{i}] must be a (lat, lon, t) triple, got {p!r}")
        t = check.finite(p[2], f"{name}[{i}].t")
        if out and t < out[-1][2]:
            raise ValueError(f"{name}[{i}].t = {t} is earlier than the point before it ({out[-1][2]})")
        out.append((check.lat(p[0], f"{name}[{i}].lat"), check.lon(p[1], f"{name}[{i}].lon"), t))
    return out


def _plain_point(p: Sequence[float] | None) -> TrajPoint | None:
    """``p`` as checked by :func:`trajectory` when it is a tuple or list of a float lat and lon in range and a
    finite float or int t (the common case, without building error messages); None otherwise."""
    if (type(p) is not tuple and type(p) is not list) or len(p) != 3:
        return None
    lat, lon, t = p
    if type(lat) is not float or type(lon) is not float or (type(t) is not float and type(t) is not int):
        return None
    t = float(t)
    if -90.0 <= lat <= 90.0 and -180.0 <= lon <= 180.0 and math.isfinite(t):
        return (lat, lon, t)
    return None


def path_length_m(path: Sequence[Sequence[float]]) -> float:
    """Sum of haversine distances (R = 6371 km) between consecutive (lat, lon) points, in metres."""
    pts = [(p[0], p[1]) for p in path]
    check.points(pts, "path")
    return 1000.0 * sum(haversine_km(*a, *b) for a, b in zip(pts[:-1], pts[1:], strict=True))


def max_offset_from_chord_m(path: Sequence[Sequence[float]]) -> float:
    """Largest distance in metres of any point from the straight line through the first and last points.

    When the first and last points coincide, the distance from that point is used instead.
    """
    pts = check.points([(p[0], p[1]) for p in path], "path")
    frame = LocalFrame(pts[0][0], pts[0][1])
    xy = [frame.to_xy(*p) for p in pts]
    (x1, y1), (x2, y2) = xy[0], xy[-1]
    chord = math.hypot(x2 - x1, y2 - y1)
    if chord == 0.0:
        return max(math.hypot(x - x1, y - y1) for x, y in xy)
    return max(abs((x2 - x1) * (y1 - y) - (x1 - x) * (y2 - y1)) / chord for x, y in xy)


@dataclass(frozen=True)
class TrajectoryStats:
    """Summary of a trajectory; speeds in m/s, lengths in metres, times in seconds.

    ``detour_ratio`` is length / straight-line distance (None when the ends coincide); ``offset_ratio`` is
    the largest offset from the chord / straight-line distance. Segment speeds skip zero-duration steps.
    """

    n_points: int
    length_m: float
    duration_s: float
    straight_line_m: float
    detour_ratio: float | None
    max_offset_from_chord_m: float
    offset_ratio: float | None
    mean_speed_mps: float | None
    median_speed_mps: float | None
    max_speed_mps: float | None


def segment_speeds(traj: Sequence[Sequence[float]]) -> list[float]:
    """Speed in m/s of each step with a positive duration."""
    pts = trajectory(traj, "trajectory")
    return [
        1000.0 * haversine_km(a[0], a[1], b[0], b[1]) / (b[2] - a[2])
        for a, b in zip(pts[:-1], pts[1:], strict=True)
        if b[2] > a[2]
    ]


def trajectory_stats(traj: Sequence[Sequence[float]]) -> TrajectoryStats:
    """Length, duration, straight-line distance, detour and offset ratios, mean/median/max speed."""
    pts = trajectory(traj, "trajectory")
    path = [(p[0], p[1]) for p in pts]
    length = path_length_m(path)
    duration = pts[-1][2] - pts[0][2]
    straight = 1000.0 * haversine_km(*path[0], *path[-1])
    offset = max_offset_from_chord_m(path)
    speeds = segment_speeds(pts)
    return TrajectoryStats(
        n_points=len(pts),
        length_m=length,
        duration_s=duration,
        straight_line_m=straight,
        detour_ratio=length / straight if straight > 0 else None,
        max_offset_from_chord_m=offset,
        offset_ratio=offset / straight if straight > 0 else None,
        mean_speed_mps=length / duration if duration > 0 else None,
        median_speed_mps=statistics.median(speeds) if speeds else None,
        max_speed_mps=max(speeds) if speeds else None,
    )


def _point_segment_m(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    seg2 = dx * dx + dy * dy
    u = 0.0 if seg2 == 0.0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / seg2))
    return math.hypot(p[0] - a[0] - u * dx, p[1] - a[1] - u * dy)


def distance_to_path_m(lat: float, lon: float, path: Sequence[Sequence[float]]) -> tuple[float, int]:
    """(metres, 0-based segment index) from (lat, lon) to the nearest point of the polyline ``path``.

    Measured in a local frame at the query point. A one-point path gives the distance to that point, index 0.
    """
    frame = LocalFrame(check.lat(lat, "lat"), check.lon(lon, "lon"))
    xy = [frame.to_xy(p[0], p[1]) for p in check.points([(p[0], p[1]) for p in path], "path")]
    if len(xy) == 1:
        return (math.hypot(*xy[0]), 0)
    dists = [_point_segment_m((0.0, 0.0), a, b) for a, b in zip(xy[:-1], xy[1:], strict=True)]
    best = min(range(len(dists)), key=dists.__getitem__)
    return (dists[best], best)


def position_at(traj: Sequence[Sequence[float]], t: float) -> LatLon | None:
    """(lat, lon) at time ``t`` by linear interpolation between samples; None outside the time range."""
    return _position_at(trajectory(traj, "trajectory"), check.finite(t, "t"))


def _position_at(pts: Sequence[TrajPoint], t: float) -> LatLon | None:
    """:func:`position_at` on a validated trajectory."""
    if t < pts[0][2] or t > pts[-1][2]:
        return None
    for a, b in zip(pts[:-1], pts[1:], strict=True):
        if a[2] <= t <= b[2]:
            if b[2] == a[2]:
                return (a[0], a[1])
            f = (t - a[2]) / (b[2] - a[2])
            return (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
    return (pts[-1][0], pts[-1][1])


@dataclass(frozen=True)
class MatchReport:
    """How well two timed point sequences agree where their time ranges overlap.

    Every point of each sequence whose time falls within the other's range is compared with the other's
    interpolated position at that time; ``n_compared`` counts those points.
    """

    time_overlap_s: float
    n_compared: int
    max_deviation_m: float | None
    mean_deviation_m: float | None

    def same(self, tolerance_m: float) -> bool:
        """True when the time ranges overlap and no compared point is farther than ``tolerance_m``."""
        return self.n_compared > 0 and self.max_deviation_m is not None and self.max_deviation_m <= tolerance_m


def compare_trajectories(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> MatchReport:
    """Compare two trajectories point by point at shared times (see :class:`MatchReport`)."""
    ta, tb = trajectory(a, "a"), trajectory(b, "b")
    overlap = max(0.0, min(ta[-1][2], tb[-1][2]) - max(ta[0][2], tb[0][2]))
    devs: list[float] = []
    for mine, other in ((ta, tb), (tb, ta)):
        for lat, lon, t in mine:
            pos = _position_at(other, t)
            if pos is not None:
                devs.append(1000.0 * haversine_km(lat, lon, *pos))
    if not devs:
        return MatchReport(overlap, 0, None, None)
    return MatchReport(overlap, len(devs), max(devs), sum(devs) / len(devs))


def encounters(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Pairs (i, j) of 0-based segments, a[i]-a[i+1] and b[j]-b[j+1], that cross in space and overlap in time.

    Crossing is planar and exact, touching counts (:func:`geocore.polygons.segments_intersect`); time spans
    are closed intervals, so spans that share only an instant overlap.
    """
    sa, sb = _segments(trajectory(a, "a", 2)), _segments(trajectory(b, "b", 2))
    out: list[tuple[int, int]] = []
    for i, (pt1, pt2, p1, p2) in enumerate(sa):
        for j, (qt1, qt2, q1, q2) in enumerate(sb):
            if qt1 > pt2:
                break  # b's later segments start later still
            if pt1 <= qt2 and _intersect(p1, p2, q1, q2):  # validated above
                out.append((i, j))
    return out


def _segments(pts: list[TrajPoint]) -> list[tuple[float, float, LatLon, LatLon]]:
    """(t start, t end, start, end) of each segment of a validated trajectory."""
    return [(p[2], q[2], (p[0], p[1]), (q[0], q[1])) for p, q in zip(pts[:-1], pts[1:], strict=True)]


def extrapolate(traj: Sequence[Sequence[float]], seconds_ahead: float | None = None) -> TrajPoint:
    """Constant-velocity prediction from the last two points with distinct times.

    ``seconds_ahead`` defaults to the last sampling interval. Returns (lat, lon, t). A trajectory whose points
    all share one time raises ValueError.
    """
    pts = trajectory(traj, "trajectory", 2)
    last = pts[-1]
    prev = next((p for p in reversed(pts[:-1]) if p[2] < last[2]), None)
    if prev is None:
        raise ValueError("trajectory needs two points with different times to estimate a velocity")
    dt = last[2] - prev[2]
    ahead = dt if seconds_ahead is None else check.non_negative(seconds_ahead, "seconds_ahead")
    frame = LocalFrame(last[0], last[1])
    px, py = frame.to_xy(prev[0], prev[1])
    lat, lon = frame.to_latlon(-px * ahead / dt, -py * ahead / dt)
    return (lat, lon, last[2] + ahead)


def displace_middle_third(traj: Sequence[Sequence[float]], offset_m: float) -> list[TrajPoint]:
    """STBench's detour: move the middle third of the points perpendicular to the first→last chord.

    Points with index in [n // 3, 2n // 3) move by ``offset_m`` metres (positive: to the left of the chord
    direction, negative: to the right); times are kept. Needs at least 3 points and distinct end points.
    """
    pts = trajectory(traj, "trajectory", 3)
    offset = check.finite(offset_m, "offset_m")
    frame = LocalFrame(pts[0][0], pts[0][1])
    x2, y2 = frame.to_xy(pts[-1][0], pts[-1][1])
    chord = math.hypot(x2, y2)
    if chord == 0.0:
        raise ValueError("the first and last points coincide: the chord has no direction")
    nx, ny = -y2 / chord, x2 / chord
    n = len(pts)
    out = []
    for i, (lat, lon, t) in enumerate(pts):
        if n // 3 <= i < 2 * n // 3:
            x, y = frame.to_xy(lat, lon)
            lat, lon = frame.to_latlon(x + offset * nx, y + offset * ny)
        out.append((lat, lon, t))
    return out
