"""GTR Arrival Time-Interval (ATI): when did an unobserved camera on the target's route see it?

Given the start and end observations, the route between them and the speed range, the gold is the interval
in which the chosen intermediate camera saw the target. Every distractor lies wholly outside the window in
which the target could have been in that camera's view at any speed in the range, starting from the start
observation (the ``arrival_window`` tool's ``seen_from_s``/``seen_until_s``); the gold overlaps it.
"""

from __future__ import annotations

import random

from geocore.networks import CameraNetwork
from tasks.gtr.common import GTRTask, Item, Option
from tasks.gtr.parsing import FreeParser, by_interval
from tasks.gtr.prompts import fmt_interval, fmt_speed, observation
from tasks.gtr.routes import arrow, journey
from tasks.gtr.scenes import mid, round_time
from tasks.registry import register_task

N_OPTIONS = 4


def overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two closed intervals share more than a point."""
    return min(a[1], b[1]) > max(a[0], b[0])


@register_task("gtr.arrival_interval")
class ArrivalIntervalTask(GTRTask):
    option_key = "option_intervals"

    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:
        j = journey(rng, net)
        if j is None:
            return None
        k = rng.randrange(1, len(j.route) - 1)
        x = j.route[k]
        gold = j.track.passes[k].seen
        vmin, vmax = j.speed_range
        w = net.arrival_windows(j.route[:k + 1], mid(j.start.seen), vmin, vmax)[-1]
        window = (w.seen_from_s, w.seen_until_s)
        if not overlaps(gold, window):
            return None
        width = gold[1] - gold[0]
        cands: list[tuple[float, float]] = []
        for side in (-1, 1):
            pos = window[0] if side < 0 else window[1]
            for _ in range(3):
                gap, dur = rng.uniform(0.15, 0.9) * width + 0.3, width * rng.uniform(0.85, 1.15)
                s, e = (pos - gap - dur, pos - gap) if side < 0 else (pos + gap, pos + gap + dur)
                pos = s if side < 0 else e
                iv = (round_time(s), round_time(e))
                if iv[0] >= 0 and iv[1] - iv[0] > 0 and not overlaps(iv, window) and iv != gold:
                    cands.append(iv)
        inner = (j.start.seen[1], j.end.seen[0])
        rng.shuffle(cands)
        cands.sort(key=lambda iv: not (inner[0] <= iv[0] and iv[1] <= inner[1]))
        if len(cands) < N_OPTIONS - 1:
            return None
        kind = net.kind
        question = (
            "Two cameras saw one target:\n"
            f"- {observation(j.start, kind)}\n- {observation(j.end, kind)}\n"
            f"Between these observations it went {arrow(j.route)}, and its speed stayed between "
            f"{fmt_speed(vmin, kind)} and {fmt_speed(vmax, kind)} m/s. During which interval (seconds) did "
            f"camera {x} see it?"
        )
        options = [Option(fmt_interval(gold), list(gold))]
        options += [Option(fmt_interval(iv), list(iv), "outside_window") for iv in cands[:N_OPTIONS - 1]]
        return Item(
            question=question,
            options=options,
            target={"camera": x, "interval": list(gold)},
            payload={"route": j.route, "camera": x, "speed_range": [vmin, vmax],
                     "observations": [[p.camera, list(p.seen), p.heading_deg, p.speed_mps] for p in (j.start, j.end)]},
            track_m=net.path_length(j.route),
            track_s=j.duration_s,
        )

    def free_parser(self) -> FreeParser:
        return by_interval("option_intervals")
