"""Agreement of two leaderboards: rank correlations (Spearman, Kendall) and the linear
correlation of their ratings (Pearson), and the share of model pairs whose confidence intervals
order them the same way in both."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import pandas as pd
from scipy import stats

from workbench.stats.errors import StatsInputError


def _shared(ratings_a: pd.Series, ratings_b: pd.Series) -> list[str]:
    models = sorted(set(ratings_a.dropna().index) & set(ratings_b.dropna().index))
    if len(models) < 2:
        raise StatsInputError("the two leaderboards share fewer than two models")
    return models


def _constant(values: pd.Series) -> bool:
    return bool(values.nunique() < 2)


def spearman_correlation(ratings_a: pd.Series, ratings_b: pd.Series) -> float:
    """Spearman's rank correlation of two rating series over the models they share (Spearman
    1904; ``scipy.stats.spearmanr``, ties get average ranks); NaN if either is constant."""
    models = _shared(ratings_a, ratings_b)
    if _constant(ratings_a[models]) or _constant(ratings_b[models]):
        return float("nan")  # a leaderboard without any order ranks nothing
    return float(stats.spearmanr(ratings_a[models], ratings_b[models]).statistic)


def kendall_tau(ratings_a: pd.Series, ratings_b: pd.Series) -> float:
    """Kendall's tau-b of two rating series over the models they share (Kendall 1945;
    ``scipy.stats.kendalltau``)."""
    models = _shared(ratings_a, ratings_b)
    if _constant(ratings_a[models]) or _constant(ratings_b[models]):
        return float("nan")
    return float(stats.kendalltau(ratings_a[models], ratings_b[models]).statistic)


def pearson_correlation(ratings_a: pd.Series, ratings_b: pd.Series) -> float:
    """Pearson's correlation of two rating series over the models they share
    (``scipy.stats.pearsonr``); unchanged by each board's anchor and scale. NaN if either is
    constant."""
    models = _shared(ratings_a, ratings_b)
    if _constant(ratings_a[models]) or _constant(ratings_b[models]):
        return float("nan")
    return float(stats.pearsonr(ratings_a[models], ratings_b[models]).statistic)


@dataclass(frozen=True)
class CIOrderAgreement:
    """Model pairs of the shared models: ``agree`` both leaderboards separate the pair (disjoint
    intervals) in the same order, ``contradict`` both separate it in opposite orders, the rest
    are left undecided by at least one. ``share`` = agree / pairs."""

    pairs: int
    agree: int
    contradict: int

    @property
    def share(self) -> float:
        return self.agree / self.pairs if self.pairs else float("nan")


def _order(intervals: pd.DataFrame, x: str, y: str) -> int:
    if intervals.loc[x, "lower"] > intervals.loc[y, "upper"]:
        return 1
    if intervals.loc[y, "lower"] > intervals.loc[x, "upper"]:
        return -1
    return 0


def ci_order_agreement(intervals_a: pd.DataFrame, intervals_b: pd.DataFrame) -> CIOrderAgreement:
    """Confidence agreement of two leaderboards given per-model ``lower``/``upper`` bounds.

    Reference: Li et al. 2024, "From Crowdsourced Data to High-Quality Benchmarks: Arena-Hard and
    BenchBuilder", sec. 3.1 ("agreement with confidence intervals"), as used by VisionArena
    (Chou et al. 2024) to compare automatic and human leaderboards."""
    models = _shared(intervals_a["lower"], intervals_b["lower"])
    agree = contradict = 0
    for x, y in combinations(models, 2):
        order_a, order_b = _order(intervals_a, x, y), _order(intervals_b, x, y)
        if order_a and order_b:
            agree += order_a == order_b
            contradict += order_a != order_b
    return CIOrderAgreement(
        pairs=len(models) * (len(models) - 1) // 2, agree=agree, contradict=contradict
    )


@dataclass(frozen=True)
class RankComparison:
    """Two leaderboards compared over the models they share (``only_a``/``only_b`` are the
    others); ``ci_order`` is None when either board has no intervals."""

    models: tuple[str, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    spearman: float
    kendall_tau: float
    pearson: float
    ci_order: CIOrderAgreement | None


def compare_boards(board_a: pd.DataFrame, board_b: pd.DataFrame) -> RankComparison:
    """Compare two leaderboards, each indexed by model with a ``rating`` column and optional
    ``lower``/``upper`` bounds, whatever items or battles each was computed from (VisionArena's
    benchmark-vs-arena comparison, Chou et al. 2024, Table 4)."""
    models = _shared(board_a["rating"], board_b["rating"])
    with_intervals = all(
        column in board.columns and board[column].notna().all()
        for board in (board_a.loc[models], board_b.loc[models])
        for column in ("lower", "upper")
    )
    return RankComparison(
        models=tuple(models),
        only_a=tuple(sorted(set(board_a.index) - set(models))),
        only_b=tuple(sorted(set(board_b.index) - set(models))),
        spearman=spearman_correlation(board_a["rating"], board_b["rating"]),
        kendall_tau=kendall_tau(board_a["rating"], board_b["rating"]),
        pearson=pearson_correlation(board_a["rating"], board_b["rating"]),
        ci_order=ci_order_agreement(board_a.loc[models], board_b.loc[models])
        if with_intervals
        else None,
    )
