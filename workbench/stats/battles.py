"""Battles: checking a frame of pairwise outcomes and aggregating it into counts per model pair,
the form every Bradley-Terry fit and bootstrap here works on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.domain import Outcome
from workbench.stats.errors import StatsInputError

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


@dataclass(frozen=True)
class PairCounts:
    """Weighted outcome counts per unordered model pair.

    Pair ``p`` opposes ``models[first[p]]`` and ``models[second[p]]`` with ``first < second``;
    ``wins_first``/``wins_second``/``ties`` are summed battle weights (both-bad votes are ties).
    ``self_weight`` is the weight of battles of a model against itself: they do not move any
    rating, but a bootstrap that resamples battles draws them too, so they keep their share.
    """

    models: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    wins_first: np.ndarray
    wins_second: np.ndarray
    ties: np.ndarray
    self_weight: float = 0.0

    @property
    def totals(self) -> np.ndarray:
        return self.wins_first + self.wins_second + self.ties

    @property
    def cells(self) -> np.ndarray:
        """The counts as one vector of (pair, outcome) cells: all first-wins, then second-wins,
        then ties. A bootstrap resample of battles is a multinomial draw over these cells."""
        return np.concatenate([self.wins_first, self.wins_second, self.ties])

    def index_of(self, model: str) -> int:
        try:
            return self.models.index(model)
        except ValueError:
            raise StatsInputError(f"model '{model}' has no battles in the selection") from None


def pair_counts(battles: pd.DataFrame) -> PairCounts:
    """Aggregate battles into :class:`PairCounts` in one pass (factorize + bincount).

    Models are numbered in order of first appearance (model_a before model_b within a row), as
    FastChat's ``preprocess_for_bt`` does; the order does not change any fitted rating.
    """
    battles = checked_battles(battles)
    n_rows = len(battles)
    codes, uniques = pd.factorize(
        pd.concat([battles["model_a"], battles["model_b"]], ignore_index=True)
    )
    models = tuple(str(model) for model in uniques)
    n_models = len(models)
    code_a, code_b = codes[:n_rows].astype(np.int64), codes[n_rows:].astype(np.int64)
    outcome = battles["outcome"].to_numpy()
    weight = battles["weight"].to_numpy(dtype=np.float64)

    is_self = code_a == code_b
    self_weight = float(weight[is_self].sum())
    code_a, code_b, outcome, weight = (
        code_a[~is_self],
        code_b[~is_self],
        outcome[~is_self],
        weight[~is_self],
    )
    first, second = np.minimum(code_a, code_b), np.maximum(code_a, code_b)
    a_is_first = code_a == first
    won_a, won_b = outcome == Outcome.A.value, outcome == Outcome.B.value
    first_won = np.where(a_is_first, won_a, won_b)
    second_won = np.where(a_is_first, won_b, won_a)
    tied = ~(won_a | won_b)

    pair_code = first * n_models + second
    used, pair_index = np.unique(pair_code, return_inverse=True)
    size = len(used)
    return PairCounts(
        models=models,
        first=(used // n_models).astype(np.int64),
        second=(used % n_models).astype(np.int64),
        wins_first=np.bincount(pair_index, weights=weight * first_won, minlength=size),
        wins_second=np.bincount(pair_index, weights=weight * second_won, minlength=size),
        ties=np.bincount(pair_index, weights=weight * tied, minlength=size),
        self_weight=self_weight,
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
