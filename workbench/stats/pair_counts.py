"""Battles aggregated into weighted outcome counts per model pair, with numpy alone: the form
every Bradley-Terry fit and bootstrap here works on, built without pandas so that the command
line's leaderboard does not pay for importing it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.domain import Outcome
from workbench.stats.errors import StatsInputError


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


def first_appearance_codes(names: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """Codes of ``names`` numbered in order of first appearance (``pandas.factorize``'s order,
    which FastChat's ``preprocess_for_bt`` uses), and the names in that order.

    A dictionary in insertion order, not ``np.unique``: sorting Python strings cost 0.15 s for
    the 79,000 names of a 100-model leaderboard's counts, on the path of every vote's refresh;
    one pass of dictionary lookups costs a tenth of that."""
    index: dict[object, int] = {}
    # a pandas column converts in C; np.asarray would walk an Arrow-backed one name by name
    to_numpy = getattr(names, "to_numpy", None)
    array = to_numpy(dtype=object) if to_numpy is not None else np.asarray(names, dtype=object)
    values = array.reshape(-1).tolist()
    codes = np.fromiter(
        (index.setdefault(name, len(index)) for name in values), dtype=np.int64, count=len(values)
    )
    return codes, tuple(str(name) for name in index)


def count_pairs(
    model_a: np.ndarray, model_b: np.ndarray, outcome: np.ndarray, weight: np.ndarray
) -> PairCounts:
    """Aggregate battles (one entry per battle or per aggregated row, with its weight) into
    :class:`PairCounts` in one pass (first-appearance codes + bincount). Models are numbered
    in order of first appearance, model_a before model_b within a row; the order does not
    change any fitted rating. The caller checks the outcomes and weights."""
    n_rows = len(model_a)
    codes, models = first_appearance_codes(
        np.concatenate([np.asarray(model_a, dtype=object), np.asarray(model_b, dtype=object)])
    )
    n_models = len(models)
    code_a, code_b = codes[:n_rows], codes[n_rows:]
    outcome = np.asarray(outcome, dtype=object)
    weight = np.asarray(weight, dtype=np.float64)

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
    pair_index = pair_index.reshape(-1)
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
