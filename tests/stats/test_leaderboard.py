"""The leaderboard table and its JSON form."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from tests.stats.conftest import WILDVISION_ANCHOR
from tests.stats.helpers import random_battles
from workbench.stats.bradley_terry import Anchor
from workbench.stats.elo import online_elo
from workbench.stats.errors import StatsInputError
from workbench.stats.leaderboard import compute_leaderboard


@pytest.mark.shared_data
def test_wildvision_leaderboard_json(
    wildvision_battles: pd.DataFrame, published_leaderboard: pd.DataFrame
) -> None:
    board = compute_leaderboard(wildvision_battles, "bt", WILDVISION_ANCHOR, bootstrap=50, seed=1)
    document = json.loads(json.dumps(board.to_json()))
    assert document["method"] == "bt"
    assert document["anchor"] == {"model": WILDVISION_ANCHOR.model, "rating": 1000.0}
    assert document["bootstrap"] == 50
    first = document["models"][0]
    assert set(first) == {"model", "rating", "ci_lower", "ci_upper", "win_rate_vs_anchor", "n"}
    assert first["model"] == "gpt-4o"
    assert first["ci_lower"] < first["rating"] < first["ci_upper"]
    assert first["win_rate_vs_anchor"] * 100 == pytest.approx(
        published_leaderboard.loc["gpt-4o", "score"], abs=0.05
    )
    ratings = [model["rating"] for model in document["models"]]
    assert ratings == sorted(ratings, reverse=True)
    battles = {model["model"]: model["n"] for model in document["models"]}
    assert battles["gpt-4o"] == (wildvision_battles["model_b"] == "gpt-4o").sum()


def test_elo_leaderboard_without_bootstrap_is_the_stored_order_elo() -> None:
    battles = random_battles(500, 5, seed=1)
    board = compute_leaderboard(battles, "elo")
    expected = online_elo(battles)
    table = board.table.set_index("model")
    assert (table["rating"] - expected[table.index]).abs().max() < 1e-9
    assert table["ci_lower"].isna().all()
    assert table["win_rate_vs_anchor"].isna().all()
    document = board.to_json()
    assert document["anchor"] is None
    assert document["models"][0]["ci_lower"] is None


def test_elo_leaderboard_with_bootstrap_reports_the_median_and_anchors() -> None:
    battles = random_battles(500, 5, seed=2)
    anchor = Anchor("model-01", 1200.0)
    board = compute_leaderboard(battles, "elo", anchor, bootstrap=40, seed=3)
    table = board.table.set_index("model")
    assert board.samples is not None
    assert np.allclose(table["rating"], board.samples.median()[table.index])
    assert table.loc["model-01", "rating"] == pytest.approx(1200.0)
    assert table.loc["model-01", "win_rate_vs_anchor"] == pytest.approx(0.5)


def test_style_controlled_leaderboard_keeps_the_plain_ratings() -> None:
    battles = random_battles(400, 4, seed=4)
    rng = np.random.default_rng(4)
    features = (rng.integers(0, 40, (400, 4)), rng.integers(0, 40, (400, 4)))
    board = compute_leaderboard(battles, "bt", bootstrap=20, style_features=features)
    document = board.to_json()
    assert document["style_control"] is True
    assert set(document["style_coefficients"]) == {"length", "headers", "lists", "bold"}
    assert all(math.isfinite(model["rating_without_style_control"]) for model in document["models"])
    with pytest.raises(StatsInputError, match="bt method"):
        compute_leaderboard(battles, "elo", style_features=features)


def test_leaderboard_rejects_bad_requests() -> None:
    battles = random_battles(100, 3, seed=5)
    with pytest.raises(StatsInputError, match="unknown rating method"):
        compute_leaderboard(battles, "glicko")  # type: ignore[arg-type]  # refused on purpose
    with pytest.raises(StatsInputError, match="negative"):
        compute_leaderboard(battles, bootstrap=-1)
    with pytest.raises(StatsInputError, match="anchor model"):
        compute_leaderboard(battles, "elo", Anchor("nobody", 1000))


@pytest.mark.shared_data
def test_rank_change_under_style_control_on_wildvision(
    wildvision_battles: pd.DataFrame,
) -> None:
    # answer lengths drawn per model so that style control moves some ranks
    rng = np.random.default_rng(7)
    models = sorted(set(wildvision_battles["model_a"]) | set(wildvision_battles["model_b"]))
    verbosity = dict(zip(models, rng.integers(0, 600, len(models)), strict=True))
    sides = [wildvision_battles[side].map(verbosity).to_numpy() for side in ("model_a", "model_b")]
    left, right = (
        np.column_stack([lengths + rng.integers(0, 50, len(lengths)), np.zeros((len(lengths), 3))])
        for lengths in sides
    )
    board = compute_leaderboard(wildvision_battles, "bt", style_features=(left, right))
    table = board.table.set_index("model")
    plain_order = list(table["rating_without_style_control"].sort_values(ascending=False).index)
    styled_order = list(table["rating"].sort_values(ascending=False).index)
    for model in models:
        expected = plain_order.index(model) - styled_order.index(model)
        assert table.loc[model, "rank_without_style_control"] == plain_order.index(model) + 1
        assert table.loc[model, "rank_change"] == expected, model
    assert (table["rank_change"] != 0).any()
    document = {row["model"]: row for row in board.to_json()["models"]}
    assert all(
        document[model]["rank_change"] == table.loc[model, "rank_change"] for model in models
    )
