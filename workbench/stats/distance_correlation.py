"""Distance correlation (dCor) of two samples: 0 only when they are independent (in the
population), 1 when one is a similarity transform of the other, and, unlike Pearson's r, it
sees non-linear dependence. CHIRP reports it between models' Elo and another of their
properties (size, training loss).

Reference: Székely, Rizzo & Bakirov (2007), "Measuring and testing dependence by correlation
of distances", Ann. Statist. 35(6), definitions 1-4: the sample (V-statistic) form from
double-centred distance matrices, which is also what the ``dcor`` package's
``distance_correlation`` computes by default.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from workbench.stats.errors import StatsInputError


def _double_centred(values: np.ndarray) -> np.ndarray:
    """A_kl = a_kl - mean of row k - mean of column l + grand mean, a_kl = |x_k - x_l|."""
    distances = np.abs(values[:, None] - values[None, :])
    row = distances.mean(axis=1)
    return distances - row[:, None] - row[None, :] + distances.mean()


def distance_correlation(x: ArrayLike, y: ArrayLike) -> float:
    """dCor(x, y) of two equally long one-dimensional samples, in [0, 1]: the square root of
    dCov²(x, y) / sqrt(dVar²(x) dVar²(y)), with dCov²(x, y) = mean(A_kl B_kl). It is 0 when
    either sample is constant (its distance variance is 0), as Székely et al. define it.
    Raises :class:`StatsInputError` on samples of different lengths, fewer than two values,
    or values that are not finite numbers."""
    first = np.asarray(x, dtype=float)
    second = np.asarray(y, dtype=float)
    if first.ndim != 1 or second.ndim != 1 or len(first) != len(second):
        raise StatsInputError("distance correlation needs two one-dimensional samples of one size")
    if len(first) < 2:
        raise StatsInputError("distance correlation needs at least two pairs of values")
    if not (np.isfinite(first).all() and np.isfinite(second).all()):
        raise StatsInputError("distance correlation needs finite numbers (no NaN)")
    a, b = _double_centred(first), _double_centred(second)
    covariance = float((a * b).mean())
    variances = float((a * a).mean()) * float((b * b).mean())
    if variances <= 0.0:
        return 0.0
    # rounding can take the ratio a hair outside [0, 1]
    return float(np.sqrt(np.clip(covariance / np.sqrt(variances), 0.0, 1.0)))
