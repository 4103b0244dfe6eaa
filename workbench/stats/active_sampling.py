"""Which model pair to ask about next: Chatbot Arena's active-sampling rule on the current
Bradley-Terry ratings, aimed at the rating differences whose order is still open, with a floor of
exploration.

Chiang et al. 2024, "Chatbot Arena: An Open Platform for Evaluating LLMs by Human Preference"
(arXiv 2403.04132), section 5, active sampling rule (eq. 9): pair ``a`` is drawn with
probability proportional to the expected reduction of its interval width from one more battle,

    P(a) ∝ sqrt(Σ_aa / n_a) - sqrt(Σ_aa / (n_a + 1)),

with ``n_a`` the pair's battles so far and ``Σ_aa`` the asymptotic variance of its estimate.
Here the same quantity, the width of an interval before and after one more battle of pair ``a``,
is taken from the fit's covariance ``C`` (inverse Fisher information): one battle of ``a`` with
win probability ``p`` adds ``w = p (1 - p)`` times ``x xᵀ`` to the information (``x`` = the
pair's contrast), so the variance of any difference ``y`` falls from ``yᵀCy`` to
``yᵀCy - w (yᵀCx)² / (1 + w xᵀCx)`` (a rank-one update). When ``y = x`` this is the paper's rule.
A ranking needs only the differences whose order can still be settled, and a battle of one pair
also narrows the differences of its neighbours (in WildVision-Bench every battle is against one
of two anchors), so the weight of pair ``a`` sums, over every model pair ``y``, its width
reduction times how much a narrower interval raises the chance that ``y`` is told apart:
with ``z = |d| / sd(d)``, the derivative of Φ(z - 1.96) in the interval's width is proportional
to φ(z - 1.96) z, taken here as φ(z - 1.96) min(z, 1.96). A settled order (z well above 1.96)
and two models indistinguishable at any sample size the campaign can afford (z near 0) both get
little; differences near the edge of their interval get most. The weights are squared before
normalising (a sharper choice among the candidates measured fewer votes in the replay bench,
``bench/sample_efficiency.py``). A share ``exploration`` of the probability is spread evenly over
the candidate pairs, so that no pair starves and a wrong early fit is corrected.

The fit is the maximum a posteriori Bradley-Terry fit (ties as half wins) with a weak normal
prior on each strength (:data:`PRIOR_PRECISION`), so it exists from the first vote on (a model
that has won every battle has no maximum-likelihood strength) and the first draws are uniform.

A second rule, :func:`design_weights`, plans instead of weighing one vote
at a time: it finds the allocation of the campaign's remaining votes that a designer who took
the current fit for the truth would choose, and hands each pair out in proportion to its share
of that plan (so the pairs furthest behind their planned share get the most). The plan is a
plug-in optimal design (Pukelsheim 2006, "Optimal Design of Experiments", ch. 5-6, weighted
A-criteria): it maximises, at the end of the campaign, the expected number of adjacent pairs of
the current order told apart, Σ Φ(z_k - 1.96), plus a share of the expected number of model
pairs ordered right, found by the multiplicative algorithm (Silvey, Titterington and Torsney
1978) on the criterion's gradient, ``w_a Σ_k λ_k (x_aᵀ M⁻¹ c_k)²``. Pairs the campaign's budget
cannot tell apart get little, pairs near the edge of their interval at the end get most.

Pure functions over arrays; the draw is a number in [0, 1) given by the caller, so a choice is
replayed exactly from the counts and the draw.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

#: the share of probability spread evenly over every candidate pair
DEFAULT_EXPLORATION = 0.1
#: prior precision of each strength (natural log-odds): keeps the variances finite before a
#: model has battles, and equal, so the first draws are uniform
PRIOR_PRECISION = 0.25
MAX_NEWTON_STEPS = 50
#: a difference counts as told apart when its 95% interval excludes 0
Z_SEPARATED = 1.959963984540054
#: the power the pair weights are raised to before normalising
SHARPENING = 2.0

#: the design's multiplicative steps per choice
DESIGN_STEPS = 40
#: the least number of votes the design plans ahead for (a campaign at or past its budget)
DESIGN_MIN_HORIZON = 500
#: the weight of the ordering term (Kendall tau) against the adjacent separations
ORDER_SHARE = 0.3

#: a criterion gradient below this share of the terms it is the difference of is rounding
CANCELLATION_TOLERANCE = 1e-12
#: the standard normal density's constant, the value scipy.stats.norm divides by
_SQRT_TWO_PI = np.sqrt(2 * np.pi)


@dataclass(frozen=True)
class PairChoiceState:
    """What a choice was made from: the candidate pairs (model indices, first < second) and
    each one's battles so far (first's wins, second's wins, ties)."""

    models: int
    first: np.ndarray
    second: np.ndarray
    wins_first: np.ndarray
    wins_second: np.ndarray
    ties: np.ndarray

    @property
    def totals(self) -> np.ndarray:
        return self.wins_first + self.wins_second + self.ties

    def digest(self) -> str:
        """A SHA-256 of the state, for the choice log."""
        rows = np.stack(
            [self.first, self.second, self.wins_first, self.wins_second, self.ties]
        ).astype(np.float64)
        return hashlib.sha256(f"{self.models}:".encode() + rows.tobytes()).hexdigest()


@dataclass(frozen=True)
class PairWeights:
    """The fit behind a choice and the probability of each candidate pair."""

    strengths: np.ndarray  # natural log-odds, centred
    variances: np.ndarray  # per model, of the strength
    difference: np.ndarray  # per candidate pair: strength of first minus second
    difference_sd: np.ndarray  # per candidate pair
    probabilities: np.ndarray  # per candidate pair, summing to 1


def fit_with_covariance(state: PairChoiceState) -> tuple[np.ndarray, np.ndarray]:
    """Strengths (natural log-odds) and their covariance (the inverse of the posterior's
    information) by Newton's method on the MAP objective, which is strictly concave."""
    first, second = state.first, state.second
    totals = state.totals.astype(np.float64)
    wins = (state.wins_first + 0.5 * state.ties).astype(np.float64)
    strengths = np.zeros(state.models)
    for _ in range(MAX_NEWTON_STEPS):
        p = expit(strengths[first] - strengths[second])
        residual = wins - totals * p
        gradient = -PRIOR_PRECISION * strengths
        np.add.at(gradient, first, residual)
        np.add.at(gradient, second, -residual)
        information = information_matrix(state.models, first, second, totals * p * (1 - p))
        step = np.linalg.solve(information, gradient)
        strengths = strengths + step
        if np.abs(step).max() < 1e-9:
            break
    p = expit(strengths[first] - strengths[second])
    information = information_matrix(state.models, first, second, totals * p * (1 - p))
    return strengths, np.linalg.inv(information)


def information_matrix(
    models: int, first: np.ndarray, second: np.ndarray, weight: np.ndarray
) -> np.ndarray:
    information = np.diag(np.full(models, PRIOR_PRECISION))
    # one unbuffered add in the order of four (the diagonal's terms, then the off-diagonal
    # ones): each entry gets the same additions in the same order, so the same bits, and a
    # choice makes 120 of these matrices
    rows = np.concatenate((first, second, first, second))
    columns = np.concatenate((first, second, second, first))
    np.add.at(information, (rows, columns), np.concatenate((weight, weight, -weight, -weight)))
    return information


def pair_weights(state: PairChoiceState, exploration: float = DEFAULT_EXPLORATION) -> PairWeights:
    """The probability of asking about each candidate pair next (see the module docstring)."""
    if not 0 <= exploration <= 1:
        raise ValueError("exploration is a share between 0 and 1")
    strengths, covariance = fit_with_covariance(state)
    models = state.models
    first, second = state.first, state.second
    # every model pair y (the differences the ranking is about) and every candidate pair x
    upper_first, upper_second = np.triu_indices(models, 1)
    y_cov_y = (
        covariance[upper_first, upper_first]
        + covariance[upper_second, upper_second]
        - 2 * covariance[upper_first, upper_second]
    )
    y_sd = np.sqrt(np.maximum(y_cov_y, 1e-12))
    z = np.abs(strengths[upper_first] - strengths[upper_second]) / y_sd
    settling = standard_normal_pdf(z - Z_SEPARATED) * np.minimum(z, Z_SEPARATED)
    cov_x = covariance[:, first] - covariance[:, second]  # C x, one column per candidate
    y_cov_x = cov_x[upper_first] - cov_x[upper_second]  # (model pairs, candidates)
    x_cov_x = cov_x[first, np.arange(len(first))] - cov_x[second, np.arange(len(first))]
    p = expit(strengths[first] - strengths[second])
    w = p * (1 - p)
    after = y_cov_y[:, None] - w * y_cov_x**2 / (1 + w * x_cov_x)
    reduction = y_sd[:, None] - np.sqrt(np.maximum(after, 1e-12))
    weight = (settling @ reduction) ** SHARPENING
    count = len(first)
    if weight.sum() > 0:
        probabilities = (1 - exploration) * weight / weight.sum() + exploration / count
    else:
        probabilities = np.full(count, 1 / count)
    difference = strengths[first] - strengths[second]
    sd = np.sqrt(np.maximum(x_cov_x, 1e-12))
    return PairWeights(strengths, np.diag(covariance).copy(), difference, sd, probabilities)


def design_weights(
    state: PairChoiceState,
    budget: float,
    exploration: float = DEFAULT_EXPLORATION,
    targets: tuple[np.ndarray, np.ndarray] | None = None,
) -> PairWeights:
    """The probability of asking about each candidate pair next by the plug-in design (see the
    module docstring): the plan covers the votes from now to ``budget`` (the campaign's planned
    votes), at least :data:`DESIGN_MIN_HORIZON`. ``targets`` (two arrays of model indices)
    names the differences to tell apart instead of the adjacent ones of the current order: a
    campaign cannot know better ones, a replay bench can (to measure what that knowledge is
    worth)."""
    if not 0 <= exploration <= 1:
        raise ValueError("exploration is a share between 0 and 1")
    strengths, covariance = fit_with_covariance(state)
    models = state.models
    first, second = state.first, state.second
    totals = state.totals.astype(np.float64)
    count = len(first)
    p = expit(strengths[first] - strengths[second])
    w = p * (1 - p)
    order = np.argsort(-strengths, kind="stable")
    # the adjacent differences of the current order, and every model pair oriented the same way
    better, worse = (order[:-1], order[1:]) if targets is None else targets
    gap = np.abs(strengths[better] - strengths[worse])
    upper_a, upper_b = np.triu_indices(models, 1)
    swap = strengths[upper_a] < strengths[upper_b]
    high, low = np.where(swap, upper_b, upper_a), np.where(swap, upper_a, upper_b)
    spread = strengths[high] - strengths[low]
    horizon = max(budget - float(totals.sum()), DESIGN_MIN_HORIZON)
    plan = np.full(count, 1 / count)
    for _ in range(DESIGN_STEPS):
        inverse = np.linalg.inv(
            information_matrix(models, first, second, (totals + horizon * plan) * w)
        )
        gradient = _criterion_gradient(inverse, better, worse, gap, first, second, w, Z_SEPARATED)
        ordering = _criterion_gradient(inverse, high, low, spread, first, second, w, 0.0)
        combined = _share(gradient) + ORDER_SHARE * _share(ordering)
        if not combined.sum() > 0:
            break
        plan = plan * np.sqrt(combined)
        plan = plan / plan.sum()
    probabilities = (1 - exploration) * plan + exploration / count
    x_cov_x = covariance[first, first] + covariance[second, second] - 2 * covariance[first, second]
    return PairWeights(
        strengths,
        np.diag(covariance).copy(),
        strengths[first] - strengths[second],
        np.sqrt(np.maximum(x_cov_x, 1e-12)),
        probabilities,
    )


def _criterion_gradient(
    inverse: np.ndarray,
    high: np.ndarray,
    low: np.ndarray,
    difference: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    w: np.ndarray,
    threshold: float,
) -> np.ndarray:
    """How much one more vote of each candidate raises Σ Φ(z - threshold) over the differences
    ``high - low`` (z their value over their standard error under ``inverse``). The gradient
    ``w_a Σ_y s_y (x_aᵀ M⁻¹ c_y)²`` is ``w_a x_aᵀ M⁻¹ L M⁻¹ x_a`` with ``L = Σ_y s_y c_y c_yᵀ``
    (a weighted Laplacian), so it costs one product of model-sized matrices, not one per pair."""
    variance = np.maximum(inverse[high, high] + inverse[low, low] - 2 * inverse[high, low], 1e-12)
    z = difference / np.sqrt(variance)
    slope = standard_normal_pdf(z - threshold) * z / variance
    laplacian = information_matrix(len(inverse), high, low, slope)
    laplacian[np.diag_indices(len(inverse))] -= PRIOR_PRECISION
    sandwich = inverse @ laplacian @ inverse
    magnitude = sandwich[first, first] + sandwich[second, second]
    gradient = w * (magnitude - 2 * sandwich[first, second])
    # a quadratic form in a Laplacian is never negative: when every difference is far from its
    # edge the slopes underflow, and what is left is the rounding of the cancelling terms, whose
    # share would steer the plan by noise (or, negative, make it NaN)
    rounding = CANCELLATION_TOLERANCE * w * np.abs(magnitude)
    return np.where(gradient > rounding, gradient, 0.0)


def standard_normal_pdf(x: np.ndarray) -> np.ndarray:
    """φ(x), bit for bit the value of ``scipy.stats.norm.pdf(x)`` (so the logged choices' digests
    are unchanged) at a fortieth of its cost: scipy's generic argument checks cost more than the
    density itself on these few numbers, and a choice evaluates it 80 times."""
    return np.exp(-(x**2) / 2.0) / _SQRT_TWO_PI


def _share(values: np.ndarray) -> np.ndarray:
    total = values.sum()
    return values / total if total > 0 else np.zeros_like(values)


def draw_pair(probabilities: np.ndarray, draw: float) -> int:
    """The candidate pair a uniform ``draw`` in [0, 1) falls on (inverse of the cumulative
    probabilities, in candidate order)."""
    if not np.all(np.isfinite(probabilities)):
        raise ValueError("pair probabilities must be finite numbers")
    cumulative = np.cumsum(probabilities)
    index = int(np.searchsorted(cumulative, draw * cumulative[-1], side="right"))
    return min(index, len(probabilities) - 1)


def choice_draw(seed: int, ordinal: int) -> float:
    """The uniform draw of a campaign's ``ordinal``-th choice: a function of the seed and the
    ordinal alone, so that a replay needs nothing else (and choices made at once by several
    annotators do not share a random stream)."""
    digest = hashlib.sha256(f"adaptive:{seed}:{ordinal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64
