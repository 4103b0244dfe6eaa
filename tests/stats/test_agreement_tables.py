"""The agreement statistics from per-item tables (what the panels' cache keeps): each equals the
statistic on all the judgments however the items are split into pieces and the pieces' rows
ordered, and the grouped breakdowns equal a summary per group."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.stats.agreement import (
    aligned_agreement,
    aligned_preferences,
    grouped_agreement,
    rater_agreement,
    rater_agreement_of,
    rater_tables,
)
from workbench.stats.position_bias import (
    first_position_wins,
    first_position_wins_of,
    position_tallies,
    swap_consistency,
    swap_consistency_of,
    swap_consistency_of_pairs,
    swap_consistency_of_sides,
    swap_pairs,
    swap_verdicts,
)

MODELS = ("m1", "m2", "m3", "m4")


def random_judgments(seed: int, rows: int = 600, items: int = 40) -> pd.DataFrame:
    """Pairwise judgments by a few evaluators, both display orders, repeats and ties, and a
    category that is missing on some items."""
    rng = np.random.default_rng(seed)
    pair = rng.choice(len(MODELS), size=(rows, 2))
    pair[:, 1] = (pair[:, 0] + 1 + rng.integers(0, len(MODELS) - 1, rows)) % len(MODELS)
    item = rng.integers(0, items, rows)
    categories = np.array(["ocr", "chart", None], dtype=object)[item % 3]
    return pd.DataFrame(
        {
            "item": item,
            "criterion": "overall",
            "category": categories,
            "evaluator": rng.choice(["e1", "e2", "e3", "e4"], rows),
            "model_a": np.array(MODELS)[pair[:, 0]],
            "model_b": np.array(MODELS)[pair[:, 1]],
            "outcome": rng.choice(["a", "b", "tie", "both_bad"], rows, p=[0.4, 0.4, 0.15, 0.05]),
            "weight": 1.0,
        }
    )


def pieces(judgments: pd.DataFrame, seed: int) -> list[pd.DataFrame]:
    """The judgments split by item into a few pieces (each item's rows in one piece, in their
    order), as the cache recomputes the items a vote touched apart from the others."""
    rng = np.random.default_rng(seed)
    piece_of = rng.integers(0, 3, judgments["item"].max() + 1)
    return [judgments[piece_of[judgments["item"]] == piece] for piece in (2, 0, 1)]


@pytest.mark.parametrize("seed", range(5))
def test_rater_agreement_from_pieces_equals_the_whole(seed: int) -> None:
    judgments = random_judgments(seed)
    tables = [rater_tables(piece) for piece in pieces(judgments, seed)]
    counts = pd.concat([table[0] for table in tables], ignore_index=True)
    raters = pd.concat([table[1] for table in tables], ignore_index=True)
    shuffled = counts.sample(frac=1.0, random_state=seed)
    assert rater_agreement_of(shuffled, raters) == rater_agreement(judgments)
    whole = rater_agreement(judgments)
    assert whole.comparisons > 0 and not np.isnan(whole.krippendorff_alpha)


@pytest.mark.parametrize("seed", range(5))
def test_position_bias_from_pieces_equals_the_whole(seed: int) -> None:
    judgments = random_judgments(seed)
    tallies = pd.concat(
        [position_tallies(piece) for piece in pieces(judgments, seed)], ignore_index=True
    )
    pd.testing.assert_frame_equal(first_position_wins_of(tallies), first_position_wins(judgments))


def test_a_fixed_design_is_found_from_the_tallies() -> None:
    judgments = pd.DataFrame(
        {
            "item": [1, 2, 3, 1],
            "evaluator": ["fixed", "fixed", "fixed", "ordered"],
            "model_a": ["base", "base", "base", "m1"],
            "model_b": ["m1", "m2", "m3", "m2"],
            "outcome": ["a", "b", "a", "a"],
        }
    )
    ordered = judgments.assign(item=[1, 2, 3, 2], evaluator=["ordered"] * 3 + ["fixed"])
    for frame in (judgments, ordered):
        table = first_position_wins_of(
            pd.concat([position_tallies(frame[frame["item"] == item]) for item in (3, 1, 2)])
        )
        pd.testing.assert_frame_equal(table, first_position_wins(frame))
    positions = first_position_wins(judgments).set_index("evaluator")["positions"]
    assert positions["fixed"] == "fixed: base always shown first"


@pytest.mark.parametrize("seed", range(5))
def test_swap_consistency_of_two_sides_equals_the_pooled_judgments(seed: int) -> None:
    # the same evaluator on both sides: a comparison shown one way on side a and the other way
    # on side b is a swapped pair of the pooled judgments, and side a's verdict comes first
    judgments = random_judgments(seed)
    side_a, side_b = judgments.iloc[::2], judgments.iloc[1::2]
    verdicts = [
        swap_verdicts(piece)
        for side in (side_a, side_b)
        for piece in sorted(pieces(side, seed), key=len)
    ]
    pooled = pd.concat([side_a, side_b], ignore_index=True)
    kept = swap_consistency_of(pd.concat(verdicts[:3] + verdicts[3:], ignore_index=True))
    pd.testing.assert_frame_equal(kept, swap_consistency(pooled))
    assert kept["pairs"].sum() > 0


@pytest.mark.parametrize("seed", range(5))
def test_grouped_agreement_equals_a_summary_per_group(seed: int) -> None:
    judgments = random_judgments(seed)
    side_a, side_b = judgments.iloc[::2], judgments.iloc[1::2]
    aligned = aligned_preferences(side_a, side_b)
    categories = judgments.drop_duplicates("item").set_index("item")["category"]
    aligned = aligned.assign(category=aligned["item"].map(categories))
    for columns in (["category"], ["first", "second"]):
        table = grouped_agreement(aligned, columns)
        expected = []
        for key, group in aligned.groupby(columns, dropna=False, sort=True):
            summary = aligned_agreement(group)
            named = tuple(None if pd.isna(value) else value for value in key)
            expected.append((*named, summary.comparisons, summary.agreement_with_ties))
            row = table.iloc[len(expected) - 1]
            assert row["cohen_kappa"] == pytest.approx(summary.cohen_kappa, nan_ok=True)
        got = list(table[[*columns, "comparisons", "agreement"]].itertuples(index=False))
        assert [tuple(row) for row in got] == expected
    assert None in set(grouped_agreement(aligned, ["category"])["category"])


@pytest.mark.parametrize("seed", range(3))
def test_swap_consistency_from_each_pieces_pairs_equals_the_whole(seed: int) -> None:
    # one side's evaluators: every pair lies within one item, so within one piece
    judgments = random_judgments(seed)
    pairs = [swap_pairs(swap_verdicts(piece)) for piece in pieces(judgments, seed)]
    kept = swap_consistency_of_pairs(pd.concat(pairs, ignore_index=True))
    pd.testing.assert_frame_equal(kept, swap_consistency(judgments))


@pytest.mark.parametrize("seed", range(3))
def test_swap_consistency_of_sides_pairs_again_only_shared_evaluators(seed: int) -> None:
    judgments = random_judgments(seed)
    # e1 and e2 on side a only, e4 on side b only, e3 on both
    on_a = judgments["evaluator"].isin(["e1", "e2"]) | (
        (judgments["evaluator"] == "e3") & (judgments.index % 2 == 0)
    )
    side_a, side_b = judgments[on_a], judgments[~on_a]
    verdicts = (swap_verdicts(side_a), swap_verdicts(side_b))
    pairs = (swap_pairs(verdicts[0]), swap_pairs(verdicts[1]))
    kept = swap_consistency_of_sides(verdicts, pairs)
    pooled = pd.concat([side_a, side_b], ignore_index=True)
    pd.testing.assert_frame_equal(kept, swap_consistency(pooled))
    assert set(kept["evaluator"]) == {"e1", "e2", "e3", "e4"}
