"""Statistics for comparisons: Wilson intervals, paired bootstrap of a gap (Newcombe's paired score interval where
the bootstrap has no spread), exact McNemar test and its clustered form for epochs (an exact sign-flip test on
per-item mean differences), error summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np


def wilson(k: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95 % interval of a proportion k/n; (0, 1) when n is 0. ``k`` may be fractional: n items'
    mean accuracies over epochs summed (the interval then treats the n items as n answers, which is
    conservative: a mean over epochs varies at most as much as one 0/1 answer)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_bootstrap_gap(a: Sequence[float], b: Sequence[float], iterations: int = 2000, seed: int = 0,
                         alpha: float = 0.05) -> tuple[float, float, float]:
    """Mean of b − a over paired items and its percentile bootstrap interval (resampling items with
    replacement, ``iterations`` times, with a fixed seed so reports are reproducible). One pair has no
    interval: its bounds are NaN (shown as ``–``), never the point repeated as if it were certain.

    When every pair differs by the same amount (all gained, or no answer changed) every resample has the same
    mean, and the bootstrap would print a zero-width interval as if the gap were known exactly. Then 0/1 scores
    get :func:`newcombe_paired` (60 of 60 gained: +100 [+91.5, +100]), and other scores no interval (NaN)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have equal length")
    n = len(a)
    if n == 0:
        return 0.0, 0.0, 0.0
    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    mean = float(diffs.mean())
    if n < 2:
        return mean, float("nan"), float("nan")
    if np.allclose(diffs, diffs[0], rtol=0.0, atol=1e-12):  # no spread (up to rounding)
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if not np.isin(np.concatenate([x, y]), (0.0, 1.0)).all():
            return mean, float("nan"), float("nan")
        both, second_only = int(((x == 1) & (y == 1)).sum()), int(((x == 0) & (y == 1)).sum())
        first_only, neither = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 0)).sum())
        lo, hi = newcombe_paired(both, second_only, first_only, neither)
        return mean, lo, hi
    rng = np.random.default_rng(seed)
    boots = np.empty(iterations)
    chunk = max(1, 2_000_000 // n)  # bound memory: at most ~2M indices at once
    for start in range(0, iterations, chunk):
        stop = min(iterations, start + chunk)
        boots[start:stop] = diffs[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    boots.sort()
    lo = float(boots[int(alpha / 2 * iterations)])
    hi = float(boots[min(iterations - 1, int((1 - alpha / 2) * iterations))])
    return mean, lo, hi



def stratified_bootstrap_gap(strata: Sequence[tuple[float, Sequence[float], Sequence[float]]], iterations: int = 2000,
                             seed: int = 0, alpha: float = 0.05) -> tuple[float, float, float]:
    """Weighted mean over strata of each stratum's mean of b − a (``strata``: weight, paired a, paired b) and its
    percentile bootstrap interval, resampling pairs within each stratum. One stratum is exactly
    :func:`paired_bootstrap_gap` (same seed, same draws). A stratum of fewer than two pairs gives no interval
    (NaN). When no resample differs (every stratum's pairs moved alike) the interval falls back as there: each
    stratum's own (:func:`newcombe_paired` for 0/1 values) combined by the MOVER square-and-add rule for a
    weighted sum of independent estimates (Zou & Donner, Stat Med 2008;27:1693-702); NaN when a stratum has none."""
    if len(strata) == 1:
        _, a, b = strata[0]
        return paired_bootstrap_gap(a, b, iterations, seed, alpha)
    total = sum(w for w, _, _ in strata)
    weights = [w / total for w, _, _ in strata]
    diffs = [np.asarray(b, dtype=float) - np.asarray(a, dtype=float) for _, a, b in strata]
    point = float(sum(w * d.mean() for w, d in zip(weights, diffs, strict=True)))
    if any(d.size < 2 for d in diffs):
        return point, float("nan"), float("nan")
    if all(np.allclose(d, d[0], rtol=0.0, atol=1e-12) for d in diffs):  # no resample can differ
        below = above = 0.0
        for w, (_, a, b) in zip(weights, strata, strict=True):
            mean, lo, hi = paired_bootstrap_gap(a, b, iterations, seed, alpha)
            below, above = below + (w * (mean - lo)) ** 2, above + (w * (hi - mean)) ** 2
        if not (math.isfinite(below) and math.isfinite(above)):
            return point, float("nan"), float("nan")
        return point, max(-1.0, point - math.sqrt(below)), min(1.0, point + math.sqrt(above))
    rng = np.random.default_rng(seed)
    boots = np.zeros(iterations)
    for w, d in zip(weights, diffs, strict=True):
        boots += w * d[rng.integers(0, d.size, size=(iterations, d.size))].mean(axis=1)
    boots.sort()
    return (point, float(boots[int(alpha / 2 * iterations)]),
            float(boots[min(iterations - 1, int((1 - alpha / 2) * iterations))]))

def newcombe_paired(both: int, second_only: int, first_only: int, neither: int,
                    z: float = 1.959964) -> tuple[float, float]:
    """95 % interval of p_second − p_first for paired 0/1 outcomes, from the 2×2 counts: Newcombe's hybrid
    score interval for paired data (method 10 of Newcombe, Stat Med 1998;17:2635-50), built from the two
    conditions' Wilson intervals and the phi correlation of the pairs, its positive part reduced by n/2 as
    there (0 when a margin is empty)."""
    n = both + second_only + first_only + neither
    if n == 0:
        return float("nan"), float("nan")
    p2, p1 = (both + second_only) / n, (both + first_only) / n
    l2, u2 = wilson(both + second_only, n, z)
    l1, u1 = wilson(both + first_only, n, z)
    margins = (both + second_only) * (first_only + neither) * (both + first_only) * (second_only + neither)
    product = both * neither - second_only * first_only
    cross = max(product - n / 2, 0.0) if product > 0 else float(product)
    phi = cross / math.sqrt(margins) if margins else 0.0
    d = p2 - p1
    below = math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    above = math.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return max(-1.0, d - below), min(1.0, d + above)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (binomial, p = 0.5)."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


SIGN_FLIP_MAX_CELLS = 300_000_000
"""Bound of the exact sign-flip computation (items × distribution width); past it a seeded Monte Carlo."""


def sign_flip_p(diffs: Sequence[Fraction], resamples: int = 100_000, seed: int = 0) -> float:
    """Two-sided p of the paired sign-flip (randomisation) test of per-item mean differences: the share of the
    2^n sign patterns whose |sum| is at least the observed |sum| (items with no difference drop out).

    With each item's epochs averaged first this is the clustered form of McNemar's test: when every difference
    is −1, 0 or +1 (one epoch, or epochs that all agree) it is exactly :func:`mcnemar_exact` on the discordant
    items. Otherwise the differences, exact fractions, are put on one integer grid and the distribution of the
    sum is built item by item; when that would pass :data:`SIGN_FLIP_MAX_CELLS` the p is estimated from
    ``resamples`` seeded random sign patterns instead."""
    nonzero = [d for d in diffs if d != 0]
    if all(abs(d) == 1 for d in nonzero):
        return mcnemar_exact(sum(1 for d in nonzero if d < 0), sum(1 for d in nonzero if d > 0))
    scale = math.lcm(*(d.denominator for d in nonzero))
    steps = [abs(int(d * scale)) for d in nonzero]
    observed = abs(sum(int(d * scale) for d in nonzero))
    width = sum(steps)
    if len(steps) * (2 * width + 1) > SIGN_FLIP_MAX_CELLS:
        rng = np.random.default_rng(seed)
        z = np.asarray(steps, dtype=float)
        hits, chunk = 0, max(1, 2_000_000 // z.size)  # bound memory: at most ~2M signs at once
        for start in range(0, resamples, chunk):
            signs = rng.choice((-1.0, 1.0), size=(min(chunk, resamples - start), z.size))
            hits += int(np.count_nonzero(np.abs(signs @ z) >= observed))
        return (1 + hits) / (resamples + 1)
    dist = np.zeros(2 * width + 1)  # index i: sum i − width
    dist[width] = 1.0
    for step in steps:
        dist = 0.5 * (np.roll(dist, step) + np.roll(dist, -step))  # no wrap-around: |sum| never exceeds width
    sums = np.abs(np.arange(-width, width + 1))
    return min(1.0, float(dist[sums >= observed].sum()))


def error_summary(errors: Sequence[float]) -> dict[str, float] | None:
    """n, mean, median, 90th percentile and max of continuous errors (absolute values); None if empty."""
    if not errors:
        return None
    x = np.abs(np.asarray(errors, dtype=float))
    return {"n": int(x.size), "mean": float(x.mean()), "median": float(np.median(x)),
            "p90": float(np.percentile(x, 90)), "max": float(x.max())}
