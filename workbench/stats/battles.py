"""Battles: checking a frame of pairwise outcomes and aggregating it into counts per model pair,
the form every Bradley-Terry fit and bootstrap here works on."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.domain import Outcome
from workbench.stats.errors import StatsInputError
from workbench.stats.pair_counts import PairCounts, count_pairs

__all__ = [
    "FASTCHAT_WINNER_TO_OUTCOME",
    "JUDGMENTS_COLUMN",
    "OUTCOME_VALUES",
    "PairCounts",
    "battles_from_fastchat",
    "battles_per_model",
    "checked_battles",
    "pair_counts",
]

OUTCOME_VALUES = frozenset(outcome.value for outcome in Outcome)
#: in a frame of aggregated battles (one row per model pair and outcome), how many judgments
#: a row stands for; its ``weight`` is how many battles they count as
JUDGMENTS_COLUMN = "judgments"

# FastChat's battle files name the winner; "tie (bothbad)" is its both-bad vote.
FASTCHAT_WINNER_TO_OUTCOME = {
    "model_a": Outcome.A.value,
    "model_b": Outcome.B.value,
    "tie": Outcome.TIE.value,
    "tie (bothbad)": Outcome.BOTH_BAD.value,
}


def checked_battles(battles: pd.DataFrame) -> pd.DataFrame:
    """``battles`` with a ``weight`` column (1 where absent), after checking that every row names
    two models and a known outcome. Raises :class:`StatsInputError` otherwise.

    A model compared with itself is allowed (WildVision-Bench judges its anchor against itself);
    such rows carry no information about ratings and the fits set them aside."""
    missing = {"model_a", "model_b", "outcome"} - set(battles.columns)
    if missing:
        raise StatsInputError(f"battles lack the column(s) {', '.join(sorted(missing))}")
    if battles.empty:
        raise StatsInputError("no pairwise outcomes to rate (check the filters)")
    unknown = set(battles["outcome"].unique()) - OUTCOME_VALUES
    if unknown:
        raise StatsInputError(
            f"unknown outcome(s) {sorted(map(str, unknown))}; expected one of "
            + ", ".join(sorted(OUTCOME_VALUES))
        )
    if battles["model_a"].isna().any() or battles["model_b"].isna().any():
        raise StatsInputError("some battles lack a model name")
    if "weight" in battles.columns:
        if (battles["weight"] < 0).any() or battles["weight"].isna().any():
            raise StatsInputError("battle weights must be non-negative numbers")
        return battles
    return battles.assign(weight=1.0)


def indexed_battles(
    battles: pd.DataFrame,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    """Checked battles as arrays in stored order: the index of model_a and of model_b, the score
    of model_a (1, 0 or 0.5 for ties and both-bad), and the models in order of first appearance."""
    n_rows = len(battles)
    codes, uniques = pd.factorize(
        pd.concat([battles["model_a"], battles["model_b"]], ignore_index=True)
    )
    outcome = battles["outcome"].to_numpy()
    score = np.where(
        outcome == Outcome.A.value, 1.0, np.where(outcome == Outcome.B.value, 0.0, 0.5)
    )
    return (
        codes[:n_rows].astype(np.int64),
        codes[n_rows:].astype(np.int64),
        score,
        tuple(str(model) for model in uniques),
    )


def battles_from_fastchat(frame: pd.DataFrame) -> pd.DataFrame:
    """Convert a FastChat/Arena-Hard battle frame (``winner`` in model_a, model_b, tie,
    "tie (bothbad)") into this package's ``outcome`` vocabulary, keeping the row order."""
    outcome = frame["winner"].map(FASTCHAT_WINNER_TO_OUTCOME)
    if outcome.isna().any():
        bad = sorted(map(str, frame.loc[outcome.isna(), "winner"].unique()))
        raise StatsInputError(f"unknown winner label(s) {bad}")
    return pd.DataFrame(
        {"model_a": frame["model_a"].to_numpy(), "model_b": frame["model_b"].to_numpy()}
    ).assign(outcome=outcome.to_numpy())


def pair_counts(battles: pd.DataFrame) -> PairCounts:
    """Aggregate a battles frame into :class:`PairCounts` (see
    :func:`workbench.stats.pair_counts.count_pairs`), after checking it."""
    battles = checked_battles(battles)
    return count_pairs(
        battles["model_a"].to_numpy(dtype=object),
        battles["model_b"].to_numpy(dtype=object),
        battles["outcome"].to_numpy(dtype=object),
        battles["weight"].to_numpy(dtype=np.float64),
    )


def battles_per_model(battles: pd.DataFrame) -> pd.Series:
    """How many battles (rows, unweighted) each model took part in against another model, as
    FastChat's ``num_battles`` column. A frame of aggregated battles says in a ``judgments``
    column how many rows each of its rows stands for."""
    others = battles[battles["model_a"] != battles["model_b"]]
    rows = (
        others[JUDGMENTS_COLUMN].to_numpy()
        if JUDGMENTS_COLUMN in others.columns
        else np.ones(len(others), dtype=np.int64)
    )
    sides = pd.DataFrame(
        {
            "model": np.concatenate([others["model_a"], others["model_b"]]),
            "rows": np.concatenate([rows, rows]),
        }
    )
    counts = sides.groupby("model")["rows"].sum().sort_values(ascending=False, kind="stable")
    return counts.rename("battles").rename_axis(None).astype(int)
