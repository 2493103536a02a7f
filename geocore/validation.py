"""Argument checks shared by geocore: every failure is a ValueError naming the argument."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence


def finite(value: float, name: str) -> float:
    """Return ``value`` as a float, or raise ValueError if it is not a finite number."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def lat(value: float, name: str = "lat") -> float:
    """Validate a latitude in degrees: finite and within [-90, 90]."""
    x = finite(value, name)
    if not -90.0 <= x <= 90.0:
        raise ValueError(f"{name} must be within [-90, 90] degrees, got {x}")
    return x


def lon(value: float, name: str = "lon") -> float:
    """Validate a longitude in degrees: finite and within [-180, 180]."""
    x = finite(value, name)
    if not -180.0 <= x <= 180.0:
        raise ValueError(f"{name} must be within [-180, 180] degrees, got {x}")
    return x


def fraction(value: float, name: str = "fraction") -> float:
    """Validate a fraction in [0, 1]."""
    x = finite(value, name)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{name} must be within [0, 1], got {x}")
    return x


def positive(value: float, name: str) -> float:
    """Validate a strictly positive finite number."""
    x = finite(value, name)
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {x}")
    return x


def non_negative(value: float, name: str) -> float:
    """Validate a finite number >= 0."""
    x = finite(value, name)
    if x < 0:
        raise ValueError(f"{name} must be >= 0, got {x}")
    return x


def integer(value: int, name: str, minimum: int) -> int:
    """Validate an integer (not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def points(values: Sequence[Sequence[float]], name: str = "points", min_len: int = 1) -> list[tuple[float, float]]:
    """Validate a sequence of (lat, lon) pairs with at least ``min_len`` entries."""
    if values is None or len(values) == 0:
        raise ValueError(f"{name} must not be empty")
    if len(values) < min_len:
        raise ValueError(f"{name} needs at least {min_len} points, got {len(values)}")
    out: list[tuple[float, float]] = []
    for i, p in enumerate(values):
        if len(p) != 2:
            raise ValueError(f"{name}[{i}] must be a (lat, lon) pair, got {p!r}")
        out.append((lat(p[0], f"{name}[{i}].lat"), lon(p[1], f"{name}[{i}].lon")))
    return out
