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

from shapely.geometry import LineString, Point

from geocore.regions import LocalFrame
from geocore.trajectories import encounters
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, OptionTarget, OptionTask
from tasks.stbench.prompts import OPTION_INSTRUCTION, Fmt, options_inline, options_lines
from tasks.stbench.world import pick_city, start_time

CLEARANCE_M = 3.0
TIME_MARGIN_S = 5.0
N_OPTIONS = 5


def random_walk(rng: random.Random, n: int, half: float, t0: float) -> list[tuple[float, float, float]]:
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


def degrees(frame: LocalFrame, walk: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    """A walk in (lat, lon, t), degrees rounded to 5 decimals."""
    out = []
    for x, y, t in walk:
        lat, lon = frame.to_latlon(x, y)
        out.append((round(lat, 5), round(lon, 5), t))
    return out


def robust(a: list[tuple[float, float, float]], b: list[tuple[float, float, float]]) -> bool:
    """Whether every segment pair is clearly crossing or clearly apart, in space and (if crossing) in time."""
    for p1, p2 in zip(a[:-1], a[1:], strict=True):
        sa = LineString([p1[:2], p2[:2]])
        for q1, q2 in zip(b[:-1], b[1:], strict=True):
            sb = LineString([q1[:2], q2[:2]])
            if not sa.intersects(sb):
                if sa.distance(sb) < CLEARANCE_M:
                    return False
                continue
            inter = sa.intersection(sb)
            if inter.geom_type != "Point":
                return False
            if min(inter.distance(Point(e[:2])) for e in (p1, p2, q1, q2)) < CLEARANCE_M:
                return False
            if abs(min(p2[2], q2[2]) - max(p1[2], q1[2])) < TIME_MARGIN_S:
                return False
    return True


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
        frame = LocalFrame(city.lat, city.lon)
        n, half, t0 = rng.randint(5, 8), rng.uniform(300, 600), start_time(rng)
        wa = random_walk(rng, n, half, t0)
        wb = random_walk(rng, n, half, t0 + rng.randint(-300, 300))
        a, b = degrees(frame, wa), degrees(frame, wb)
        pairs = encounters(a, b)
        if len(pairs) != want:
            return None
        if not robust([(*frame.to_xy(p[0], p[1]), p[2]) for p in a], [(*frame.to_xy(p[0], p[1]), p[2]) for p in b]):
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
