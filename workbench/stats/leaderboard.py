"""A leaderboard: ratings by one method, bootstrap intervals, predicted win rate against the
anchor and battle counts, in one table with a JSON form (``workbench leaderboard --json``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from workbench.stats.battles import (
    JUDGMENTS_COLUMN,
    battles_per_model,
    checked_battles,
    pair_counts,
)
from workbench.stats.bootstrap import (
    bootstrap_online_elo,
    confidence_intervals,
)
from workbench.stats.bradley_terry import DEFAULT_SCALE, Anchor, EloScale, bradley_terry_ratings
from workbench.stats.counted_board import CountedRows, counted_board
from workbench.stats.elo import EloSettings, online_elo
from workbench.stats.errors import StatsInputError
from workbench.stats.style import (
    FASTCHAT_2024,
    LMARENA,
    STYLE_ESTIMATORS,
    bootstrap_lmarena_style_controlled,
    bootstrap_style_controlled,
    lmarena_style_controlled_ratings,
    style_controlled_ratings,
)
from workbench.stats.winrate import predicted_win_rate

Method = Literal["bt", "elo"]
METHODS: tuple[str, ...] = ("bt", "elo")


@dataclass(frozen=True)
class Leaderboard:
    """Columns of ``table``: model, rating, ci_lower, ci_upper (absolute ratings, NaN without a
    bootstrap), win_rate_vs_anchor (NaN without an anchor), n (battles against other models),
    and with style control on: rating_without_style_control, rank_without_style_control and
    rank_change (ranks 1 = best, ties sharing the best rank; rank_change = the rank without
    style control less the rank with it, positive for a model style control moves up, as
    LMArena's style-control view shows it); mean_answer_tokens when the caller adds it; and on
    a prediction-powered board (method ``ppi``, ``n`` its human votes) judge_verdicts,
    standard_error, rank_lower and rank_upper (the rank-set)."""

    method: str
    anchor: Anchor | None
    bootstrap: int
    seed: int | None
    table: pd.DataFrame
    samples: pd.DataFrame | None = None
    style_coefficients: pd.Series | None = None
    #: which style-control estimator fitted the ratings (a key of
    #: :data:`workbench.stats.style.STYLE_ESTIMATORS`), None without style control
    style_estimator: str | None = None

    def to_json(self) -> dict[str, Any]:
        def number(value: Any) -> float | None:
            if value is None or math.isnan(value):
                return None
            return float(value)

        models = []
        for row in self.table.itertuples(index=False):
            entry: dict[str, Any] = {
                "model": row.model,
                "rating": number(row.rating),
                "ci_lower": number(row.ci_lower),
                "ci_upper": number(row.ci_upper),
                "win_rate_vs_anchor": number(row.win_rate_vs_anchor),
                "n": int(row.n),
            }
            if "rating_without_style_control" in self.table.columns:
                entry["rating_without_style_control"] = number(row.rating_without_style_control)
                entry["rank_without_style_control"] = int(row.rank_without_style_control)
                entry["rank_change"] = int(row.rank_change)
            if "mean_answer_tokens" in self.table.columns:
                entry["mean_answer_tokens"] = number(row.mean_answer_tokens)
            if "rank_lower" in self.table.columns:
                entry["judge_verdicts"] = int(row.judge_verdicts)
                entry["standard_error"] = number(row.standard_error)
                entry["rank_lower"] = int(row.rank_lower)
                entry["rank_upper"] = int(row.rank_upper)
            models.append(entry)
        result: dict[str, Any] = {
            "method": self.method,
            "anchor": (
                None
                if self.anchor is None
                else {"model": self.anchor.model, "rating": self.anchor.rating}
            ),
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "style_control": self.style_coefficients is not None,
            "models": models,
        }
        if self.style_coefficients is not None:
            result["style_estimator"] = self.style_estimator
            result["style_coefficients"] = {
                name: float(value) for name, value in self.style_coefficients.items()
            }
        return result


def _anchored(ratings: pd.Series | pd.DataFrame, anchor: Anchor | None) -> Any:
    if anchor is None:
        return ratings
    if anchor.model not in (ratings.index if isinstance(ratings, pd.Series) else ratings.columns):
        raise StatsInputError(f"anchor model '{anchor.model}' has no battles in the selection")
    if isinstance(ratings, pd.Series):
        return ratings + (anchor.rating - ratings[anchor.model])
    return ratings.add(anchor.rating - ratings[anchor.model], axis=0)


def _bradley_terry_board(
    battles: pd.DataFrame,
    anchor: Anchor | None,
    bootstrap: int,
    seed: int | None,
    scale: EloScale,
) -> Leaderboard:
    judgments = (
        battles[JUDGMENTS_COLUMN].to_numpy(dtype=np.int64)
        if JUDGMENTS_COLUMN in battles.columns
        else np.ones(len(battles), dtype=np.int64)
    )
    rows = CountedRows(
        battles["model_a"].to_numpy(dtype=object),
        battles["model_b"].to_numpy(dtype=object),
        battles["outcome"].to_numpy(dtype=object),
        battles["weight"].to_numpy(dtype=np.float64),
        judgments,
    )
    board = counted_board(rows, anchor, bootstrap, seed, scale)
    table = pd.DataFrame(
        {
            "model": list(board.models),
            "rating": board.rating,
            "ci_lower": board.ci_lower,
            "ci_upper": board.ci_upper,
            "win_rate_vs_anchor": board.win_rate,
            "n": board.n,
        }
    )
    samples = None
    if board.samples is not None:
        samples = pd.DataFrame(board.samples, columns=list(board.sample_models))
    return Leaderboard(
        method="bt",
        anchor=anchor,
        bootstrap=bootstrap,
        seed=seed,
        table=table,
        samples=samples,
    )


def compute_leaderboard(
    battles: pd.DataFrame,
    method: Method = "bt",
    anchor: Anchor | None = None,
    bootstrap: int = 0,
    seed: int | None = 0,
    scale: EloScale = DEFAULT_SCALE,
    k_factor: float = EloSettings.k,
    style_features: tuple[np.ndarray, np.ndarray] | None = None,
    style_estimator: str = FASTCHAT_2024,
) -> Leaderboard:
    """Rate the models of ``battles``.

    ``bt``: Bradley-Terry MLE (FastChat ``compute_elo_mle_with_tie``), CIs from
    :func:`bootstrap_bradley_terry`. ``elo``: online Elo in the stored order (FastChat
    ``compute_elo``); with a bootstrap the rating shown is the median of the rounds, as
    FastChat's ``elo`` rating system reports (``get_median_elo_from_bootstrap``), because
    one ordering's Elo can fall outside its own interval. ``style_features`` (raw counts per
    battle for side a and side b) turns on style control for ``bt``; the plain ratings are kept in
    ``rating_without_style_control``; ``style_estimator`` names the estimator
    (:data:`workbench.stats.style.STYLE_ESTIMATORS`: FastChat's 2024 one or LMArena's current
    one).
    """
    if method not in METHODS:
        raise StatsInputError(f"unknown rating method '{method}' (choose bt or elo)")
    if bootstrap < 0:
        raise StatsInputError("the number of bootstrap rounds cannot be negative")
    battles = checked_battles(battles)
    samples: pd.DataFrame | None = None
    coefficients: pd.Series | None = None
    plain: pd.Series | None = None
    if method == "bt":
        if style_features is None:
            return _bradley_terry_board(battles, anchor, bootstrap, seed, scale)
        counts = pair_counts(battles)
        plain = bradley_terry_ratings(counts, anchor, scale)
        if style_estimator not in STYLE_ESTIMATORS:
            raise StatsInputError(
                f"unknown style-control estimator '{style_estimator}' "
                f"(choose {', '.join(STYLE_ESTIMATORS)})"
            )
        fit, resample = (
            (lmarena_style_controlled_ratings, bootstrap_lmarena_style_controlled)
            if style_estimator == LMARENA
            else (style_controlled_ratings, bootstrap_style_controlled)
        )
        controlled = fit(battles, style_features[0], style_features[1], anchor, scale)
        ratings, coefficients = controlled.ratings, controlled.coefficients
        if bootstrap:
            samples = resample(
                battles, style_features[0], style_features[1], bootstrap, seed, anchor, scale
            )
    else:
        if style_features is not None:
            raise StatsInputError("style control needs the bt method")
        settings = EloSettings(k_factor, scale.scale, scale.base, scale.initial)
        ratings = _anchored(online_elo(battles, settings), anchor)
        if bootstrap:
            samples = _anchored(bootstrap_online_elo(battles, bootstrap, seed, settings), anchor)
            ratings = samples.median()
    table = pd.DataFrame({"model": ratings.index, "rating": ratings.to_numpy()})
    if samples is not None:
        intervals = confidence_intervals(samples)
        table["ci_lower"] = intervals["lower"].reindex(table["model"]).to_numpy()
        table["ci_upper"] = intervals["upper"].reindex(table["model"]).to_numpy()
    else:
        table["ci_lower"] = np.nan
        table["ci_upper"] = np.nan
    if anchor is not None:
        win_rate = predicted_win_rate(ratings, anchor.model, scale)
        table["win_rate_vs_anchor"] = win_rate.reindex(table["model"]).to_numpy()
    else:
        table["win_rate_vs_anchor"] = np.nan
    table["n"] = battles_per_model(battles).reindex(table["model"]).fillna(0).astype(int).to_numpy()
    if coefficients is not None and plain is not None:
        table["rating_without_style_control"] = plain.reindex(table["model"]).to_numpy()
    table = table.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    if "rating_without_style_control" in table.columns:
        ranked = table["rating"].rank(ascending=False, method="min")
        plain_rank = table["rating_without_style_control"].rank(ascending=False, method="min")
        table["rank_without_style_control"] = plain_rank.astype(int)
        table["rank_change"] = (plain_rank - ranked).astype(int)
    return Leaderboard(
        method=method,
        anchor=anchor,
        bootstrap=bootstrap,
        seed=seed,
        table=table,
        samples=samples,
        style_coefficients=coefficients,
        style_estimator=style_estimator if coefficients is not None else None,
    )
