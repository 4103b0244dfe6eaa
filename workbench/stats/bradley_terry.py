"""Bradley-Terry ratings by maximum likelihood on aggregated pair counts, on the Elo scale.

Semantics are those of FastChat's ``compute_elo_mle_with_tie`` / Arena-Hard's and WildVision-
Bench's ``compute_mle_elo``: P(i beats j) = 1 / (1 + base^((r_j - r_i) / scale)), a tie counts
as half a win for each side, no intercept, no regularisation, and an anchor model pinned to a
chosen rating. The fit works on counts per model pair (not per battle) with damped Newton
iterations, vectorised over many weight vectors at once so a whole bootstrap is one solve.
It needs numpy alone (no scipy, no pandas until a Series is asked for): the command line's
leaderboard imports it on its start-up path.
"""

from __future__ import annotations

import contextlib
import logging
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.stats.errors import StatsInputError
from workbench.stats.pair_counts import PairCounts

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

# A vanishing ridge on the natural-scale parameters. It fixes the free additive constant (the
# ratings come out centred) and keeps the fit finite when the maximum likelihood estimate does
# not exist (a model that won or lost all its battles, or a comparison graph in pieces), where
# FastChat's L-BFGS simply stops somewhere far out. On well-posed data it moves ratings by less
# than 1e-4 Elo points.
RIDGE = 1e-6
MAX_ITERATIONS = 200
STEP_TOLERANCE = 1e-10
# Newton steps longer than this (in natural log-odds) are shortened: far from the optimum the
# quadratic model overshoots, and divergent directions then advance steadily instead of jumping.
MAX_STEP = 4.0
# From this many models on, the solves run on one BLAS thread. OpenBLAS (0.3.31) starts
# threading its LU at about 100 x 100, and on a busy 2-core machine 100 rounds of 100 models
# then took 5.6 CPU s (22 s wall) instead of 0.5 s; below 64 it stays on one thread anyway,
# so smaller fits skip the cost of limiting it (threadpoolctl's first call scans the libraries).
SINGLE_THREAD_MODELS = 48


@dataclass(frozen=True)
class EloScale:
    """How natural log-odds map to displayed ratings (FastChat's SCALE, BASE, INIT_RATING)."""

    scale: float = 400.0
    base: float = 10.0
    initial: float = 1000.0

    @property
    def points_per_logit(self) -> float:
        return self.scale / math.log(self.base)


DEFAULT_SCALE = EloScale()


@dataclass(frozen=True)
class Anchor:
    """A model whose rating is pinned, e.g. ``Anchor("claude-3-sonnet-20240229", 1000)``."""

    model: str
    rating: float

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """Parse ``MODEL=VALUE`` (the CLI's ``--anchor``)."""
        model, separator, value = text.rpartition("=")
        try:
            rating = float(value)
        except ValueError:
            rating = math.nan
        if not separator or not model or math.isnan(rating):
            raise StatsInputError(f"anchor must look like MODEL=VALUE, not '{text}'")
        return cls(model, rating)


def _expit(x: np.ndarray) -> np.ndarray:
    """The logistic function, 1 / (1 + exp(-x)), without overflow for large ``|x|``."""
    return np.exp(-np.logaddexp(0.0, -x))


def _log_expit(x: np.ndarray) -> np.ndarray:
    """log(1 / (1 + exp(-x))), accurate where the probability underflows."""
    return -np.logaddexp(0.0, -x)


def _log_likelihood(
    theta: np.ndarray, first: np.ndarray, second: np.ndarray, wins: np.ndarray, losses: np.ndarray
) -> np.ndarray:
    """The penalised objective. Besides the ridge, 0.5 * n * mean(theta)^2 is subtracted: the
    likelihood does not see the mean and the ridge already wants it at zero, so the optimum is
    unchanged, but the all-ones direction of the Hessian gets curvature 1 instead of ``RIDGE``
    and the Newton system stays well conditioned."""
    logits = theta[:, first] - theta[:, second]
    value = (wins * _log_expit(logits) + losses * _log_expit(-logits)).sum(axis=1)
    total = theta.sum(axis=1)
    return value - 0.5 * RIDGE * (theta * theta).sum(axis=1) - 0.5 * total * total / theta.shape[1]


def solve_bradley_terry(
    first: np.ndarray,
    second: np.ndarray,
    wins_first: np.ndarray,
    totals: np.ndarray,
    n_models: int,
) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry strengths (natural log-odds scale) for many weightings
    of the same pairs at once.

    ``wins_first`` and ``totals`` have shape (rounds, pairs): the wins of ``first[p]`` over
    ``second[p]`` (ties counted as one half) and the battles of pair ``p`` in each round. Returns
    (rounds, n_models) strengths, each row centred on zero. Newton-Raphson on the concave
    log-likelihood (Hunter 2004, "MM algorithms for generalized Bradley-Terry models", sec. 2,
    gives the model; the Hessian is minus the comparison graph's weighted Laplacian), with step
    halving whenever a step would lower the likelihood.
    """
    wins = np.atleast_2d(np.asarray(wins_first, dtype=np.float64))
    totals = np.atleast_2d(np.asarray(totals, dtype=np.float64))
    losses = totals - wins
    rounds = wins.shape[0]
    theta = np.zeros((rounds, n_models))
    current = _log_likelihood(theta, first, second, wins, losses)
    active = np.arange(rounds)
    with _one_blas_thread(n_models):
        theta, active = _newton(theta, current, active, first, second, wins, totals, losses)
    if active.size:
        log.warning("Bradley-Terry fit stopped after %d iterations", MAX_ITERATIONS)
    return theta - theta.mean(axis=1, keepdims=True)


def _one_blas_thread(n_models: int) -> contextlib.AbstractContextManager[object]:
    """One BLAS thread for the solves of ``n_models`` (see :data:`SINGLE_THREAD_MODELS`): the
    systems are small and many, and threads only add synchronisation."""
    if n_models < SINGLE_THREAD_MODELS:
        return contextlib.nullcontext()
    # start-up: threadpoolctl inspects the loaded BLAS libraries; only large fits need it
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _newton(
    theta: np.ndarray,
    current: np.ndarray,
    active: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    wins: np.ndarray,
    totals: np.ndarray,
    losses: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The damped Newton iterations of :func:`solve_bradley_terry`; returns the strengths and
    the rounds still moving when :data:`MAX_ITERATIONS` ran out."""
    n_models = theta.shape[1]
    n_pairs = len(first)
    # pairs x models: +1 for the first model of a pair, -1 for the second. Dense: at most a
    # few thousand pairs by a hundred models, and a dense product is one BLAS call.
    incidence = np.zeros((n_pairs, n_models))
    incidence[np.arange(n_pairs), first] = 1.0
    incidence[np.arange(n_pairs), second] = -1.0
    touches = np.abs(incidence)
    off_first = first * n_models + second
    off_second = second * n_models + first
    diagonal = np.arange(n_models) * (n_models + 1)
    for _ in range(MAX_ITERATIONS):
        if active.size == 0:
            break
        th = theta[active]
        probability = _expit(th[:, first] - th[:, second])
        gradient = (wins[active] - totals[active] * probability) @ incidence - RIDGE * th
        gradient -= th.sum(axis=1, keepdims=True) / n_models
        curvature = totals[active] * probability * (1.0 - probability)
        hessian = np.zeros((active.size, n_models * n_models))
        hessian[:, off_first] = -curvature
        hessian[:, off_second] = -curvature
        hessian[:, diagonal] = curvature @ touches + RIDGE
        hessian += 1.0 / n_models
        step = np.linalg.solve(
            hessian.reshape(active.size, n_models, n_models), gradient[..., None]
        )[..., 0]
        longest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(longest, 1e-300))
        before = current[active]
        candidate = th + step
        after = _log_likelihood(candidate, first, second, wins[active], losses[active])
        for _ in range(40):
            worse = after < before - 1e-12 * np.abs(before)
            if not worse.any():
                break
            step[worse] *= 0.5
            candidate[worse] = th[worse] + step[worse]
            after[worse] = _log_likelihood(
                candidate[worse], first, second, wins[active][worse], losses[active][worse]
            )
        theta[active] = candidate
        current[active] = after
        active = active[np.abs(step).max(axis=1) > STEP_TOLERANCE]
    return theta, active


def to_rating_scale(
    strengths: np.ndarray,
    models: tuple[str, ...],
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
) -> np.ndarray:
    """Natural-scale strengths to Elo-scale ratings: ``scale.initial`` on average, or shifted so
    the anchor model has its pinned rating (FastChat's ``scale_and_offset``)."""
    ratings = strengths * scale.points_per_logit + scale.initial
    if anchor is not None:
        if anchor.model not in models:
            raise StatsInputError(f"anchor model '{anchor.model}' has no battles in the selection")
        index = models.index(anchor.model)
        ratings = ratings + (anchor.rating - ratings[..., [index]])
    return ratings


def wins_with_half_ties(counts: PairCounts, cells: np.ndarray | None = None) -> np.ndarray:
    """Wins of each pair's first model with ties as one half, from :attr:`PairCounts.cells`-
    shaped weights (one row per round; default: the observed counts)."""
    cells = np.atleast_2d(counts.cells if cells is None else cells)
    n_pairs = len(counts.first)
    return cells[:, :n_pairs] + 0.5 * cells[:, 2 * n_pairs :]


def pair_totals(counts: PairCounts, cells: np.ndarray | None = None) -> np.ndarray:
    cells = np.atleast_2d(counts.cells if cells is None else cells)
    n_pairs = len(counts.first)
    return cells[:, :n_pairs] + cells[:, n_pairs : 2 * n_pairs] + cells[:, 2 * n_pairs :]


def fit_counts(
    counts: PairCounts,
    cells: np.ndarray | None = None,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
) -> np.ndarray:
    """Elo-scale Bradley-Terry ratings for the observed counts, or for each row of ``cells``
    (alternative weights of the same (pair, outcome) cells, e.g. bootstrap rounds)."""
    strengths = solve_bradley_terry(
        counts.first,
        counts.second,
        wins_with_half_ties(counts, cells),
        pair_totals(counts, cells),
        len(counts.models),
    )
    return to_rating_scale(strengths, counts.models, anchor, scale)


def bradley_terry_ratings(
    battles: pd.DataFrame | PairCounts,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
) -> pd.Series:
    """Bradley-Terry maximum-likelihood ratings, highest first.

    Reference: FastChat ``compute_elo_mle_with_tie`` (fastchat/serve/monitor/elo_analysis.py)
    and WildVision-Bench/Arena-Hard ``compute_mle_elo``: logistic regression without intercept
    or penalty on +log(base)/-log(base) model columns, ties duplicated as one win each way,
    ratings ``scale * coef + initial``, then shifted so the anchor holds its value.
    """
    # start-up: pandas, not needed when the counts come ready (the quick leaderboard)
    import pandas as pd

    from workbench.stats.battles import pair_counts

    counts = battles if isinstance(battles, PairCounts) else pair_counts(battles)
    ratings = fit_counts(counts, anchor=anchor, scale=scale)[0]
    return pd.Series(ratings, index=list(counts.models), name="rating").sort_values(ascending=False)
