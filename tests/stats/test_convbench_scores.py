"""ConvBench scores (plugins/workbench_convbench/scores.py) against a direct computation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from workbench_convbench.score_manifest import CONVBENCH_SCORES
from workbench_convbench.scores import (
    ablation_deltas,
    convbench_scores,
    official_pairwise_scores,
    turn_category_scores,
)

from tests.stats.frames import judgments_frame

CONTEXTS = ("standard", "perfect_perception", "perfect_perception_reasoning")


def direct_grades(seed: int) -> tuple[pd.DataFrame, dict[tuple[str, str, str], float]]:
    """Random 0-10 grades of two models on 6 conversations in 2 categories, every context;
    returns the frame and the expected mean per (model, context, score name)."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    sums: dict[tuple[str, str, str], list[float]] = {}
    for model in ("m1", "m2"):
        for context in CONTEXTS:
            for item in range(6):
                for turn, name in ((1, "S1"), (2, "S2"), (3, "S3"), (None, "S0")):
                    grade = float(rng.integers(0, 11))
                    rows.append(
                        {
                            "evaluator": "conv-eval",
                            "kind": "judge",
                            "item": item,
                            "family": "cat-a" if item < 3 else "cat-b",
                            "turn": turn,
                            "turn_category": None if turn is None else f"t{turn}-{item % 2}",
                            "model_a": model,
                            "score": grade,
                            "context": context,
                        }
                    )
                    sums.setdefault((model, context, name), []).append(grade)
    return judgments_frame(rows), {key: float(np.mean(values)) for key, values in sums.items()}


def test_direct_grading_scores_and_aggregates() -> None:
    frame, expected = direct_grades(seed=1)
    table = convbench_scores(frame).set_index(["model", "context"])
    for (model, context, name), value in expected.items():
        assert table.loc[(model, context), name] == pytest.approx(value)
    row = table.loc[("m1", "standard")]
    assert row["R2"] == pytest.approx((row["S1"] + row["S2"] + row["S3"]) / 3)
    assert row["R1"] == pytest.approx((row["R2"] + row["S0"]) / 2)
    assert row["conversations"] == 6
    assert (table["grading"] == "direct").all()


def test_scores_per_category_and_turn_category() -> None:
    frame, _ = direct_grades(seed=2)
    by_category = convbench_scores(frame, ["instruction_category"])
    subset = frame[
        (frame.model_a == "m2") & (frame.context == "standard") & (frame.family == "cat-b")
    ]
    expected_s2 = subset.loc[subset.turn == 2, "score"].mean()
    row = by_category.set_index(["model", "context", "instruction_category"]).loc[
        ("m2", "standard", "cat-b")
    ]
    assert row["S2"] == pytest.approx(expected_s2)
    per_turn = turn_category_scores(frame).set_index(
        ["model", "context", "score_name", "turn_category"]
    )
    turn_one = frame[(frame.model_a == "m1") & (frame.context == "standard") & (frame.turn == 1)]
    expected = turn_one[turn_one.turn_category == "t1-0"]["score"].mean()
    assert per_turn.loc[("m1", "standard", "S1", "t1-0"), "score"] == pytest.approx(expected)


def test_ablation_deltas_compare_contexts() -> None:
    frame, expected = direct_grades(seed=3)
    deltas = ablation_deltas(convbench_scores(frame)).set_index("model")
    for model in ("m1", "m2"):
        for name in ("S2", "S3", "S0"):
            value = (
                expected[(model, "perfect_perception", name)] - expected[(model, "standard", name)]
            )
            assert deltas.loc[model, f"{name}_perception_gain"] == pytest.approx(value)
        for name in ("S3", "S0"):
            value = (
                expected[(model, "perfect_perception_reasoning", name)]
                - expected[(model, "perfect_perception", name)]
            )
            assert deltas.loc[model, f"{name}_reasoning_gain"] == pytest.approx(value)


def test_pairwise_grading_is_the_win_rate_against_the_reference() -> None:
    rows = []
    outcomes = {1: ["a", "a", "b", "a"], 2: ["b", "b", "b", "a"], 3: ["a", "tie", "a", "a"]}
    for turn, results in outcomes.items():
        for item, outcome in enumerate(results):
            # the model sits on either side, as ConvBench's pairwise.npy randomises it
            model_first = item % 2 == 0
            rows.append(
                {
                    "evaluator": "conv-eval",
                    "kind": "judge",
                    "item": item,
                    "turn": turn,
                    "model_a": "m1" if model_first else "reference",
                    "model_b": "reference" if model_first else "m1",
                    "outcome": outcome
                    if model_first
                    else {"a": "b", "b": "a"}.get(outcome, outcome),
                }
            )
    rows.append(
        {
            "evaluator": "conv-eval",
            "kind": "judge",
            "item": 0,
            "turn": None,
            "model_a": "m1",
            "model_b": "reference",
            "outcome": "a",
        }
    )
    table = convbench_scores(judgments_frame(rows)).set_index("model")
    assert table.loc["m1", "grading"] == "pairwise"
    assert table.loc["m1", "S1"] == pytest.approx(75.0)
    assert table.loc["m1", "S2"] == pytest.approx(25.0)
    assert table.loc["m1", "S3"] == pytest.approx(87.5)
    assert table.loc["m1", "S0"] == pytest.approx(100.0)
    official = official_pairwise_scores(judgments_frame(rows), conversations=10).set_index("model")
    # wins over a fixed count: a tie, and the six conversations never judged, are losses
    assert official.loc["m1", "S1"] == pytest.approx(30.0)
    assert official.loc["m1", "S3"] == pytest.approx(30.0)
    assert official.loc["m1", "S0"] == pytest.approx(10.0)
    assert official.loc["m1", "convention"] == "official: wins / 10"
    tables = CONVBENCH_SCORES.compute(judgments_frame(rows))
    assert not tables["pairwise_official"].empty
    assert set(tables) == {
        "pairwise_official",
        "scores",
        "by_instruction_category",
        "by_turn_category",
        "ablation_deltas",
    }
    assert tables["ablation_deltas"].empty
