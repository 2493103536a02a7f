"""STBench trajectory-trajectory relationship analysis (TTRA, §4.4, Table 15): count encounters.

Two random walks of the same length (5–8 points, steps 80–400 m) inside a 0.6–1.2 km square at a real city,
starting within 5 minutes of each other, with 2–15 minutes between points. The gold counts segment pairs
that cross in space and overlap in time (§4.4; :func:`geocore.trajectories.encounters`). A draw is kept only
when every count is robust: crossings lie 3 m or more from segment ends, non-crossing segments stay 3 m
apart, and crossing segments' time spans overlap or miss by at least 5 s. The gold count is drawn
uniformly from 0–3 first (rejection sampling), since random walks mostly never meet. Options: the gold and
four other counts.
"""

from __future__ import annotations

import math
import random

import numpy as np
import shapely

from geocore.regions import LocalFrame
from geocore.trajectories import encounters
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, OptionTarget, OptionTask
from tasks.stbench.prompts import OPTION_INSTRUCTION, Fmt, options_inline, options_lines
from tasks.stbench.world import pick_city, start_time

CLEARANCE_M = 3.0
TIME_MARGIN_S = 5.0
N_OPTIONS = 5
MOVE_M = 1.0
"""More than :func:`degrees` moves a walk's point, in metres, by rounding to 5 decimals: at most 0.5e-5 degrees
(and a few ulps) on each axis, under 0.56 m (a degree is at most 111.2 km), so under 0.8 m in all. Crossing is
unchanged by the affine map from metres to degrees, so whether rounded segments cross can be judged in metres."""
NO_WRAP_LON = 179.0
"""Walks (within 600 m of a city at |lat| <= 85) around a city this far from the antimeridian never wrap."""

Walk = list[tuple[float, float, float]]


def random_walk(rng: random.Random, n: int, half: float, t0: float) -> Walk:
    """(x, y, t) walk of ``n`` points inside the square [-half, half]²."""
    x, y = rng.uniform(-half, half), rng.uniform(-half, half)
    t = t0
    out = [(x, y, t)]
    while len(out) < n:
        d, a = rng.uniform(80, 400), rng.uniform(0, 2 * math.pi)
        nx, ny = x + d * math.cos(a), y + d * math.sin(a)
        if abs(nx) <= half and abs(ny) <= half:
            x, y = nx, ny
            t += rng.randint(120, 900)
            out.append((x, y, t))
    return out


def degrees(frame: LocalFrame, wa: Walk, wb: Walk) -> tuple[Walk, Walk]:
    """Two walks in (lat, lon, t), degrees rounded to 5 decimals (:meth:`LocalFrame.latlon_array`, bit-equal to
    :meth:`LocalFrame.to_latlon` of each point)."""
    points = [*wa, *wb]
    latlon = frame.latlon_array([p[:2] for p in points]).tolist()
    out = [(round(lat, 5), round(lon, 5), p[2]) for (lat, lon), p in zip(latlon, points, strict=True)]
    return out[:len(wa)], out[len(wa):]


def _split(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float], d: tuple[float, float]) -> bool:
    """Whether c and d stay on opposite sides of the line through a and b when each of the four moves by up to
    MOVE_M: every orientation (b - a) × (c - a) is off zero by more than 2 MOVE_M (|b - a| + |c - a|) + 4 MOVE_M²."""
    ux, uy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(ux, uy)
    turn_c, turn_d = ux * (c[1] - a[1]) - uy * (c[0] - a[0]), ux * (d[1] - a[1]) - uy * (d[0] - a[0])
    room_c = 2 * MOVE_M * (length + math.hypot(c[0] - a[0], c[1] - a[1])) + 4 * MOVE_M * MOVE_M
    room_d = 2 * MOVE_M * (length + math.hypot(d[0] - a[0], d[1] - a[1])) + 4 * MOVE_M * MOVE_M
    return (turn_c > room_c and turn_d < -room_d) or (turn_c < -room_c and turn_d > room_d)


def encounter_bounds(wa: Walk, wb: Walk) -> tuple[int, int]:
    """(fewest, most) :func:`encounters` of two walks in metres once in degrees (:func:`degrees`), when they do
    not wrap around the antimeridian.

    Both count segment pairs whose time spans overlap. A pair counts towards the most unless one segment's line
    has both ends of the other on one side, more than 2 MOVE_M away (its cross product above 2 MOVE_M × the
    line's segment length): then the segments stay apart once rounded. It counts towards the fewest when each
    segment's ends stay on opposite sides of the other's line (:func:`_split`): then they still cross.
    """
    fewest = most = 0
    near = 2 * MOVE_M
    segments_b = [(t0, t1, x0, y0, x1, y1) for (x0, y0, t0), (x1, y1, t1) in zip(wb[:-1], wb[1:], strict=True)]
    for (ax0, ay0, at0), (ax1, ay1, at1) in zip(wa[:-1], wa[1:], strict=True):
        adx, ady = ax1 - ax0, ay1 - ay0
        a_reach = near * math.hypot(adx, ady)
        for bt0, bt1, bx0, by0, bx1, by1 in segments_b:
            if bt0 > at1:
                break  # b's later segments start later still
            if at0 > bt1:
                continue
            c0, c1 = adx * (by0 - ay0) - ady * (bx0 - ax0), adx * (by1 - ay0) - ady * (bx1 - ax0)
            if (c0 > a_reach and c1 > a_reach) or (c0 < -a_reach and c1 < -a_reach):
                continue
            bdx, bdy = bx1 - bx0, by1 - by0
            b_reach = near * math.hypot(bdx, bdy)
            c0, c1 = bdx * (ay0 - by0) - bdy * (ax0 - bx0), bdx * (ay1 - by0) - bdy * (ax1 - bx0)
            if (c0 > b_reach and c1 > b_reach) or (c0 < -b_reach and c1 < -b_reach):
                continue
            most += 1
            a0, a1, b0, b1 = (ax0, ay0), (ax1, ay1), (bx0, by0), (bx1, by1)
            if _split(a0, a1, b0, b1) and _split(b0, b1, a0, a1):
                fewest += 1
    return fewest, most


def _segments(walk: Walk) -> np.ndarray:
    """The walk's segments as shapely LineStrings."""
    xy = [p[:2] for p in walk]
    return shapely.linestrings(np.array([xy[:-1], xy[1:]]).transpose(1, 0, 2))


def robust(a: Walk, b: Walk) -> bool:
    """Whether every segment pair is clearly crossing or clearly apart, in space and (if crossing) in time.

    GEOS decides every segment pair (LineStrings in one array per walk) as it would one pair at a time.
    """
    sa, sb = _segments(a), _segments(b)
    crossing = shapely.intersects(sa[:, None], sb[None, :])
    i, j = np.nonzero(~crossing)
    if (shapely.distance(sa[i], sb[j]) < CLEARANCE_M).any():
        return False
    i, j = np.nonzero(crossing)
    pairs = list(zip(i.tolist(), j.tolist(), strict=True))
    if any(abs(min(a[k + 1][2], b[m + 1][2]) - max(a[k][2], b[m][2])) < TIME_MARGIN_S for k, m in pairs):
        return False
    if not pairs:
        return True
    inter = shapely.intersection(sa[i], sb[j])
    if (shapely.get_type_id(inter) != shapely.GeometryType.POINT).any():
        return False
    ends = shapely.points([[a[k][:2], a[k + 1][:2], b[m][:2], b[m + 1][:2]] for k, m in pairs])
    return not any(min(near) < CLEARANCE_M for near in shapely.distance(inter[:, None], ends).tolist())


class CountTarget(OptionTarget):
    count: int


@register_task("stbench.trajectory_trajectory", variants=(COMPLETION,))
class TrajectoryTrajectoryTask(OptionTask[CountTarget]):
    """How many times do two trajectories encounter each other."""

    toolsets = ("trajectory",)
    paper_size = 5000
    max_tries = 3000

    def make(self, rng: random.Random, index: int) -> Item[CountTarget]:
        want = rng.randint(0, 3)
        return self.retry(lambda: self._draw(rng, want))

    def _draw(self, rng: random.Random, want: int) -> Item[CountTarget] | None:
        city = pick_city(rng)
        n, half, t0 = rng.randint(5, 8), rng.uniform(300, 600), start_time(rng)
        wa = random_walk(rng, n, half, t0)
        wb = random_walk(rng, n, half, t0 + rng.randint(-300, 300))
        if abs(city.lon) < NO_WRAP_LON:
            fewest, most = encounter_bounds(wa, wb)
            if not fewest <= want <= most:
                return None  # encounters cannot be want: skip the degrees and the count
        frame = LocalFrame(city.lat, city.lon)
        a, b = degrees(frame, wa, wb)
        pairs = encounters(a, b)
        if len(pairs) != want:
            return None
        xy = frame.xy_array([p[:2] for p in (*a, *b)]).tolist()  # bit-equal to to_xy of each point
        ma = [(x, y, p[2]) for (x, y), p in zip(xy[:len(a)], a, strict=True)]
        mb = [(x, y, p[2]) for (x, y), p in zip(xy[len(a):], b, strict=True)]
        if not robust(ma, mb):
            return None
        wrong = rng.sample([k for k in range(0, 7) if k != want], N_OPTIONS - 1)
        counts = [want, *wrong]
        rng.shuffle(counts)
        options = [(i + 1, f"{c} times") for i, c in enumerate(counts)]
        k = counts.index(want) + 1
        return Item(
            payload={"trajectory_a": [list(p) for p in a], "trajectory_b": [list(p) for p in b],
                     "pairs": [list(p) for p in pairs]},
            target={"option": k, "label": f"{want} times", "count": want},
            meta={"n_points": n, "count": want},
            options=options,
        )

    def render(self, item: Item[CountTarget], fmt: Fmt) -> str:
        a, b = fmt.traj(item.payload["trajectory_a"]), fmt.traj(item.payload["trajectory_b"])
        opts = item.options or []
        rule = ("An encounter is a pair of segments, one between consecutive points of A and one between "
                "consecutive points of B, that cross in space while their time spans overlap.")
        if fmt.lonlat:
            return (
                f"Question: Two trajectories are given as lists of {fmt.triple_name}: trajectory A: {a} "
                f"trajectory B: {b} Count how many times they encounter each other. {rule} Choose from these "
                f"options: {options_inline(opts)}. Give only the option.\nAnswer: Option ("
            )
        return (
            f"Two trajectories, each a list of {fmt.triple_name} points, straight between points:\n"
            f"Trajectory A: {a}\nTrajectory B: {b}\nHow many times do they encounter each other? {rule}\n"
            f"{options_lines(opts)}\n{OPTION_INSTRUCTION}"
        )
