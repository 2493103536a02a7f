"""Early rejection in STBench generation: a bound that rejects a draw before its gold is computed must never
reject a draw the gold would accept."""

from __future__ import annotations

import math
import random

import pytest

from geocore.regions import LocalFrame
from geocore.trajectories import encounters
from tasks.stbench.trajectory_trajectory import degrees, encounter_bounds, random_walk


def _pulled(rng: random.Random, wa: list[tuple[float, float, float]], wb: list[tuple[float, float, float]]
            ) -> list[tuple[float, float, float]]:
    """``wb`` shifted so that one of its points lies 0-2 m from a point of one of ``wa``'s segments: a pair
    whose crossing the rounding to degrees can decide."""
    k, f = rng.randrange(len(wa) - 1), rng.random()
    (x0, y0, _), (x1, y1, _) = wa[k], wa[k + 1]
    gap, side = rng.uniform(0.0, 2.0), rng.choice((-1.0, 1.0))
    length = math.hypot(x1 - x0, y1 - y0)
    tx, ty = x0 + f * (x1 - x0) - side * gap * (y1 - y0) / length, y0 + f * (y1 - y0) + side * gap * (x1 - x0) / length
    j = rng.randrange(len(wb))
    return [(x + tx - wb[j][0], y + ty - wb[j][1], t) for x, y, t in wb]


@pytest.mark.parametrize("lat", [0.0, 35.5, -52.25, 64.9])
def test_encounter_bounds_bracket_the_gold_count(lat: float) -> None:
    rng = random.Random(f"bounds-{lat}")
    frame = LocalFrame(lat, rng.uniform(-170.0, 170.0))
    checked = near = 0
    for _ in range(600):
        n, half, t0 = rng.randint(5, 8), rng.uniform(300, 600), 1_600_000_000
        wa = random_walk(rng, n, half, t0)
        wb = random_walk(rng, n, half, t0 + rng.randint(-300, 300))
        for walk in (wb, _pulled(rng, wa, wb)):
            fewest, most = encounter_bounds(wa, walk)
            count = len(encounters(*degrees(frame, wa, walk)))
            assert fewest <= count <= most, (wa, walk)
            checked += 1
            near += fewest < most
    assert checked == 1200 and near > 100  # many draws the bound leaves to the gold: the test reaches the edge
