"""GTR Next Spot Forecasting (NSF): which camera sees the target next, and when?

The target keeps the speed of its latest observation and leaves that camera by the road its printed heading
points along, so the gold camera is the neighbour with that bearing and the gold interval is
``t + L / v ± R / v`` (``t`` the middle of the latest interval, ``L`` the road length). Distractors: the right
camera at the wrong time (the earlier observation's speed, a time counted from the end of the latest interval,
or a speed 15–35 % off), other neighbours at the right speed, a camera of the other area and a non-existent
camera at the right time. Scored by ST-IoU, with the MCQ accuracy beside it.
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

N_OPTIONS = 5


@register_task("gtr.next_spot")
class NextSpotTask(ForecastTask):
    name = "gtr.next_spot"

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
        if bearings.count(h2.heading_deg) != 1:
            return None
        v, t = h2.speed_mps, mid(h2.seen)
        gold = constant_speed_passes(net, [h2.camera, nxt], t, v)
        pool: list[Option] = []
        v1 = h1.speed_mps if abs(h1.speed_mps / v - 1) >= 0.05 else v * rng.uniform(0.65, 0.85)
        pool.append(segment_option(constant_speed_passes(net, [h2.camera, nxt], t, v1), "right_camera_wrong_speed"))
        pool.append(segment_option(constant_speed_passes(net, [h2.camera, nxt], h2.seen[1], v), "right_camera_late"))
        vf = v * (rng.uniform(0.65, 0.85) if rng.random() < 0.5 else rng.uniform(1.15, 1.35))
        pool.append(segment_option(constant_speed_passes(net, [h2.camera, nxt], t, vf), "right_camera_wrong_speed"))
        for n, _, _ in net.neighbours(h2.camera):
            if n != nxt:
                pool.append(segment_option(constant_speed_passes(net, [h2.camera, n], t, v), "wrong_neighbour"))
        pool.append(segment_option([(rng.choice(net.area_cameras(2)), gold[0][1])], "other_area"))
        pool.append(segment_option([(phantom_camera(net, rng), gold[0][1])], "phantom"))
        gold_opt = segment_option(gold, "gold")
        by_kind: dict[str, list[Option]] = {}
        for o in distinct_segments(gold_opt, pool):
            by_kind.setdefault(o.kind, []).append(o)
        picks = [rng.choice(by_kind[k]) for k in ("right_camera_wrong_speed", "wrong_neighbour") if k in by_kind]
        rest = [o for group in by_kind.values() for o in group if o not in picks]
        picks += rng.sample(rest, min(len(rest), N_OPTIONS - 1 - len(picks)))
        if len(picks) < N_OPTIONS - 1:
            return None
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
            target={"segments": gold_opt.data},
            payload={"observations": [[p.camera, list(p.seen), p.heading_deg, p.speed_mps] for p in (h1, h2)]},
            track_m=net.path_length(route[i1:i2 + 2]),
            track_s=mid(gold[0][1]) - mid(h1.seen),
        )
