"""A synthetic city for STBench: street grids at real city centres, city blocks, timed trips along streets.

Everything is drawn from a ``random.Random`` passed in, so a sample is a pure function of its seed.
Coordinates are built in metres in a :class:`geocore.regions.LocalFrame` around a real GeoNames city and
converted to degrees; golds are always recomputed by geocore from the rounded degrees that are shown.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import shapely

from geocore.gazetteer import City, cities
from geocore.regions import LocalFrame
from geocore.sphere import FloatArray

XY = tuple[float, float]
LatLon = tuple[float, float]
TrajPoint = tuple[float, float, float]

# Speeds in m/s: typical urban ranges (walking 1.0-1.7, cycling 3.5-6, driving 8-15, taxis 6-13).
SPEEDS: dict[str, tuple[float, float]] = {
    "pedestrian": (1.0, 1.7),
    "bike": (3.5, 6.0),
    "car": (8.0, 15.0),
    "taxi": (6.0, 13.0),
}
EPOCH_RANGE = (1_451_606_400, 1_704_067_200)  # 2016-01-01 .. 2024-01-01 UTC


@cache
def _big_cities() -> tuple[City, ...]:
    return tuple(c for c in cities() if c.population >= 300_000 and abs(c.lat) < 65)


def pick_city(rng: random.Random) -> City:
    """A city of at least 300,000 people (GeoNames), uniformly."""
    pool = _big_cities()
    return pool[rng.randrange(len(pool))]


def start_time(rng: random.Random) -> int:
    """A Unix time between 2016 and 2024, between 06:00 and 22:00 UTC-ish (not meant as local time)."""
    day = rng.randrange(EPOCH_RANGE[0], EPOCH_RANGE[1], 86_400)
    return day + rng.randrange(6 * 3600, 22 * 3600)


def round_point(p: LatLon, decimals: int) -> LatLon:
    return (round(p[0], decimals), round(p[1], decimals))


@dataclass(frozen=True)
class Lattice:
    """An infinite street grid: node (i, j) sits at i·su along u and j·sv along v, u rotated ``angle`` from east."""

    frame: LocalFrame
    su: float
    sv: float
    angle_deg: float

    def xy(self, i: float, j: float) -> XY:
        a = math.radians(self.angle_deg)
        ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
        return (i * self.su * ux + j * self.sv * vx, i * self.su * uy + j * self.sv * vy)

    @classmethod
    def random(cls, rng: random.Random, spacing: tuple[float, float] = (90.0, 220.0)) -> Lattice:
        c = pick_city(rng)
        frame = LocalFrame(c.lat, c.lon)
        return cls(frame, rng.uniform(*spacing), rng.uniform(*spacing), rng.uniform(0.0, 90.0))


def random_route(rng: random.Random, blocks: int, max_run: int = 5) -> list[tuple[int, int]]:
    """Lattice nodes of a drive of ``blocks`` blocks: straight runs of 1..max_run blocks, left/right turns only."""
    heading = rng.choice([(1, 0), (0, 1), (-1, 0), (0, -1)])
    node = (0, 0)
    out = [node]
    while len(out) - 1 < blocks:
        run = min(rng.randint(1, max_run), blocks - (len(out) - 1))
        for _ in range(run):
            node = (node[0] + heading[0], node[1] + heading[1])
            out.append(node)
        heading = (-heading[1], heading[0]) if rng.random() < 0.5 else (heading[1], -heading[0])
    return out


def staircase_route(di: int, dj: int) -> list[tuple[int, int]]:
    """The lattice path from (0, 0) to (di, dj) that stays closest to the straight line (a shortest route)."""
    si, sj = (1 if di >= 0 else -1), (1 if dj >= 0 else -1)
    node = (0, 0)
    out = [node]
    while node != (di, dj):
        step_i = (node[0] + si, node[1])
        step_j = (node[0], node[1] + sj)
        cands = [s for s in (step_i, step_j) if abs(s[0]) <= abs(di) and abs(s[1]) <= abs(dj)]
        node = min(cands, key=lambda s: abs(s[0] * dj - s[1] * di))
        out.append(node)
    return out


def route_xy(lattice: Lattice, nodes: Sequence[tuple[int, int]]) -> list[XY]:
    """Corner points of a lattice route (collinear nodes merged), in metres."""
    xy = [lattice.xy(*n) for n in nodes]
    out = [xy[0]]
    for k in range(1, len(xy) - 1):
        (ax, ay), (bx, by), (cx, cy) = xy[k - 1], xy[k], xy[k + 1]
        if abs((bx - ax) * (cy - by) - (by - ay) * (cx - bx)) > 1e-6:
            out.append(xy[k])
    out.append(xy[-1])
    return out


def drive(
    rng: random.Random,
    corners: Sequence[XY],
    speed_range: tuple[float, float],
    t0: float,
    interval: float,
    *,
    interval_jitter: float = 0.0,
    speed_jitter: float = 0.1,
) -> list[tuple[float, float, float, int]]:
    """Sample positions (x, y, t, leg) every ``interval`` s (± jitter) along the corner polyline.

    Each straight leg has its own speed: a base speed from ``speed_range`` times (1 ± speed_jitter).
    ``leg`` is the index of the straight leg the sample lies on.
    """
    base = rng.uniform(*speed_range)
    legs = []
    for a, b in zip(corners[:-1], corners[1:], strict=True):
        v = base * rng.uniform(1 - speed_jitter, 1 + speed_jitter)
        legs.append((a, b, math.dist(a, b), v))
    ends = []
    acc = 0.0
    for _, _, length, v in legs:
        acc += length / v
        ends.append(acc)
    total = ends[-1]
    out = []
    t = 0.0
    while t <= total + 1e-9:
        k = next(i for i, e in enumerate(ends) if t <= e + 1e-9)
        (ax, ay), (bx, by), length, v = legs[k]
        start = ends[k] - length / v
        f = 0.0 if length == 0 else min(1.0, max(0.0, (t - start) * v / length))
        out.append((ax + f * (bx - ax), ay + f * (by - ay), t0 + t, k))
        t += interval + (rng.uniform(-interval_jitter, interval_jitter) if interval_jitter else 0.0)
    return out


def to_trajectory(
    frame: LocalFrame,
    samples: Sequence[tuple[float, float, float, int]],
    rng: random.Random,
    *,
    noise_m: float = 0.0,
    decimals: int = 5,
) -> list[TrajPoint]:
    """Degrees with GPS noise (Gaussian, ``noise_m`` per axis) rounded to ``decimals``; integer seconds."""
    out = []
    for x, y, t, _ in samples:
        if noise_m:
            x, y = x + rng.gauss(0.0, noise_m), y + rng.gauss(0.0, noise_m)
        lat, lon = frame.to_latlon(x, y)
        out.append((round(lat, decimals), round(lon, decimals), float(round(t))))
    return out


# ----------------------------------------------------------------------------- city blocks


@dataclass(frozen=True)
class Blocks:
    """City blocks of a jittered street grid: ``polygons[(r, c)]`` in metres, separated by streets."""

    frame: LocalFrame
    polygons: dict[tuple[int, int], list[XY]]
    street_m: float

    def neighbours(self, key: tuple[int, int]) -> list[tuple[int, int]]:
        r, c = key
        return [k for k in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if k in self.polygons]

    def rings(self, keys: Sequence[tuple[int, int]], decimals: int = 6) -> list[list[list[float]]]:
        """The blocks ``keys`` as rings of [lat, lon] vertices, rounded to ``decimals``."""
        points = round_array(self.frame.latlon_array([p for key in keys for p in self.polygons[key]]), decimals)
        out: list[list[list[float]]] = []
        start = 0
        for key in keys:
            end = start + len(self.polygons[key])
            out.append(points[start:end])
            start = end
        return out


def round_array(values: FloatArray, decimals: int) -> list[list[float]]:
    """``[[round(v, decimals) for v in row] for row in values]`` for an (n, 2) array, to the bit, mostly in numpy.

    Python's round gives the double nearest to k / 10**decimals, k the integer nearest to the exact
    v * 10**decimals. While |v * 10**decimals| < 2**33 its double is within 2**-21 of the exact product, so when
    that double is more than 1e-6 from a half-integer, rint finds the same k, and k / 10**decimals (both exact
    doubles, 0 <= decimals <= 15) rounds to the same double. Other values go through round itself.
    """
    if not 0 <= decimals <= 15:
        return [[round(float(v), decimals) for v in row] for row in values]
    scale = 10.0**decimals
    scaled = values * scale
    k = np.rint(scaled)
    clear = (np.abs(np.abs(scaled - k) - 0.5) > 1e-6) & (np.abs(scaled) < 2.0**33)
    out: list[list[float]] = (k / scale).tolist()
    if not clear.all():
        for i, j in zip(*np.nonzero(~clear), strict=True):
            out[i][j] = round(float(values[i, j]), decimals)
    return out


def city_blocks(rng: random.Random, rows: int = 4, cols: int = 4) -> Blocks:
    """A rows × cols grid of irregular blocks around a real city centre.

    Street nodes on a rotated grid (spacing 80–180 m) are jittered by up to 12 % of the spacing; each block is
    its cell shrunk by half a street width (6–10 m) on every side, and some edges get an extra vertex pushed
    in or out by at most a third of that, so neighbouring blocks never touch.
    """
    c = pick_city(rng)
    frame = LocalFrame(c.lat, c.lon)
    su, sv = rng.uniform(80, 180), rng.uniform(80, 180)
    angle = math.radians(rng.uniform(0, 90))
    half = rng.uniform(6.0, 10.0)
    jit = 0.12 * min(su, sv)
    cos_a, sin_a = math.cos(angle), math.sin(angle)
    uniform = rng.uniform
    nodes: list[XY] = []  # node (i, j) at i * (cols + 1) + j
    for i in range(rows + 1):
        for j in range(cols + 1):
            u = (j - cols / 2) * su + uniform(-jit, jit)
            v = (i - rows / 2) * sv + uniform(-jit, jit)
            nodes.append((u * cos_a - v * sin_a, u * sin_a + v * cos_a))
    keys = [(i, j) for i in range(rows) for j in range(cols)]
    # Cell (i, j): nodes (i, j), (i, j + 1), (i + 1, j + 1), (i + 1, j), closed; a flat list is quick to read.
    w = cols + 1
    corners = [coord for i, j in keys
               for n in (i * w + j, i * w + j + 1, (i + 1) * w + j + 1, (i + 1) * w + j, i * w + j) for coord in nodes[n]]
    cells = shapely.polygons(np.array(corners).reshape(rows * cols, 5, 2))
    # One GEOS call for all cells; no draws depend on it.
    inners = shapely.buffer(cells, -half, join_style=shapely.BufferJoinStyle.mitre)
    kept = (shapely.get_type_id(inners) == shapely.GeometryType.POLYGON) & ~shapely.is_empty(inners)
    exteriors = shapely.get_exterior_ring(inners[kept])  # each GEOS query once for all kept cells
    coords = shapely.get_coordinates(exteriors).tolist()
    ends = list(itertools.accumulate(shapely.get_num_coordinates(exteriors).tolist()))
    low, high = -half / 3, half / 3
    drawn: dict[tuple[int, int], list[XY]] = {}
    start = 0
    for key, end, ccw in zip([k for k, ok in zip(keys, kept.tolist(), strict=True) if ok], ends,
                             shapely.is_ccw(exteriors).tolist(), strict=True):
        ring: list[XY] = list(map(tuple, coords[start:end - 1]))  # (x, y) vertices, the closing one left out
        start = end
        if not ccw:
            ring.reverse()
        out: list[XY] = []
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            out.append(a)
            if rng.random() < 0.5:
                (ax, ay), (bx, by) = a, b
                length = math.dist(a, b)
                nx, ny = -(by - ay) / length, (bx - ax) / length  # left normal (outward is right)
                f, push = uniform(0.3, 0.7), uniform(low, high)
                out.append((ax + f * (bx - ax) + push * nx, ay + f * (by - ay) + push * ny))
        drawn[key] = out
    if not drawn:
        return Blocks(frame, {}, 2 * half)
    # All blocks built in one call, each ring closed, from a flat list of floats (the cheapest for numpy to read).
    flat = np.array([coord for ring in drawn.values() for p in (*ring, ring[0]) for coord in p]).reshape(-1, 2)
    offsets = [0, *itertools.accumulate(len(ring) + 1 for ring in drawn.values())]
    valid = shapely.is_valid(shapely.from_ragged_array(
        shapely.GeometryType.POLYGON, flat, (np.array(offsets), np.arange(len(offsets)))))
    polys = {key: out for (key, out), ok in zip(drawn.items(), valid, strict=True) if ok}
    return Blocks(frame, polys, 2 * half)


def connected_blocks(rng: random.Random, blocks: Blocks, k: int) -> list[tuple[int, int]]:
    """``k`` blocks forming a connected group (by shared streets), grown at random from a random block."""
    keys = sorted(blocks.polygons)
    for _ in range(50):
        group = [keys[rng.randrange(len(keys))]]
        around = set(blocks.neighbours(group[0]))  # the group's neighbours outside it, kept up to date
        while len(group) < k:
            frontier = sorted(around)
            if not frontier:
                break
            group.append(frontier[rng.randrange(len(frontier))])
            around.discard(group[-1])
            around.update(n for n in blocks.neighbours(group[-1]) if n not in group)
        if len(group) == k:
            return group
    raise ValueError(f"cannot find {k} connected blocks")
