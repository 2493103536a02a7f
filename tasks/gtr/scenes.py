"""Scenes for the GTR family: which network an item uses, how a target moves, complexity tiers.

A target moves along a route of cameras. Between two cameras its speed is drawn around a base speed
(±``SPEED_VARIATION``); as it passes a camera its speed is the one that camera reports, rounded as printed, so
the printed in-view interval is exactly ``pass time ± R / speed`` before rounding to 0.1 s. Forecasts assume a
constant speed, so their gold answers follow from the printed values alone.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

from geocore.networks import CameraNetwork, Kind, build_network, make_network_id

Tier = Literal["long", "medium", "short"]
TIERS: tuple[Tier, ...] = ("long", "medium", "short")
LAYOUTS = 1000
SPEED_VARIATION = 0.12
BASE_SPEED_MPS: dict[str, tuple[float, float]] = {"outdoor": (7.0, 15.0), "indoor": (0.9, 1.6)}
SPEED_DECIMALS: dict[str, int] = {"outdoor": 1, "indoor": 2}
SPEED_RANGE_STEP: dict[str, float] = {"outdoor": 0.5, "indoor": 0.05}
START_TIME_S: dict[str, tuple[float, float]] = {"outdoor": (15.0, 240.0), "indoor": (15.0, 240.0)}
# (short distance m, short duration s, long distance m, long duration s): short needs both below the short
# thresholds, long both at or above the long thresholds, anything else is medium.
TIER_THRESHOLDS: dict[str, tuple[float, float, float, float]] = {
    "outdoor": (800.0, 80.0, 1400.0, 130.0),
    "indoor": (55.0, 45.0, 95.0, 75.0),
}


def tier_of(kind: str, distance_m: float, duration_s: float) -> Tier:
    """Complexity tier of a track from its road length and duration, with per-kind thresholds."""
    d_short, t_short, d_long, t_long = TIER_THRESHOLDS[kind]
    if distance_m < d_short and duration_s < t_short:
        return "short"
    if distance_m >= d_long and duration_s >= t_long:
        return "long"
    return "medium"


def pick_network(rng: random.Random, kind: Kind) -> CameraNetwork:
    """A network of ``kind`` with a fresh label key: same streets may recur, camera ids never do."""
    return build_network(make_network_id(kind, rng.randrange(LAYOUTS), rng.randrange(10_000)))


def round_time(t: float) -> float:
    return round(t, 1)


def mid(interval: tuple[float, float]) -> float:
    """Pass time implied by a printed in-view interval."""
    return (interval[0] + interval[1]) / 2


@dataclass(frozen=True)
class Pass:
    """A target passing one camera: true pass time, printed speed, heading it leaves by, printed interval."""

    camera: str
    time_s: float
    speed_mps: float
    heading_deg: int | None
    seen: tuple[float, float]


@dataclass(frozen=True)
class Track:
    """A target's passes along a route, with the slowest and fastest speed it had anywhere on it."""

    network: CameraNetwork
    passes: tuple[Pass, ...]
    min_speed_mps: float
    max_speed_mps: float

    def speed_range(self) -> tuple[float, float]:
        """A printed speed range holding every speed of the track, rounded outward with a 3 % margin."""
        step = SPEED_RANGE_STEP[self.network.kind]
        lo = math.floor(self.min_speed_mps * 0.97 / step) * step
        hi = math.ceil(self.max_speed_mps * 1.03 / step) * step
        return round(max(lo, step), 2), round(hi, 2)


def base_speed(rng: random.Random, kind: str) -> float:
    return rng.uniform(*BASE_SPEED_MPS[kind])


def simulate(network: CameraNetwork, route: list[str], start_s: float, base_mps: float,
             rng: random.Random) -> Track:
    """Move a target along ``route`` (consecutive cameras joined by roads) with varying speeds."""
    kind = network.kind
    r = network.view_radius_m
    t, lo, hi = start_s, math.inf, 0.0
    passes = []
    for i, cam in enumerate(route):
        if i:
            u = base_mps * rng.uniform(1 - SPEED_VARIATION, 1 + SPEED_VARIATION)
            lo, hi = min(lo, u), max(hi, u)
            t += network.road_length(route[i - 1], cam) / u
        v = round(base_mps * rng.uniform(1 - SPEED_VARIATION, 1 + SPEED_VARIATION), SPEED_DECIMALS[kind])
        lo, hi = min(lo, v), max(hi, v)
        heading = network.bearing_deg(cam, route[i + 1]) if i + 1 < len(route) else None
        passes.append(Pass(cam, t, v, heading, (round_time(t - r / v), round_time(t + r / v))))
    return Track(network, tuple(passes), lo, hi)


def constant_speed_passes(network: CameraNetwork, route: list[str], pass_time_s: float,
                          speed_mps: float) -> list[tuple[str, tuple[float, float]]]:
    """Printed in-view intervals of a target passing ``route[0]`` at ``pass_time_s`` and keeping ``speed_mps``
    along the route (every camera after the first)."""
    out = []
    for w in network.arrival_windows(route, pass_time_s, speed_mps, speed_mps)[1:]:
        out.append((w.camera, (round_time(w.seen_from_s), round_time(w.seen_until_s))))
    return out


def extend(network: CameraNetwork, route: list[str], rng: random.Random) -> list[str]:
    """The route plus one more camera beyond its end (not back the way it came), so the end has a heading."""
    options = [n for n, _, _ in network.neighbours(route[-1]) if n not in route]
    if not options:
        options = [n for n, _, _ in network.neighbours(route[-1]) if n != route[-2]]
    return route + [rng.choice(options)] if options else route


def unique_shortest(network: CameraNetwork, a: str, b: str, margin: float = 0.04) -> tuple[list[str], float] | None:
    """The shortest path a→b if every other path is at least ``margin`` longer, else None."""
    path, length = network.shortest_path(a, b)
    return (path, length) if network.second_shortest_length(a, b) >= length * (1 + margin) else None


def phantom_camera(network: CameraNetwork, rng: random.Random) -> str:
    """A camera id in the network's style that is not in the network."""
    while True:
        cid = f"C{rng.randrange(100, 1000):03d}"
        if not network.has_camera(cid):
            return cid
