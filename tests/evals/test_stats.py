"""Statistics against known values."""

import pytest

from evals.stats import mcnemar_exact, paired_bootstrap_gap, wilson


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
    assert paired_bootstrap_gap([1.0], [1.0]) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        paired_bootstrap_gap([1.0], [])
