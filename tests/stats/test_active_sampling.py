"""The adaptive pairing rule: probabilities go to pairs whose order is open, every pair keeps the
exploration floor, and a draw is a pure function of the seed and the ordinal."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import norm

from workbench.stats import active_sampling
from workbench.stats.active_sampling import (
    PairChoiceState,
    _criterion_gradient,
    choice_draw,
    design_weights,
    draw_pair,
    fit_with_covariance,
    information_matrix,
    pair_weights,
    standard_normal_pdf,
)


def _state() -> PairChoiceState:
    # models 0 and 1 are close (13:7, their interval of the difference just covers 0), model 2
    # is far below both (40:0 each)
    first = np.array([0, 0, 1])
    second = np.array([1, 2, 2])
    return PairChoiceState(
        3,
        first,
        second,
        wins_first=np.array([13.0, 40.0, 40.0]),
        wins_second=np.array([7.0, 0.0, 0.0]),
        ties=np.zeros(3),
    )


def _fitted(state: PairChoiceState) -> tuple[np.ndarray, np.ndarray]:
    """The fit's strengths, and each candidate pair's p (1 - p) at them."""
    strengths, _ = fit_with_covariance(state)
    p = 1 / (1 + np.exp(-(strengths[state.first] - strengths[state.second])))
    return strengths, p * (1 - p)


def test_the_open_pair_gets_most_of_the_probability() -> None:
    weights = pair_weights(_state(), exploration=0.1)
    assert np.isclose(weights.probabilities.sum(), 1.0)
    assert weights.probabilities[0] > 0.6  # uniform pairing would give it 1/3
    assert (weights.probabilities >= 0.1 / 3 - 1e-12).all()


def test_a_difference_at_the_edge_of_its_interval_outweighs_a_settled_or_hopeless_one() -> None:
    # pair 0: 13:7 (near the edge), pair 1: 10:10 (indistinguishable at this size), pair 2:
    # 60:20 (settled); six models in three separate pairs, so that a battle of one pair narrows
    # no other difference
    first, second = np.array([0, 2, 4]), np.array([1, 3, 5])
    state = PairChoiceState(
        6,
        first,
        second,
        wins_first=np.array([13.0, 10.0, 60.0]),
        wins_second=np.array([7.0, 10.0, 20.0]),
        ties=np.zeros(3),
    )
    probabilities = pair_weights(state, exploration=0.0).probabilities
    assert probabilities[0] > probabilities[1]
    assert probabilities[0] > probabilities[2]


def test_the_density_is_scipys_bit_for_bit_and_so_are_the_choices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a choice's probabilities are logged by their digest: a last-bit change fails every replay
    x = np.random.default_rng(0).normal(scale=[[0.1], [1.0], [5.0], [40.0]], size=(4, 50))
    assert standard_normal_pdf(x).tobytes() == norm.pdf(x).tobytes()
    ours = (pair_weights(_state()), design_weights(_state(), budget=1000))
    monkeypatch.setattr(active_sampling, "standard_normal_pdf", norm.pdf)
    scipys = (pair_weights(_state()), design_weights(_state(), budget=1000))
    for mine, theirs in zip(ours, scipys, strict=True):
        assert mine.probabilities.tobytes() == theirs.probabilities.tobytes()


def test_the_information_matrix_has_the_bits_of_its_four_sums_in_order() -> None:
    # the choices' digests depend on the order of the additions, not only on their sum
    rng = np.random.default_rng(1)
    first = np.array([0, 0, 0, 1, 1, 2, 0])  # a repeated pair adds twice
    second = np.array([1, 2, 3, 2, 3, 3, 1])
    weight = rng.random(len(first)) * 10.0 ** rng.integers(-6, 6, len(first))
    expected = np.diag(np.full(4, 0.25))
    np.add.at(expected, (first, first), weight)
    np.add.at(expected, (second, second), weight)
    np.add.at(expected, (first, second), -weight)
    np.add.at(expected, (second, first), -weight)
    assert information_matrix(4, first, second, weight).tobytes() == expected.tobytes()


def test_without_battles_the_draw_is_uniform() -> None:
    empty = PairChoiceState(3, np.array([0, 0, 1]), np.array([1, 2, 2]), *np.zeros((3, 3)))
    assert np.allclose(pair_weights(empty).probabilities, 1 / 3)


def test_a_draw_depends_on_the_seed_and_the_ordinal_alone() -> None:
    assert choice_draw(7, 3) == choice_draw(7, 3)
    assert choice_draw(7, 3) != choice_draw(7, 4)
    assert draw_pair(np.array([0.2, 0.3, 0.5]), 0.1) == 0
    assert draw_pair(np.array([0.2, 0.3, 0.5]), 0.45) == 1
    assert draw_pair(np.array([0.2, 0.3, 0.5]), 0.99) == 2


def test_the_design_plans_its_votes_for_the_open_pair() -> None:
    weights = design_weights(_state(), budget=1000, exploration=0.1)  # 900 more votes to plan
    assert np.isclose(weights.probabilities.sum(), 1.0)
    assert weights.probabilities[0] > 0.6
    assert (weights.probabilities >= 0.1 / 3 - 1e-12).all()


def test_without_battles_the_design_is_uniform() -> None:
    empty = PairChoiceState(3, np.array([0, 0, 1]), np.array([1, 2, 2]), *np.zeros((3, 3)))
    assert np.allclose(design_weights(empty, budget=100).probabilities, 1 / 3)


def test_the_designs_gradient_is_the_sum_over_the_differences() -> None:
    # the Laplacian form against the sum it stands for, term by term
    state = _state()
    strengths, w = _fitted(state)
    first, second = state.first, state.second
    high, low = np.array([0, 1, 0]), np.array([1, 2, 2])
    difference = strengths[high] - strengths[low]
    inverse = np.linalg.inv(information_matrix(3, first, second, 50 * w))
    expected = np.zeros(len(first))
    for a in range(len(first)):
        x = np.zeros(3)
        x[first[a]], x[second[a]] = 1.0, -1.0
        for y in range(len(high)):
            c = np.zeros(3)
            c[high[y]], c[low[y]] = 1.0, -1.0
            variance = c @ inverse @ c
            z = difference[y] / np.sqrt(variance)
            slope = norm.pdf(z - 1.96) * z / variance
            expected[a] += w[a] * slope * (x @ inverse @ c) ** 2
    computed = _criterion_gradient(inverse, high, low, difference, first, second, w, 1.96)
    assert np.allclose(computed, expected, rtol=1e-9, atol=0)


def test_the_design_given_targets_plans_for_those_differences_alone() -> None:
    # three separate pairs of models, two of them at the edge of their interval (13:7); told
    # that only the second pair's difference matters, the design spends on it
    first, second = np.array([0, 2, 4]), np.array([1, 3, 5])
    state = PairChoiceState(
        6,
        first,
        second,
        wins_first=np.array([13.0, 13.0, 60.0]),
        wins_second=np.array([7.0, 7.0, 20.0]),
        ties=np.zeros(3),
    )
    adjacent = design_weights(state, budget=1000, exploration=0.0).probabilities
    assert np.isclose(adjacent[0], adjacent[1], atol=0.05)
    targeted = design_weights(
        state, budget=1000, exploration=0.0, targets=(np.array([2]), np.array([3]))
    ).probabilities
    assert targeted[1] > 0.9


def _settled_at_the_horizon() -> PairChoiceState:
    # a three-model campaign after 33 votes (model 0 lost to 1 by 2:4 and to 2 by 3:13, model 1
    # to 2 by 2:9): planned for 5,000 votes, every adjacent difference is far past its edge at
    # the end, the criterion's slopes underflow and only the rounding of its terms is left
    return PairChoiceState(
        3,
        np.array([0, 0, 1]),
        np.array([1, 2, 2]),
        wins_first=np.array([2.0, 3.0, 2.0]),
        wins_second=np.array([4.0, 13.0, 9.0]),
        ties=np.zeros(3),
    )


def test_a_design_whose_differences_are_all_settled_at_its_horizon_still_plans() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rounding once made the plan NaN, with a warning
        probabilities = design_weights(_settled_at_the_horizon(), budget=5000).probabilities
    assert np.isfinite(probabilities).all()
    assert np.isclose(probabilities.sum(), 1.0)
    assert (probabilities >= 0.1 / 3 - 1e-12).all()
    # the plan is the ordering term's, not noise: the same at any settled horizon
    later = design_weights(_settled_at_the_horizon(), budget=50_000).probabilities
    assert np.allclose(probabilities, later, atol=1e-6)


def test_the_criterion_gradient_is_never_negative() -> None:
    state = _settled_at_the_horizon()
    strengths, w = _fitted(state)
    first, second = state.first, state.second
    high, low = np.array([2, 1]), np.array([1, 0])  # the adjacent differences, best first
    difference = strengths[high] - strengths[low]
    # planned votes spread evenly: from 10,000 on, the slopes have underflowed
    for votes in (10.0, 1_000.0, 10_000.0, 100_000.0):
        planned = state.totals + votes / len(first)
        inverse = np.linalg.inv(information_matrix(3, first, second, planned * w))
        gradient = _criterion_gradient(inverse, high, low, difference, first, second, w, 1.96)
        assert (gradient >= 0).all(), (votes, gradient)


def test_a_draw_from_probabilities_that_are_not_numbers_is_refused() -> None:
    # a NaN probability once sent every draw to the last candidate, open to the annotator or not
    with pytest.raises(ValueError, match="finite"):
        draw_pair(np.array([np.nan, np.nan, np.nan]), 0.3)
    with pytest.raises(ValueError, match="finite"):
        draw_pair(np.array([0.5, np.inf, 0.2]), 0.3)
