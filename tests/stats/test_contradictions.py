"""Preference graphs and their cycles, against a brute-force search for triangles."""

from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.stats.contradictions import (
    contradiction_counts,
    find_contradictions,
    preference_cycles,
    preference_graph,
)
from workbench.stats.errors import StatsInputError


def test_graph_points_from_loser_to_winner_and_skips_ties() -> None:
    judgments = pd.DataFrame(
        {
            "model_a": ["x", "y", "z", "x"],
            "model_b": ["y", "z", "x", "w"],
            "outcome": ["b", "b", "b", "tie"],
        }
    )
    graph = preference_graph(judgments)
    assert set(graph.edges) == {("x", "y"), ("y", "z"), ("z", "x")}
    assert "w" in graph.nodes
    assert preference_cycles(graph) == [("x", "y", "z")]
    assert graph.edges["x", "y"]["consensus"] == 1.0


def brute_force_triangles(judgments: pd.DataFrame) -> set[frozenset[str]]:
    beats: set[tuple[str, str]] = set()
    for a, b, outcome in judgments[["model_a", "model_b", "outcome"]].itertuples(index=False):
        if outcome == "a":
            beats.add((a, b))
        elif outcome == "b":
            beats.add((b, a))
    models = set(judgments.model_a) | set(judgments.model_b)
    return {
        frozenset((x, y, z))
        for x, y, z in permutations(sorted(models), 3)
        if (x, y) in beats and (y, z) in beats and (z, x) in beats
    }


@pytest.mark.parametrize("seed", range(5))
def test_three_cycles_equal_a_brute_force_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    models = [f"m{index}" for index in range(6)]
    rows = []
    for index, x in enumerate(models):
        for y in models[index + 1 :]:
            rows.append((x, y, rng.choice(["a", "b", "tie"], p=[0.45, 0.45, 0.1])))
    judgments = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome"])
    triangles = {
        frozenset(cycle) for cycle in preference_cycles(preference_graph(judgments), max_length=3)
    }
    assert triangles == brute_force_triangles(judgments)


def test_contradictions_per_evaluator_item_and_counts() -> None:
    cycle = [("x", "y", "b"), ("y", "z", "b"), ("z", "x", "b")]
    consistent = [("x", "y", "b"), ("y", "z", "b"), ("x", "z", "b")]
    rows = [("judge", 1, "ocr", *row) for row in cycle]
    rows += [("judge", 2, "ocr", *row) for row in consistent]
    rows += [("human", 1, "ocr", *row) for row in consistent]
    rows += [("judge", 3, "humor", *row) for row in cycle]
    judgments = pd.DataFrame(
        rows, columns=["evaluator", "item", "category", "model_a", "model_b", "outcome"]
    )
    cycles = find_contradictions(judgments)
    assert len(cycles) == 2
    assert set(cycles["item"]) == {1, 3}
    assert (cycles["evaluator"] == "judge").all()
    assert cycles["length"].tolist() == [3, 3]
    per_category = contradiction_counts(cycles, "category").set_index("category")["cycles"]
    assert per_category.to_dict() == {"ocr": 1, "humor": 1}
    per_model = contradiction_counts(cycles, "model").set_index("model")["cycles"]
    assert per_model.to_dict() == {"x": 2, "y": 2, "z": 2}
    with pytest.raises(StatsInputError, match="no column"):
        find_contradictions(judgments, group_by=("rater",))


def test_empty_judgments_have_no_cycles() -> None:
    empty = pd.DataFrame(columns=["evaluator", "item", "model_a", "model_b", "outcome"])
    assert find_contradictions(empty).empty
    assert contradiction_counts(find_contradictions(empty), "model").empty


@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 5),  # item
            st.sampled_from("pqrst"),
            st.sampled_from("pqrst"),
            st.sampled_from(["a", "b", "tie", "both_bad"]),
            st.sampled_from([1.0, 1.0, 0.5, 2.0]),
        ),
        max_size=80,
    ),
    weighted=st.booleans(),
)
@settings(max_examples=120, deadline=None)
def test_graphs_by_item_equal_each_items_own_graph(
    rows: list[tuple[int, str, str, str, float]], weighted: bool
) -> None:
    """One majority count over all items gives each item the graph its own rows give."""
    from workbench.stats.contradictions import preference_graphs_by

    frame = pd.DataFrame(rows, columns=["item", "model_a", "model_b", "outcome", "weight"])
    if not weighted:
        frame = frame.drop(columns="weight")
    grouped = dict(preference_graphs_by(frame, "item"))
    kept = frame[frame["model_a"] != frame["model_b"]]
    assert sorted(grouped) == sorted(kept["item"].unique())
    for item, graph in grouped.items():
        own = preference_graph(frame[frame["item"] == item])
        assert list(graph.nodes) == list(own.nodes)
        assert sorted(graph.edges(data=True)) == sorted(own.edges(data=True))


def cycles_group_by_group(
    judgments: pd.DataFrame, group_by: list[str], max_length: int | None
) -> list[tuple[Any, ...]]:
    """The definition, one group at a time: each group's own preference graph and its cycles,
    with the group's key and first category."""
    found = []
    for key, group in judgments.groupby(group_by, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        for cycle in preference_cycles(preference_graph(group), max_length):
            found.append((*key, group["category"].iloc[0], cycle, len(cycle)))
    return found


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("group_by", [["item"], ["evaluator", "item"]])
def test_contradictions_equal_the_graph_of_each_group(seed: int, group_by: list[str]) -> None:
    """find_contradictions tallies every group's majorities in one pass; the cycles, keys (a
    missing item or evaluator included), carried categories and order equal those of each
    group's own graph, with weights, ties, both-bad and self-comparisons in the mix."""
    rng = np.random.default_rng(seed)
    size = 400
    models = np.array([f"m{index}" for index in range(5)])
    judgments = pd.DataFrame(
        {
            "evaluator": rng.choice(np.array(["judge", "human", None], dtype=object), size),
            "item": rng.choice(np.array([1.0, 2.0, 3.0, 4.0, np.nan]), size),
            "category": rng.choice(np.array(["ocr", None], dtype=object), size),
            "model_a": rng.choice(models, size),
            "model_b": rng.choice(models, size),
            "outcome": rng.choice(np.array(["a", "b", "tie", "both_bad"]), size),
            "weight": rng.choice(np.array([0.5, 1.0, 3.0]), size),
        }
    )
    for max_length in (None, 3):
        expected = cycles_group_by_group(judgments, group_by, max_length)
        cycles = find_contradictions(judgments, group_by, max_length)
        assert len(expected) > 0
        assert list(cycles.columns) == [*group_by, "category", "cycle", "length"]
        found = list(cycles.itertuples(index=False, name=None))
        # NaN != NaN: compare keys through their text
        assert [tuple(map(str, row)) for row in found] == [tuple(map(str, row)) for row in expected]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scope", ["per-evaluator", "pooled-per-item"])
def test_find_cycles_is_find_contradictions_on_its_scopes_groups(seed: int, scope: str) -> None:
    """find_cycles searches only the groups that could hold a cycle; what it finds equals the
    full search on the scope's groups (judgments without an item take part in none)."""
    from workbench.stats.contradictions import cycle_groups, find_cycles

    rng = np.random.default_rng(seed)
    size = 300
    models = np.array([f"m{index}" for index in range(5)])
    judgments = pd.DataFrame(
        {
            "evaluator": rng.choice(np.array(["judge", "human", "r3"], dtype=object), size),
            "item": rng.choice(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, np.nan]), size),
            # some groups compare one model with the others only (a forest: no cycle)
            "model_a": np.where(rng.random(size) < 0.3, "m0", rng.choice(models, size)),
            "model_b": rng.choice(models, size),
            "outcome": rng.choice(np.array(["a", "b", "tie", "both_bad"]), size),
        }
    )
    # a category belongs to the item (the carried column is the group's first row's)
    judgments["category"] = judgments["item"].map({1.0: "ocr", 2.0: "ocr", 3.0: "chart"})
    expected = find_contradictions(
        judgments[judgments["item"].notna()], cycle_groups(scope), max_length=6
    )
    found = find_cycles(judgments, scope, max_length=6)
    assert len(expected) > 0
    pd.testing.assert_frame_equal(found.reset_index(drop=True), expected.reset_index(drop=True))


def test_an_unknown_scope_is_refused() -> None:
    from workbench.stats.contradictions import cycle_groups

    with pytest.raises(StatsInputError, match="unknown cycle scope 'all'"):
        cycle_groups("all")
    assert cycle_groups("pooled-per-item", by_criterion=True) == ["item", "criterion"]
