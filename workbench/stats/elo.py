"""Online Elo over an ordered sequence of battles, with FastChat's semantics."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.stats.battles import checked_battles, indexed_battles
from workbench.stats.errors import StatsInputError


@dataclass(frozen=True)
class EloSettings:
    """FastChat ``compute_elo`` parameters: K factor, scale, base and initial rating."""

    k: float = 4.0
    scale: float = 400.0
    base: float = 10.0
    initial: float = 1000.0


DEFAULT_ELO = EloSettings()


def sequence_arrays(
    battles: pd.DataFrame,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    """Battles as arrays in stored order: model indexes, score of model_a (1, 0 or 0.5 for ties
    and both-bad), integer weights, and the models in order of first appearance. A row of weight
    k stands for k identical consecutive battles (WildVision-Bench writes them out that way)."""
    battles = checked_battles(battles)
    weight = battles["weight"].to_numpy(dtype=np.float64)
    repeats = np.rint(weight)
    if not np.allclose(weight, repeats):
        raise StatsInputError("online Elo needs whole-number battle weights")
    index_a, index_b, score, models = indexed_battles(battles)
    repeats = repeats.astype(np.int64)
    return (
        np.repeat(index_a, repeats),
        np.repeat(index_b, repeats),
        np.repeat(score, repeats),
        np.ones(int(repeats.sum())),
        models,
    )


def online_elo_arrays(
    model_a: np.ndarray,
    model_b: np.ndarray,
    score_a: np.ndarray,
    weight: np.ndarray,
    n_models: int,
    settings: EloSettings = DEFAULT_ELO,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Run online Elo over battle arrays of shape (battles,) or (battles, rounds), the rounds
    side by side; returns ratings of shape (n_models,) or (rounds, n_models).

    ``start`` (rounds, n_models) continues side-by-side rounds from the ratings an earlier
    stretch of battle positions left (it is updated in place and returned), so a long sequence
    can be played in bounded pieces with the same result as in one.

    Each battle moves model_a by ``k * weight * (score_a - expected_a)`` and model_b by the
    opposite amount, with expected_a = 1 / (1 + base^((r_b - r_a) / scale)) from the ratings
    before the battle (Elo 1978, "The Rating of Chessplayers", sec. 1.6; FastChat
    ``compute_elo``).
    """
    alpha = math.log(settings.base) / settings.scale
    if model_a.ndim == 1:
        ratings = [settings.initial] * n_models
        for a, b, score, w in zip(
            model_a.tolist(), model_b.tolist(), score_a.tolist(), weight.tolist(), strict=True
        ):
            expected = 1.0 / (1.0 + math.exp(alpha * (ratings[b] - ratings[a])))
            update = settings.k * w * (score - expected)
            ratings[a] += update
            ratings[b] -= update
        return np.asarray(ratings)
    rounds = model_a.shape[1]
    table = np.full((rounds, n_models), settings.initial) if start is None else start
    lanes = np.arange(rounds)
    for a, b, score, w in zip(model_a, model_b, score_a, weight, strict=True):
        difference = table[lanes, b] - table[lanes, a]
        update = settings.k * w * (score - 1.0 / (1.0 + np.exp(alpha * difference)))
        table[lanes, a] += update
        table[lanes, b] -= update
    return table


def online_elo(battles: pd.DataFrame, settings: EloSettings = DEFAULT_ELO) -> pd.Series:
    """Online Elo ratings after playing ``battles`` in their stored order, highest first.

    Reference: FastChat ``compute_elo`` (fastchat/serve/monitor/elo_analysis.py): K=4, scale
    400, base 10, initial rating 1000, a tie (or both-bad vote) scores one half for each side.
    """
    model_a, model_b, score, weight, models = sequence_arrays(battles)
    ratings = online_elo_arrays(model_a, model_b, score, weight, len(models), settings)
    return pd.Series(ratings, index=list(models), name="rating").sort_values(ascending=False)
