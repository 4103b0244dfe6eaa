"""FastChat's rating rules, written here from the published rules (not copied), as the oracle
the arena export is read with: the online Elo of ``elo_analysis.compute_elo``, the Bradley-Terry
maximum-likelihood fit of ``compute_mle_elo`` (a logistic regression on the win counts of each
ordered model pair, a tie counting one win each way against two per decisive battle) and the
bootstrap of ``get_bootstrap_result`` (battles resampled with replacement, each round refitted,
percentiles 2.5 and 97.5)."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

TIES = ("tie", "tie (bothbad)")


def fastchat_online_elo(battles: pd.DataFrame) -> dict[str, float]:
    """FastChat's published online Elo rule (``compute_elo``: K=4, scale 400, base 10, initial
    rating 1000, a tie or both-bad scores one half), written here from the rule."""
    rating: dict[str, float] = defaultdict(lambda: 1000.0)
    for model_a, model_b, winner in battles[["model_a", "model_b", "winner"]].itertuples(
        index=False
    ):
        expected_a = 1 / (1 + 10 ** ((rating[model_b] - rating[model_a]) / 400))
        expected_b = 1 / (1 + 10 ** ((rating[model_a] - rating[model_b]) / 400))
        score_a = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}[winner]
        rating[model_a] += 4 * (score_a - expected_a)
        rating[model_b] += 4 * (1 - score_a - expected_b)
    return dict(rating)


def read_as_fastchat(path: Path) -> pd.DataFrame:
    """The file as ``elo_analysis.py --clean-battle-file`` prepares it before rating: read by
    pandas, sorted by ``tstamp`` (an unstable sort), anonymous battles only, and the latest
    ``tstamp`` turned into a date for the report."""
    battles = pd.read_json(path)
    battles = battles.sort_values(ascending=True, by=["tstamp"])
    battles = battles[battles["anony"]].reset_index(drop=True)
    datetime.fromtimestamp(battles["tstamp"].max(), tz=UTC)
    return battles


def fastchat_mle_elo(battles: pd.DataFrame, anchor: str, anchor_rating: float) -> pd.Series:
    """``compute_mle_elo``'s rule (scale 400, base 10), the anchor model at ``anchor_rating``
    as WildVision-Bench's ``show_results.py`` pins its baseline."""
    counts = battles.groupby(["model_a", "model_b", "winner"]).size()
    wins: dict[tuple[str, str], float] = defaultdict(float)
    for (model_a, model_b, winner), count in counts.items():
        if model_a == model_b:
            continue  # a model against itself says nothing of its strength
        if winner == "model_a":
            wins[model_a, model_b] += 2 * count
        elif winner == "model_b":
            wins[model_b, model_a] += 2 * count
        else:
            wins[model_a, model_b] += count
            wins[model_b, model_a] += count
    models = sorted({model for pair in wins for model in pair})
    # ratings are fixed only up to a common shift: the anchor's column is left out (its rating
    # 0 before the scale), which picks the one solution FastChat's fit shifted to the anchor is
    fitted = [model for model in models if model != anchor]
    column = {model: index for index, model in enumerate(fitted)}
    pairs = sorted({tuple(sorted(pair)) for pair in wins})
    rows = np.zeros((2 * len(pairs), len(fitted)))
    labels = np.zeros(2 * len(pairs))
    weights = np.zeros(2 * len(pairs))
    for index, (first, second) in enumerate(pairs):
        for offset, label, weight in ((0, 1.0, wins[first, second]), (1, 0.0, wins[second, first])):
            if first in column:
                rows[2 * index + offset, column[first]] = math.log(10)
            if second in column:
                rows[2 * index + offset, column[second]] = -math.log(10)
            labels[2 * index + offset] = label
            weights[2 * index + offset] = weight
    fit = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-10, solver="newton-cholesky")
    fit.fit(rows, labels, sample_weight=weights)
    ratings = pd.Series(400 * fit.coef_[0] + anchor_rating, index=fitted)
    ratings[anchor] = anchor_rating
    return ratings.sort_index()


class _WinMatrix:
    """``compute_mle_elo``'s design over the battle cells (model_a, model_b, winner) seen: one
    row per ordered pair of different models that one of them can win, and the map from cell
    counts to the rows' weights (two wins per decisive battle, one each way per tie; a model
    against itself is left out). The anchor's column is left out: ratings are fixed only up to
    a common shift, and this picks the solution FastChat's fit shifted to the anchor is."""

    def __init__(self, cells: pd.DataFrame, anchor: str) -> None:
        models = sorted(set(cells["model_a"]) | set(cells["model_b"]))
        self.fitted = [model for model in models if model != anchor]
        column = {model: index for index, model in enumerate(self.fitted)}
        rows: dict[tuple[str, str], int] = {}
        contributions: list[tuple[int, int, float]] = []  # (row, cell, wins per battle)
        for cell, (model_a, model_b, winner) in enumerate(
            cells[["model_a", "model_b", "winner"]].itertuples(index=False)
        ):
            if model_a == model_b:
                continue
            if winner == "model_a":
                credited = [((model_a, model_b), 2.0)]
            elif winner == "model_b":
                credited = [((model_b, model_a), 2.0)]
            else:
                credited = [((model_a, model_b), 1.0), ((model_b, model_a), 1.0)]
            for pair, wins in credited:
                row = rows.setdefault(pair, len(rows))
                contributions.append((row, cell, wins))
        self.design = np.zeros((len(rows), len(self.fitted)))
        for (winner_model, loser_model), row in rows.items():
            if winner_model in column:
                self.design[row, column[winner_model]] = math.log(10)
            if loser_model in column:
                self.design[row, column[loser_model]] = -math.log(10)
        self.weights_of_counts = np.zeros((len(rows), len(cells)))
        for row, cell, wins in contributions:
            self.weights_of_counts[row, cell] += wins

    def ratings(self, counts: np.ndarray, anchor_rating: float) -> np.ndarray:
        """The weighted logistic likelihood maximised by Newton's method (numpy only), fast
        enough for thousands of rounds and checked against the scikit-learn fit."""
        weight = self.weights_of_counts @ counts
        beta = np.zeros(len(self.fitted))
        for _ in range(100):
            p = 1 / (1 + np.exp(-(self.design @ beta)))
            gradient = self.design.T @ (weight * (1 - p))
            hessian = (self.design * (weight * p * (1 - p))[:, None]).T @ self.design
            step = np.linalg.solve(hessian, gradient)
            beta += step
            if np.abs(step).max() < 1e-12:
                break
        return 400 * beta + anchor_rating


def _cells(battles: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The distinct (model_a, model_b, winner) cells and each battle's cell number."""
    keys = battles[["model_a", "model_b", "winner"]]
    cells = keys.drop_duplicates().reset_index(drop=True)
    numbered = keys.merge(cells.reset_index(), on=["model_a", "model_b", "winner"], how="left")
    return cells, numbered["index"].to_numpy()


def fastchat_bootstrap(
    battles: pd.DataFrame, rounds: int, seed: int, anchor: str, anchor_rating: float
) -> pd.DataFrame:
    """``get_bootstrap_result`` with ``compute_mle_elo``: each round draws as many battles as
    there are, with replacement (``DataFrame.sample(frac=1.0, replace=True)`` draws row
    numbers), and refits; one row per round, the anchor at ``anchor_rating`` in each."""
    cells, codes = _cells(battles)
    matrix = _WinMatrix(cells, anchor)
    random_state = np.random.RandomState(seed)
    rows = []
    for _ in range(rounds):
        drawn = codes[random_state.randint(0, len(codes), len(codes))]
        rows.append(matrix.ratings(np.bincount(drawn, minlength=len(cells)), anchor_rating))
    samples = pd.DataFrame(rows, columns=matrix.fitted)
    samples[anchor] = anchor_rating
    return samples


def fastchat_newton_fit(battles: pd.DataFrame, anchor: str, anchor_rating: float) -> pd.Series:
    """The bootstrap's fit on all the battles (to check it against :func:`fastchat_mle_elo`)."""
    cells, codes = _cells(battles)
    matrix = _WinMatrix(cells, anchor)
    fitted = matrix.ratings(np.bincount(codes, minlength=len(cells)), anchor_rating)
    ratings = pd.Series(fitted, index=matrix.fitted)
    ratings[anchor] = anchor_rating
    return ratings.sort_index()


def interval_widths(samples: pd.DataFrame) -> pd.Series:
    """Each model's 95% interval width, as FastChat's and WildVision's leaderboards take it."""
    return samples.quantile(0.975) - samples.quantile(0.025)
