"""Failure cases: the items where judges and humans disagree, cycles, losers to all, flagged
references and lowest turn scores (``workbench failures``, the Failures panel)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench.plugins import registry
from workbench.services.analysis.common import (
    MAX_CYCLE_LENGTH,
    AnalysisError,
    json_command,
    pairwise_judgments,
    source_filter,
)
from workbench.services.analysis.cycles import check_scope, cycle_rows
from workbench.services.browse import ItemFlag, item_flags, item_rows
from workbench.services.judgment_cache import JudgmentCache
from workbench.services.outcomes import OutcomeFilter, judgments_frame
from workbench.services.to_json import jsonable
from workbench.stats.cycle_scopes import CYCLE_SCOPES, DEFAULT_CYCLE_SCOPE
from workbench.storage.bundle import Bundle

if TYPE_CHECKING:
    pass


DISAGREEMENT, CYCLES, LOSES_TO_ALL, REFERENCE_FLAGGED, LOWEST_TURN_SCORES = (
    "disagreement",
    "cycles",
    "loses-to-all",
    "reference-flagged",
    "lowest-turn-scores",
)
FAILURE_KINDS: dict[str, str] = {
    DISAGREEMENT: "judge and human majority disagree",
    CYCLES: "preference cycles",
    LOSES_TO_ALL: "chosen model loses to all others",
    REFERENCE_FLAGGED: "reference flagged",
    LOWEST_TURN_SCORES: "lowest turn scores (ConvBench)",
}
#: how many items the lowest-turn-scores question lists
LOWEST_TURN_SCORE_ITEMS = 50
#: the questions asked of a selection of judgments (the others read every judgment's item
#: flags, or the benchmark's grades)
FILTERED_KINDS = (CYCLES, LOSES_TO_ALL)
#: ``workbench failures`` names the kind of evaluator with this flag (its ``--kind`` is the
#: question)
FAILURES_KIND_FLAG = "--judgments"


@dataclass(frozen=True)
class FailureRow:
    item: int
    label: str
    category: str | None
    detail: str


class FailureCases(list[FailureRow]):
    """The items :func:`failure_cases` found, in order, with the question they answer."""

    def __init__(
        self,
        kind: str,
        model: str | None,
        rows: list[FailureRow],
        scope: str = DEFAULT_CYCLE_SCOPE,
        filters: OutcomeFilter | None = None,
    ) -> None:
        super().__init__(rows)
        self.kind, self.model = kind, model
        #: the cycles' scope (only the preference-cycles question has one)
        self.scope = scope if kind == CYCLES else None
        #: the judgments the question reads (cycles and loses-to-all: see :data:`FILTERED_KINDS`)
        self.filters = filters or OutcomeFilter()

    def describe(self) -> str:
        """The question in one line, as the panel shows it under its title."""
        parts = [f"failure cases: {FAILURE_KINDS[self.kind]}"]
        if self.model is not None:
            parts.append(f"model {self.model}")
        if self.scope is not None:
            parts.append(f"cycles {CYCLE_SCOPES[self.scope]}")
        if self.filters != OutcomeFilter():
            parts.append(f"judgments: {self.filters.describe()}")
        return " · ".join(parts)

    def command(self) -> str:
        """The ``workbench failures`` command that prints these items."""
        parts = ["workbench failures BUNDLE", f"--kind {self.kind}"]
        if self.model is not None:
            parts.append(f"--model {shlex.quote(self.model)}")
        if self.scope is not None:
            parts.append(f"--scope {self.scope}")
        return json_command(parts, self.filters, FAILURES_KIND_FLAG)

    def to_json(self) -> dict[str, Any]:
        """What ``workbench failures --json`` prints."""
        return jsonable(
            {
                "request": {
                    "kind": self.kind,
                    "model": self.model,
                    "scope": self.scope,
                    "filters": self.filters.describe(),
                    "command": self.command(),
                },
                "kind": self.kind,
                "question": FAILURE_KINDS[self.kind],
                "model": self.model,
                "items": [
                    {
                        "item": row.item,
                        "label": row.label,
                        "category": row.category,
                        "detail": row.detail,
                    }
                    for row in self
                ],
            }
        )


def _labels(bundle: Bundle, ids: set[int]) -> dict[int, tuple[str, str | None]]:
    with bundle.read_session() as session:
        # no flags: a label needs none, and the disagreement flag compares majorities (pandas)
        rows = item_rows(session, sorted(ids), flags=frozenset())
    return {row.id: (f"{row.source}/{row.external_id}", row.category) for row in rows}


def failure_cases(
    bundle: Bundle,
    kind: str,
    model: str | None = None,
    cache: JudgmentCache | None = None,
    scope: str = DEFAULT_CYCLE_SCOPE,
    filters: OutcomeFilter | None = None,
) -> FailureCases:
    """Items that answer one of a PI's questions (:data:`FAILURE_KINDS`), sorted by label
    (lowest turn scores: lowest first). ``model`` is the chosen model of :data:`LOSES_TO_ALL`,
    ``scope`` the scope of :data:`CYCLES` (as :func:`items_by_cycles`), ``filters`` the
    judgments the questions of :data:`FILTERED_KINDS` read (None: all; the other questions
    refuse a selection). With ``cache`` (the panels' worker) cycles and losers are looked for
    again only on the items judged since the last call."""
    filters = filters or OutcomeFilter()
    if kind not in FILTERED_KINDS and filters != OutcomeFilter() and kind in FAILURE_KINDS:
        raise AnalysisError(
            f"--kind {kind} reads every judgment; the selection flags ({filters.describe()}) "
            f"apply to {' and '.join(FILTERED_KINDS)} only"
        )
    rows = _failure_rows(bundle, kind, model, cache, scope, filters)
    return FailureCases(kind, model, rows, scope, filters)


def _failure_rows(
    bundle: Bundle,
    kind: str,
    model: str | None,
    cache: JudgmentCache | None,
    scope: str,
    filters: OutcomeFilter,
) -> list[FailureRow]:
    details: dict[int, str] = {}
    if kind in (DISAGREEMENT, REFERENCE_FLAGGED):
        flag = ItemFlag.DISAGREEMENT if kind == DISAGREEMENT else ItemFlag.REFERENCE_PROBLEM
        with bundle.read_session() as session:
            flags = item_flags(session, which=frozenset({flag}))
        details = {item: str(flag) for item, found in flags.items() if flag in found}
    elif kind == CYCLES:
        details = {
            row.item: f"{row.cycles} cycle(s) {CYCLE_SCOPES[scope]}"
            for row in cycle_rows(bundle, filters, cache, scope)
        }
    elif kind == LOWEST_TURN_SCORES:
        return _lowest_turn_scores(bundle)
    elif kind == LOSES_TO_ALL:
        if not model:
            raise AnalysisError("choose the model that loses")
        if cache is None:
            losers = _losers(pairwise_judgments(bundle, filters))
        else:
            losers = cache.per_item(bundle, "losers", (filters,), _losers)
        details = {
            item: f"{model} loses to {others} model(s)"
            for item, (loser, others) in losers.items()
            if loser == model
        }
    else:
        raise AnalysisError(f"unknown failure case '{kind}' (choose {', '.join(FAILURE_KINDS)})")
    labels = _labels(bundle, set(details))
    rows = [
        FailureRow(item, labels[item][0], labels[item][1], detail)
        for item, detail in details.items()
        if item in labels
    ]
    return sorted(rows, key=lambda row: row.label)


def _losers(outcomes: pd.DataFrame) -> dict[int, tuple[str, int]]:
    """Per item, the model that loses to every other model its rows compare (at most one: the
    others all beat it), and how many others there are. Per item, for the cache, and whatever
    model the panel names."""
    # start-up: networkx, needed only where cycles are counted
    from workbench.stats.contradictions import preference_graphs_by

    outcomes = outcomes[outcomes["item"].notna()]
    found: dict[int, tuple[str, int]] = {}
    for item, graph in preference_graphs_by(outcomes, "item"):
        if graph.number_of_nodes() < 2:
            continue
        others = graph.number_of_nodes() - 1
        for model in graph:
            if graph.out_degree(model) == others and graph.in_degree(model) == 0:
                found[int(item)] = (str(model), others)
    return found


def _lowest_turn_scores(bundle: Bundle) -> list[FailureRow]:
    """Items whose worst turn score (of any model, from the plugins that score turns, such as
    ConvBench's S1..S3) is lowest, lowest first."""
    tables = []
    for plugin in registry().plugins:
        for provider in plugin.scores:
            if provider.turn_scores is None:
                continue
            with bundle.read_session() as session:
                judgments = judgments_frame(session, OutcomeFilter(sources=(provider.source,)))
            if not judgments.empty:
                tables.append(provider.turn_scores(judgments))
    scores = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    if scores.empty:
        raise AnalysisError("no turn scores in this bundle (ConvBench judgments give them)")
    worst = (
        scores.sort_values(["share", "item", "model", "score_name"], kind="stable")
        .drop_duplicates("item")
        .head(LOWEST_TURN_SCORE_ITEMS)
    )
    labels = _labels(bundle, {int(item) for item in worst["item"]})
    return [
        FailureRow(
            int(row.item),
            labels[int(row.item)][0],
            labels[int(row.item)][1],
            f"{row.score_name} of {row.model}: {row.value:g} ({row.grading})",
        )
        for row in worst.itertuples(index=False)
        if int(row.item) in labels
    ]


def cycles_request(source: str, scope: str) -> tuple[str, str]:
    """The request of :func:`items_by_cycles` in one line, and the ``workbench failures --kind
    cycles`` command that lists the same items (its details give each item's cycles)."""
    check_scope(scope)
    filters = source_filter(source, None, None)
    command = FailureCases(CYCLES, None, [], scope, filters).command()
    description = (
        f"preference cycles {CYCLE_SCOPES[scope]} · judgments: {source} ({filters.describe()}) "
        f"· cycles of up to {MAX_CYCLE_LENGTH} models"
    )
    return description, command
