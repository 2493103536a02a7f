"""GTR Causal Reordering (CR): put shuffled, untimed camera clips of one target in chronological order.

The target follows the unique shortest route between two cameras; 3–5 cameras on it (never its last one)
filmed it, each clip giving the heading and speed but no time. The gold is the order along the route. The
route through the cameras in any other order leaves at least one camera (before the last) by a road whose
bearing differs from that camera's printed heading, which is what the ``cameras_on_path`` tool shows.
"""

from __future__ import annotations

import itertools
import random

from geocore.networks import CameraNetwork
from tasks.gtr.common import GTRTask, Item, Option
from tasks.gtr.parsing import FreeParser, by_camera_ids
from tasks.gtr.prompts import observation
from tasks.gtr.routes import arrow
from tasks.gtr.scenes import START_TIME_S, base_speed, mid, simulate, unique_shortest
from tasks.registry import register_task

N_OPTIONS = 4


def headings_along(net: CameraNetwork, order: list[str]) -> list[int | None]:
    """The heading each waypoint of ``order`` is left by on the route through them in that order."""
    legs = net.legs(order)
    out, pos = [], 0
    for w in order:
        while legs[pos].camera != w:
            pos += 1
        out.append(legs[pos].heading_deg)
    return out


def consistent(net: CameraNetwork, order: list[str], headings: dict[str, int | None]) -> bool:
    """Whether every camera but the last is left by a road with its printed heading."""
    return all(h == headings[c] for c, h in zip(order[:-1], headings_along(net, order)[:-1], strict=True))


@register_task("gtr.causal_reordering")
class CausalReorderingTask(GTRTask):
    option_key = "option_cameras"

    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:
        a, b = rng.sample(net.area_cameras(1), 2)
        found = unique_shortest(net, a, b)
        if found is None or len(found[0]) < 4:
            return None
        route = found[0]
        k = rng.randint(3, min(5, len(route) - 1))
        idx = sorted(rng.sample(range(len(route) - 1), k))
        track = simulate(net, route, rng.uniform(*START_TIME_S[net.kind]), base_speed(rng, net.kind), rng)
        clips = [track.passes[i] for i in idx]
        gold = [p.camera for p in clips]
        headings = {p.camera: p.heading_deg for p in clips}
        if net.route(gold) != route[idx[0]:idx[-1] + 1] or not consistent(net, gold, headings):
            return None
        wrong = [list(p) for p in itertools.permutations(gold) if list(p) != gold
                 and not consistent(net, list(p), headings)]
        if len(wrong) < N_OPTIONS - 1:
            return None
        picks = []
        if gold[::-1] in wrong and rng.random() < 0.5:
            picks.append(gold[::-1])
        picks += [p for p in rng.sample(wrong, N_OPTIONS - 1) if p not in picks][:N_OPTIONS - 1 - len(picks)]
        shown = list(clips)
        while [p.camera for p in shown] == gold:
            rng.shuffle(shown)
        lines = "\n".join(f"Clip {i + 1}: {observation(p, net.kind, times=False)}" for i, p in enumerate(shown))
        question = (
            "Several cameras filmed one target. The clips are listed in random order and carry no times:\n"
            f"{lines}\n"
            "The target followed the shortest road route from the first camera that filmed it to the last one. "
            "In which order did the cameras film it?"
        )
        first, last = track.passes[idx[0]], track.passes[idx[-1]]
        return Item(
            question=question,
            options=[Option(arrow(gold), gold), *(Option(arrow(p), p, "wrong_order") for p in picks)],
            target={"order": gold},
            payload={"clips": [[p.camera, p.heading_deg, p.speed_mps] for p in shown]},
            track_m=net.path_length(route[idx[0]:idx[-1] + 1]),
            track_s=mid(last.seen) - mid(first.seen),
        )

    def free_parser(self) -> FreeParser:
        return by_camera_ids("option_cameras")
