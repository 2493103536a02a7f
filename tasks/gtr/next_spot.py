"""GTR Next Spot Forecasting (NSF): which camera sees the target next, and when?

The target keeps the speed of its latest observation and leaves that camera by the road its printed heading
points along, so the gold camera is the neighbour with that bearing and the gold interval is
``t + L / v ± R / v`` (``t`` the middle of the latest interval, ``L`` the road length). In the paper's form the
options name cameras only: the gold, other neighbours of the latest camera (one is where it came from), a camera
of the other area and a non-existent camera; the model states the interval itself. Scored by ST-IoU, with the
camera choice as MCQ accuracy.
"""

from __future__ import annotations

import random

from geocore.networks import CameraNetwork
from tasks.gtr.common import ForecastTask, Item, camera_option
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


@register_task("gtr.next_spot")
class NextSpotTask(ForecastTask):
    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:
        a, b = rng.sample(net.area_cameras(1), 2)
        found = unique_shortest(net, a, b)
        if found is None or len(found[0]) < 3:
            return None
        route = found[0]
        i2 = rng.randrange(1, len(route) - 1)
        i1 = rng.randrange(0, i2)
        track = simulate(net, route, rng.uniform(*START_TIME_S[net.kind]), base_speed(rng, net.kind), rng)
        h1, h2 = track.passes[i1], track.passes[i2]
        nxt = route[i2 + 1]
        bearings = [bg for _, _, bg in net.neighbours(h2.camera)]
        if h2.heading_deg is None or bearings.count(h2.heading_deg) != 1:
            return None
        v, t = h2.speed_mps, mid(h2.seen)
        gold = constant_speed_passes(net, [h2.camera, nxt], t, v)
        others = [n for n, _, _ in net.neighbours(h2.camera) if n != nxt]
        picks = [camera_option([n], "wrong_neighbour") for n in rng.sample(others, min(2, len(others)))]
        fillers = [camera_option([rng.choice(net.area_cameras(2))], "other_area"),
                   camera_option([phantom_camera(net, rng)], "phantom")]
        need = N_OPTIONS - 1 - len(picks)
        if need > len(fillers):
            return None
        picks += rng.sample(fillers, need)
        gold_opt = camera_option([nxt], "gold")
        kind = net.kind
        question = (
            "Cameras saw one target:\n"
            f"- {observation(h1, kind)}\n- {observation(h2, kind)} (its latest observation)\n"
            "From its latest observation on, it keeps the speed it had there and leaves that camera by the road "
            "its heading points along. Which camera will see it next, and during which interval (seconds)?"
        )
        return Item(
            question=question,
            options=[gold_opt, *picks],
            target={"segments": [[c, list(iv)] for c, iv in gold], "cameras": [nxt]},
            payload={"observations": [[p.camera, list(p.seen), p.heading_deg, p.speed_mps] for p in (h1, h2)]},
            track_m=net.path_length(route[i1:i2 + 2]),
            track_s=mid(gold[0][1]) - mid(h1.seen),
        )
