"""Agreement of two evaluators: percent agreement with and without ties and the kappas, checked
against a direct count on hand-built judgments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.stats.agreement import agreement_summary, aligned_preferences, percent_agreement
from workbench.stats.errors import StatsInputError
from workbench.stats.kappa import cohen_kappa


def judgments(rows: list[tuple[int, str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "model_a", "model_b", "outcome"])


HUMANS = judgments(
    [
        (1, "x", "y", "a"),
        (1, "y", "x", "b"),
        (1, "x", "y", "b"),  # item 1: majority x
        (2, "y", "z", "a"),
        (2, "z", "y", "b"),  # item 2: y
        (3, "x", "z", "tie"),  # item 3: tie
        (4, "x", "y", "b"),  # item 4: y
        (5, "x", "y", "a"),  # only the humans judged item 5
    ]
)
JUDGE = judgments(
    [
        (1, "y", "x", "b"),  # x, shown in the other order
        (2, "y", "z", "b"),  # z
        (3, "z", "x", "a"),  # z
        (4, "x", "y", "b"),  # y
    ]
)


def test_alignment_keeps_common_comparisons_with_majorities() -> None:
    aligned = aligned_preferences(HUMANS, JUDGE).set_index("item")
    assert list(aligned.index) == [1, 2, 3, 4]
    assert aligned["preference_a"].tolist() == ["first", "first", "tie", "second"]
    assert aligned["preference_b"].tolist() == ["first", "second", "second", "second"]
    assert aligned.loc[1, "votes_a"] == 3
    assert aligned.loc[1, "support_a"] == 2


def test_summary_counts_agreement_with_and_without_ties() -> None:
    summary = agreement_summary(HUMANS, JUDGE)
    assert summary.comparisons == 4
    assert summary.agreement_with_ties == pytest.approx(2 / 4)
    assert summary.comparisons_without_ties == 3
    assert summary.agreement_without_ties == pytest.approx(2 / 3)
    expected = cohen_kappa(
        np.array(["first", "first", "tie", "second"]),
        np.array(["first", "second", "second", "second"]),
    )
    assert summary.cohen_kappa == pytest.approx(expected)
    assert math.isfinite(summary.chirp_kappa) or math.isnan(summary.chirp_kappa)
    assert set(summary.to_json()) == {
        "comparisons",
        "agreement_with_ties",
        "agreement_without_ties",
        "comparisons_without_ties",
        "cohen_kappa",
        "chirp_kappa",
    }


def test_chirp_kappa_uses_decisive_comparisons_per_matchup() -> None:
    humans = judgments([(i, "x", "y", "a" if i % 3 else "b") for i in range(12)])
    judge = judgments([(i, "x", "y", "a" if i % 4 else "b") for i in range(12)])
    summary = agreement_summary(humans, judge)
    a = np.array([i % 3 != 0 for i in range(12)])
    b = np.array([i % 4 != 0 for i in range(12)])
    p1, p2 = a.mean(), b.mean()
    chance = p1 * p2 + (1 - p1) * (1 - p2)
    observed = (a == b).mean()
    assert summary.chirp_kappa == pytest.approx((observed - chance) / (1 - chance))


def test_percent_agreement_without_anything_to_count() -> None:
    share, n = percent_agreement(np.array(["tie"]), np.array(["first"]), with_ties=False)
    assert n == 0
    assert math.isnan(share)
    with pytest.raises(StatsInputError, match="no comparison in common"):
        agreement_summary(HUMANS[HUMANS.item == 5], JUDGE)


def test_mt_bench_alignment_has_one_row_per_vote_of_side_a() -> None:
    """MT-Bench's convention: side b's majority against each vote of side a, written out by
    hand: item 1 has three human votes (2 for x, 1 for y) and a judge for x; item 2 one human
    tie vote (twice by the same rater: counted once) and a judge for y."""
    from workbench.stats.agreement import aligned_votes, rater_tables
    from workbench.stats.preferences import comparison_keys, oriented

    humans = pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2],
            "model_a": ["x", "y", "x", "x", "x"],
            "model_b": ["y", "x", "y", "y", "y"],
            "outcome": ["a", "b", "b", "tie", "a"],
            "evaluator": ["h1", "h2", "h3", "h1", "h1"],
        }
    )
    judge = pd.DataFrame(
        {
            "item": [1, 2],
            "model_a": ["x", "x"],
            "model_b": ["y", "y"],
            "outcome": ["a", "b"],
            "evaluator": ["j", "j"],
        }
    )
    keys = comparison_keys(oriented(humans))
    majorities = aligned_preferences(humans, judge)
    votes = aligned_votes(majorities, rater_tables(humans)[0], keys)
    assert list(zip(votes["item"], votes["preference_a"], votes["preference_b"], strict=True)) == [
        (1, "first", "first"),
        (1, "first", "first"),
        (1, "second", "first"),
        (2, "tie", "second"),
    ]
    assert list(votes["votes_a"]) == [3, 3, 3, 2]  # side a's majority columns are kept
    with_ties, counted = percent_agreement(votes["preference_a"], votes["preference_b"], True)
    assert with_ties == pytest.approx(2 / 4) and counted == 4
    without_ties, decisive = percent_agreement(votes["preference_a"], votes["preference_b"], False)
    assert without_ties == pytest.approx(2 / 3) and decisive == 3
