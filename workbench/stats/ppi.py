"""Human-anchored judge ratings: Bradley-Terry by prediction-powered inference.

A few human votes and many judge verdicts on the same kind of comparisons. The judge's verdicts
alone estimate the judge's ratings, biased wherever the judge is; the humans' alone are unbiased
but few. Prediction-powered inference (Angelopoulos et al. 2023, "Prediction-powered
inference", and its power-tuned form PPI++, Angelopoulos, Duchi and Zrnic 2023) uses the
comparisons both judged to measure the judge's error and subtracts it:

    theta_PP = argmin  lam * L_N^f(theta) + L_n^y(theta) - lam * L_n^f(theta)

with L the mean logistic loss of Bradley-Terry, ``y`` the human outcomes on the n comparisons
both judged, ``f`` the judge's verdicts (on those n, and on the N comparisons only the judge
judged). The estimate is consistent for the humans' ratings whatever the judge's errors; its
covariance is the sandwich H^-1 (lam^2 V_f / N + V_r / n) H^-1, and ``lam`` is chosen to make
it smallest (PPI++, Example 6.1), clipped to [0, 1], so an uninformative judge gets lam near 0
and the intervals fall back to the humans' own; a judge whose verdicts do not follow the
humans' votes beyond chance (a one-sided 5% test) gets 0, so noise is never taken for help.

Rank-sets follow Chatzi et al. 2024 ("Prediction-powered ranking of large language models"):
model i's rank-set runs from 1 + the number of models whose difference with i is significantly
above zero to K - the number significantly below, with simultaneous (Bonferroni) intervals on
the K(K-1)/2 differences, so every rank-set covers the true rank together at level 1 - alpha.

Outcomes are P(model a beat model b): 1, 0, or 0.5 for a tie (FastChat's convention).
numpy and scipy only; Qt-free."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from workbench.stats.errors import StatsInputError

#: Elo points per natural log-odds unit (FastChat's scale 400, base 10)
POINTS_PER_LOGIT = 400.0 / math.log(10.0)
_MAX_ITERATIONS = 100
_TOLERANCE = 1e-10


@dataclass(frozen=True)
class Comparisons:
    """Pairwise outcomes: model indices ``a`` and ``b`` (0..K-1) and P(a beat b) per row."""

    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray

    def __post_init__(self) -> None:
        if not (len(self.a) == len(self.b) == len(self.outcome)):
            raise StatsInputError("comparisons need one model a, model b and outcome per row")
        if len(self.a) and (np.any(self.a == self.b)):
            raise StatsInputError("a comparison sets a model against itself")
        if len(self.outcome) and (np.nanmin(self.outcome) < 0 or np.nanmax(self.outcome) > 1):
            raise StatsInputError("outcomes are probabilities that model a won, in [0, 1]")

    def __len__(self) -> int:
        return len(self.a)


@dataclass(frozen=True)
class PredictionPoweredRatings:
    """The ratings (Elo scale, ``anchor`` at ``anchor_rating``) with standard errors, intervals
    at ``1 - alpha``, rank-sets, the power-tuning weight and what they were computed from."""

    ratings: np.ndarray
    standard_errors: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    rank_lower: np.ndarray
    rank_upper: np.ndarray
    lam: float
    alpha: float
    human_votes: int
    judge_verdicts: int
    judged_by_both: int


def _features(comparisons: Comparisons, models: int, anchor: int) -> np.ndarray:
    """+1 for model a, -1 for model b, the anchor's column dropped (it is fixed at 0)."""
    x = np.zeros((len(comparisons), models))
    rows = np.arange(len(comparisons))
    x[rows, comparisons.a] = 1.0
    x[rows, comparisons.b] = -1.0
    return np.delete(x, anchor, axis=1)


def _gradients(x: np.ndarray, theta: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """Per-row gradient of the logistic loss: (sigma(x theta) - outcome) x."""
    return (expit(x @ theta) - outcome)[:, None] * x


def _hessian(x: np.ndarray, theta: np.ndarray) -> np.ndarray:
    p = expit(x @ theta)
    return (x * (p * (1 - p))[:, None]).T @ x / len(x)


def _fit(
    x_n: np.ndarray,
    y_n: np.ndarray,
    f_n: np.ndarray,
    x_big: np.ndarray,
    f_big: np.ndarray,
    lam: float,
) -> np.ndarray:
    """Newton's method on the PPI loss (convex for lam in [0, 1]: the logistic loss's Hessian
    does not depend on the outcome, so the rectifier's Hessians cancel to (1 - lam) of one)."""
    dimension = x_n.shape[1]
    theta = np.zeros(dimension)
    ridge = 1e-9 * np.eye(dimension)
    for _ in range(_MAX_ITERATIONS):
        gradient = _gradients(x_n, theta, y_n).mean(axis=0) - lam * _gradients(
            x_n, theta, f_n
        ).mean(axis=0)
        hessian = (1 - lam) * _hessian(x_n, theta)
        if len(x_big):
            gradient = gradient + lam * _gradients(x_big, theta, f_big).mean(axis=0)
            hessian = hessian + lam * _hessian(x_big, theta)
        step = np.linalg.solve(hessian + ridge, gradient)
        longest = np.abs(step).max(initial=0.0)
        if longest > 4.0:  # far from the optimum a full Newton step overshoots
            step *= 4.0 / longest
        theta = theta - step
        if longest < _TOLERANCE:
            break
    return theta


def _covariance(
    x_n: np.ndarray,
    y_n: np.ndarray,
    f_n: np.ndarray,
    x_big: np.ndarray,
    f_big: np.ndarray,
    theta: np.ndarray,
    lam: float,
) -> np.ndarray:
    n, big = len(x_n), len(x_big)
    # with the judge's weight at 0 the estimate is the humans' own, and so is its Hessian
    design = np.vstack([x_n, x_big]) if big and lam > 0 else x_n
    inverse = np.linalg.pinv(_hessian(design, theta))
    rectifier = _gradients(x_n, theta, y_n) - lam * _gradients(x_n, theta, f_n)
    # the few human votes carry the fitted parameters: a degrees-of-freedom correction (as
    # HC1 does for a sandwich) keeps the intervals' coverage at a few hundred votes
    freedom = n / max(n - x_n.shape[1] - 1, 1)
    middle = freedom * np.atleast_2d(np.cov(rectifier, rowvar=False)) / n
    if big:
        middle = (
            middle
            + lam**2 * np.atleast_2d(np.cov(_gradients(x_big, theta, f_big), rowvar=False)) / big
        )
    return inverse @ middle @ inverse


def _tuned_lambda(
    x_n: np.ndarray,
    y_n: np.ndarray,
    f_n: np.ndarray,
    x_big: np.ndarray,
    f_big: np.ndarray,
    theta: np.ndarray,
) -> float:
    """PPI++'s variance-minimising weight (their Example 6.1, the trace criterion)."""
    n, big = len(x_n), len(x_big)
    if big == 0:
        return 0.0
    inverse = np.linalg.pinv(_hessian(np.vstack([x_n, x_big]), theta))
    grad_y, grad_f = _gradients(x_n, theta, y_n), _gradients(x_n, theta, f_n)
    grad_all_f = np.vstack([grad_f, _gradients(x_big, theta, f_big)])
    centred_y, centred_f = grad_y - grad_y.mean(axis=0), grad_f - grad_f.mean(axis=0)
    cross = centred_y.T @ centred_f / (n - 1)
    var_f = np.atleast_2d(np.cov(grad_all_f, rowvar=False))
    numerator = np.trace(inverse @ (cross + cross.T) @ inverse)
    denominator = 2 * (1 + n / big) * np.trace(inverse @ var_f @ inverse)
    if denominator <= 0:
        return 0.0
    return float(np.clip(numerator / denominator, 0.0, 1.0))


def _agrees_beyond_chance(
    x_n: np.ndarray, y_n: np.ndarray, f_n: np.ndarray, theta: np.ndarray
) -> bool:
    """Whether the judge's verdicts follow what the humans' votes show beyond the pair's
    ratings: a one-sided test (5%) of the correlation between the judge's verdict and the
    human vote's residual. A judge that does not pass gets weight 0: with weight tuned on pure
    noise, the intervals would come out narrower than the humans' without being right more
    often."""
    residual = y_n - expit(x_n @ theta)
    if len(y_n) < 4 or np.std(residual) == 0 or np.std(f_n) == 0:
        return False
    correlation = float(np.corrcoef(residual, f_n)[0, 1])
    return correlation * math.sqrt(len(y_n) - 2) / math.sqrt(
        max(1 - correlation**2, 1e-12)
    ) > norm.ppf(0.95)


def rank_sets(
    ratings: np.ndarray, covariance: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each model's rank-set (1 = best) from simultaneous intervals on every difference."""
    models = len(ratings)
    pairs = models * (models - 1) / 2
    z = norm.ppf(1 - alpha / (2 * max(pairs, 1)))
    variance = np.diag(covariance)
    difference = ratings[:, None] - ratings[None, :]
    spread = np.sqrt(np.maximum(variance[:, None] + variance[None, :] - 2 * covariance, 0.0))
    above = difference - z * spread > 0  # row significantly above column
    below = difference + z * spread < 0
    np.fill_diagonal(above, False)
    np.fill_diagonal(below, False)
    return 1 + below.sum(axis=1), models - above.sum(axis=1)


def prediction_powered_ratings(
    models: int,
    both: Comparisons,
    judge_verdicts_on_both: np.ndarray,
    judge_only: Comparisons,
    *,
    anchor: int = 0,
    anchor_rating: float = 1000.0,
    alpha: float = 0.05,
    lam: float | None = None,
) -> PredictionPoweredRatings:
    """Bradley-Terry ratings of ``models`` models, anchored by humans, powered by a judge.

    ``both`` holds the comparisons humans voted on, with the human outcome; the judge's verdict
    on each of them is ``judge_verdicts_on_both`` (same order). ``judge_only`` holds the
    comparisons only the judge judged, with its verdicts. ``lam`` None tunes the weight
    (PPI++); 0 gives the humans' classical estimate, 1 plain PPI."""
    if len(both) < 2:
        raise StatsInputError(
            "prediction-powered ratings need at least two comparisons judged by both"
        )
    if len(judge_verdicts_on_both) != len(both):
        raise StatsInputError("one judge verdict is needed for every comparison humans voted on")
    if not 0 <= anchor < models:
        raise StatsInputError(f"the anchor index {anchor} is not one of the {models} models")
    seen = np.union1d(np.union1d(both.a, both.b), np.union1d(judge_only.a, judge_only.b))
    if len(seen) < models:
        raise StatsInputError("every model needs at least one comparison")
    x_n = _features(both, models, anchor)
    x_big = _features(judge_only, models, anchor)
    y_n, f_n, f_big = both.outcome, np.asarray(judge_verdicts_on_both, float), judge_only.outcome
    if lam is None:
        classical = _fit(x_n, y_n, f_n, x_big, f_big, 0.0)
        informative = _agrees_beyond_chance(x_n, y_n, f_n, classical)
        lam = _tuned_lambda(x_n, y_n, f_n, x_big, f_big, classical) if informative else 0.0
    theta = _fit(x_n, y_n, f_n, x_big, f_big, lam)
    covariance = _covariance(x_n, y_n, f_n, x_big, f_big, theta, lam)
    # back to every model, the anchor at 0 with no variance
    full_theta = np.insert(theta, anchor, 0.0)
    full_covariance = np.insert(np.insert(covariance, anchor, 0.0, axis=0), anchor, 0.0, axis=1)
    ratings = anchor_rating + POINTS_PER_LOGIT * full_theta
    points_covariance = POINTS_PER_LOGIT**2 * full_covariance
    errors = np.sqrt(np.maximum(np.diag(points_covariance), 0.0))
    z = norm.ppf(1 - alpha / 2)
    low_rank, high_rank = rank_sets(ratings, points_covariance, alpha)
    return PredictionPoweredRatings(
        ratings=ratings,
        standard_errors=errors,
        lower=ratings - z * errors,
        upper=ratings + z * errors,
        rank_lower=low_rank,
        rank_upper=high_rank,
        lam=float(lam),
        alpha=alpha,
        human_votes=len(both),
        judge_verdicts=len(both) + len(judge_only),
        judged_by_both=len(both),
    )


def classical_ratings(
    models: int,
    human: Comparisons,
    *,
    anchor: int = 0,
    anchor_rating: float = 1000.0,
    alpha: float = 0.05,
) -> PredictionPoweredRatings:
    """The humans' own Bradley-Terry ratings with sandwich intervals: the estimate above with
    the judge's weight at 0, for comparing widths on the same footing."""
    empty = Comparisons(np.array([], int), np.array([], int), np.array([], float))
    return prediction_powered_ratings(
        models,
        human,
        human.outcome,
        empty,
        anchor=anchor,
        anchor_rating=anchor_rating,
        alpha=alpha,
        lam=0.0,
    )
