"""Prediction-powered Bradley-Terry: with the judge's weight at 0 it is the humans' own fit; a
biased judge used alone misses the humans' ratings while the prediction-powered intervals cover
them and are narrower than the humans'; a judge that ignores the answers gets weight 0; the
rank-sets hold the true ranks. The populations are bench/ppi_population.py's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from workbench.stats.errors import StatsInputError
from workbench.stats.ppi import (
    Comparisons,
    PredictionPoweredRatings,
    classical_ratings,
    prediction_powered_ratings,
    rank_sets,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from ppi_population import Population, make_population, true_ratings


def world(
    seed: int, informative: bool, humans: int = 400, judge_only: int = 8000
) -> tuple[Population, np.ndarray, Comparisons, np.ndarray, Comparisons]:
    population = make_population(seed, informative=informative)
    truth = true_ratings(population, 200_000, seed)
    rng = np.random.default_rng(seed)
    both, verdicts = population.draw(rng, humans)
    only, only_verdicts = population.draw(rng, judge_only)
    return population, truth, both, verdicts, Comparisons(only.a, only.b, only_verdicts)


def covered(result: PredictionPoweredRatings, truth: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", (result.lower[1:] <= truth[1:]) & (truth[1:] <= result.upper[1:]))


def test_weight_zero_is_the_humans_own_fit() -> None:
    population, _truth, both, verdicts, only = world(1, informative=True)
    humans = classical_ratings(population.models, both)
    zero = prediction_powered_ratings(population.models, both, verdicts, only, lam=0.0)
    assert np.allclose(zero.ratings, humans.ratings) and np.allclose(zero.upper, humans.upper)


def test_a_biased_judge_alone_misses_what_prediction_powered_ratings_cover() -> None:
    misses = ppi_misses = 0
    narrower = []
    for seed in range(6):
        population, truth, both, verdicts, only = world(seed, informative=True)
        naive = classical_ratings(
            population.models,
            Comparisons(
                np.r_[both.a, only.a], np.r_[both.b, only.b], np.r_[verdicts, only.outcome]
            ),
        )
        powered = prediction_powered_ratings(population.models, both, verdicts, only)
        humans = classical_ratings(population.models, both)
        misses += int((~covered(naive, truth)).sum())
        ppi_misses += int((~covered(powered, truth)).sum())
        assert 0 < powered.lam <= 1
        narrower.append(
            np.median((powered.upper - powered.lower)[1:] / (humans.upper - humans.lower)[1:])
        )
    intervals = 6 * (population.models - 1)
    assert misses > intervals / 3  # the judge's own board is off the humans' scale
    assert ppi_misses <= intervals * 0.1
    assert np.median(narrower) < 0.85


def test_a_judge_that_ignores_the_answers_gets_no_weight() -> None:
    population, _truth, both, verdicts, only = world(2, informative=False)
    powered = prediction_powered_ratings(population.models, both, verdicts, only)
    humans = classical_ratings(population.models, both)
    assert powered.lam == 0.0 and np.allclose(powered.upper, humans.upper)


def test_rank_sets_hold_the_true_ranks() -> None:
    population, truth, both, verdicts, only = world(3, informative=True, humans=1000)
    powered = prediction_powered_ratings(population.models, both, verdicts, only)
    true_rank = np.argsort(np.argsort(-truth)) + 1
    assert np.all(powered.rank_lower <= true_rank) and np.all(true_rank <= powered.rank_upper)
    assert np.all(powered.rank_lower <= powered.rank_upper)


def test_rank_sets_of_clearly_separated_models_are_single_ranks() -> None:
    ratings = np.array([1200.0, 1000.0, 800.0])
    low, high = rank_sets(ratings, np.eye(3), alpha=0.05)
    assert low.tolist() == [1, 2, 3] and high.tolist() == [1, 2, 3]
    low, high = rank_sets(ratings, np.eye(3) * 1e6, alpha=0.05)
    assert low.tolist() == [1, 1, 1] and high.tolist() == [3, 3, 3]


def test_bad_input_is_refused() -> None:
    a, b = np.array([0, 1]), np.array([1, 2])
    with pytest.raises(StatsInputError, match="itself"):
        Comparisons(a, a, np.array([1.0, 0.0]))
    with pytest.raises(StatsInputError, match="probabilities"):
        Comparisons(a, b, np.array([2.0, 0.0]))
    both = Comparisons(a, b, np.array([1.0, 0.0]))
    empty = Comparisons(np.array([], int), np.array([], int), np.array([], float))
    with pytest.raises(StatsInputError, match="one judge verdict"):
        prediction_powered_ratings(3, both, np.array([1.0]), empty)
    with pytest.raises(StatsInputError, match="every model"):
        prediction_powered_ratings(4, both, np.array([1.0, 0.0]), empty)
