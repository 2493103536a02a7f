"""Route choices shared by the GTR basic tasks: a start and end camera and the way the target went."""

from __future__ import annotations

import random
from dataclasses import dataclass

from geocore.networks import CameraNetwork
from tasks.gtr.scenes import (
    START_TIME_S,
    Pass,
    Track,
    base_speed,
    extend,
    mid,
    simulate,
)

PLAUSIBLE_DETOUR = 1.6
"""Routes up to this factor longer than the shortest count as plausible ways between two cameras."""


@dataclass(frozen=True)
class Journey:
    """A target observed at the start and end of ``route`` with everything in between unobserved."""

    route: list[str]
    alternatives: list[list[str]]
    track: Track
    speed_range: tuple[float, float]

    @property
    def start(self) -> Pass:
        return self.track.passes[0]

    @property
    def end(self) -> Pass:
        return self.track.passes[len(self.route) - 1]

    @property
    def duration_s(self) -> float:
        return mid(self.end.seen) - mid(self.start.seen)

    def fits(self, net: CameraNetwork, cameras: list[str]) -> bool:
        """Whether a camera path from start to end, taken at a speed within the printed range, brings the
        target under the end camera at the printed time (what the tools check)."""
        try:
            length = net.path_length(cameras)
        except ValueError:
            return False
        if cameras[0] != self.route[0] or cameras[-1] != self.route[-1] or len(set(cameras)) != len(cameras):
            return False
        vmin, vmax = self.speed_range
        t0, t1 = mid(self.start.seen), mid(self.end.seen)
        return t0 + length / vmax <= t1 <= t0 + length / vmin


def journey(rng: random.Random, net: CameraNetwork, plausible: bool = True) -> Journey | None:
    """Two area-1 cameras at least two roads apart, the route taken (the shortest, or with ``plausible`` half
    the time another simple path at most 1.6 times as long) and the simulated track; None when unusable."""
    a, b = rng.sample(net.area_cameras(1), 2)
    path, length = net.shortest_path(a, b)
    if len(path) < 3:
        return None
    cands = [p for p, _ in net.simple_paths(a, b, PLAUSIBLE_DETOUR * length)]
    route = rng.choice(cands[1:]) if plausible and len(cands) > 1 and rng.random() < 0.5 else path
    track = simulate(net, extend(net, route, rng), rng.uniform(*START_TIME_S[net.kind]),
                     base_speed(rng, net.kind), rng)
    j = Journey(route, [p for p in cands if p != route], track, track.speed_range())
    return j if j.fits(net, route) else None


def arrow(cameras: list[str]) -> str:
    return " → ".join(cameras)
