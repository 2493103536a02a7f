"""Statistics against known values."""

import math

import pytest

from evals.stats import mcnemar_exact, newcombe_paired, paired_bootstrap_gap, wilson


def test_wilson_known_values() -> None:
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0


def test_mcnemar_exact() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(1, 9) == pytest.approx(2 * 11 / 1024)


def test_paired_bootstrap() -> None:
    a = [0.0] * 10 + [1.0] * 10
    b = [1.0] * 20
    mean, lo, hi = paired_bootstrap_gap(a, b, iterations=500)
    assert mean == 0.5 and lo < 0.5 < hi and lo > 0.2 and hi <= 0.8
    mean, lo, hi = paired_bootstrap_gap([0.0], [1.0])
    assert mean == 1.0 and math.isnan(lo) and math.isnan(hi)  # one pair has no interval
    mean, lo, hi = paired_bootstrap_gap([0.0, 0.0], [1.0, 0.0], iterations=500)
    assert (mean, lo, hi) == (0.5, 0.0, 1.0)
    with pytest.raises(ValueError):
        paired_bootstrap_gap([1.0], [])


def _wilson_by_quadratic(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Independent route: the interval is the set of p with (k/n − p)² ≤ z² p (1 − p) / n, a quadratic in p."""
    import numpy as np

    ph = k / n
    roots = np.roots([1 + z * z / n, -(2 * ph + z * z / n), ph * ph])
    return float(min(roots.real)), float(max(roots.real))


@pytest.mark.parametrize(("k", "n"), [(1, 10), (5, 10), (81, 263), (3, 1000), (999, 1000)])
def test_wilson_matches_the_quadratic_solution(k: int, n: int) -> None:
    assert wilson(k, n) == pytest.approx(_wilson_by_quadratic(k, n), abs=1e-9)


def test_wilson_textbook_values() -> None:
    assert wilson(1, 10) == pytest.approx((0.0179, 0.4042), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)


def test_mcnemar_exact_known_values() -> None:
    assert mcnemar_exact(2, 8) == pytest.approx(0.109375)  # 2·(1 + 10 + 45)/1024
    assert mcnemar_exact(8, 2) == mcnemar_exact(2, 8)  # symmetric
    assert mcnemar_exact(10, 30) == pytest.approx(0.0022214, abs=1e-6)
    assert mcnemar_exact(5, 5) == 1.0


def test_bootstrap_on_fixed_data() -> None:
    a = [0.0] * 400
    b = [1.0] * 120 + [0.0] * 280  # gap 0.3, sd of the mean sqrt(0.3·0.7/400) = 0.0229
    mean, lo, hi = paired_bootstrap_gap(a, b, iterations=20000)
    assert mean == pytest.approx(0.3)
    assert lo == pytest.approx(0.3 - 1.96 * 0.0229, abs=0.006) and hi == pytest.approx(0.3 + 1.96 * 0.0229, abs=0.006)
    assert paired_bootstrap_gap(a, b, seed=3) == paired_bootstrap_gap(a, b, seed=3)  # reproducible
    # pairing matters: equal marginals but a nearly constant per-item shift gives a tight interval around it
    x = [i / 100 for i in range(100)]
    shifted = [v + 0.1 + (0.01 if i % 2 else -0.01) for i, v in enumerate(x)]
    lo, hi = paired_bootstrap_gap(x, shifted)[1:]
    assert 0.097 < lo < 0.1 < hi < 0.103


Z2 = 1.959964**2


@pytest.mark.parametrize("n", [50, 60])
def test_every_pair_gained_is_not_shown_as_certain(n: int) -> None:
    """All n pairs gained: the bootstrap has no spread; the interval is Newcombe's. With no pair concordant
    phi is 0 and the lower bound is 1 - sqrt(2) u, u = z²/(n + z²) the Wilson upper bound of 0 of n."""
    mean, lo, hi = paired_bootstrap_gap([0.0] * n, [1.0] * n)
    u = Z2 / (n + Z2)
    assert mean == 1.0 and hi == 1.0 and lo == pytest.approx(1 - math.sqrt(2) * u, abs=1e-9)
    assert lo == pytest.approx({50: 0.8991, 60: 0.9149}[n], abs=1e-4)
    mean, lo, hi = paired_bootstrap_gap([1.0] * n, [0.0] * n)  # all lost: the mirror image
    assert mean == -1.0 and lo == -1.0 and hi == pytest.approx(-1 + math.sqrt(2) * u, abs=1e-9)


def test_no_answer_changed_is_not_shown_as_certain() -> None:
    """Both conditions right on every item: gap 0 with width from each side's Wilson interval."""
    mean, lo, hi = paired_bootstrap_gap([1.0] * 50, [1.0] * 50)
    u = Z2 / (50 + Z2)
    assert mean == 0.0 and (lo, hi) == pytest.approx((-u, u), abs=1e-9)
    mixed = [1.0] * 20 + [0.0] * 30  # the same answers, some right, some wrong: still no spread
    mean, lo, hi = paired_bootstrap_gap(mixed, mixed)
    assert mean == 0.0 and lo < 0 < hi


def test_a_constant_shift_of_other_scores_has_no_interval() -> None:
    x = [i / 100 for i in range(100)]
    mean, lo, hi = paired_bootstrap_gap(x, [v + 0.1 for v in x])
    assert mean == pytest.approx(0.1) and math.isnan(lo) and math.isnan(hi)


def test_newcombe_is_antisymmetric_and_covers_the_estimate() -> None:
    lo, hi = newcombe_paired(30, 12, 4, 14)
    assert lo < 8 / 60 < hi
    assert newcombe_paired(30, 4, 12, 14) == pytest.approx((-hi, -lo))


def test_error_summary() -> None:
    from evals.stats import error_summary

    assert error_summary([]) is None
    s = error_summary([1.0, -2.0, 3.0, 4.0, 100.0])
    assert s == {"n": 5, "mean": 22.0, "median": 3.0, "p90": pytest.approx(61.6), "max": 100.0}
