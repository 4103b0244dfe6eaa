"""Bootstrap intervals: the published WildVision-Bench 95% CIs, and the resampling itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.stats.conftest import WILDVISION_ANCHOR
from tests.stats.helpers import random_battles
from workbench.stats.battles import checked_battles, pair_counts
from workbench.stats.bootstrap import (
    bootstrap_bradley_terry,
    bootstrap_online_elo,
    confidence_intervals,
    resampled_cells,
)
from workbench.stats.bradley_terry import fit_counts
from workbench.stats.elo import online_elo
from workbench.stats.errors import StatsInputError
from workbench.stats.pair_counts import count_pairs
from workbench.stats.winrate import expected_score


@pytest.fixture(scope="module")
def wildvision_samples(wildvision_battles: pd.DataFrame) -> pd.DataFrame:
    return bootstrap_bradley_terry(wildvision_battles, 500, seed=0, anchor=WILDVISION_ANCHOR)


@pytest.mark.shared_data
def test_rating_ci_widths_are_within_a_quarter_of_the_published(
    wildvision_samples: pd.DataFrame, published_bootstrap: pd.DataFrame
) -> None:
    # show_results.py takes percentiles over all rows of bootstrapping_results.jsonl
    ours = confidence_intervals(wildvision_samples)
    theirs = confidence_intervals(published_bootstrap)
    models = [model for model in theirs.index if model != WILDVISION_ANCHOR.model]
    ratio = (ours["upper"] - ours["lower"])[models] / (theirs["upper"] - theirs["lower"])[models]
    assert ((ratio - 1).abs() < 0.25).all(), ratio.sort_values()
    # the published intervals come from 100 rounds, so single models scatter; on average the
    # widths agree closely
    assert abs(ratio.mean() - 1) < 0.1


@pytest.mark.shared_data
def test_score_ci_widths_are_within_a_quarter_of_the_leaderboard(
    wildvision_samples: pd.DataFrame, published_leaderboard: pd.DataFrame
) -> None:
    ours = confidence_intervals(wildvision_samples)
    anchor_rating = WILDVISION_ANCHOR.rating
    low = pd.Series(expected_score(ours["lower"], anchor_rating) * 100, index=ours.index)
    high = pd.Series(expected_score(ours["upper"], anchor_rating) * 100, index=ours.index)
    models = [model for model in ours.index if model != WILDVISION_ANCHOR.model]
    published = published_leaderboard.loc[models]
    ratio = (high - low)[models] / (published["ci_high"] - published["ci_low"])
    assert ((ratio - 1).abs() < 0.25).all(), ratio.sort_values()


@pytest.mark.shared_data
def test_resampling_cells_gives_the_intervals_of_resampling_battles(
    wildvision_battles: pd.DataFrame, wildvision_samples: pd.DataFrame
) -> None:
    """The bootstrap draws each round's (pair, outcome) counts from a multinomial over the
    aggregated cells, as evalica and arena-rank do, which is the distribution of the counts of
    battles drawn one by one with replacement (FastChat's row-level bootstrap): on
    WildVision-Bench's battles, 500 rounds each, the two give the same intervals up to the
    draws' noise (measured: the widths 0.4% apart on average and 10% at most for any model,
    the bounds 5.6 Elo points apart at most, against widths of 44 to 72)"""
    battles = checked_battles(wildvision_battles)
    columns = [battles[name].to_numpy(dtype=object) for name in ("model_a", "model_b", "outcome")]
    weight = battles["weight"].to_numpy(dtype=np.float64)
    counts = count_pairs(columns[0], columns[1], columns[2], weight)
    rng = np.random.default_rng(11)
    rows = len(battles)
    rounds = []
    for _ in range(len(wildvision_samples)):
        drawn = np.bincount(rng.integers(0, rows, rows), minlength=rows)
        resampled = count_pairs(
            columns[0], columns[1], columns[2], weight * drawn
        )  # every row kept, so the same cells
        assert np.array_equal(resampled.first, counts.first)
        rounds.append(resampled.cells)
    row_level = pd.DataFrame(
        fit_counts(counts, np.vstack(rounds), WILDVISION_ANCHOR), columns=list(counts.models)
    )
    cells = confidence_intervals(wildvision_samples)
    battles_drawn = confidence_intervals(row_level).loc[cells.index]
    models = [model for model in cells.index if model != WILDVISION_ANCHOR.model]
    widths = (cells["upper"] - cells["lower"])[models]
    ratio = widths / (battles_drawn["upper"] - battles_drawn["lower"])[models]
    assert abs(ratio.mean() - 1) < 0.05, ratio.sort_values()
    assert ((ratio - 1).abs() < 0.2).all(), ratio.sort_values()
    bounds = (cells[["lower", "upper"]] - battles_drawn[["lower", "upper"]]).loc[models].abs()
    assert float(bounds.to_numpy().max()) < 8.0, bounds


def test_resampled_cells_keep_the_battle_count_and_follow_the_seed() -> None:
    battles = random_battles(800, 5, seed=1)
    counts = pair_counts(battles)
    first = resampled_cells(counts, 50, seed=7)
    assert first.shape == (50, len(counts.cells))
    assert (first.sum(axis=1) == len(battles)).all()
    assert np.array_equal(first, resampled_cells(counts, 50, seed=7))
    assert not np.array_equal(first, resampled_cells(counts, 50, seed=8))
    # a cell never observed is never drawn, and on average each cell keeps its count
    assert (first[:, counts.cells == 0] == 0).all()
    assert np.allclose(first.mean(axis=0), counts.cells, atol=4 * np.sqrt(counts.cells.max()))


def test_bootstrap_rounds_are_seeded_and_anchored() -> None:
    battles = random_battles(600, 6, seed=2)
    samples = bootstrap_bradley_terry(
        battles, 40, seed=3, anchor=WILDVISION_ANCHOR.__class__("model-02", 1000.0)
    )
    assert samples.shape == (40, 6)
    assert (samples["model-02"] == 1000.0).all()
    again = bootstrap_bradley_terry(
        battles, 40, seed=3, anchor=WILDVISION_ANCHOR.__class__("model-02", 1000.0)
    )
    pd.testing.assert_frame_equal(samples, again)


def test_online_elo_bootstrap_rounds_are_resampled_sequences() -> None:
    battles = random_battles(400, 4, seed=4)
    samples = bootstrap_online_elo(battles, 30, seed=5)
    assert samples.shape == (30, 4)
    picks = np.random.default_rng(5).integers(0, len(battles), size=(len(battles), 30))
    third_round = battles.iloc[picks[:, 2]]
    expected = online_elo(third_round)
    assert (samples.iloc[2][expected.index] - expected).abs().max() < 1e-9


def test_online_elo_bootstrap_in_stretches_equals_one_draw_and_holds_one_stretch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tracemalloc

    from workbench.stats import bootstrap

    battles = random_battles(20_000, 5, seed=6)
    rounds = 40
    # stretches of 997 battle positions, which do not divide the 20,000
    monkeypatch.setattr(bootstrap, "ELO_PICKS_PER_STRETCH", 997 * rounds)
    tracemalloc.start()
    try:
        samples = bootstrap_online_elo(battles, rounds, seed=7)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    picks = np.random.default_rng(7).integers(0, len(battles), size=(len(battles), rounds))
    for lane in (0, 17, rounds - 1):
        expected = online_elo(battles.iloc[picks[:, lane]])
        assert (samples.iloc[lane][expected.index] - expected).abs().max() < 1e-9
    # one draw of every pick is 6.4 MB, and the four arrays gathered through it as much each
    assert peak < picks.nbytes, peak


def test_confidence_intervals_are_percentiles() -> None:
    samples = pd.DataFrame({"m": np.arange(101, dtype=float)})
    intervals = confidence_intervals(samples, level=0.9)
    assert intervals.loc["m", "lower"] == pytest.approx(5.0)
    assert intervals.loc["m", "upper"] == pytest.approx(95.0)
    with pytest.raises(StatsInputError):
        confidence_intervals(samples, level=1.5)
    with pytest.raises(StatsInputError):
        bootstrap_bradley_terry(random_battles(50, 3, seed=1), 0)
