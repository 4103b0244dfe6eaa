"""Bootstrap confidence intervals for Bradley-Terry and online Elo ratings.

Resampling N battles with replacement is the same as one multinomial draw of N over the distinct
(model pair, outcome) cells with the observed shares, so a Bradley-Terry bootstrap round costs a
draw of a few hundred numbers and a fit on counts, never a copied DataFrame (FastChat's
``get_bootstrap_result_elo_mle_with_tie`` uses the same identity). Online Elo depends on battle
order, so its rounds resample whole battle sequences.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.stats.battles import PairCounts, battles_per_model, checked_battles, pair_counts
from workbench.stats.bradley_terry import DEFAULT_SCALE, Anchor, EloScale
from workbench.stats.counted_board import bootstrap_counts, resampled_cells
from workbench.stats.elo import DEFAULT_ELO, EloSettings, online_elo_arrays, sequence_arrays
from workbench.stats.errors import StatsInputError

#: bootstrap picks (battle positions x rounds) drawn and gathered at a time: about 8 MB per
#: array of them
ELO_PICKS_PER_STRETCH = 1 << 20

__all__ = [
    "bootstrap_bradley_terry",
    "bootstrap_online_elo",
    "confidence_intervals",
    "median_online_elo",
    "resampled_cells",
]


def bootstrap_bradley_terry(
    battles: pd.DataFrame | PairCounts,
    rounds: int,
    seed: int | None = 0,
    anchor: Anchor | None = None,
    scale: EloScale = DEFAULT_SCALE,
) -> pd.DataFrame:
    """Bradley-Terry ratings of ``rounds`` bootstrap resamples, one row per round.

    Reference: FastChat ``get_bootstrap_result_elo_mle_with_tie`` / WildVision-Bench
    ``get_bootstrap_result`` (battles resampled with replacement, each round refitted, anchor
    re-pinned in every round). A model absent from a resample keeps a finite rating from the
    vanishing ridge of :mod:`workbench.stats.bradley_terry`, as FastChat's L-BFGS keeps its start.
    """
    counts = battles if isinstance(battles, PairCounts) else pair_counts(battles)
    ratings = bootstrap_counts(counts, rounds, seed, anchor, scale)
    return pd.DataFrame(ratings, columns=list(counts.models))


def bootstrap_online_elo(
    battles: pd.DataFrame,
    rounds: int,
    seed: int | None = 0,
    settings: EloSettings = DEFAULT_ELO,
) -> pd.DataFrame:
    """Online Elo of ``rounds`` bootstrap resamples (battles drawn with replacement, in the drawn
    order), all rounds advanced together one battle position at a time.

    Reference: FastChat ``get_bootstrap_result`` with ``compute_elo`` (elo_analysis.py), and its
    vectorised form ``compute_bootstrap_elo`` / ``fit_vectorized_elo`` (rating_systems.py).
    """
    if rounds < 1:
        raise StatsInputError("the number of bootstrap rounds must be at least 1")
    battles = checked_battles(battles)
    model_a, model_b, score, weight, models = sequence_arrays(battles)
    rng = np.random.default_rng(seed)
    count = len(battles)
    ratings = np.full((rounds, len(models)), settings.initial)
    # The draws are made a stretch of battle positions at a time: the generator yields the same
    # numbers in the same order as one (battles, rounds) draw, so the ratings are identical,
    # but the picks and the four arrays gathered through them are held for one stretch only
    # (at a million battles and 100 rounds the whole draw was 4 GB).
    step = max(1, ELO_PICKS_PER_STRETCH // rounds)
    for begin in range(0, count, step):
        picks = rng.integers(0, count, size=(min(step, count - begin), rounds))
        online_elo_arrays(
            model_a[picks],
            model_b[picks],
            score[picks],
            weight[picks],
            len(models),
            settings,
            start=ratings,
        )
    return pd.DataFrame(ratings, columns=list(models))


def confidence_intervals(samples: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per-model percentile interval of bootstrap ratings (columns ``lower``, ``upper``), as
    FastChat's ``bootstrap_df.quantile(0.025)`` / ``quantile(0.975)`` (linear interpolation)."""
    if not 0.0 < level < 1.0:
        raise StatsInputError("the confidence level must lie between 0 and 1")
    tail = (1.0 - level) / 2.0
    return pd.DataFrame({"lower": samples.quantile(tail), "upper": samples.quantile(1.0 - tail)})


MEDIAN_ELO_COLUMNS = ["model", "elo", "lower", "upper", "battles"]


def median_online_elo(
    battles: pd.DataFrame,
    rounds: int,
    seed: int | None = 0,
    settings: EloSettings = DEFAULT_ELO,
    level: float = 0.95,
) -> pd.DataFrame:
    """Each model's online Elo as the median over ``rounds`` bootstrap resamples
    (:func:`bootstrap_online_elo`), with the percentile interval at ``level`` and the battles
    it took part in; best first. The benchmarks whose papers report bootstrapped online Elo
    (VisIT-Bench, CHIRP) read it so, as FastChat's ``get_bootstrap_result`` tables do."""
    samples = bootstrap_online_elo(battles, rounds, seed, settings)
    intervals = confidence_intervals(samples, level)
    table = pd.DataFrame(
        {
            "model": samples.columns,
            "elo": samples.median().to_numpy(),
            "lower": intervals["lower"].to_numpy(),
            "upper": intervals["upper"].to_numpy(),
        }
    )
    counts = battles_per_model(checked_battles(battles))
    table["battles"] = table["model"].map(counts).fillna(0).astype(int)
    return table.sort_values("elo", ascending=False, ignore_index=True)[MEDIAN_ELO_COLUMNS]
