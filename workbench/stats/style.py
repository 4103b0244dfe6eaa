"""Style control: Bradley-Terry with answer length and markdown (headers, lists, bold) as extra
regression features, so ratings say how good a model is apart from how it formats.

Reference: Li, Angelopoulos, Chiang, "Controlling for Style in Chatbot Arena" (LMSYS blog,
2024-08-28) and FastChat ``preprocess_for_style`` / ``fit_contextual_bt`` /
``compute_style_control`` (fastchat/serve/monitor/rating_systems.py); markdown counting as in
FastChat ``count_markdown_elements`` (add_markdown_info.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit, log_expit

from workbench.stats.battles import checked_battles, indexed_battles
from workbench.stats.bradley_terry import DEFAULT_SCALE, Anchor, EloScale
from workbench.stats.errors import StatsInputError

STYLE_FEATURES = ("length", "headers", "lists", "bold")
# FastChat's default: an L2 penalty of reg/2 * |params|^2 on the un-duplicated rows, the same as
# sklearn's LogisticRegression(C=1) on its duplicated design matrix.
FASTCHAT_STYLE_REGULARIZATION = 0.5

_CODE_BLOCK = re.compile(r"```[^`]*```")
_HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
_ORDERED_ITEM = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
_UNORDERED_ITEM = re.compile(r"^\s*[-*+]\s", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Words and punctuation marks: a tokenizer-free stand-in for the BPE token counts FastChat
    uses for length (only ratios of lengths enter the features)."""
    return len(_TOKEN.findall(text))


def style_counts(text: str, length: int | None = None) -> dict[str, int]:
    """Length and markdown element counts of one answer, code blocks removed first (FastChat
    ``count_markdown_elements``). ``length`` overrides the token count when the source gives one
    (e.g. WildVision-Bench's ``token_len``)."""
    prose = _CODE_BLOCK.sub("", text)
    return {
        "length": count_tokens(text) if length is None else int(length),
        "headers": len(_HEADER.findall(prose)),
        "lists": len(_ORDERED_ITEM.findall(prose)) + len(_UNORDERED_ITEM.findall(prose)),
        "bold": len(_BOLD.findall(prose)),
    }


def normalized_style_differences(
    features_a: np.ndarray, features_b: np.ndarray, weight: np.ndarray | None = None
) -> np.ndarray:
    """Per battle and feature, (a - b) / (a + b + 1), then standardised over the battles.

    FastChat ``preprocess_for_style`` with ``apply_ratio=[1, 1, 1, 1]`` and ``add_one=True``.
    With ``weight`` the mean and standard deviation are weighted (a row of weight k stands for k
    battles). A feature that never varies becomes all zeros instead of FastChat's 0/0.
    """
    a = np.asarray(features_a, dtype=np.float64)
    b = np.asarray(features_b, dtype=np.float64)
    ratio = (a - b) / (a + b + 1.0)
    weight = np.ones(len(ratio)) if weight is None else np.asarray(weight, dtype=np.float64)
    mean = np.average(ratio, axis=0, weights=weight)
    spread = np.sqrt(np.average((ratio - mean) ** 2, axis=0, weights=weight))
    return np.divide(ratio - mean, spread, out=np.zeros_like(ratio), where=spread > 0)


@dataclass(frozen=True)
class StyleControlled:
    """Style-controlled ratings (highest first) and the style coefficients (log-odds per
    standard deviation of each normalized feature difference; positive = voters favour more)."""

    ratings: pd.Series
    coefficients: pd.Series


def _penalized_log_likelihood(
    params: np.ndarray,
    n_models: int,
    index_a: np.ndarray,
    index_b: np.ndarray,
    features: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray,
    alpha: float,
    regularization: float,
) -> float:
    logits = alpha * (params[index_a] - params[index_b]) + features @ params[n_models:]
    value = weight @ (score * log_expit(logits) + (1.0 - score) * log_expit(-logits))
    return float(value - 0.5 * regularization * params @ params)


def fit_style_parameters(
    index_a: np.ndarray,
    index_b: np.ndarray,
    features: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray,
    n_models: int,
    alpha: float,
    regularization: float = FASTCHAT_STYLE_REGULARIZATION,
) -> np.ndarray:
    """Maximise the L2-penalised contextual Bradley-Terry log-likelihood (FastChat
    ``contextual_bt_loss_and_grad``): logit = alpha * (r_a - r_b) + features . beta. Newton
    iterations with the exact Hessian, assembled from per-pair and per-model sums rather than
    a dense design matrix. Returns ``[r_0 .. r_{n-1}, beta_0 .. beta_{k-1}]`` in base-``base``
    units (rating = scale * r + offset)."""
    if regularization <= 0:
        raise StatsInputError("style control needs a positive regularization")
    k = features.shape[1]
    size = n_models + k
    params = np.zeros(size)
    pair_code = index_a * n_models + index_b
    current = _penalized_log_likelihood(
        params, n_models, index_a, index_b, features, score, weight, alpha, regularization
    )
    for _ in range(100):
        logits = alpha * (params[index_a] - params[index_b]) + features @ params[n_models:]
        probability = expit(logits)
        residual = weight * (score - probability)
        curvature = weight * probability * (1.0 - probability)
        gradient = np.empty(size)
        gradient[:n_models] = alpha * (
            np.bincount(index_a, residual, n_models) - np.bincount(index_b, residual, n_models)
        )
        gradient[n_models:] = features.T @ residual
        gradient -= regularization * params
        hessian = np.zeros((size, size))
        pair_curvature = np.bincount(pair_code, curvature, n_models * n_models).reshape(
            n_models, n_models
        )
        # a model against itself adds nothing to the model block
        pair_curvature[np.diag_indices(n_models)] = 0.0
        model_block = -(pair_curvature + pair_curvature.T)
        model_block[np.diag_indices(n_models)] = pair_curvature.sum(axis=1) + pair_curvature.sum(
            axis=0
        )
        hessian[:n_models, :n_models] = alpha * alpha * model_block
        weighted_features = features * curvature[:, None]
        cross = np.empty((n_models, k))
        for column in range(k):
            cross[:, column] = np.bincount(
                index_a, weighted_features[:, column], n_models
            ) - np.bincount(index_b, weighted_features[:, column], n_models)
        hessian[:n_models, n_models:] = alpha * cross
        hessian[n_models:, :n_models] = alpha * cross.T
        hessian[n_models:, n_models:] = features.T @ weighted_features
        hessian[np.diag_indices(size)] += regularization
        step = np.linalg.solve(hessian, gradient)
        for _ in range(40):
            candidate = params + step
            value = _penalized_log_likelihood(
                candidate,
                n_models,
                index_a,
                index_b,
                features,
                score,
                weight,
                alpha,
                regularization,
            )
            if value >= current - 1e-12 * abs(current):
                break
            step *= 0.5
        params, current = candidate, value
        if np.abs(step).max() < 1e-10:
            break
    return params


def _style_arrays(
    battles: pd.DataFrame, features_a: np.ndarray, features_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    battles = checked_battles(battles)
    if len(features_a) != len(battles) or len(features_b) != len(battles):
        raise StatsInputError("style features must have one row per battle")
    index_a, index_b, score, models = indexed_battles(battles)
    weight = battles["weight"].to_numpy(dtype=np.float64)
    features = normalized_style_differences(features_a, features_b, weight)
    return index_a, index_b, features, score, weight, models


def _ratings_from(
    params: np.ndarray, models: tuple[str, ...], anchor: Anchor | None, scale: EloScale
) -> np.ndarray:
    ratings = params[..., : len(models)] * scale.scale + scale.initial
    if anchor is not None:
        if anchor.model not in models:
            raise StatsInputError(f"anchor model '{anchor.model}' has no battles in the selection")
        ratings = ratings + (anchor.rating - ratings[..., [models.index(anchor.model)]])
    return ratings


def _style_controlled(
    rating_params: np.ndarray,
    params: np.ndarray,
    models: tuple[str, ...],
    anchor: Anchor | None,
    scale: EloScale,
    feature_names: tuple[str, ...],
) -> StyleControlled:
    """The ratings (from ``rating_params``, in the units :func:`_ratings_from` scales), best
    first, and the style coefficients (``params`` after the models' entries)."""
    ratings = pd.Series(_ratings_from(rating_params, models, anchor, scale), index=list(models))
    return StyleControlled(
        ratings=ratings.rename("rating").sort_values(ascending=False),
        coefficients=pd.Series(params[len(models) :], index=list(feature_names), name="coef"),
    )


def _bootstrap_draws(weight: np.ndarray, rounds: int, seed: int | None) -> np.ndarray:
    """``rounds`` multinomial resamples of the battle rows, as per-row counts (one row a round)."""
    rng = np.random.default_rng(seed)
    total = round(float(weight.sum()))
    return rng.multinomial(total, weight / weight.sum(), size=rounds).astype(np.float64)


def style_controlled_ratings(
    battles: pd.DataFrame,
    features_a: np.ndarray,
    features_b: np.ndarray,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
    regularization: float = FASTCHAT_STYLE_REGULARIZATION,
    feature_names: tuple[str, ...] = STYLE_FEATURES,
) -> StyleControlled:
    """Bradley-Terry ratings with style features as covariates (FastChat
    ``compute_style_control``). ``features_a``/``features_b`` hold one row of raw style counts
    (see :func:`style_counts`) per battle for each side's answer."""
    index_a, index_b, features, score, weight, models = _style_arrays(
        battles, features_a, features_b
    )
    params = fit_style_parameters(
        index_a,
        index_b,
        features,
        score,
        weight,
        len(models),
        np.log(scale.base),
        regularization,
    )
    return _style_controlled(params, params, models, anchor, scale, feature_names)


def bootstrap_style_controlled(
    battles: pd.DataFrame,
    features_a: np.ndarray,
    features_b: np.ndarray,
    rounds: int,
    seed: int | None = 0,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
    regularization: float = FASTCHAT_STYLE_REGULARIZATION,
) -> pd.DataFrame:
    """Style-controlled ratings of ``rounds`` bootstrap resamples of the battles (FastChat
    ``compute_bootstrap_style_control``). A resample is a multinomial count per battle row used
    as row weights, so no rows are copied; features stay normalised over the full data, as in
    FastChat."""
    if rounds < 1:
        raise StatsInputError("the number of bootstrap rounds must be at least 1")
    index_a, index_b, features, score, weight, models = _style_arrays(
        battles, features_a, features_b
    )
    draws = _bootstrap_draws(weight, rounds, seed)
    alpha = np.log(scale.base)
    params = np.vstack(
        [
            fit_style_parameters(
                index_a, index_b, features, score, draw, len(models), alpha, regularization
            )
            for draw in draws
        ]
    )
    return pd.DataFrame(_ratings_from(params, models, anchor, scale), columns=list(models))


# --- LMArena's current estimator ------------------------------------------------------------------

#: the style-control estimators a board can be fitted with, by the name the CLI and the results use
FASTCHAT_2024 = "fastchat-2024"
LMARENA = "lmarena"
STYLE_ESTIMATORS = {
    FASTCHAT_2024: "FastChat 2024 (logistic regression, ties as half a win, penalty on all "
    "parameters)",
    LMARENA: "LMArena arena-rank contextual Bradley-Terry (pair-balanced weights, penalty on the "
    "style coefficients only)",
}
#: arena-rank ``ContextualBradleyTerry(reg=1.0)``: 0.5 * reg * |beta|^2 added to the mean loss
LMARENA_STYLE_REGULARIZATION = 1.0
#: arena-rank ``ContextualPairDataset.from_pandas(min_pair_count=50)``: a pair of models seen
#: fewer times weighs as if seen this often
LMARENA_MIN_PAIR_COUNT = 50.0


def lmarena_style_differences(
    features_a: np.ndarray, features_b: np.ndarray, weight: np.ndarray | None = None
) -> np.ndarray:
    """Per battle and feature, (a - b) / (a + b) with a zero sum read as 1, standardised over the
    battles with the population standard deviation (arena-rank's example ``add_style_feature_cols``
    followed by ``ContextualPairDataset``'s ``normalize_features``; standardising twice leaves
    the population one). A row of weight k stands for k battles; a constant feature becomes 0."""
    a = np.asarray(features_a, dtype=np.float64)
    b = np.asarray(features_b, dtype=np.float64)
    total = a + b
    ratio = (a - b) / np.where(total == 0, 1.0, total)
    weight = np.ones(len(ratio)) if weight is None else np.asarray(weight, dtype=np.float64)
    mean = np.average(ratio, axis=0, weights=weight)
    spread = np.sqrt(np.average((ratio - mean) ** 2, axis=0, weights=weight))
    return (ratio - mean) / np.where(spread == 0, 1.0, spread)


def lmarena_pair_weights(
    index_a: np.ndarray,
    index_b: np.ndarray,
    count: np.ndarray,
    min_pair_count: float = LMARENA_MIN_PAIR_COUNT,
) -> np.ndarray:
    """arena-rank's inverse-propensity weights: each battle weighs 1 / max(battles of its pair
    of models, ``min_pair_count``), whichever side each model took, scaled to mean 1 over the
    battles (a row of ``count`` k stands for k battles)."""
    low = np.minimum(index_a, index_b)
    high = np.maximum(index_a, index_b)
    _, pair = np.unique(np.stack([low, high], axis=1), axis=0, return_inverse=True)
    pair = pair.reshape(-1)
    per_pair = np.bincount(pair, count)
    weights = 1.0 / np.maximum(per_pair[pair], min_pair_count)
    return weights / np.average(weights, weights=count)


def _contextual_blocks(
    params: np.ndarray,
    n_models: int,
    index_a: np.ndarray,
    index_b: np.ndarray,
    features: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """Sum of ``values`` per battle spread over the pairwise (rating, rating), (rating,
    feature) and (feature, feature) blocks: the shape of the contextual model's Hessian and of
    its gradient covariance (arena-rank ``assemble_parwise_matrix`` and the feature blocks)."""
    k = features.shape[1]
    size = n_models + k
    matrix = np.zeros((size, size))
    pair_values = np.bincount(index_a * n_models + index_b, values, n_models * n_models).reshape(
        n_models, n_models
    )
    pair_values[np.diag_indices(n_models)] = 0.0  # a model against itself: no rating term
    block = -(pair_values + pair_values.T)
    block[np.diag_indices(n_models)] = pair_values.sum(axis=1) + pair_values.sum(axis=0)
    matrix[:n_models, :n_models] = block
    weighted = features * values[:, None]
    cross = np.empty((n_models, k))
    for column in range(k):
        cross[:, column] = np.bincount(index_a, weighted[:, column], n_models) - np.bincount(
            index_b, weighted[:, column], n_models
        )
    matrix[:n_models, n_models:] = cross
    matrix[n_models:, :n_models] = cross.T
    matrix[n_models:, n_models:] = features.T @ weighted
    return matrix


def _lmarena_objective(
    params: np.ndarray,
    n_models: int,
    index_a: np.ndarray,
    index_b: np.ndarray,
    features: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray,
    regularization: float,
) -> float:
    logits = params[index_a] - params[index_b] + features @ params[n_models:]
    mean = weight @ (score * log_expit(logits) + (1.0 - score) * log_expit(-logits))
    beta = params[n_models:]
    return float(mean - 0.5 * regularization * beta @ beta)


def fit_lmarena_parameters(
    index_a: np.ndarray,
    index_b: np.ndarray,
    features: np.ndarray,
    score: np.ndarray,
    weight: np.ndarray,
    n_models: int,
    regularization: float = LMARENA_STYLE_REGULARIZATION,
) -> np.ndarray:
    """Maximise arena-rank's ``ContextualBradleyTerry`` objective: the ``weight``-averaged
    log-likelihood of logit = (r_a - r_b) + features . beta (natural log-odds) less
    ``0.5 * regularization * |beta|^2``; the ratings are not penalised. ``weight`` must sum to 1
    (it is the per-battle weight over the number of battles). The ratings are fixed only up to a
    constant, so they are kept summing to zero, as arena-rank's optimiser keeps them from its
    zero start. Newton iterations (arena-rank runs L-BFGS) with a line search. Returns
    ``[r_0 .. r_{n-1}, beta_0 .. beta_{k-1}]``."""
    if regularization <= 0:
        raise StatsInputError("style control needs a positive regularization")
    k = features.shape[1]
    size = n_models + k
    params = np.zeros(size)
    # the constant direction of the ratings has no curvature; adding it to the Hessian makes
    # the system solvable, and since the gradient never has that direction, neither has a step
    constant = np.zeros(size)
    constant[:n_models] = 1.0
    current = _lmarena_objective(
        params, n_models, index_a, index_b, features, score, weight, regularization
    )
    for _ in range(100):
        logits = params[index_a] - params[index_b] + features @ params[n_models:]
        probability = expit(logits)
        residual = weight * (score - probability)
        gradient = np.empty(size)
        gradient[:n_models] = np.bincount(index_a, residual, n_models) - np.bincount(
            index_b, residual, n_models
        )
        gradient[n_models:] = features.T @ residual - regularization * params[n_models:]
        curvature = _contextual_blocks(
            params, n_models, index_a, index_b, features, weight * probability * (1 - probability)
        )
        curvature[n_models:, n_models:] += regularization * np.eye(k)
        curvature += np.outer(constant, constant)
        try:
            step = np.linalg.solve(curvature, gradient)
        except np.linalg.LinAlgError:
            # a model with no battles in a bootstrap round, or a clean sweep driven to where
            # its curvature vanishes: the least-squares step moves only the directions the
            # battles determine (the line search still guards the objective)
            step = np.linalg.lstsq(curvature, gradient, rcond=1e-10)[0]
        for _ in range(40):
            candidate = params + step
            value = _lmarena_objective(
                candidate, n_models, index_a, index_b, features, score, weight, regularization
            )
            if value >= current - 1e-15 * abs(current):
                break
            step *= 0.5
        params, current = candidate, value
        if np.abs(step).max() < 1e-12:
            break
    params[:n_models] -= params[:n_models].mean()
    return params


def _lmarena_arrays(
    battles: pd.DataFrame, features_a: np.ndarray, features_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    """Indices, standardised features, scores, battle counts (the rows' weights) and models."""
    index_a, index_b, _features, score, count, models = _style_arrays(
        battles, features_a, features_b
    )
    features = lmarena_style_differences(features_a, features_b, count)
    return index_a, index_b, features, score, count, models


def lmarena_style_controlled_ratings(
    battles: pd.DataFrame,
    features_a: np.ndarray,
    features_b: np.ndarray,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
    regularization: float = LMARENA_STYLE_REGULARIZATION,
    feature_names: tuple[str, ...] = STYLE_FEATURES,
) -> StyleControlled:
    """LMArena's current style-controlled ratings: the contextual Bradley-Terry model of the
    ``arena-rank`` package (``ContextualBradleyTerry`` on a ``ContextualPairDataset`` built with
    its defaults: pair-balanced weights with a floor of 50 battles, features standardised,
    ties and both-bad as half a win, an L2 penalty of 1.0 on the style coefficients only).
    Without ``anchor`` the ratings average ``scale.initial`` (arena-rank's ``init_rating``).
    The coefficients are per standard deviation of each feature, in natural log-odds."""
    index_a, index_b, features, score, count, models = _lmarena_arrays(
        battles, features_a, features_b
    )
    weight = count * lmarena_pair_weights(index_a, index_b, count) / count.sum()
    params = fit_lmarena_parameters(
        index_a, index_b, features, score, weight, len(models), regularization
    )
    rating_params = _base_units(params, len(models), scale)
    return _style_controlled(rating_params, params, models, anchor, scale, feature_names)


def _base_units(params: np.ndarray, n_models: int, scale: EloScale) -> np.ndarray:
    """Ratings in natural log-odds turned into the units :func:`_ratings_from` scales (log-odds
    in base ``scale.base``)."""
    converted = np.array(params, dtype=np.float64, copy=True)
    converted[..., :n_models] = converted[..., :n_models] / np.log(scale.base)
    return converted


def bootstrap_lmarena_style_controlled(
    battles: pd.DataFrame,
    features_a: np.ndarray,
    features_b: np.ndarray,
    rounds: int,
    seed: int | None = 0,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
    regularization: float = LMARENA_STYLE_REGULARIZATION,
) -> pd.DataFrame:
    """LMArena-style-controlled ratings of ``rounds`` bootstrap resamples of the battles
    (arena-rank ``ci_method="bootstrap"``: battles drawn with replacement, each keeping its
    weight and standardised features from the full data)."""
    if rounds < 1:
        raise StatsInputError("the number of bootstrap rounds must be at least 1")
    index_a, index_b, features, score, count, models = _lmarena_arrays(
        battles, features_a, features_b
    )
    balance = lmarena_pair_weights(index_a, index_b, count)
    draws = _bootstrap_draws(count, rounds, seed)
    params = np.vstack(
        [
            fit_lmarena_parameters(
                index_a,
                index_b,
                features,
                score,
                draw * balance / draw.sum(),
                len(models),
                regularization,
            )
            for draw in draws
        ]
    )
    return pd.DataFrame(
        _ratings_from(_base_units(params, len(models), scale), models, anchor, scale),
        columns=list(models),
    )
