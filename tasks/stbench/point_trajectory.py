"""STBench point-trajectory relationship detection (PTRD, §4.3, Table 9).

A taxi drives a street grid at a real city; 8–12 samples 40–80 s apart (3 m GPS noise) form the trajectory,
straight between samples. The true option is the midpoint of two adjacent samples; each wrong option is a
sample moved by ε ~ N(0.01°, 0.001°) in latitude and longitude, as in the paper, with random signs (the paper
states no sign; always adding would make "north-east of the route" a give-away). Wrong options lie at least
200 m from the trajectory and from each other, so the nearest-option rule is unambiguous.
"""

from __future__ import annotations

import random

from geocore.trajectories import distance_to_path_m
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, OptionTarget, OptionTask
from tasks.stbench.prompts import Fmt, num, number_instruction
from tasks.stbench.world import SPEEDS, Lattice, drive, random_route, route_xy, start_time, to_trajectory

N_OPTIONS = 5
MIN_WRONG_M = 200.0


@register_task("stbench.point_trajectory", variants=(COMPLETION,))
class PointTrajectoryTask(OptionTask[OptionTarget]):
    """Which of five points does a trajectory pass through."""

    toolsets = ("trajectory",)
    paper_size = 4000

    def make(self, rng: random.Random, index: int) -> Item[OptionTarget]:
        return self.retry(lambda: self._draw(rng))

    def _draw(self, rng: random.Random) -> Item[OptionTarget] | None:
        lattice = Lattice.random(rng)
        n = rng.randint(8, 12)
        samples = drive(rng, route_xy(lattice, random_route(rng, 40)), SPEEDS["taxi"], start_time(rng),
                        rng.uniform(40, 80), interval_jitter=3.0)
        if len(samples) < n:
            return None
        first = rng.randrange(len(samples) - n + 1)
        traj = to_trajectory(lattice.frame, samples[first:first + n], rng, noise_m=3.0)
        path = [(p[0], p[1]) for p in traj]
        k = rng.randrange(n - 1)
        true = (round((path[k][0] + path[k + 1][0]) / 2, 6), round((path[k][1] + path[k + 1][1]) / 2, 6))
        candidates = [true]
        while len(candidates) < N_OPTIONS:
            lat, lon = path[rng.randrange(n)]
            e1, e2 = rng.gauss(0.01, 0.001), rng.gauss(0.01, 0.001)
            cand = (round(lat + rng.choice((-1, 1)) * e1, 6), round(lon + rng.choice((-1, 1)) * e2, 6))
            if distance_to_path_m(*cand, path)[0] < MIN_WRONG_M:
                continue
            if any(distance_to_path_m(*cand, [c])[0] < MIN_WRONG_M for c in candidates):
                continue
            candidates.append(cand)
        rng.shuffle(candidates)
        gold = candidates.index(true) + 1
        options = [(i + 1, f"Point {i + 1}") for i in range(N_OPTIONS)]
        return Item(
            payload={"trajectory": [list(p) for p in traj], "candidates": [list(c) for c in candidates],
                     "segment": k},
            target={"option": gold, "label": f"Point {gold}"},
            meta={"n_points": n},
            options=options,
        )

    def render(self, item: Item[OptionTarget], fmt: Fmt) -> str:
        traj = fmt.traj(item.payload["trajectory"])
        cands = item.payload["candidates"]
        if fmt.lonlat:
            listed = " ".join(f"({i}) Point {i} {fmt.pt(c[0], c[1], 6)};" for i, c in enumerate(cands, 1))
            return (
                f"Question: The points below were sampled from a trajectory; each is {fmt.triple_name}: {traj}. "
                "Between samples the trajectory runs straight. It passes through exactly one of these points: "
                f"{listed} Which point does it pass through?\nAnswer: The trajectory passes through Point"
            )
        listed = "\n".join(f"Point {i}: ({num(c[0], 6)}, {num(c[1], 6)})" for i, c in enumerate(cands, 1))
        return (
            f"The points below were sampled from a trajectory; each is {fmt.triple_name}: {traj}\n"
            "Between samples the trajectory runs straight. It passes through exactly one of these points "
            f"(latitude, longitude):\n{listed}\n"
            + number_instruction("point")
        )
