"""GTR Trajectory Forecasting (TF): the cameras that will see the target next, in order, and when.

The target heads for a named camera by the unique shortest route and keeps its average speed between its
first and last printed observations (road distance between them over the time between their midpoints), so
the gold is every camera after the last observation up to the destination with ``t + d / v ± R / v``.
Distractors: the right cameras at the last observed speed or from the end of the last interval, another
route to the destination, and the right route with a camera of the other area or a non-existent one.
Scored by ST-IoU over segments, with the MCQ accuracy beside it. The complexity tier is that of the forecast
part (last observation to destination).
"""

from __future__ import annotations

import random

from geocore.networks import CameraNetwork
from tasks.gtr.common import ForecastTask, Item, Option, distinct_segments, segment_option
from tasks.gtr.prompts import observation
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
    name = "gtr.trajectory_forecast"

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
        pool: list[Option] = []
        vl = hl.speed_mps if abs(hl.speed_mps / vbar - 1) >= 0.04 else vbar * rng.uniform(1.15, 1.3)
        pool.append(segment_option(constant_speed_passes(net, future, t, vl), "right_route_wrong_speed"))
        pool.append(segment_option(constant_speed_passes(net, future, hl.seen[1], vbar), "right_route_late"))
        alts = [p for p, _ in net.simple_paths(hl.camera, z, 1.8 * net.path_length(future)) if p != future]
        if alts:
            pool.append(segment_option(constant_speed_passes(net, alts[0], t, vbar), "other_route"))
        k = rng.randrange(len(gold))
        for cam, why in ((rng.choice(net.area_cameras(2)), "other_area"), (phantom_camera(net, rng), "phantom")):
            pool.append(segment_option([*gold[:k], (cam, gold[k][1]), *gold[k + 1:]], why))
        gold_opt = segment_option(gold, "gold")
        uniq = {o.text: o for o in distinct_segments(gold_opt, pool)}
        if len(uniq) < N_OPTIONS - 1:
            return None
        picks = rng.sample(list(uniq.values()), N_OPTIONS - 1)
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
            target={"segments": gold_opt.data, "speed_mps": vbar},
            payload={"destination": z,
                     "observations": [[p.camera, list(p.seen), p.heading_deg, p.speed_mps] for p in hist]},
            track_m=net.path_length(future),
            track_s=mid(gold[-1][1]) - t,
        )
