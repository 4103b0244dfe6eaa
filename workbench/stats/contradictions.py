"""Contradictions: preference cycles (A over B, B over C, C over A) in the directed preference
graph of each item, as counted in CHIRP."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from workbench.stats.cycle_scopes import (
    CYCLE_SCOPES,
    DEFAULT_CYCLE_SCOPE,
    DEFAULT_MAX_CYCLE_LENGTH,
    PER_EVALUATOR,
    POOLED_PER_ITEM,
)
from workbench.stats.errors import StatsInputError
from workbench.stats.preferences import majority_preferences

__all__ = ["CYCLE_SCOPES", "DEFAULT_CYCLE_SCOPE", "DEFAULT_MAX_CYCLE_LENGTH", "POOLED_PER_ITEM"]


def preference_graph(judgments: pd.DataFrame) -> nx.DiGraph[str]:
    """Models as nodes, an edge from the less preferred to the preferred model of every pair
    with a net preference (ties and even splits draw no edge). Edge attributes: ``votes`` (all
    judgments of the pair) and ``consensus`` (share of them for the preferred model), which
    CHIRP draws as arrow opacity."""
    if judgments.empty:
        return nx.DiGraph()
    return _graph_of(majority_preferences(judgments, ["first", "second"]))


def preference_graphs_by(
    judgments: pd.DataFrame, group: str
) -> Iterator[tuple[Any, nx.DiGraph[str]]]:
    """``(value, preference_graph(rows of that value))`` for each value of column ``group``, in
    sorted order, from one majority count over all the rows: a count per group cost pandas'
    fixed overhead (milliseconds) once per item, which made the cycles of 2,000 items take tens
    of seconds."""
    if judgments.empty:
        return
    table = majority_preferences(judgments, [group, "first", "second"])
    if table.empty:  # only self-comparisons
        return
    values = table[group].to_numpy()
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    stops = np.r_[starts[1:], len(table)]
    for start, stop in zip(starts, stops, strict=True):
        yield values[start], _graph_of(table.iloc[start:stop])


def _graph_of(table: pd.DataFrame) -> nx.DiGraph[str]:
    """The graph of one group's majority table (rows by first, then second model)."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(pd.unique(pd.concat([table["first"], table["second"]])))
    for first, second, first_votes, second_votes, votes in zip(
        table["first"].to_numpy(),
        table["second"].to_numpy(),
        table["first_votes"].to_numpy(),
        table["second_votes"].to_numpy(),
        table["votes"].to_numpy(),
        strict=True,
    ):
        if first_votes == second_votes:
            continue
        winner, loser = (first, second) if first_votes > second_votes else (second, first)
        graph.add_edge(
            loser,
            winner,
            votes=float(votes),
            consensus=float(max(first_votes, second_votes) / votes),
        )
    return graph


def preference_cycles(
    graph: nx.DiGraph[str], max_length: int | None = None
) -> list[tuple[str, ...]]:
    """Every elementary cycle of a preference graph, each once, rotated to start at its smallest
    model name (``networkx.simple_cycles``; Johnson 1975). ``max_length`` bounds the cycle length
    (a complete graph of many models has very many long cycles)."""
    cycles = []
    for cycle in nx.simple_cycles(graph, length_bound=max_length):
        start = int(np.argmin(cycle))
        cycles.append(tuple(cycle[start:] + cycle[:start]))
    return sorted(cycles)


def find_contradictions(
    judgments: pd.DataFrame,
    group_by: Sequence[str] = ("evaluator", "item"),
    max_length: int | None = None,
) -> pd.DataFrame:
    """Preference cycles of every group (by default each evaluator's judgments of one item; add
    ``criterion`` to separate criteria). Extra columns ``category`` and ``criterion`` are carried
    along when present. One row per cycle: the group columns, ``cycle`` (models in edge order:
    each preferred over the one before it, and the first over the last) and ``length``.

    Reference: CHIRP (2024), contradictions: per question a directed graph from the less to the
    more preferred model; a contradiction is a cycle; fewer cycles mean a more consistent
    evaluator."""
    group_by = list(group_by)
    missing = [column for column in group_by if column not in judgments.columns]
    if missing:
        raise StatsInputError(f"the judgments have no column(s) {', '.join(missing)}")
    carried = [c for c in ("category", "criterion") if c in judgments.columns and c not in group_by]
    columns = [*group_by, *carried, "cycle", "length"]
    if judgments.empty:
        return pd.DataFrame([], columns=columns)
    # the majority of every (group, pair) in one vectorised pass, then a small graph per group:
    # a pandas pass per group cost ~30 ms each, 15 s for WildVision-Bench's 500 items
    codes = judgments.groupby(group_by, dropna=False, sort=True).ngroup().to_numpy()
    first_row = pd.Series(np.arange(len(judgments))).groupby(codes).first()
    rows: list[dict[str, object]] = []
    for code, graph in preference_graphs_by(judgments.assign(_group=codes), "_group"):
        if graph.number_of_edges() < 3 or nx.is_directed_acyclic_graph(graph):
            continue  # no cycle possible: skip the enumeration
        cycles = preference_cycles(graph, max_length)
        if not cycles:
            continue
        # the group's key and carried columns as in its first judgment (a NaN key stays NaN)
        head = judgments.iloc[int(first_row[code])]
        context = {column: head[column] for column in [*group_by, *carried]}
        rows.extend({**context, "cycle": cycle, "length": len(cycle)} for cycle in cycles)
    return pd.DataFrame(rows, columns=columns)


def cycle_groups(scope: str, by_criterion: bool = False) -> list[str]:
    """The columns whose every combination is one preference graph under ``scope``
    (:data:`CYCLE_SCOPES`), with ``criterion`` when criteria are kept apart."""
    if scope not in CYCLE_SCOPES:
        raise StatsInputError(f"unknown cycle scope '{scope}' (choose {', '.join(CYCLE_SCOPES)})")
    groups = ["evaluator", "item"] if scope == PER_EVALUATOR else ["item"]
    return [*groups, *(["criterion"] if by_criterion else [])]


def find_cycles(
    judgments: pd.DataFrame,
    scope: str = DEFAULT_CYCLE_SCOPE,
    max_length: int | None = DEFAULT_MAX_CYCLE_LENGTH,
    by_criterion: bool = False,
) -> pd.DataFrame:
    """The preference cycles of pairwise judgments under one scope (:data:`CYCLE_SCOPES`): the
    one routine behind ``workbench contradictions``, the Graph and Failures panels and the
    report. Judgments without an item take part in no graph. Rows as
    :func:`find_contradictions`, grouped by :func:`cycle_groups`."""
    groups = cycle_groups(scope, by_criterion)
    with_items = judgments[judgments["item"].notna()] if "item" in judgments else judgments
    return find_contradictions(_may_cycle(with_items, groups), groups, max_length)


def _may_cycle(judgments: pd.DataFrame, groups: list[str]) -> pd.DataFrame:
    """The judgments of the groups whose comparisons could hold a cycle: a cycle needs at least
    three models and as many distinct model pairs as models (fewer pairs form a forest, such as
    a baseline compared with every model), so other groups are not searched. Only a shortcut:
    :func:`find_contradictions` finds no cycle in the groups left out."""
    missing = [column for column in groups if column not in judgments.columns]
    if missing or judgments.empty:
        return judgments
    pairs = judgments[judgments["model_b"].notna() & (judgments["model_a"] != judgments["model_b"])]
    if pairs.empty:
        return pairs
    low = pairs[["model_a", "model_b"]].min(axis=1)
    high = pairs[["model_a", "model_b"]].max(axis=1)
    codes = pairs.groupby(groups, dropna=False, sort=False).ngroup()
    pair_count = (low + "\0" + high).groupby(codes).nunique()
    model_count = pd.concat([low, high]).groupby(pd.concat([codes, codes])).nunique()
    possible = pair_count[(pair_count >= model_count) & (model_count >= 3)].index
    return pairs[codes.isin(possible).to_numpy()]


def contradiction_counts(cycles: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Number of cycles per value of ``by`` (e.g. ``item``, ``category``, ``evaluator``), or per
    model when ``by == "model"`` (cycles the model takes part in). Column ``cycles``."""
    if by == "model":
        models = cycles["cycle"].explode() if len(cycles) else pd.Series([], dtype=object)
        counts = models.value_counts().rename_axis("model").rename("cycles")
        return counts.reset_index()
    keys = [by] if isinstance(by, str) else list(by)
    return (
        cycles.groupby(keys, dropna=False)
        .size()
        .rename("cycles")
        .reset_index()
        .sort_values("cycles", ascending=False, kind="stable")
        .reset_index(drop=True)
    )
