"""GTR Motion-State (MS): heading, speed and distance covered as the target passed an unobserved camera.

Given the start and end observations and the route, the gold is the 8-point compass heading of the road the
target left the camera by, the speed it had there, and the road distance from the start camera. Each
distractor changes at least one of the three beyond doubt: a heading at least 90° off, a speed at most 0.6 or
at least 1.6 times the average speed between the observations (the gold is within 0.79–1.27 times it), or a
distance at least 20 % off.
"""

from __future__ import annotations

import random

from geocore.geodesy import COMPASS_8, compass_point
from geocore.networks import CameraNetwork
from tasks.gtr.common import GTRTask, Item, Option
from tasks.gtr.prompts import fmt_speed, observation
from tasks.gtr.routes import arrow, journey
from tasks.registry import register_task

N_OPTIONS = 4


def state_text(heading: str, speed: float, distance_m: float, start: str, kind: str) -> str:
    return f"heading {heading}, speed {fmt_speed(speed, kind)} m/s, {distance_m} m from {start}"


@register_task("gtr.motion_state")
class MotionStateTask(GTRTask):
    option_key = "option_states"

    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:
        j = journey(rng, net)
        if j is None:
            return None
        kind = net.kind
        k = rng.randrange(1, len(j.route) - 1)
        x, a = j.route[k], j.route[0]
        legs = net.legs(j.route)
        if [leg.camera for leg in legs] != j.route:
            return None
        heading_deg = legs[k].heading_deg
        assert heading_deg is not None, "only the route's last camera has no heading"
        heading = compass_point(heading_deg, 8)
        speed = j.track.passes[k].speed_mps
        dist = legs[k].distance_m
        avg = net.path_length(j.route) / j.duration_s
        gold = (heading, speed, dist)
        hi = COMPASS_8.index(heading)
        others = [leg.distance_m for leg in legs[1:] if abs(leg.distance_m - dist) >= max(0.2 * dist, 10)]

        def alt_heading() -> str:
            return COMPASS_8[(hi + rng.choice((2, 3, 4, 5, 6))) % 8]

        def alt_speed() -> float:
            f = rng.uniform(0.35, 0.6) if rng.random() < 0.5 else rng.uniform(1.6, 2.2)
            return round(avg * f, 1 if kind == "outdoor" else 2)

        def alt_dist() -> float:
            if others and rng.random() < 0.6:
                return rng.choice(others)
            return round(dist * (rng.uniform(0.4, 0.7) if rng.random() < 0.5 else rng.uniform(1.3, 1.8)))

        texts = {state_text(*gold, a, kind)}
        distractors: list[Option] = []
        for _ in range(50):
            change = rng.choice(("h", "v", "d", "hv", "hd", "vd", "hvd"))
            state = (alt_heading() if "h" in change else heading, alt_speed() if "v" in change else speed,
                     alt_dist() if "d" in change else dist)
            text = state_text(*state, a, kind)
            if text not in texts:
                texts.add(text)
                distractors.append(Option(text, list(state), f"wrong_{change}"))
            if len(distractors) == N_OPTIONS - 1:
                break
        else:
            return None
        question = (
            "Two cameras saw one target:\n"
            f"- {observation(j.start, kind)}\n- {observation(j.end, kind)}\n"
            f"Between these observations it went {arrow(j.route)}. As it passed camera {x}, what were its "
            f"heading (8-point compass), its speed, and the road distance it had covered since passing {a}?"
        )
        return Item(
            question=question,
            options=[Option(state_text(*gold, a, kind), list(gold)), *distractors],
            target={"camera": x, "heading": heading, "speed_mps": speed, "distance_m": dist},
            payload={"route": j.route, "camera": x,
                     "observations": [[p.camera, list(p.seen), p.heading_deg, p.speed_mps] for p in (j.start, j.end)]},
            track_m=net.path_length(j.route),
            track_s=j.duration_s,
        )
