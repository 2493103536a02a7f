"""GTR Geo-Location (GL): which cameras did the target pass between a start and an end observation?

The target took the shortest route or another plausible one; its printed speed range and the time between
the two observations single out the route (each wrong option is not a road path from start to end, or its
length does not fit the time at any speed in the range). Distractors follow the paper: other plausible routes,
the right cameras in a shuffled order, a camera of the other area, and a camera id that does not exist.
"""

from __future__ import annotations

import itertools
import random

from geocore.networks import CameraNetwork
from tasks.gtr.common import GTRTask, Item, Option
from tasks.gtr.parsing import FreeParser, by_camera_ids
from tasks.gtr.prompts import fmt_speed, observation
from tasks.gtr.routes import arrow, journey
from tasks.gtr.scenes import phantom_camera
from tasks.registry import register_task

N_OPTIONS = 4


@register_task("gtr.geo_location")
class GeoLocationTask(GTRTask):
    option_key = "option_cameras"

    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:
        j = journey(rng, net)
        if j is None:
            return None
        a, b, inner = j.route[0], j.route[-1], j.route[1:-1]
        pool: list[Option] = []
        for p in j.alternatives:
            if not j.fits(net, p):
                pool.append(Option(arrow(p[1:-1]), p[1:-1], "other_route"))
        if len(inner) >= 2:
            perms = [list(p) for p in itertools.permutations(inner) if list(p) != inner]
            for p in rng.sample(perms, min(2, len(perms))):
                if not j.fits(net, [a, *p, b]):
                    pool.append(Option(arrow(p), p, "shuffled"))
        k = rng.randrange(len(inner))
        other = [*inner[:k], rng.choice(net.area_cameras(2)), *inner[k + 1:]]
        pool.append(Option(arrow(other), other, "other_area"))
        fake = [*inner[:k], phantom_camera(net, rng), *inner[k + 1:]]
        pool.append(Option(arrow(fake), fake, "phantom"))
        seen = {arrow(inner)}
        rng.shuffle(pool)
        distractors = []
        for o in pool:
            if o.text not in seen:
                seen.add(o.text)
                distractors.append(o)
        if len(distractors) < N_OPTIONS - 1:
            return None
        vmin, vmax = j.speed_range
        kind = net.kind
        question = (
            "Two cameras saw one target:\n"
            f"- {observation(j.start, kind)}\n- {observation(j.end, kind)}\n"
            f"Between these observations its speed stayed between {fmt_speed(vmin, kind)} and "
            f"{fmt_speed(vmax, kind)} m/s and it did not pass any camera twice. Which cameras did it pass "
            f"between {a} and {b}, in order?"
        )
        return Item(
            question=question,
            options=[Option(arrow(inner), inner), *distractors[:N_OPTIONS - 1]],
            target={"cameras": inner},
            payload={"start": a, "end": b, "speed_range": [vmin, vmax],
                     "observations": [[p.camera, list(p.seen), p.heading_deg, p.speed_mps] for p in (j.start, j.end)]},
            track_m=net.path_length(j.route),
            track_s=j.duration_s,
        )

    def free_parser(self) -> FreeParser:
        return by_camera_ids("option_cameras", strip_ends=("start", "end"))
