"""GTR Multi-Target Trajectory Forecasting (MTTF): where and when will two targets meet?

Two targets, each last seen at one camera, head for their own destinations by unique shortest routes at the
speed of that observation. Both routes pass one junction camera at nearly the same time; the gold is that
camera and the interval during which both are in its view (the intersection of their in-view intervals).
No other camera sees them together. In the paper's form the options name cameras only: the gold, cameras only
one of the targets passes, a camera of the other area and a non-existent camera; the model states the interval
itself. Scored by ST-IoU, with the camera choice as MCQ accuracy.
"""

from __future__ import annotations

import random

from geocore.networks import CameraNetwork
from tasks.gtr.common import ForecastTask, Item, camera_option
from tasks.gtr.prompts import fmt_speed, fmt_time
from tasks.gtr.scenes import (
    BASE_SPEED_MPS,
    SPEED_DECIMALS,
    START_TIME_S,
    constant_speed_passes,
    mid,
    phantom_camera,
    round_time,
    unique_shortest,
)
from tasks.registry import register_task

N_OPTIONS = 4


def _route_through(rng: random.Random, net: CameraNetwork, m: str, avoid_first: str | None) -> list[str] | None:
    """A unique shortest route with ``m`` strictly inside, not reaching ``m`` from ``avoid_first``."""
    cams = [c for c in net.area_cameras(1) if c != m]
    for _ in range(30):
        a, z = rng.sample(cams, 2)
        if m not in net.shortest_path(a, z)[0][1:-1]:
            continue
        found = unique_shortest(net, a, z)
        if found is None:
            continue
        path = found[0]
        if avoid_first is not None and path[path.index(m) - 1] == avoid_first:
            continue
        return path
    return None


@register_task("gtr.multi_target")
class MultiTargetTask(ForecastTask):
    def build(self, rng: random.Random, net: CameraNetwork) -> Item | None:
        kind = net.kind
        r = net.view_radius_m
        m = rng.choice(net.junctions)
        pa = _route_through(rng, net, m, None)
        if pa is None:
            return None
        pb = _route_through(rng, net, m, pa[pa.index(m) - 1])
        if pb is None or pb[0] == pa[0]:
            return None
        va, vb = (round(rng.uniform(*BASE_SPEED_MPS[kind]), SPEED_DECIMALS[kind]) for _ in range(2))
        ta = rng.uniform(*START_TIME_S[kind])
        seen_a = (round_time(ta - r / va), round_time(ta + r / va))
        ta_m = mid(seen_a) + net.path_length(pa[:pa.index(m) + 1]) / va
        tb_m = ta_m + rng.choice((-1, 1)) * rng.uniform(0.3, 0.8) * min(r / va, r / vb)
        tb = tb_m - net.path_length(pb[:pb.index(m) + 1]) / vb
        seen_b = (round_time(tb - r / vb), round_time(tb + r / vb))
        if seen_b[0] < 0:
            return None
        if net.route([pa[0], pa[-1]]) != pa or net.route([pb[0], pb[-1]]) != pb:
            return None
        fa = dict(constant_speed_passes(net, pa, mid(seen_a), va))
        fb = dict(constant_speed_passes(net, pb, mid(seen_b), vb))
        meets = {c: (max(fa[c][0], fb[c][0]), min(fa[c][1], fb[c][1])) for c in set(fa) & set(fb)}
        meets = {c: iv for c, iv in meets.items() if iv[1] - iv[0] > 0}
        if set(meets) != {m} or meets[m][1] - meets[m][0] < 0.3:
            return None
        gold_iv = (round_time(meets[m][0]), round_time(meets[m][1]))
        only = sorted({c for c in [*fa, *fb] if c != m})
        picks = [camera_option([c], "wrong_camera") for c in rng.sample(only, min(2, len(only)))]
        fillers = [camera_option([rng.choice(net.area_cameras(2))], "other_area"),
                   camera_option([phantom_camera(net, rng)], "phantom")]
        need = N_OPTIONS - 1 - len(picks)
        if need > len(fillers):
            return None
        picks += rng.sample(fillers, need)
        gold_opt = camera_option([m], "gold")

        def target_line(n: int, path: list[str], seen: tuple[float, float], v: float) -> str:
            return (f"Target {n}: last seen by {path[0]} from {fmt_time(seen[0])} s to {fmt_time(seen[1])} s, "
                    f"heading {net.bearing_deg(path[0], path[1])}°, speed {fmt_speed(v, kind)} m/s; it heads for "
                    f"camera {path[-1]}.")

        question = (
            f"{target_line(1, pa, seen_a, va)}\n{target_line(2, pb, seen_b, vb)}\n"
            "Each target takes the shortest road route to its destination and keeps the speed of its last "
            "observation. At which camera will both targets be in view at the same time, and during which "
            "interval (seconds) are both in its view?"
        )
        da = net.path_length(pa[:pa.index(m) + 1])
        db = net.path_length(pb[:pb.index(m) + 1])
        longer = (da, ta_m - mid(seen_a)) if da >= db else (db, tb_m - mid(seen_b))
        return Item(
            question=question,
            options=[gold_opt, *picks],
            target={"segments": [[m, list(gold_iv)]], "cameras": [m]},
            payload={"targets": [
                {"camera": pa[0], "seen": list(seen_a), "speed_mps": va, "destination": pa[-1]},
                {"camera": pb[0], "seen": list(seen_b), "speed_mps": vb, "destination": pb[-1]},
            ]},
            track_m=longer[0],
            track_s=longer[1],
        )
