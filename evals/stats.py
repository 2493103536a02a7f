"""Statistics for comparisons: Wilson intervals, paired bootstrap of a gap, exact McNemar test, error summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95 % interval of a proportion k/n; (0, 1) when n is 0."""
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
    interval: its bounds are NaN (shown as ``–``), never the point repeated as if it were certain."""
    if len(a) != len(b):
        raise ValueError("paired samples must have equal length")
    n = len(a)
    if n == 0:
        return 0.0, 0.0, 0.0
    diffs = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    mean = float(diffs.mean())
    if n < 2:
        return mean, float("nan"), float("nan")
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


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (binomial, p = 0.5)."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def error_summary(errors: Sequence[float]) -> dict[str, float] | None:
    """n, mean, median, 90th percentile and max of continuous errors (absolute values); None if empty."""
    if not errors:
        return None
    x = np.abs(np.asarray(errors, dtype=float))
    return {"n": int(x.size), "mean": float(x.mean()), "median": float(np.median(x)),
            "p90": float(np.percentile(x, 90)), "max": float(x.max())}
