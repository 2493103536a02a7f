"""STBench trajectory identification (TI, §4.3, Tables 12–13): are two sequences from one trajectory?

A taxi trip on a street grid is sampled every 12–18 s (16–22 samples, 2 m GPS noise). The four strategies
cycle (meta ``strategy``), so Yes and No are balanced:

- downsampling (Yes): every other sample vs all samples;
- staggered (Yes): odd samples vs even samples;
- spatial offset (No): every other sample vs all samples with a contiguous middle run moved 400–2,000 m;
- temporal offset (No): the same kind of pair with one sequence's timestamps shifted by more than the trip's
  length (up to 12 h, either way), as in the paper's example (about 11 h).

Which sequence comes first is random. An item is kept only with a margin for the matching rule of
:func:`geocore.trajectories.compare_trajectories`: Yes pairs deviate at most 150 m at shared times, spatial
offsets at least 350 m, and temporally offset pairs share no time at all.
"""

from __future__ import annotations

import random

from geocore.trajectories import compare_trajectories
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, VerdictTarget, VerdictTask
from tasks.stbench.prompts import YES_NO_INSTRUCTION, Fmt
from tasks.stbench.world import SPEEDS, Lattice, drive, random_route, route_xy, start_time, to_trajectory

STRATEGIES = ("downsampling", "staggered", "spatial_offset", "temporal_offset")
SAME_MAX_M = 150.0
OFFSET_MIN_M = 350.0


@register_task("stbench.trajectory_identification", variants=(COMPLETION,))
class TrajectoryIdentificationTask(VerdictTask):
    """Were two point sequences sampled from the same trajectory (Yes/No)."""

    toolsets = ("trajectory",)
    kind = "yesno"
    answer_options = ("Yes", "No")
    paper_size = 5000

    def make(self, rng: random.Random, index: int) -> Item[VerdictTarget]:
        strategy = STRATEGIES[index % len(STRATEGIES)]
        return self.retry(lambda: self._draw(rng, strategy))

    def _draw(self, rng: random.Random, strategy: str) -> Item[VerdictTarget] | None:
        lattice = Lattice.random(rng)
        n = rng.randint(16, 22)
        samples = drive(rng, route_xy(lattice, random_route(rng, 40)), SPEEDS["taxi"], start_time(rng),
                        rng.uniform(12, 18), interval_jitter=2.0)
        if len(samples) < n:
            return None
        samples = samples[:n]
        full = to_trajectory(lattice.frame, samples, rng, noise_m=2.0)
        if strategy == "staggered":
            a, b = full[0::2], full[1::2]
        else:
            a, b = full[0::2], full
        if strategy == "spatial_offset":
            start = rng.randint(2, len(b) // 2)
            stop = rng.randint(start + 2, len(b) - 2)
            dx, dy = rng.choice((-1, 1)) * rng.uniform(300, 1400), rng.choice((-1, 1)) * rng.uniform(300, 1400)
            moved = []
            for i, (lat, lon, t) in enumerate(b):
                if start <= i < stop:
                    x, y = lattice.frame.to_xy(lat, lon)
                    lat, lon = lattice.frame.to_latlon(x + dx, y + dy)
                moved.append((round(lat, 5), round(lon, 5), t))
            b = moved
        elif strategy == "temporal_offset":
            duration = full[-1][2] - full[0][2]
            shift = rng.choice((-1, 1)) * round(rng.uniform(duration + 600, 43_200))
            b = [(lat, lon, t + shift) for lat, lon, t in b]
        report = compare_trajectories(a, b)
        same = strategy in ("downsampling", "staggered")
        if same and not report.same(SAME_MAX_M):
            return None
        if strategy == "spatial_offset" and not (report.max_deviation_m or 0.0) >= OFFSET_MIN_M:
            return None
        if strategy == "temporal_offset" and report.n_compared != 0:
            return None
        if rng.random() < 0.5:
            a, b = b, a
        return Item(
            payload={"sequence_1": [list(p) for p in a], "sequence_2": [list(p) for p in b]},
            target={"answer": "yes" if same else "no"},
            meta={"strategy": strategy},
        )

    def render(self, item: Item[VerdictTarget], fmt: Fmt) -> str:
        s1, s2 = fmt.traj(item.payload["sequence_1"]), fmt.traj(item.payload["sequence_2"])
        if fmt.lonlat:
            return (
                "Question: Here are two point sequences, each sampled from a trajectory; every point is "
                f"{fmt.triple_name}. Were both sampled from the same trajectory? Sequence 1: {s1}, "
                f"Sequence 2: {s2}. Check whether sequence 1 follows the route of sequence 2, then whether their "
                'timestamps agree, and answer "Yes" or "No".\nAnswer: The answer is "'
            )
        return (
            f"Here are two point sequences, each sampled from a trajectory; every point is {fmt.triple_name}.\n"
            f"Sequence 1: {s1}\nSequence 2: {s2}\n"
            "Were both sampled from the same trajectory (same route at the same times)?\n"
            + YES_NO_INSTRUCTION
        )
