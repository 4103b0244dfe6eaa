"""Preference graphs and cycles per item or category (the Graph panel), and the judgments
behind one edge."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import pandas as pd

from workbench.services.analysis.common import (
    ALL_SOURCES,
    MAX_CYCLE_LENGTH,
    AnalysisError,
    pairwise_judgments,
    source_filter,
)
from workbench.services.judgment_cache import JudgmentCache
from workbench.services.outcomes import OutcomeFilter
from workbench.stats.cycle_scopes import CYCLE_SCOPES, DEFAULT_CYCLE_SCOPE
from workbench.storage.bundle import Bundle

if TYPE_CHECKING:
    import networkx as nx


def check_scope(scope: str) -> None:
    if scope not in CYCLE_SCOPES:
        raise AnalysisError(f"unknown cycle scope '{scope}' (choose {', '.join(CYCLE_SCOPES)})")


@dataclass(frozen=True)
class CycleRow:
    item: int
    label: str  # source/external id
    category: str | None
    cycles: int


def items_by_cycles(
    bundle: Bundle,
    source: str = ALL_SOURCES,
    cache: JudgmentCache | None = None,
    scope: str = DEFAULT_CYCLE_SCOPE,
) -> list[CycleRow]:
    """Items whose judgments (of the chosen source) hold preference cycles under ``scope``
    (:data:`~workbench.stats.contradictions.CYCLE_SCOPES`: each evaluator's own graph, or all
    judgments of the item pooled), most cycles first (then by label); the cycles are those
    :func:`contradictions` counts. With ``cache`` (the panels' worker) only the items judged
    since the last call are looked at again."""
    return cycle_rows(bundle, source_filter(source, None, None), cache, scope)


def cycle_rows(
    bundle: Bundle, filters: OutcomeFilter, cache: JudgmentCache | None, scope: str
) -> list[CycleRow]:
    """:func:`items_by_cycles` of the judgments ``filters`` select."""
    check_scope(scope)
    if cache is None:
        found = _item_cycles(pairwise_judgments(bundle, filters), scope)
    else:
        found = cache.per_item(
            bundle, f"cycles:{scope}", (filters,), partial(_item_cycles, scope=scope)
        )
    rows = [
        CycleRow(item=item, label=label, category=category, cycles=cycles)
        for item, (cycles, label, category) in found.items()
    ]
    return sorted(rows, key=lambda row: (-row.cycles, row.label, row.item))


def _item_cycles(
    outcomes: pd.DataFrame, scope: str = DEFAULT_CYCLE_SCOPE
) -> dict[int, tuple[int, str, str | None]]:
    """Per item with preference cycles among its rows under ``scope``: how many, its label and
    category (from its first row). Each item's value depends on its own rows only, so the cache
    can recompute the items a vote touched alone."""
    # start-up: networkx, needed only where cycles are counted
    from workbench.stats.contradictions import find_cycles

    cycles = find_cycles(outcomes, scope, MAX_CYCLE_LENGTH)
    if cycles.empty:
        return {}
    firsts = outcomes[outcomes["item"].notna()].drop_duplicates("item").set_index("item")
    found: dict[int, tuple[int, str, str | None]] = {}
    for item, count in cycles.groupby("item").size().items():
        first = firsts.loc[item]
        category = None if pd.isna(first["category"]) else first["category"]
        found[int(item)] = (int(count), f"{first['source']}/{first['item_external_id']}", category)
    return found


def item_graph(
    bundle: Bundle, item_id: int, source: str = ALL_SOURCES, cache: JudgmentCache | None = None
) -> nx.DiGraph[str]:
    """The preference graph of one item's pooled judgments (edges loser -> winner, with
    ``votes`` and ``consensus``)."""
    # start-up: networkx, needed only where a graph is drawn
    from workbench.stats.contradictions import preference_graph

    outcomes = pairwise_judgments(bundle, source_filter(source, None, None), cache=cache)
    return preference_graph(outcomes[outcomes["item"] == item_id])


def category_graph(
    bundle: Bundle, category: str, source: str = ALL_SOURCES, cache: JudgmentCache | None = None
) -> nx.DiGraph[str]:
    """The preference graph of the pooled judgments of every item in ``category``."""
    # start-up: networkx, needed only where a graph is drawn
    from workbench.stats.contradictions import preference_graph

    outcomes = pairwise_judgments(bundle, source_filter(source, category, None), cache=cache)
    return preference_graph(outcomes)


#: columns of :func:`edge_judgments`
EDGE_JUDGMENT_COLUMNS = ("item", "origin", "evaluator", "outcome", "criterion")


def edge_judgments(
    bundle: Bundle,
    models: tuple[str, str],
    source: str = ALL_SOURCES,
    *,
    item_id: int | None = None,
    category: str | None = None,
    cache: JudgmentCache | None = None,
) -> pd.DataFrame:
    """The judgments behind one edge of a preference graph: every pairwise judgment of the two
    ``models`` (either order) on the item or in the category, one row each with the item's
    label, where it came from (imported, campaign, judge-run), the rater, annotator or judge
    run, the outcome named by model (or ``tie``/``both_bad``) and the criterion."""
    outcomes = pairwise_judgments(bundle, source_filter(source, category, None), cache=cache)
    if item_id is not None:
        outcomes = outcomes[outcomes["item"] == item_id]
    pair = set(models)
    outcomes = outcomes[
        [{a, b} == pair for a, b in zip(outcomes["model_a"], outcomes["model_b"], strict=True)]
    ]
    named = [
        a if outcome == "a" else b if outcome == "b" else str(outcome)
        for a, b, outcome in zip(
            outcomes["model_a"], outcomes["model_b"], outcomes["outcome"], strict=True
        )
    ]
    labels = [
        f"{source_name}/{external}"
        for source_name, external in zip(
            outcomes["source"], outcomes["item_external_id"], strict=True
        )
    ]
    return pd.DataFrame(
        {
            "item": labels,
            "origin": list(outcomes["origin"]),
            "evaluator": list(outcomes["evaluator"]),
            "outcome": named,
            "criterion": list(outcomes["criterion"]),
        },
        columns=list(EDGE_JUDGMENT_COLUMNS),
    )
