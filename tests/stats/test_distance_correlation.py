"""Distance correlation against cases known in closed form and one worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.stats.distance_correlation import distance_correlation
from workbench.stats.errors import StatsInputError


def test_a_sample_and_a_linear_function_of_it_have_dcor_one() -> None:
    x = np.array([1.0, 7.0, 13.0, 34.0, 70.0])
    assert distance_correlation(x, 3.0 - 2.5 * x) == pytest.approx(1.0)
    assert distance_correlation(x, x) == pytest.approx(1.0)


def test_independent_samples_have_dcor_near_zero() -> None:
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=2000), rng.normal(size=2000)
    assert distance_correlation(x, y) < 0.06


def test_dcor_sees_a_dependence_pearson_misses() -> None:
    x = np.linspace(-1.0, 1.0, 201)
    y = x**2
    assert abs(np.corrcoef(x, y)[0, 1]) < 1e-9
    assert distance_correlation(x, y) > 0.4


def test_a_case_worked_by_hand() -> None:
    # x = (0, 1, 2), y = (0, 1, 0). Double-centred distances:
    #   A = [[-10, 2, 8], [2, -4, 2], [8, 2, -10]] / 9
    #   B = [[-2, 4, -2], [4, -8, 4], [-2, 4, -2]] / 9
    # sum(A*B) = 72/81, sum(A*A) = 360/81, sum(B*B) = 144/81 (each over n² = 9 for the means),
    # so dCor² = 72 / sqrt(360 * 144) = 1 / sqrt(10), and dCor = 10 ** -0.25.
    assert distance_correlation([0, 1, 2], [0, 1, 0]) == pytest.approx(10**-0.25)


def test_a_constant_sample_has_dcor_zero() -> None:
    assert distance_correlation([1, 2, 3], [5, 5, 5]) == 0.0


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        ([1, 2], [1, 2, 3], "one size"),
        ([1], [2], "at least two"),
        ([1, float("nan")], [1, 2], "finite"),
    ],
)
def test_bad_samples_are_refused(x: list[float], y: list[float], message: str) -> None:
    with pytest.raises(StatsInputError, match=message):
        distance_correlation(x, y)
