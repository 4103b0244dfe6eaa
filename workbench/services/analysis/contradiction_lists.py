"""Preference cycles under one scope (``workbench contradictions``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench.services.analysis.common import (
    MAX_CYCLE_LENGTH,
    AnalysisError,
    available_sources,
    json_command,
    pairwise_judgments,
)
from workbench.services.analysis.cycles import check_scope
from workbench.services.outcomes import OutcomeFilter, describe_empty
from workbench.services.to_json import jsonable, records
from workbench.stats.cycle_scopes import CYCLE_SCOPES, DEFAULT_CYCLE_SCOPE, PER_EVALUATOR
from workbench.storage.bundle import Bundle

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class ContradictionsResult:
    """Preference cycles under one scope (``workbench contradictions``)."""

    filters: str
    graphs: int
    cycles: pd.DataFrame
    max_length: int | None
    per_evaluator: pd.DataFrame
    per_category: pd.DataFrame
    per_model: pd.DataFrame
    per_item: pd.DataFrame
    examples: pd.DataFrame
    scope: str = DEFAULT_CYCLE_SCOPE
    by_criterion: bool = False
    selection: OutcomeFilter = field(default_factory=OutcomeFilter)

    @property
    def scope_label(self) -> str:
        return CYCLE_SCOPES[self.scope]

    def command(self) -> str:
        """The ``workbench contradictions`` command that prints this result."""
        parts = ["workbench contradictions BUNDLE", f"--scope {self.scope}"]
        if self.max_length is not None:
            parts.append(f"--max-length {self.max_length}")
        if self.by_criterion:
            parts.append("--by-criterion")
        return json_command(parts, self.selection)

    def to_json(self) -> dict[str, Any]:
        """What ``workbench contradictions --json`` prints."""
        return jsonable(
            {
                "request": {
                    "scope": self.scope,
                    "scope_label": self.scope_label,
                    "max_length": self.max_length,
                    "by_criterion": self.by_criterion,
                    "filters": self.filters,
                    "command": self.command(),
                },
                "scope": self.scope,
                "filters": self.filters,
                "graphs": self.graphs,
                "cycles": len(self.cycles),
                "items_with_cycles": int(self.cycles["item"].nunique()) if len(self.cycles) else 0,
                "max_length": self.max_length,
                "per_evaluator": records(self.per_evaluator),
                "per_category": records(self.per_category),
                "per_model": records(self.per_model),
                "per_item": records(self.per_item),
                "examples": records(self.examples),
            }
        )


def contradictions(
    bundle: Bundle,
    filters: OutcomeFilter | None = None,
    by_criterion: bool = False,
    max_length: int | None = MAX_CYCLE_LENGTH,
    listed: int = 20,
    scope: str = DEFAULT_CYCLE_SCOPE,
) -> ContradictionsResult:
    """Preference cycles (A>B, B>C, C>A) under ``scope``: in each evaluator's graph of each
    item (``per-evaluator``, the default) or in the graph of all of an item's judgments
    (``pooled-per-item``), and criterion with ``by_criterion``; counted per evaluator (per
    evaluator scope only), category, model and item, with ``listed`` examples. Items with no
    category count under a category of None. The cycles are
    :func:`workbench.stats.contradictions.find_cycles`', as the panels and the report count."""
    # start-up: networkx, needed only where cycles are counted
    from workbench.stats.contradictions import contradiction_counts, cycle_groups, find_cycles

    filters = filters or OutcomeFilter()
    check_scope(scope)
    groups = cycle_groups(scope, by_criterion)
    outcomes = pairwise_judgments(bundle, filters)
    if outcomes.empty:
        raise AnalysisError(describe_empty(filters, available_sources(bundle)))
    cycles = find_cycles(outcomes, scope, max_length, by_criterion)
    with_items = outcomes[outcomes["item"].notna()]
    graphs = with_items.groupby(groups, dropna=False).ngroups
    if scope == PER_EVALUATOR:
        judged = with_items.groupby("evaluator")["item"].nunique().rename("items")
        per_evaluator = (
            contradiction_counts(cycles, "evaluator").set_index("evaluator")
            if len(cycles)
            else pd.DataFrame({"cycles": []})
        )
        per_evaluator = judged.to_frame().join(per_evaluator).fillna({"cycles": 0}).reset_index()
        per_evaluator["cycles"] = per_evaluator["cycles"].astype(int)
        per_evaluator["cycles_per_item"] = per_evaluator["cycles"] / per_evaluator["items"]
    else:
        per_evaluator = pd.DataFrame()
    labels = outcomes[["item", "item_external_id"]].drop_duplicates()
    empty = pd.DataFrame()
    found = len(cycles) > 0
    return ContradictionsResult(
        filters=filters.describe(),
        graphs=graphs,
        cycles=cycles,
        max_length=max_length,
        per_evaluator=per_evaluator,
        per_category=contradiction_counts(cycles, "category")
        if found and "category" in cycles
        else empty,
        per_model=contradiction_counts(cycles, "model"),
        per_item=contradiction_counts(cycles, ["item"]).merge(labels, on="item", how="left")
        if found
        else empty,
        examples=cycles.head(listed).merge(labels, on="item", how="left") if found else empty,
        scope=scope,
        by_criterion=by_criterion,
        selection=filters,
    )
