"""Style control: markdown counting, and the fit against FastChat's original construction
(duplicated design matrix, sklearn LogisticRegression with its default C=1) on WildVision-Bench's
battles and the models' published answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from tests.stats.conftest import WILDVISION_ANCHOR
from tests.stats.helpers import random_battles
from workbench.stats.bootstrap import confidence_intervals
from workbench.stats.errors import StatsInputError
from workbench.stats.style import (
    bootstrap_style_controlled,
    normalized_style_differences,
    style_controlled_ratings,
    style_counts,
)


def test_style_counts_follow_fastchat_markdown_rules() -> None:
    text = (
        "# Title\n## Part\nSome **bold** and __also bold__ text.\n"
        "1. first\n2. second\n- bullet\n  * nested\n"
        "```\n# not a header\n- not a list\n```\n#no space is not a header\n"
    )
    counts = style_counts(text)
    assert counts["headers"] == 2
    assert counts["lists"] == 4
    assert counts["bold"] == 2
    assert counts["length"] > 20
    assert style_counts(text, length=7)["length"] == 7


def test_normalized_differences_are_standardised_ratios() -> None:
    a = np.array([[10, 0], [0, 0], [5, 0]])
    b = np.array([[0, 0], [10, 0], [5, 0]])
    features = normalized_style_differences(a, b)
    ratio = np.array([10 / 11, -10 / 11, 0.0])
    assert np.allclose(features[:, 0], (ratio - ratio.mean()) / ratio.std())
    assert (features[:, 1] == 0).all()  # a feature that never varies carries nothing


def fastchat_construction(
    battles: pd.DataFrame, features_a: np.ndarray, features_b: np.ndarray
) -> tuple[pd.Series, np.ndarray]:
    """FastChat construct_style_matrices + fit_mle_elo, written out independently."""
    models = list(pd.unique(pd.concat([battles["model_a"], battles["model_b"]])))
    column = {model: index for index, model in enumerate(models)}
    n, p, k = len(battles), len(models), features_a.shape[1]
    ratio = (features_a - features_b) / (features_a + features_b + 1.0)
    style = (ratio - ratio.mean(axis=0)) / ratio.std(axis=0)
    x = np.zeros((2 * n, p + k))
    rows = np.arange(n)
    for half in (0, n):
        x[rows + half, battles["model_a"].map(column)] = math.log(10)
        x[rows + half, battles["model_b"].map(column)] = -math.log(10)
        x[rows + half, p:] = style
    y = np.zeros(2 * n)
    outcome = battles["outcome"].to_numpy()
    y[:n] = outcome != "b"  # first copy: wins of a, and ties as a win of a
    y[n:] = outcome == "a"  # second copy: wins of a; ties as a win of b
    fit = LogisticRegression(fit_intercept=False, tol=1e-10, max_iter=10_000).fit(x, y)
    ratings = pd.Series(400 * fit.coef_[0][:p] + 1000, index=models)
    return ratings, fit.coef_[0][p:]


@pytest.mark.shared_data
def test_style_control_matches_fastchat_on_wildvision(
    wildvision_battles: pd.DataFrame, wildvision_style: tuple[np.ndarray, np.ndarray]
) -> None:
    # The anchor's 500 battles against itself are left out: FastChat's design matrix gives such a
    # row -log(10) in the anchor's column (model_b overwrites model_a), which under the penalty
    # nudges every rating; here a model against itself carries no rating information.
    others = (wildvision_battles["model_a"] != wildvision_battles["model_b"]).to_numpy()
    battles = wildvision_battles[others]
    features_a, features_b = (features[others] for features in wildvision_style)
    ours = style_controlled_ratings(battles, features_a, features_b, WILDVISION_ANCHOR)
    reference, coefficients = fastchat_construction(battles, features_a, features_b)
    reference += WILDVISION_ANCHOR.rating - reference[WILDVISION_ANCHOR.model]
    assert (ours.ratings - reference[ours.ratings.index]).abs().max() < 0.05
    assert np.allclose(ours.coefficients.to_numpy(), coefficients, atol=1e-4)
    # longer answers are favoured by the judge, so controlling for length matters
    assert ours.coefficients["length"] > 0


def test_style_bootstrap_is_seeded_and_brackets_the_fit() -> None:
    battles = random_battles(400, 4, seed=3)
    rng = np.random.default_rng(3)
    features_a = rng.integers(0, 50, (400, 4))
    features_b = rng.integers(0, 50, (400, 4))
    fit = style_controlled_ratings(battles, features_a, features_b)
    samples = bootstrap_style_controlled(battles, features_a, features_b, 60, seed=1)
    again = bootstrap_style_controlled(battles, features_a, features_b, 60, seed=1)
    pd.testing.assert_frame_equal(samples, again)
    intervals = confidence_intervals(samples)
    rating = fit.ratings[intervals.index]
    inside = (intervals["lower"] <= rating) & (rating <= intervals["upper"])
    assert inside.all()
    with pytest.raises(StatsInputError, match="one row per battle"):
        style_controlled_ratings(battles, features_a[:10], features_b)
