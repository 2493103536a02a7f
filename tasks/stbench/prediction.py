"""STBench trajectory prediction (TP, §4.5, Table 18): the next point of a taxi trajectory.

A taxi drives a street grid (blocks 150–400 m, arterial roads) at 6–13 m/s, ±3 % per straight leg, sampled
every 30 s as in the paper (2 m GPS noise, 5 decimals). The model sees 2–8 points and predicts the next
one. The paper scores absolute error in metres; we report that (WGS84 geodesic, like the released
evaluator) and also count an answer correct within 50 m (``PREDICTION_THRESHOLD_M``; a 30 s step is
180–390 m, so "stay put" is never correct). Items are kept only when the last two shown points and the
next one lie on the same straight leg and constant-velocity extrapolation lands within 25 m, so the task
is predictable from the data shown; turns earlier in the history are allowed.
"""

from __future__ import annotations

import random

from geocore.geodesy import geodesic_km
from geocore.trajectories import extrapolate
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, PointTarget, PointTask
from tasks.stbench.prompts import POINT_INSTRUCTION, Fmt
from tasks.stbench.world import SPEEDS, Lattice, drive, random_route, route_xy, start_time, to_trajectory

INTERVAL_S = 30.0
EXTRAPOLATION_MAX_M = 25.0


@register_task("stbench.trajectory_prediction", variants=(COMPLETION,))
class TrajectoryPredictionTask(PointTask):
    """Predict the next point of a trajectory (error in metres)."""

    toolsets = ("trajectory",)
    paper_size = 5000

    def make(self, rng: random.Random, index: int) -> Item[PointTarget]:
        return self.retry(lambda: self._draw(rng))

    def _draw(self, rng: random.Random) -> Item[PointTarget] | None:
        lattice = Lattice.random(rng, spacing=(150.0, 400.0))
        samples = drive(rng, route_xy(lattice, random_route(rng, 25, max_run=6)), SPEEDS["taxi"], start_time(rng),
                        INTERVAL_S, speed_jitter=0.03)
        h = rng.randint(2, 8)
        starts = [s for s in range(len(samples) - h)
                  if samples[s + h - 2][3] == samples[s + h - 1][3] == samples[s + h][3]]
        if not starts:
            return None
        s = rng.choice(starts)
        traj = to_trajectory(lattice.frame, samples[s:s + h + 1], rng, noise_m=2.0)
        history, nxt = traj[:h], traj[h]
        lat, lon, _ = extrapolate(history)
        if 1000.0 * geodesic_km(lat, lon, nxt[0], nxt[1]) > EXTRAPOLATION_MAX_M:
            return None
        return Item(
            payload={"history": [list(p) for p in history]},
            target={"lat": nxt[0], "lon": nxt[1], "t": nxt[2]},
            meta={"history_len": h},
        )

    def render(self, item: Item[PointTarget], fmt: Fmt) -> str:
        traj = fmt.traj(item.payload["history"])
        if fmt.lonlat:
            return (
                f"Question: Below is an ongoing trajectory of a taxi; each point is {fmt.triple_name}: {traj}. "
                "Predict the longitude and latitude of the next point (the next sample, 30 seconds after the "
                "last).\nAnswer: The longitude and latitude of the next point is"
            )
        return (
            f"Below is an ongoing trajectory of a taxi; each point is {fmt.triple_name}:\n{traj}\n"
            "Predict where the next sample, 30 seconds after the last, will be.\n"
            + POINT_INSTRUCTION
        )
