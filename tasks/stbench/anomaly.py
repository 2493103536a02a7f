"""STBench trajectory anomaly detection (TAD, §4.5, Table 16).

A normal trajectory is a taxi on a shortest street route (the lattice path closest to the straight line)
between two intersections 2–6 km apart, 18–24 samples, 3 m GPS noise. An anomalous one is the same route with
its middle third moved perpendicular to the first→last chord (:func:`geocore.trajectories.
displace_middle_third`), as the paper describes, by 25–50 % of the chord length to either side. The paper does
not give the size of the move; it is set large enough that the detour is decidable from the shape alone:
items are kept only when the farthest point from the chord is under 9 % of the chord (normal) or over 18 %
(anomalous). Half the items are anomalous.
"""

from __future__ import annotations

import math
import random

from geocore.trajectories import displace_middle_third, trajectory_stats
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, VerdictTarget, VerdictTask
from tasks.stbench.prompts import ANOMALY_INSTRUCTION, Fmt
from tasks.stbench.world import SPEEDS, Lattice, drive, route_xy, staircase_route, start_time, to_trajectory

NORMAL_MAX_RATIO = 0.09
ANOMALOUS_MIN_RATIO = 0.18


@register_task("stbench.anomaly_detection", variants=(COMPLETION,))
class AnomalyDetectionTask(VerdictTask):
    """Is a taxi trajectory normal or anomalous (a detour)."""

    toolsets = ("trajectory",)
    kind = "anomaly"
    answer_options = ("normal", "anomalous")
    paper_size = 5000

    def make(self, rng: random.Random, index: int) -> Item[VerdictTarget]:
        anomalous = rng.random() < 0.5
        return self.retry(lambda: self._draw(rng, anomalous))

    def _draw(self, rng: random.Random, anomalous: bool) -> Item[VerdictTarget] | None:
        lattice = Lattice.random(rng, spacing=(100.0, 250.0))
        chord, angle = rng.uniform(2000, 6000), rng.uniform(0, 2 * math.pi)
        di = round(chord * math.cos(angle) / lattice.su)
        dj = round(chord * math.sin(angle) / lattice.sv)
        if abs(di) + abs(dj) < 4:
            return None
        corners = route_xy(lattice, staircase_route(di, dj))
        length = sum(math.dist(a, b) for a, b in zip(corners[:-1], corners[1:], strict=True))
        n = rng.randint(18, 24)
        speed = SPEEDS["taxi"]
        samples = drive(rng, corners, speed, start_time(rng), length / (sum(speed) / 2) / (n - 1),
                        interval_jitter=2.0)
        traj = to_trajectory(lattice.frame, samples, rng, noise_m=3.0)
        if len(traj) < 12:
            return None
        if anomalous:
            straight = math.dist(corners[0], corners[-1])
            offset = rng.choice((-1, 1)) * rng.uniform(0.25, 0.5) * straight
            traj = [(round(a, 5), round(b, 5), t) for a, b, t in displace_middle_third(traj, offset)]
        ratio = trajectory_stats(traj).offset_ratio
        if ratio is None or (ratio < ANOMALOUS_MIN_RATIO if anomalous else ratio > NORMAL_MAX_RATIO):
            return None
        return Item(
            payload={"trajectory": [list(p) for p in traj]},
            target={"answer": "anomalous" if anomalous else "normal"},
            meta={"label": "anomalous" if anomalous else "normal", "n_points": len(traj)},
        )

    def render(self, item: Item[VerdictTarget], fmt: Fmt) -> str:
        traj = fmt.traj(item.payload["trajectory"])
        if fmt.lonlat:
            return (
                f"Question: Below is a trajectory recorded by a taxi; each point is {fmt.triple_name}: {traj}. "
                "A trajectory is anomalous if it makes a detour; otherwise it is normal. Is this trajectory "
                'anomalous or normal? Reply "This trajectory is normal" or "This trajectory is anomalous" and '
                "nothing else.\nAnswer: This trajectory is"
            )
        return (
            f"Below is a trajectory recorded by a taxi; each point is {fmt.triple_name}:\n{traj}\n"
            "A trajectory is anomalous if it makes a detour; otherwise it is normal.\n"
            + ANOMALY_INSTRUCTION
        )
