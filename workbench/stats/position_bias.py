"""Position bias of judges and annotators: how often the response shown first (left, "A") wins,
and how often a verdict survives swapping the two positions."""

from __future__ import annotations

from functools import lru_cache

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
    return first_position_wins_of(position_tallies(judgments, by), by)


def position_tallies(judgments: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """What :func:`first_position_wins` needs of the judgments, per ``by`` and item: judgments,
    decisive ones, first-position wins, judgments shown in name order, and the least and
    greatest model shown first. Sums, minima and maxima over items give each evaluator's, so
    the panels' worker keeps these rows and recomputes only the items new judgments touch."""
    frame = checked_battles(judgments)
    if by not in frame.columns:
        raise StatsInputError(f"the judgments have no column '{by}'")
    frame = frame[frame["model_a"] != frame["model_b"]]
    outcome = frame["outcome"]
    # least and greatest name by their rank among the sorted names (pandas' min and max of
    # strings per group are a Python loop)
    names, rank = np.unique(frame["model_a"].to_numpy(dtype=object), return_inverse=True)
    table = (
        frame.assign(
            decisive=outcome.isin([Outcome.A.value, Outcome.B.value]),
            first_wins=outcome == Outcome.A.value,
            in_name_order=frame["model_a"] < frame["model_b"],
            first_shown=rank.reshape(-1),
        )
        .groupby([by, "item"] if "item" in frame.columns and by != "item" else [by], dropna=False)
        .agg(
            judgments=("outcome", "size"),
            decisive=("decisive", "sum"),
            first_wins=("first_wins", "sum"),
            in_name_order=("in_name_order", "sum"),
            first_shown_min=("first_shown", "min"),
            first_shown_max=("first_shown", "max"),
        )
        .reset_index()
    )
    for column in ("first_shown_min", "first_shown_max"):
        table[column] = names[table[column].to_numpy(dtype=np.intp)]
    return table


def first_position_wins_of(tallies: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """:func:`first_position_wins` from :func:`position_tallies` rows (of one or more sets of
    judgments, in any order)."""
    table = (
        tallies.groupby(by)
        .agg(
            judgments=("judgments", "sum"),
            decisive=("decisive", "sum"),
            first_wins=("first_wins", "sum"),
            in_name_order=("in_name_order", "sum"),
            first_shown_min=("first_shown_min", "min"),
            first_shown_max=("first_shown_max", "max"),
        )
        .reset_index()
    )
    table["first_win_share"] = table["first_wins"] / table["decisive"].where(table["decisive"] > 0)
    table["tie_share"] = 1.0 - table["decisive"] / table["judgments"]
    table["p_value"] = [
        _even_odds_p_value(int(wins), int(n)) if n else np.nan
        for wins, n in zip(table["first_wins"], table["decisive"], strict=True)
    ]
    table["positions"] = [
        _design(int(n), int(in_order), low, high)
        for n, in_order, low, high in zip(
            table["judgments"],
            table["in_name_order"],
            table["first_shown_min"],
            table["first_shown_max"],
            strict=True,
        )
    ]
    fixed = (table["positions"] != RANDOMIZED).to_numpy()
    table.loc[fixed, ["first_win_share", "p_value"]] = np.nan
    return table.drop(columns=["in_name_order", "first_shown_min", "first_shown_max"])


@lru_cache(maxsize=4096)
def _even_odds_p_value(wins: int, trials: int) -> float:
    """Two-sided binomial test of ``wins`` in ``trials`` against 1/2. Kept per counts: after a
    vote the panels recompute the table of every evaluator, and only the voter's counts moved
    (each test costs about a millisecond)."""
    return float(stats.binomtest(wins, trials, 0.5).pvalue)


def _design(judgments: int, in_name_order: int, first_min: str, first_max: str) -> str:
    """:func:`position_design` from an evaluator's tallies."""
    if judgments < 2:
        return RANDOMIZED
    if first_min == first_max:
        return f"fixed: {first_min} always shown first"
    if in_name_order in (0, judgments):
        return "fixed: every pair shown in name order"
    return RANDOMIZED


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
    return swap_consistency_of(swap_verdicts(judgments, by), by)


def swap_verdicts(judgments: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """What :func:`swap_consistency` needs of the judgments: per ``by``, comparison and display
    order, the first verdict given (``shown_first``: the name-first model was shown first).
    A comparison is within one item, so an item's rows depend on its judgments alone."""
    frame = oriented(judgments)
    if by not in frame.columns:
        raise StatsInputError(f"the judgments have no column '{by}'")
    keys = _swap_keys(frame, by)
    frame = frame.assign(shown_first=frame["model_a"] == frame["first"])
    # one verdict per order and comparison (the first given, if an order was judged twice)
    return frame.drop_duplicates([*keys, "shown_first"])[[*keys, "shown_first", "preference"]]


def _swap_keys(frame: pd.DataFrame, by: str) -> list[str]:
    return [by, *(c for c in COMPARISON_COLUMNS if c in frame.columns), "first", "second"]


def swap_consistency_of(verdicts: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """:func:`swap_consistency` from :func:`swap_verdicts` rows; rows of several sets of
    judgments may be concatenated in their order (the first verdict per order is kept)."""
    return swap_consistency_of_pairs(swap_pairs(verdicts, by), by)


def swap_pairs(verdicts: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """The comparisons of :func:`swap_verdicts` rows judged in both orders by one ``by``, each
    with whether its two verdicts agree (``consistent``), each favoured whichever response came
    first (``favours_first``) or second (``favours_second``), or one was a tie (``mixed_tie``).
    Per comparison, so per item: the panels' worker keeps them for a side whose evaluators the
    other side does not share."""
    keys = _swap_keys(verdicts, by)
    one_each = verdicts.drop_duplicates([*keys, "shown_first"])
    straight = one_each[one_each["shown_first"]]
    swapped = one_each[~one_each["shown_first"]]
    both = straight.merge(swapped, on=keys, suffixes=("_straight", "_swapped"))
    straight_pref, swapped_pref = both["preference_straight"], both["preference_swapped"]
    # the first-shown model is "first" in the straight order and "second" after the swap
    return both[keys].assign(
        consistent=straight_pref == swapped_pref,
        favours_first=(straight_pref == FIRST) & (swapped_pref == SECOND),
        favours_second=(straight_pref == SECOND) & (swapped_pref == FIRST),
        mixed_tie=(straight_pref != swapped_pref)
        & ((straight_pref == TIE) | (swapped_pref == TIE)),
    )


def swap_consistency_of_sides(
    verdicts: tuple[pd.DataFrame, pd.DataFrame],
    pairs: tuple[pd.DataFrame, pd.DataFrame],
    by: str = "evaluator",
) -> pd.DataFrame:
    """:func:`swap_consistency` of two sets of judgments pooled (the first's verdicts first),
    from each one's :func:`swap_verdicts` and :func:`swap_pairs`: an evaluator found in one set
    only has its pairs there; only the verdicts of an evaluator found in both (a comparison it
    may have judged one way in each) are paired again."""
    shared = set(verdicts[0][by].unique()) & set(verdicts[1][by].unique())
    pieces = [side[~side[by].isin(shared)] for side in pairs]
    if shared:
        pooled = pd.concat([side[side[by].isin(shared)] for side in verdicts], ignore_index=True)
        pieces.append(swap_pairs(pooled, by))
    return swap_consistency_of_pairs(pd.concat(pieces, ignore_index=True), by)


def swap_consistency_of_pairs(pairs: pd.DataFrame, by: str = "evaluator") -> pd.DataFrame:
    """:func:`swap_consistency` from :func:`swap_pairs` rows (in any order)."""
    return (
        pairs.groupby(by)
        .agg(
            pairs=("consistent", "size"),
            consistent=("consistent", "mean"),
            favours_first=("favours_first", "mean"),
            favours_second=("favours_second", "mean"),
            mixed_tie=("mixed_tie", "mean"),
        )
        .reset_index()
    )
