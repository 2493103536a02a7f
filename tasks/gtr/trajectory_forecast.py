"""GTR Trajectory Forecasting (TF): the cameras that will see the target next, in order, and when.

The target heads for a named camera by the unique shortest route and keeps its average speed between its
first and last printed observations (road distance between them over the time between their midpoints), so
the gold is every camera after the last observation up to the destination with ``t + d / v ± R / v``. In the
paper's form the options are camera sequences only: the gold route, other routes to the destination, the route
stopping one camera short, and the route with a camera of the other area or a non-existent one; the model states
one interval per camera itself. Scored by ST-IoU over segments, with the route choice as MCQ accuracy. The
complexity tier is that of the forecast part (last observation to destination).
"""

from __future__ import annotations

import random

from geocore.networks import CameraNetwork
from tasks.gtr.common import ForecastTask, Item, Option, camera_option
from tasks.gtr.prompts import TRAJECTORY_INSTRUCTION, observation
from tasks.gtr.routes import arrow
from tasks.gtr.scenes import (
    START_TIME_S,
    base_speed,
    constant_speed_passes,
    mid,
    phantom_camera,
    simulate,
    unique_shortest,
)
from tasks.registry import register_task

N_OPTIONS = 4


@register_task("gtr.trajectory_forecast")
class TrajectoryForecastTask(ForecastTask):
    instruction = TRAJECTORY_INSTRUCTION

    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:
        a, z = rng.sample(net.area_cameras(1), 2)
        found = unique_shortest(net, a, z)
        if found is None or len(found[0]) < 4:
            return None
        route = found[0]
        last = rng.randrange(1, len(route) - 2)  # at least two cameras to forecast
        first = rng.randrange(0, last)
        n_hist = 3 if last - first >= 2 and rng.random() < 0.5 else 2
        hist_idx = sorted({first, last, *rng.sample(range(first + 1, last), n_hist - 2)}) if n_hist == 3 else [
            first, last]
        track = simulate(net, route, rng.uniform(*START_TIME_S[net.kind]), base_speed(rng, net.kind), rng)
        hist = [track.passes[i] for i in hist_idx]
        h1, hl = hist[0], hist[-1]
        if net.route([h1.camera, hl.camera]) != route[first:last + 1] or net.route([hl.camera, z]) != route[last:]:
            return None
        vbar = net.path_length(route[first:last + 1]) / (mid(hl.seen) - mid(h1.seen))
        t = mid(hl.seen)
        future = route[last:]
        gold = constant_speed_passes(net, future, t, vbar)
        cams = future[1:]
        pool: list[Option] = [camera_option(p[1:], "other_route")
                              for p, _ in net.simple_paths(hl.camera, z, 1.8 * net.path_length(future))
                              if p != future][:2]
        pool.append(camera_option(cams[:-1], "stops_short"))
        k = rng.randrange(len(cams))
        for cam, why in ((rng.choice(net.area_cameras(2)), "other_area"), (phantom_camera(net, rng), "phantom")):
            pool.append(camera_option([*cams[:k], cam, *cams[k + 1:]], why))
        uniq = {o.text: o for o in pool if o.text != arrow(cams)}
        if len(uniq) < N_OPTIONS - 1:
            return None
        picks = rng.sample(list(uniq.values()), N_OPTIONS - 1)
        gold_opt = camera_option(cams, "gold")
        kind = net.kind
        lines = "\n".join(f"- {observation(p, kind)}" for p in hist)
        question = (
            f"Cameras saw one target:\n{lines}\n"
            f"It is heading for camera {z} by the shortest road route and from now on keeps its average speed "
            f"between its first and last observations above (the road distance between those two cameras divided "
            f"by the time between its passes under them). Which cameras will see it after {hl.camera}, up to and "
            f"including {z}, and during which intervals (seconds)?"
        )
        return Item(
            question=question,
            options=[gold_opt, *picks],
            target={"segments": [[c, list(iv)] for c, iv in gold], "cameras": cams, "speed_mps": vbar},
            payload={"destination": z,
                     "observations": [[p.camera, list(p.seen), p.heading_deg, p.speed_mps] for p in hist]},
            track_m=net.path_length(future),
            track_s=mid(gold[-1][1]) - t,
        )
