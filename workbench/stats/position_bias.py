"""Position bias of judges and annotators: how often the response shown first (left, "A") wins,
and how often a verdict survives swapping the two positions."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from workbench.domain import Outcome
from workbench.stats.battles import checked_battles
from workbench.stats.errors import StatsInputError
from workbench.stats.preferences import COMPARISON_COLUMNS, FIRST, SECOND, TIE, oriented


def first_position_wins(judgments: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """Per evaluator: decisive judgments, how many the first-shown response won, that share,
    the tie share, and a two-sided binomial test of the share against 1/2.

    The stored ``model_a`` is the side shown first. Reference: Zheng et al. 2023, "Judging
    LLM-as-a-Judge with MT-Bench and Chatbot Arena", sec. 3.3 (position bias); Wang et al. 2023,
    "Large Language Models are not Fair Evaluators", sec. 2. Columns: ``by``, ``judgments``,
    ``decisive``, ``first_wins``, ``first_win_share``, ``tie_share``, ``p_value``, ``positions``.

    The share measures a bias only where the positions were randomized. Where the design fixed
    them (:func:`position_design`: one model always shown first, as WildVision-Bench shows its
    baseline first, or every pair shown in name order), a first-position win says which model
    is stronger, not where it was shown: ``positions`` says so and the share and p-value are
    left empty (NaN)."""
    frame = checked_battles(judgments)
    if by not in frame.columns:
        raise StatsInputError(f"the judgments have no column '{by}'")
    frame = frame[frame["model_a"] != frame["model_b"]]
    outcome = frame["outcome"]
    table = (
        frame.assign(
            decisive=outcome.isin([Outcome.A.value, Outcome.B.value]),
            first_wins=outcome == Outcome.A.value,
        )
        .groupby(by)
        .agg(
            judgments=("outcome", "size"),
            decisive=("decisive", "sum"),
            first_wins=("first_wins", "sum"),
        )
        .reset_index()
    )
    table["first_win_share"] = table["first_wins"] / table["decisive"].where(table["decisive"] > 0)
    table["tie_share"] = 1.0 - table["decisive"] / table["judgments"]
    table["p_value"] = [
        stats.binomtest(int(wins), int(n), 0.5).pvalue if n else np.nan
        for wins, n in zip(table["first_wins"], table["decisive"], strict=True)
    ]
    designs = {key: position_design(group) for key, group in frame.groupby(by)}
    table["positions"] = [designs[key] for key in table[by]]
    fixed = (table["positions"] != RANDOMIZED).to_numpy()
    table.loc[fixed, ["first_win_share", "p_value"]] = np.nan
    return table


RANDOMIZED = "randomized"


def position_design(judgments: pd.DataFrame) -> str:
    """How one evaluator's judgments placed the two sides: ``randomized``, or a sentence saying
    how the design fixed them (``fixed: MODEL always shown first`` or ``fixed: every pair shown
    in name order``). Decided from the data: with at least two judgments, one model shown first
    in all of them, or all of them ordered by name, is a fixed design, not chance."""
    if len(judgments) < 2:
        return RANDOMIZED
    first = judgments["model_a"]
    if first.nunique() == 1:
        return f"fixed: {first.iloc[0]} always shown first"
    in_name_order = (judgments["model_a"] < judgments["model_b"]).to_numpy()
    if in_name_order.all() or (~in_name_order).all():
        return "fixed: every pair shown in name order"
    return RANDOMIZED


def swap_consistency(judgments: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """Per evaluator, over comparisons it judged in both orders: the share where the two verdicts
    agree (``consistent``), and where each order favoured whichever response came first
    (``favours_first``) or second (``favours_second``). Comparisons are identified by item, turn
    and criterion where present. Reference: Zheng et al. 2023, sec. 3.3 and Table 2
    ("consistency", "biased toward first/second")."""
    frame = oriented(judgments)
    if by not in frame.columns:
        raise StatsInputError(f"the judgments have no column '{by}'")
    keys = [by, *(c for c in COMPARISON_COLUMNS if c in frame.columns), "first", "second"]
    frame = frame.assign(shown_first=frame["model_a"] == frame["first"])
    # one verdict per order and comparison (the first given, if an order was judged twice)
    one_each = frame.drop_duplicates([*keys, "shown_first"])
    straight = one_each[one_each["shown_first"]]
    swapped = one_each[~one_each["shown_first"]]
    both = straight.merge(swapped, on=keys, suffixes=("_straight", "_swapped"))
    straight_pref, swapped_pref = both["preference_straight"], both["preference_swapped"]
    # the first-shown model is "first" in the straight order and "second" after the swap
    both = both.assign(
        consistent=straight_pref == swapped_pref,
        favours_first=(straight_pref == FIRST) & (swapped_pref == SECOND),
        favours_second=(straight_pref == SECOND) & (swapped_pref == FIRST),
        mixed_tie=(straight_pref != swapped_pref)
        & ((straight_pref == TIE) | (swapped_pref == TIE)),
    )
    return (
        both.groupby(by)
        .agg(
            pairs=("consistent", "size"),
            consistent=("consistent", "mean"),
            favours_first=("favours_first", "mean"),
            favours_second=("favours_second", "mean"),
            mixed_tie=("mixed_tie", "mean"),
        )
        .reset_index()
    )
