"""Position bias: share of first-position wins and swap consistency."""

from __future__ import annotations

import pandas as pd
import pytest
from scipy import stats

from workbench.stats.position_bias import first_position_wins, swap_consistency


def test_first_position_share_and_binomial_test() -> None:
    judgments = pd.DataFrame(
        {
            "evaluator": ["judge"] * 10 + ["human"] * 4,
            "model_a": ["x", "y"] * 5 + ["x", "y", "x", "y"],
            "model_b": ["y", "x"] * 5 + ["y", "x", "y", "x"],
            "outcome": ["a"] * 8 + ["b", "tie"] + ["a", "b", "tie", "both_bad"],
        }
    )
    table = first_position_wins(judgments).set_index("evaluator")
    assert table.loc["judge", "decisive"] == 9
    assert table.loc["judge", "first_wins"] == 8
    assert table.loc["judge", "first_win_share"] == pytest.approx(8 / 9)
    assert table.loc["judge", "tie_share"] == pytest.approx(0.1)
    assert table.loc["judge", "p_value"] == pytest.approx(stats.binomtest(8, 9).pvalue)
    assert table.loc["human", "first_win_share"] == pytest.approx(0.5)


def test_swap_consistency_pairs_the_two_orders() -> None:
    judgments = pd.DataFrame(
        {
            "evaluator": ["judge"] * 6,
            "item": [1, 1, 2, 2, 3, 3],
            "model_a": ["x", "y", "x", "y", "x", "y"],
            "model_b": ["y", "x", "y", "x", "y", "x"],
            # item 1 consistent (x both times); item 2 always the first shown; item 3 a tie once
            "outcome": ["a", "b", "a", "a", "a", "tie"],
        }
    )
    table = swap_consistency(judgments).set_index("evaluator")
    assert table.loc["judge", "pairs"] == 3
    assert table.loc["judge", "consistent"] == pytest.approx(1 / 3)
    assert table.loc["judge", "favours_first"] == pytest.approx(1 / 3)
    assert table.loc["judge", "favours_second"] == 0
    assert table.loc["judge", "mixed_tie"] == pytest.approx(1 / 3)


def test_a_fixed_design_says_so_instead_of_a_p_value() -> None:
    # WildVision-Bench: the baseline is always shown first, and it loses most battles
    baseline = pd.DataFrame(
        {
            "evaluator": "gpt-4o",
            "model_a": "claude",
            "model_b": ["x", "y", "z", "x", "y", "z"],
            "outcome": ["b", "b", "b", "b", "a", "b"],
        }
    )
    # the same models with positions counterbalanced
    randomized = pd.DataFrame(
        {
            "evaluator": "judge",
            "model_a": ["claude", "x", "claude", "y"],
            "model_b": ["x", "claude", "y", "claude"],
            "outcome": ["b", "a", "b", "a"],
        }
    )
    table = first_position_wins(pd.concat([baseline, randomized])).set_index("evaluator")
    assert table.loc["gpt-4o", "positions"] == "fixed: claude always shown first"
    assert pd.isna(table.loc["gpt-4o", "p_value"])
    assert pd.isna(table.loc["gpt-4o", "first_win_share"])
    assert table.loc["gpt-4o", "decisive"] == 6  # the counts stay
    assert table.loc["judge", "positions"] == "randomized"
    assert table.loc["judge", "p_value"] == pytest.approx(stats.binomtest(2, 4, 0.5).pvalue)
    in_name_order = pd.DataFrame(
        {"evaluator": "e", "model_a": ["a", "a", "b"], "model_b": ["b", "c", "c"], "outcome": "a"}
    )
    assert first_position_wins(in_name_order)["positions"].tolist() == [
        "fixed: every pair shown in name order"
    ]
