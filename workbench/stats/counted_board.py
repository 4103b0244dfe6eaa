"""The Bradley-Terry leaderboard on aggregated battle counts, with numpy alone: the fit, the
bootstrap, percentile intervals, the predicted win rate against the anchor and the battles per
model, in table order. :func:`workbench.stats.leaderboard.compute_leaderboard` builds its
Bradley-Terry table from this, and the command line's fast path
(:mod:`workbench.services.quick_leaderboard`) prints it without importing pandas, so the two
cannot disagree."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from workbench.domain import Outcome
from workbench.stats.bradley_terry import DEFAULT_SCALE, Anchor, EloScale, fit_counts
from workbench.stats.errors import StatsInputError
from workbench.stats.pair_counts import PairCounts, count_pairs, first_appearance_codes

OUTCOME_VALUES = frozenset(outcome.value for outcome in Outcome)
# Rounds are drawn and solved in blocks so memory stays near this many Hessian entries, and
# this many (round, pair) entries per working array, at once.
HESSIAN_BUDGET = 4_000_000
ROUND_PAIR_BUDGET = 500_000
CONFIDENCE_LEVEL = 0.95


@dataclass(frozen=True)
class CountedRows:
    """Battles aggregated per (model_a, model_b, outcome): what
    :func:`workbench.storage.judgments.battle_counts` returns, as columns."""

    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray
    judgments: np.ndarray

    @classmethod
    def from_rows(cls, rows: list[tuple[str, str, str, float, int]]) -> CountedRows:
        """Columns of ``rows`` (model_a, model_b, outcome, weight, judgments), checked: two
        named sides, a known outcome, a weight that is a non-negative number."""
        if not rows:
            raise StatsInputError("no pairwise outcomes to rate (check the filters)")
        a, b, outcome, weight, judgments = zip(*rows, strict=True)
        counted = cls(
            np.array(a, dtype=object),
            np.array(b, dtype=object),
            np.array(outcome, dtype=object),
            np.array(weight, dtype=np.float64),
            np.array(judgments, dtype=np.int64),
        )
        if any(name is None for name in (*a, *b)):
            raise StatsInputError("some battles lack a model name")
        unknown = set(outcome) - OUTCOME_VALUES
        if unknown:
            raise StatsInputError(
                f"unknown outcome(s) {sorted(map(str, unknown))}; expected one of "
                + ", ".join(sorted(OUTCOME_VALUES))
            )
        if np.isnan(counted.weight).any() or (counted.weight < 0).any():
            raise StatsInputError("battle weights must be non-negative numbers")
        return counted

    def pair_counts(self) -> PairCounts:
        return count_pairs(self.model_a, self.model_b, self.outcome, self.weight)

    def battles_per_model(self, models: tuple[str, ...]) -> np.ndarray:
        """Judgments (rows, unweighted) each of ``models`` took part in against another model,
        as FastChat's ``num_battles``."""
        others = self.model_a != self.model_b
        codes, names = first_appearance_codes(
            np.concatenate([self.model_a[others], self.model_b[others]])
        )
        judged = np.concatenate([self.judgments[others], self.judgments[others]])
        totals = np.bincount(codes, weights=judged, minlength=len(names))
        by_name = dict(zip(names, totals, strict=True))
        return np.array([int(by_name.get(model, 0)) for model in models], dtype=np.int64)


def resampled_cells(counts: PairCounts, rounds: int, seed: int | None) -> np.ndarray:
    """``rounds`` bootstrap resamples of the battles behind ``counts``, as (rounds, cells) weights
    of :attr:`PairCounts.cells` (multinomial with the observed number of battles)."""
    return np.vstack(list(_resampled_blocks(counts, rounds, seed, rounds)))


def _resampled_blocks(
    counts: PairCounts, rounds: int, seed: int | None, block: int
) -> Iterator[np.ndarray]:
    """:func:`resampled_cells` in blocks of at most ``block`` rounds: the same draws (one
    generator draws the rounds in order), without holding every round at once."""
    if rounds < 1:
        raise StatsInputError("the number of bootstrap rounds must be at least 1")
    observed = np.append(counts.cells, counts.self_weight)
    battles = round(float(observed.sum()))
    rng = np.random.default_rng(seed)
    for start in range(0, rounds, block):
        size = min(block, rounds - start)
        draws = rng.multinomial(battles, observed / observed.sum(), size=size)
        yield draws[:, :-1].astype(np.float64)


def bootstrap_counts(
    counts: PairCounts,
    rounds: int,
    seed: int | None = 0,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
) -> np.ndarray:
    """Bradley-Terry ratings of ``rounds`` bootstrap resamples, (rounds, models) in the order
    of ``counts.models``; see :func:`workbench.stats.bootstrap.bootstrap_bradley_terry`."""
    n_models = len(counts.models)
    block = max(
        1,
        min(
            HESSIAN_BUDGET // (n_models * n_models),
            ROUND_PAIR_BUDGET // max(1, len(counts.first)),
        ),
    )
    return np.vstack(
        [
            fit_counts(counts, cells, anchor, scale)
            for cells in _resampled_blocks(counts, rounds, seed, block)
        ]
    )


def descending_order(ratings: np.ndarray) -> np.ndarray:
    """Indices of ``ratings`` from highest to lowest, equal ratings in their given order."""
    return np.argsort(-ratings, kind="stable")


@dataclass(frozen=True)
class CountedBoard:
    """A Bradley-Terry leaderboard, rows highest rating first. ``ci_lower``/``ci_upper`` are
    NaN without a bootstrap, ``win_rate`` NaN without an anchor; ``samples`` holds the
    bootstrap ratings (rounds, models) in the order of ``sample_models``."""

    models: tuple[str, ...]
    rating: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    win_rate: np.ndarray
    n: np.ndarray
    sample_models: tuple[str, ...]
    samples: np.ndarray | None


def counted_board(
    rows: CountedRows,
    anchor: Anchor | None = None,
    bootstrap: int = 0,
    seed: int | None = 0,
    scale: EloScale = DEFAULT_SCALE,
) -> CountedBoard:
    """Bradley-Terry ratings of the counted battles (FastChat ``compute_elo_mle_with_tie``),
    with ``bootstrap`` rounds' 2.5%/97.5% percentiles (linear interpolation, as pandas'
    ``quantile``) and the predicted win rate against the anchor (WildVision-Bench
    ``predict_win_rate``)."""
    if bootstrap < 0:
        raise StatsInputError("the number of bootstrap rounds cannot be negative")
    counts = rows.pair_counts()
    ratings = fit_counts(counts, anchor=anchor, scale=scale)[0]
    n_models = len(counts.models)
    lower = upper = np.full(n_models, np.nan)
    samples = None
    if bootstrap:
        samples = bootstrap_counts(counts, bootstrap, seed, anchor, scale)
        tail = (1.0 - CONFIDENCE_LEVEL) / 2.0
        lower, upper = np.quantile(samples, [tail, 1.0 - tail], axis=0)
    win_rate = np.full(n_models, np.nan)
    if anchor is not None:
        opponent = ratings[counts.index_of(anchor.model)]
        win_rate = 1.0 / (1.0 + scale.base ** ((opponent - ratings) / scale.scale))
    order = descending_order(ratings)
    models = tuple(counts.models[index] for index in order)
    return CountedBoard(
        models=models,
        rating=ratings[order],
        ci_lower=lower[order],
        ci_upper=upper[order],
        win_rate=win_rate[order],
        n=rows.battles_per_model(models),
        sample_models=counts.models,
        samples=samples,
    )
