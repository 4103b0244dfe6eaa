"""CHIRP's tables (plugins/workbench_chirp/scores.py): the human survey pooled, kappa with
Landis & Koch's bands, cycles per evaluator."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from workbench_chirp.score_manifest import CHIRP_SCORES
from workbench_chirp.scores import (
    HUMAN_SURVEY,
    cycles_per_evaluator,
    landis_koch_band,
    larger_model_preference,
)

from tests.stats.frames import judgments_frame
from workbench.stats.errors import StatsInputError


def judgment(kind: str, evaluator: str, item: int, winner: str, loser: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "evaluator": evaluator,
        "item": item,
        "model_a": winner if item % 2 else loser,
        "model_b": loser if item % 2 else winner,
        "outcome": "a" if item % 2 else "b",
    }


@pytest.mark.parametrize(
    ("kappa", "band"),
    [
        (-0.1, "poor"),
        (0.0, "slight"),
        (0.2, "slight"),
        (0.21, "fair"),
        (0.5, "moderate"),
        (0.7, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
    ],
)
def test_landis_and_koch_bands(kappa: float, band: str) -> None:
    assert landis_koch_band(kappa) == band


def test_one_participant_per_matchup_pools_into_the_human_survey_with_its_cycle() -> None:
    rows = [
        judgment("human", "p1", 1, "x", "y"),
        judgment("human", "p2", 1, "y", "z"),
        judgment("human", "p3", 1, "z", "x"),
        judgment("judge", "run", 1, "x", "y"),
        judgment("judge", "run", 1, "y", "z"),
        judgment("judge", "run", 1, "x", "z"),
    ]
    table = cycles_per_evaluator(judgments_frame(rows)).set_index("evaluator")
    # each participant alone judged one matchup: no cycle; pooled, the survey has one
    assert table.loc[HUMAN_SURVEY, "cycles"] == 1
    assert table.loc["run", "cycles"] == 0
    assert table.loc[HUMAN_SURVEY, "questions"] == 1


def test_kappa_with_chance_per_matchup_and_its_band() -> None:
    human_first = [True, True, False, False]
    judge_first = [True, False, False, False]
    rows = []
    for item, (human, judge) in enumerate(zip(human_first, judge_first, strict=True), start=1):
        rows.append(judgment("human", f"p{item}", item, *(("m1", "m2") if human else ("m2", "m1"))))
        rows.append(judgment("judge", "run", item, *(("m1", "m2") if judge else ("m2", "m1"))))
    tables = CHIRP_SCORES.compute(judgments_frame(rows))
    row = tables["kappa_with_human_survey"].set_index("criterion").loc["all"]
    # P_o = 3/4; P_e = 0.5 * 0.25 + 0.5 * 0.75 = 0.5; kappa = (0.75 - 0.5) / 0.5
    assert row["comparisons"] == 4
    assert row["agreement"] == pytest.approx(0.75)
    assert row["kappa"] == pytest.approx(0.5)
    assert row["band"] == "moderate"


def test_how_often_each_evaluator_prefers_the_larger_model() -> None:
    rows = [
        judgment("human", "p1", 1, "big", "small"),
        judgment("human", "p2", 2, "small", "mid"),
        judgment("human", "p3", 3, "big", "mid"),
        judgment("judge", "run", 1, "big", "small"),
        judgment("judge", "run", 2, "mid", "small"),
        judgment("judge", "run", 3, "unsized", "big"),  # no size known: left out
    ]
    attributes = pd.DataFrame({"model": ["small", "mid", "big"], "size": [7.0, 13.0, 34.0]})
    with_attributes = CHIRP_SCORES.with_attributes
    assert with_attributes is not None
    tables = with_attributes(judgments_frame(rows), attributes)
    table = tables["prefers_larger_model"].set_index(["evaluator", "criterion"])
    assert table.loc[(HUMAN_SURVEY, "all"), "comparisons"] == 3
    assert table.loc[(HUMAN_SURVEY, "all"), "prefers_larger"] == pytest.approx(2 / 3)
    assert table.loc[("run", "all"), "comparisons"] == 2
    assert table.loc[("run", "all"), "prefers_larger"] == pytest.approx(1.0)


def test_model_attributes_without_a_size_are_refused_by_name() -> None:
    with pytest.raises(StatsInputError, match="no 'size' column"):
        larger_model_preference(judgments_frame([]), pd.DataFrame({"model": ["m"], "params": [1]}))
