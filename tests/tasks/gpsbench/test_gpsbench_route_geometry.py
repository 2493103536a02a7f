"""GPSBench route geometry: gold against geocore.polygons.rdp and an own RDP, robustness of epsilon, parsing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from geocore.polygons import rdp
from tasks import get_task
from tasks.records import Parsed

TASK = get_task("gpsbench.route_geometry")
ALL = TASK.generate(42, 80)
R = 6_371_000.0


def vec(p: list[float]) -> np.ndarray:
    la, lo = np.radians(p)
    return np.array([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])


def seg_dist_m(p: list[float], a: list[float], b: list[float]) -> float:
    vp, va, vb = vec(p), vec(a), vec(b)
    n = np.cross(va, vb)
    n /= np.linalg.norm(n)
    foot = vp - np.dot(vp, n) * n
    foot /= np.linalg.norm(foot)
    ang = lambda u, v: math.atan2(np.linalg.norm(np.cross(u, v)), np.dot(u, v))  # noqa: E731
    if abs(ang(va, foot) + ang(foot, vb) - ang(va, vb)) < 1e-12:
        return R * abs(math.asin(np.clip(np.dot(vp, n), -1, 1)))
    return R * min(ang(vp, va), ang(vp, vb))


def own_rdp(pts: list[list[float]], eps_m: float) -> list[int]:
    def rec(i: int, j: int) -> list[int]:
        if j - i < 2:
            return [i, j]
        d = [seg_dist_m(pts[k], pts[i], pts[j]) for k in range(i + 1, j)]
        k = i + 1 + int(np.argmax(d))
        if max(d) > eps_m:
            return rec(i, k)[:-1] + rec(k, j)
        return [i, j]

    return rec(0, len(pts) - 1)


def test_gold_on_every_sample() -> None:
    for s in ALL:
        pts, eps = s.payload["points"], s.payload["epsilon_km"]
        assert 8 <= len(pts) <= 15 and 0.5 <= eps <= 2.0
        kept = s.target["kept"]
        assert kept == rdp(pts, eps * 1000) == own_rdp(pts, eps * 1000)
        assert own_rdp(pts, eps * 970) == kept == own_rdp(pts, eps * 1030)
        assert 2 < len(kept) < len(pts)
        assert f"epsilon = {eps:.1f} km" in s.prompt and all(f"{k}: ({p[0]:.4f}, {p[1]:.4f})" in s.prompt
                                                             for k, p in enumerate(pts))


@pytest.mark.parametrize(("text", "value"), [
    ("FINAL ANSWER: [0, 1, 4, 5, 6, 7, 11]", [0, 1, 4, 5, 6, 7, 11]),
    ("FINAL ANSWER: A (points kept: [0, 11, 1, 4])", [0, 1, 4, 11]),
    ("FINAL ANSWER: 0, 3 and 9", [0, 3, 9]),
])
def test_parser(text: str, value: list[int]) -> None:
    p = TASK.parse(text, ALL[0])
    assert p.ok and p.value == value


def test_exact_set_and_error_count() -> None:
    s = ALL[0]
    gold = s.target["kept"]
    assert TASK.score(Parsed.success("x", gold), s).correct
    extra = TASK.score(Parsed.success("x", sorted(set(gold) | {99})), s)
    assert not extra.correct and extra.error == 1 and extra.error_unit == "indices"
    assert not TASK.parse("I would keep the corners.", s).ok
