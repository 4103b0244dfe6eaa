"""What the analysis panels ask of a bundle: a leaderboard under the panel's switches, preference
graphs and cycles per item, failure cases, and human-vs-judge agreement. Qt-free; every number
comes from :mod:`workbench.stats`, and every call opens its own short read transaction so the GUI
can run it on a worker thread."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from workbench.errors import WorkbenchError
from workbench.plugins import registry
from workbench.services.analysis_request import (
    AUTO,
    DEFAULT_DECISIVE_WEIGHT,
    DEFAULT_SEED,
    HUMAN,
    JUDGE,
    METHODS,
    POOLED,
    SIDE_FLAGS,
    TIE_OUTCOMES,
    AnalysisRequest,
    RequestError,
    TooFewBattles,
    csv_request_line,
    most_battles,
    resolve_kind,
    result_document,
    too_few_battles,
)
from workbench.services.analysis_request import (
    DEFAULT_BOOTSTRAP_ROUNDS as DEFAULT_BOOTSTRAP_ROUNDS,
)
from workbench.services.battle_tally import BattleTally, CountRow
from workbench.services.browse import ItemFlag, item_flags
from workbench.services.judgment_activity import judgment_activity  # noqa: F401 - re-exported
from workbench.services.judgment_cache import JudgmentCache
from workbench.services.outcomes import (
    IMPORTED,
    OutcomeFilter,
    answer_refusals,
    answer_style_features,
    describe_empty,
    flagged_judgments,
    judgments_frame,
    mean_answer_tokens,
    parse_selector,
    simulated_left_out,
)
from workbench.services.to_json import jsonable, records
from workbench.stats.agreement import (
    AGREEMENT_CONVENTIONS,
    DEFAULT_AGREEMENT_CONVENTION,
    MT_BENCH_CONVENTION,
    AgreementSummary,
    RaterAgreement,
    aligned_agreement,
    aligned_majorities,
    aligned_votes,
    grouped_agreement,
    rater_agreement_of,
    rater_tables,
)
from workbench.stats.battles import JUDGMENTS_COLUMN, checked_battles
from workbench.stats.bradley_terry import Anchor
from workbench.stats.cycle_scopes import (
    CYCLE_SCOPES,
    DEFAULT_CYCLE_SCOPE,
    DEFAULT_MAX_CYCLE_LENGTH,
    PER_EVALUATOR,
)
from workbench.stats.errors import StatsInputError
from workbench.stats.leaderboard import Leaderboard, compute_leaderboard
from workbench.stats.preferences import COMPARISON_COLUMNS, PREFERENCES, majority_preferences
from workbench.stats.weighting import weight_by_strength
from workbench.stats.winrate import pairwise_win_fraction
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import (
    ADJUDICATION,
    ORIGINS,
    battle_counts,
    distinct_combinations,
    distinct_values,
    select_judgments,
    tagged_categories,
)
from workbench.storage.judgments import (
    COLUMNS as READ_MODEL_COLUMNS,
)

if TYPE_CHECKING:
    import networkx as nx
    from matplotlib.figure import Figure

    from workbench.services.powered_board import PoweredInputs

# matplotlib, networkx and scipy.stats are imported by the functions that use them: a CLI
# command such as ``workbench leaderboard`` then starts without loading them.

ALL_SOURCES = "all"
#: the panels' "source" switch: which judgments count
SOURCE_FILTERS: dict[str, OutcomeFilter] = {
    ALL_SOURCES: OutcomeFilter(),
    "human": OutcomeFilter(kinds=("human",)),
    "judge": OutcomeFilter(kinds=("judge",)),
    "imported": OutcomeFilter(origins=(IMPORTED,)),
}
#: the agreement panel's default sides (``workbench agreement --a/--b`` selectors)
HUMAN_SIDE, JUDGE_SIDE = "human", "judge"
#: what a rating in stored order reads of each judgment: the sides, the outcome and its
#: strength, and with style control the judged item and turn (to find the answers)
RATING_COLUMNS = {
    False: ("model_a", "model_b", "outcome", "strength"),
    True: ("model_a", "model_b", "outcome", "strength", "item", "turn"),
}
#: cycles longer than this are not enumerated (a dense graph of many models holds very many)
MAX_CYCLE_LENGTH = DEFAULT_MAX_CYCLE_LENGTH


class AnalysisError(WorkbenchError):
    """The panel's selection cannot be analysed (no judgments match, an unknown switch)."""


def _filter_for(source: str, category: str | None, criterion: str | None) -> OutcomeFilter:
    if source not in SOURCE_FILTERS:
        raise AnalysisError(f"unknown source '{source}' (choose {', '.join(SOURCE_FILTERS)})")
    return replace(
        SOURCE_FILTERS[source],
        categories=(category,) if category else (),
        criteria=(criterion,) if criterion else (),
    )


def _filter_flags(filters: OutcomeFilter, kind_flag: str = "--kind") -> str:
    """The command-line flags that select ``filters`` (the report's rendering of them), the
    kind of evaluator under ``kind_flag``."""
    from workbench.services.report import filter_flags

    return filter_flags(filters, kind_flag)


def _pairwise(
    bundle: Bundle, *filters: OutcomeFilter | None, cache: JudgmentCache | None = None
) -> pd.DataFrame:
    """The pairwise judgments the filters keep: read now, or kept up to date by ``cache`` (the
    panels' worker), which gives the same frame. Not to be modified (it may be the kept one)."""
    if cache is not None:
        return cache.pairwise(bundle, *filters)
    with bundle.read_session() as session:
        return judgments_frame(session, *filters, pairwise=True)


# --- choices ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalysisChoices:
    """What the panels' pickers offer: values present among the pairwise judgments."""

    categories: tuple[str, ...]
    criteria: tuple[str, ...]
    models: tuple[str, ...]
    campaigns: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    #: agreement sides (``--a/--b`` selectors): the kinds and origins, then each campaign,
    #: judge run and annotator present
    sides: tuple[str, ...] = ()
    #: imported raters (``workbench leaderboard --rater``) and origins present
    raters: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()


#: the read model's columns whose values the pickers offer, apart from the models
CHOICE_COLUMNS = (
    "campaign",
    "judge_run",
    "annotator",
    "origin",
    "category",
    "criterion",
    "language",
    "rater",
)


def analysis_choices(bundle: Bundle) -> AnalysisChoices:
    """The pickers' values, each one ``SELECT DISTINCT`` over the pairwise judgments (derived
    ones included, so a rater that is only derived can still be chosen). Reads the bundle: call
    it on a worker thread."""
    everything = OutcomeFilter(include_derived=True, include_simulated=True)
    with bundle.read_session() as session:
        # two scans, not one per column: names that combine in few ways, then the model pairs
        found = distinct_combinations(
            session, CHOICE_COLUMNS, everything, pairwise=True
        ) | distinct_combinations(session, ("model_a", "model_b"), everything, pairwise=True)

        def values(*columns: str) -> tuple[str, ...]:
            return tuple(sorted({str(value) for column in columns for value in found[column]}))

        campaigns, runs, annotators = values("campaign"), values("judge_run"), values("annotator")
        origins = values("origin")
        sides = (
            HUMAN_SIDE,
            JUDGE_SIDE,
            IMPORTED,
            *(origin for origin in origins if origin == ADJUDICATION),
            *(f"campaign:{name}" for name in campaigns),
            *(f"run:{name}" for name in runs),
            *(f"annotator:{name}" for name in annotators),
        )
        return AnalysisChoices(
            categories=tuple(sorted({*values("category"), *tagged_categories(session)})),
            criteria=values("criterion"),
            models=values("model_a", "model_b"),
            campaigns=campaigns,
            languages=values("language"),
            sides=sides,
            raters=values("rater"),
            origins=origins,
        )


# --- leaderboard --------------------------------------------------------------------------------

#: the leaderboard's request is the one analysis request every door builds
LeaderboardRequest = AnalysisRequest


@dataclass(frozen=True)
class LeaderboardResult:
    """A board and the request it answers, resolved: its kind and anchor named, so that
    ``request.to_command()`` prints these numbers whatever the defaults become."""

    request: AnalysisRequest
    board: Leaderboard
    win_fraction: pd.DataFrame  # observed win rate, row beats column, in the table's order
    battles: int
    battles_without_answers: int = 0
    #: models left out for fewer than ``request.min_battles`` battles, with their battles
    left_out: dict[str, int] = field(default_factory=dict)
    #: verdicts of simulated judge runs the request left out (``--include-simulated``)
    simulated_left_out: int = 0
    #: judgments of the selection on flagged comparisons: counted, or left out when the
    #: request says ``exclude_flagged``
    flagged_judgments: int = 0
    #: a prediction-powered board's inputs (human votes, judge verdicts, the judge's weight)
    powered: PoweredInputs | None = None

    @property
    def table(self) -> pd.DataFrame:
        return self.board.table

    def to_json(self) -> dict[str, Any]:
        """What ``workbench leaderboard --json`` prints (the quick path prints the same)."""
        document = result_document(
            self.board.to_json(),
            self.request,
            self.battles,
            self.left_out,
            self.battles_without_answers if self.request.style_control else None,
            simulated_left_out=self.simulated_left_out,
            flagged_judgments=self.flagged_judgments,
        )
        if self.powered is not None:
            document["prediction_powered"] = self.powered.to_json()
        return jsonable(document)

    def write_csv(self, path: Path) -> None:
        """The table as CSV (``workbench leaderboard --csv``, the panel's export) under a first
        line naming the request and its command, with cells a spreadsheet would run as
        formulas neutralised."""
        from workbench.export.spreadsheet import spreadsheet_safe

        with path.open("w", encoding="utf-8", newline="") as stream:
            stream.write(csv_request_line(self.request) + "\n")
            self.table.map(spreadsheet_safe).to_csv(stream, index=False)

    def forest_figure(self) -> Figure:
        from workbench.stats.plots import ratings_forest_plot

        method = METHODS[self.board.method]
        unit = "human votes" if self.powered is not None else "battles"
        title = f"{method} ratings ({self.battles} {unit}, {self.request.kind_label})"
        if self.board.anchor is not None:
            title += f"\nanchor {self.board.anchor.model} = {self.board.anchor.rating:g}"
        return ratings_forest_plot(self.table, title)

    def heatmap_figure(self) -> Figure:
        from workbench.stats.plots import win_rate_heatmap

        return win_rate_heatmap(self.win_fraction)


def default_anchor(battles: pd.DataFrame) -> str:
    """The model in the most battles (ties by name): the anchor when none is chosen, at every
    door (:func:`workbench.services.analysis_request.most_battles`)."""
    return most_battles(_triples(battles))


def _triples(battles: pd.DataFrame) -> list[tuple[str, str, int]]:
    """(model_a, model_b, judgments) of battle rows, aggregated per model pair."""
    rows = (
        battles[JUDGMENTS_COLUMN]
        if JUDGMENTS_COLUMN in battles.columns
        else pd.Series(1, index=battles.index)
    )
    summed = rows.groupby([battles["model_a"], battles["model_b"]], sort=False).sum()
    return [(str(a), str(b), int(n)) for (a, b), n in summed.items()]


def _counted_battles(
    bundle: Bundle, filters: OutcomeFilter, decisive_weight: float | None
) -> pd.DataFrame:
    """The selected battles aggregated in SQL, one row per (model_a, model_b, outcome) with its
    ``weight`` and ``judgments``: all Bradley-Terry and its bootstrap need, in a few hundred
    rows however many judgments there are."""
    with bundle.read_session() as session:
        rows = battle_counts(session, filters, decisive_weight=decisive_weight)
    return _counts_frame(rows)


def _counts_frame(rows: list[CountRow]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model_a", "model_b", "outcome", "weight", JUDGMENTS_COLUMN])


def _available_sources(bundle: Bundle) -> list[str]:
    with bundle.read_session() as session:
        return distinct_values(
            session, "source", OutcomeFilter(include_derived=True, include_simulated=True)
        )


def _has_judgments(bundle: Bundle, selection: OutcomeFilter) -> bool:
    """Whether ``selection`` keeps a pairwise judgment: the first one found, not a count."""
    with bundle.read_session() as session:
        statement = select_judgments(selection, columns=("kind",), pairwise=True).limit(1)
        return session.execute(statement).first() is not None


def resolved_request(bundle: Bundle, request: AnalysisRequest) -> AnalysisRequest:
    """``request`` with its kind resolved (see :func:`resolve_kind`), after checking that
    every side it names has pairwise judgments in the bundle and that the kind it names is in
    its selection. Each check looks for one judgment, so it costs little at any size."""
    everything = OutcomeFilter(include_derived=True, include_simulated=True)
    for name, (flag, column) in SIDE_FLAGS.items():
        for value in getattr(request, name):
            named: dict[str, Any] = {name: (value,)}
            if _has_judgments(bundle, replace(everything, **named)):
                continue
            with bundle.read_session() as session:
                present = distinct_values(session, column, everything, pairwise=True)
            raise RequestError(
                f"{flag} {value!r}: no pairwise judgments of it in this bundle "
                f"({flag.lstrip('-')} values with judgments: "
                f"{', '.join(map(str, present)) or 'none'})"
            )
    selection = replace(request, kind=POOLED).filters()
    if request.kind == POOLED:
        kind = POOLED
    else:
        kinds = [
            wanted
            for wanted in ((HUMAN, JUDGE) if request.kind == AUTO else (request.kind,))
            if _has_judgments(bundle, replace(selection, kinds=(wanted,)))
        ][:1]
        kind = resolve_kind(request, kinds)
        if not kinds and request.kind != AUTO and _has_judgments(bundle, selection):
            raise RequestError(
                f"--kind {request.kind}: this selection has no {request.kind} judgments "
                "(choose the other kind)"
            )
    if not _has_judgments(bundle, replace(request, kind=kind).filters()):
        with bundle.read_session() as session:
            simulated = simulated_left_out(session, selection)
        if simulated:
            raise RequestError(
                f"only simulated verdicts match this selection ({selection.describe()}): the "
                f"{simulated} "
                "verdicts of simulated judge runs (drawn at random) are left out of boards; "
                "pass --include-simulated to count them"
            )
        raise AnalysisError(describe_empty(selection, _available_sources(bundle)))
    return replace(request, kind=kind)


def _anchor_for(request: AnalysisRequest, battles: pd.DataFrame, left_out: dict[str, int]) -> str:
    """The request's anchor, checked against the models of the board, or the default rule's."""
    if request.anchor is None:
        return default_anchor(battles)
    if request.anchor in left_out:
        raise RequestError(
            f"--anchor {request.anchor}: the model is in {left_out[request.anchor]} battles, "
            f"fewer than --min-battles {request.min_battles}, so it is not on this board"
        )
    models = set(battles["model_a"].unique()) | set(battles["model_b"].unique())
    if request.anchor not in models:
        raise RequestError(
            f"--anchor {request.anchor}: not a model of this selection (models: "
            f"{', '.join(sorted(map(str, models)))})"
        )
    return request.anchor


def leaderboard(
    bundle: Bundle, request: AnalysisRequest, tally: BattleTally | None = None
) -> LeaderboardResult:
    """The leaderboard of the judgments the request selects (as ``workbench leaderboard``),
    carrying the request resolved (its kind and anchor named).

    ``tally`` (the request's filters and weight) keeps the battle counts between calls, so a
    Bradley-Terry refresh after a vote reads only the new judgments (the leaderboard panel)."""
    if request.prediction_powered:
        from workbench.services.powered_board import powered_leaderboard

        return powered_leaderboard(bundle, request)
    request = resolved_request(bundle, request)
    kind = request.kind
    filters = request.filters()
    if request.method == "bt" and not request.style_control and not request.exclude_refusal:
        # a flag raised since the tally's last read takes counted judgments out, which the
        # tally's fingerprint of the judgments does not see: flagged boards count afresh
        if (
            tally is not None
            and not request.exclude_flagged
            and tally.matches(filters, request.decisive_weight)
        ):
            battles = _counts_frame(tally.update(bundle))
        else:
            battles = _counted_battles(bundle, filters, request.decisive_weight)
    else:
        # online Elo needs the stored order, and style control and refusals each battle's
        # answers
        answers = request.style_control or request.exclude_refusal
        with bundle.read_session() as session:
            battles = judgments_frame(
                session, filters, pairwise=True, columns=RATING_COLUMNS[answers]
            )
            if request.exclude_refusal and not battles.empty:
                refused_a, refused_b = answer_refusals(session, battles)
                battles = battles[~(refused_a | refused_b)].reset_index(drop=True)
        if not battles.empty:
            battles = weight_by_strength(battles, request.decisive_weight)
    if request.ties == "drop" and not battles.empty:
        battles = battles[~battles["outcome"].isin(TIE_OUTCOMES)].reset_index(drop=True)
    if battles.empty:
        raise AnalysisError(describe_empty(filters, _available_sources(bundle)))
    style_features = None
    dropped = 0
    if request.style_control:
        with bundle.read_session() as session:
            features_a, features_b, found = answer_style_features(session, battles)
        if not found.any():
            raise AnalysisError("style control needs the answers' texts; none are in the bundle")
        dropped = int((~found).sum())
        battles = battles[found].reset_index(drop=True)
        style_features = (features_a[found], features_b[found])
    left_out = too_few_battles(_triples(battles), request.min_battles)
    if left_out:
        kept = ~(battles["model_a"].isin(left_out) | battles["model_b"].isin(left_out))
        battles = battles[kept.to_numpy()].reset_index(drop=True)
        if style_features is not None:
            mask = kept.to_numpy()
            style_features = (style_features[0][mask], style_features[1][mask])
    if battles.empty:
        raise TooFewBattles(
            f"no model of this selection is in {request.min_battles} battles or more "
            f"(--min-battles; "
            f"{', '.join(f'{model} {count}' for model, count in sorted(left_out.items()))}): "
            "lower --min-battles to rate them anyway"
        )
    anchor = _anchor_for(request, battles, left_out)
    board = compute_leaderboard(
        battles,
        method=request.method,  # type: ignore[arg-type]
        anchor=Anchor(anchor, request.anchor_rating),
        bootstrap=request.bootstrap,
        seed=request.seed,
        k_factor=request.k_factor,
        style_features=style_features,
        style_estimator=request.style_estimator,
    )
    order = list(board.table["model"])
    if request.answer_tokens:
        with bundle.read_session() as session:
            tokens = mean_answer_tokens(session, order)
        board = replace(
            board, table=board.table.assign(mean_answer_tokens=board.table["model"].map(tokens))
        )
    fraction = pairwise_win_fraction(battles).reindex(index=order, columns=order)
    judged = (
        int(battles[JUDGMENTS_COLUMN].sum())
        if JUDGMENTS_COLUMN in battles.columns
        else len(battles)
    )
    with bundle.read_session() as session:
        simulated = simulated_left_out(session, filters)
        flagged = flagged_judgments(session, filters)
    return LeaderboardResult(
        request.resolved(kind, anchor),
        board,
        fraction,
        judged,
        dropped,
        left_out,
        simulated,
        flagged_judgments=flagged,
    )


# --- preference graphs and cycles ---------------------------------------------------------------


def _check_scope(scope: str) -> None:
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
    return _cycle_rows(bundle, _filter_for(source, None, None), cache, scope)


def _cycle_rows(
    bundle: Bundle, filters: OutcomeFilter, cache: JudgmentCache | None, scope: str
) -> list[CycleRow]:
    """:func:`items_by_cycles` of the judgments ``filters`` select."""
    _check_scope(scope)
    if cache is None:
        found = _item_cycles(_pairwise(bundle, filters), scope)
    else:
        found = cache.per_item(
            bundle, f"cycles:{scope}", (filters,), partial(_item_cycles, scope=scope)
        )
    rows = [
        CycleRow(item=item, label=label, category=category, cycles=cycles)
        for item, (cycles, label, category) in found.items()
    ]
    return sorted(rows, key=lambda row: (-row.cycles, row.label, row.item))


def cycles_request(source: str, scope: str) -> tuple[str, str]:
    """The request of :func:`items_by_cycles` in one line, and the ``workbench failures --kind
    cycles`` command that lists the same items (its details give each item's cycles)."""
    _check_scope(scope)
    filters = _filter_for(source, None, None)
    command = FailureCases(CYCLES, None, [], scope, filters).command()
    description = (
        f"preference cycles {CYCLE_SCOPES[scope]} · judgments: {source} ({filters.describe()}) "
        f"· cycles of up to {MAX_CYCLE_LENGTH} models"
    )
    return description, command


def _item_cycles(
    outcomes: pd.DataFrame, scope: str = DEFAULT_CYCLE_SCOPE
) -> dict[int, tuple[int, str, str | None]]:
    """Per item with preference cycles among its rows under ``scope``: how many, its label and
    category (from its first row). Each item's value depends on its own rows only, so the cache
    can recompute the items a vote touched alone."""
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
) -> nx.DiGraph:
    """The preference graph of one item's pooled judgments (edges loser -> winner, with
    ``votes`` and ``consensus``)."""
    from workbench.stats.contradictions import preference_graph

    outcomes = _pairwise(bundle, _filter_for(source, None, None), cache=cache)
    return preference_graph(outcomes[outcomes["item"] == item_id])


def category_graph(
    bundle: Bundle, category: str, source: str = ALL_SOURCES, cache: JudgmentCache | None = None
) -> nx.DiGraph:
    """The preference graph of the pooled judgments of every item in ``category``."""
    from workbench.stats.contradictions import preference_graph

    outcomes = _pairwise(bundle, _filter_for(source, category, None), cache=cache)
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
    outcomes = _pairwise(bundle, _filter_for(source, category, None), cache=cache)
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
        flags = _filter_flags(self.selection)
        if flags:
            parts.append(flags)
        return " ".join(parts) + " --json"

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
    from workbench.stats.contradictions import contradiction_counts, cycle_groups, find_cycles

    filters = filters or OutcomeFilter()
    _check_scope(scope)
    groups = cycle_groups(scope, by_criterion)
    outcomes = _pairwise(bundle, filters)
    if outcomes.empty:
        raise AnalysisError(describe_empty(filters, _available_sources(bundle)))
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


@dataclass(frozen=True)
class ScoresResult:
    """A benchmark's own scores (``workbench scores``)."""

    benchmark: str
    filters: str
    tables: dict[str, pd.DataFrame]
    #: the ``workbench scores`` command that prints these tables
    command: str = ""

    def to_json(self) -> dict[str, Any]:
        """What ``workbench scores --json`` prints."""
        return jsonable(
            {
                "benchmark": self.benchmark,
                "filters": self.filters,
                "command": self.command,
                "tables": {name: records(table) for name, table in self.tables.items()},
            }
        )


def score_provider(name: str) -> Any:
    """The score provider (:class:`~workbench.stats.benchmark_scores.BenchmarkScores`) a plugin
    registered under ``name``; :class:`AnalysisError` naming those there are otherwise."""
    from workbench import plugins  # the registry as it is now (tests replace it)

    known = []
    for plugin in plugins.registry().plugins:
        for provider in plugin.scores:
            known.append(provider.name)
            if provider.name == name:
                return provider
    raise AnalysisError(
        f"no plugin provides scores for '{name}' (available: {', '.join(sorted(known)) or 'none'})"
    )


def benchmarks_with_scores(bundle: Bundle) -> list[str]:
    """The score providers (by name, in the registry's order) whose benchmark's source has
    judgments in ``bundle``: the pages the app's Benchmark panel offers. A benchmark gets a
    page by registering a provider in its plugin; nothing here names one."""
    from workbench import plugins

    sources = set(_available_sources(bundle))
    return [
        provider.name
        for plugin in plugins.registry().plugins
        for provider in plugin.scores
        if provider.source in sources
    ]


def scores_command(
    name: str,
    filters: OutcomeFilter | None = None,
    model_attributes: str | Path | None = None,
    boards: tuple[int, int] | None = None,
) -> str:
    """The ``workbench scores`` command line that prints benchmark ``name``'s tables;
    ``boards``: the bootstrap rounds and seed of the boards it reads off the leaderboards."""
    import shlex

    from workbench.services.report import filter_flags

    parts = ["workbench scores BUNDLE", f"--benchmark {shlex.quote(name)}"]
    flags = filter_flags(filters or OutcomeFilter())
    if flags:
        parts.append(flags)
    if boards is not None:
        parts.append(f"--bootstrap {boards[0]} --seed {boards[1]}")
    if model_attributes is not None:
        parts.append(f"--model-attributes {shlex.quote(str(model_attributes))}")
    return " ".join(parts) + " --json"


def read_model_attributes(path: Path) -> pd.DataFrame:
    """A model attribute file: a CSV with a ``model`` column (names as in the bundle) and
    numeric columns (``size``: billions of parameters, ...). Raises :class:`AnalysisError`
    naming the file and what is wrong."""
    shown = f"model attributes {path}"
    try:
        table = pd.read_csv(path, dtype={"model": str})
    except FileNotFoundError:
        raise AnalysisError(f"{shown}: no such file") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise AnalysisError(f"{shown}: not a readable CSV ({error})") from None
    if "model" not in table.columns:
        raise AnalysisError(f"{shown}: no 'model' column (columns: {', '.join(table.columns)})")
    for column in table.columns.drop("model"):
        values = pd.to_numeric(table[column], errors="coerce")
        bad = table.index[values.isna() & table[column].notna()]
        if len(bad):
            raise AnalysisError(
                f"{shown}, row {int(bad[0]) + 2}, column '{column}': "
                f"{table.at[bad[0], column]!r} is not a number"
            )
        table[column] = values
    repeated = table["model"][table["model"].duplicated()]
    if len(repeated):
        raise AnalysisError(f"{shown}: model '{repeated.iloc[0]}' is listed twice")
    return table


def scores(
    bundle: Bundle,
    provider: Any,
    filters: OutcomeFilter | None = None,
    model_attributes: pd.DataFrame | None = None,
    attributes_file: str | Path | None = None,
    boards: tuple[int, int] = (DEFAULT_BOOTSTRAP_ROUNDS, DEFAULT_SEED),
) -> ScoresResult:
    """The tables a plugin's score provider (``BenchmarkScores``) computes from its source's
    judgments within ``filters``; with ``model_attributes`` (``model`` and numeric columns, read
    from ``attributes_file``, which the result's command names), also the provider's tables
    that need them. ``boards``: the bootstrap rounds and seed of the boards a provider reads
    off the app's leaderboards."""
    filters = filters or OutcomeFilter()
    with bundle.read_session() as session:
        judgments = judgments_frame(
            session,
            filters,
            OutcomeFilter(sources=(provider.source,)),
            columns=(*READ_MODEL_COLUMNS, *provider.detail_columns),
        )
    if judgments.empty:
        raise AnalysisError(
            f"no judgments of source '{provider.source}' match {filters.describe()} "
            f"(sources with judgments: {', '.join(_available_sources(bundle)) or 'none'})"
        )
    tables = provider.compute(judgments)
    from_boards = getattr(provider, "from_boards", None)
    if from_boards is not None:
        from workbench.services.benchmark_boards import BundleBoards

        tables = {**tables, **from_boards(BundleBoards(bundle, filters, provider.source, *boards))}
    if model_attributes is not None:
        if provider.with_attributes is None:
            raise AnalysisError(f"the {provider.name} scores use no model attributes")
        try:
            tables = {**tables, **provider.with_attributes(judgments, model_attributes)}
        except StatsInputError as error:
            raise AnalysisError(f"model attributes: {error}") from error
    fitted = boards if from_boards is not None else None
    command = scores_command(provider.name, filters, attributes_file, fitted)
    return ScoresResult(provider.name, filters.describe(), tables, command)


# --- failure cases ------------------------------------------------------------------------------

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
        import shlex

        parts = ["workbench failures BUNDLE", f"--kind {self.kind}"]
        if self.model is not None:
            parts.append(f"--model {shlex.quote(self.model)}")
        if self.scope is not None:
            parts.append(f"--scope {self.scope}")
        flags = _filter_flags(self.filters, FAILURES_KIND_FLAG)
        if flags:
            parts.append(flags)
        return " ".join(parts) + " --json"

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
    from workbench.services.browse import item_rows

    with bundle.read_session() as session:
        rows = item_rows(session, sorted(ids))
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
            flags = item_flags(session)
        details = {item: str(flag) for item, found in flags.items() if flag in found}
    elif kind == CYCLES:
        details = {
            row.item: f"{row.cycles} cycle(s) {CYCLE_SCOPES[scope]}"
            for row in _cycle_rows(bundle, filters, cache, scope)
        }
    elif kind == LOWEST_TURN_SCORES:
        return _lowest_turn_scores(bundle)
    elif kind == LOSES_TO_ALL:
        if not model:
            raise AnalysisError("choose the model that loses")
        if cache is None:
            losers = _losers(_pairwise(bundle, filters))
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


# --- agreement ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgreementResult:
    """Side a (by default the humans) against side b (by default the judges) on the
    comparisons both judged; each side is its majority preference per comparison
    (:func:`workbench.stats.preferences.majority_preferences`). ``overlap`` judgments were
    selected by both sides and counted on one only (see :func:`agreement`)."""

    side_a: str
    side_b: str
    filters: str
    overlap: int
    overlap_kept_on: str | None  # "a" or "b": the side that kept the overlapping judgments
    summary: AgreementSummary
    raters_a: RaterAgreement
    raters_b: RaterAgreement
    confusion: pd.DataFrame  # rows: side a's majority, columns: side b's (first/second/tie)
    by_majority: pd.DataFrame  # majority (e.g. "3/3"), comparisons, agreement
    by_category: pd.DataFrame  # category (None: items with none), comparisons, agreement, kappa
    by_model_pair: pd.DataFrame  # first, second, comparisons, agreement, cohen_kappa
    position_bias: pd.DataFrame  # first_position_wins per evaluator (see its ``positions``)
    swap_consistency: pd.DataFrame
    ratings: pd.DataFrame  # model, rating_a, rating_b: the two sides' Bradley-Terry ratings
    ranks: dict[str, Any] | None  # rank agreement of the two sides' leaderboards (>= 3 models)
    spearman: float
    kendall: float
    rank_models: int
    convention: str = DEFAULT_AGREEMENT_CONVENTION
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT
    bootstrap: int = 0
    seed: int = 0
    selection: OutcomeFilter | None = None
    #: verdicts of simulated judge runs either side would have selected, left out
    #: (``--include-simulated`` counts them), as the boards say it
    simulated_left_out: int = 0

    @property
    def convention_label(self) -> str:
        return AGREEMENT_CONVENTIONS[self.convention]

    @property
    def unit(self) -> str:
        """What one counted row is: a comparison (majority) or a vote of side a (MT-Bench)."""
        return "votes" if self.convention == MT_BENCH_CONVENTION else "comparisons"

    def describe(self) -> str:
        """The request in one line, as the panel shows it under its title."""
        weight = self.decisive_weight or 1
        return " · ".join(
            (
                f"agreement: {self.side_a} vs {self.side_b}",
                f"{self.convention} convention ({self.convention_label})",
                self.filters,
                f"{self.bootstrap} bootstrap rounds (seed {self.seed})",
                f"much better = {weight:g} battles",
            )
        )

    def command(self) -> str | None:
        """The ``workbench agreement`` command that prints this result (None when the
        selection is not known, e.g. sides read by the caller)."""
        if self.selection is None:
            return None
        import shlex

        parts = [
            "workbench agreement BUNDLE",
            f"--a {shlex.quote(self.side_a)} --b {shlex.quote(self.side_b)}",
            f"--convention {self.convention}",
            f"--bootstrap {self.bootstrap} --seed {self.seed}",
        ]
        if self.decisive_weight != DEFAULT_DECISIVE_WEIGHT:
            parts.append(f"--decisive-weight {self.decisive_weight or 1:g}")
        flags = _filter_flags(self.selection)
        if flags:
            parts.append(flags)
        return " ".join(parts) + " --json"

    def to_json(self) -> dict[str, Any]:
        """What ``workbench agreement --json`` prints."""
        return jsonable(
            {
                "request": {
                    "a": self.side_a,
                    "b": self.side_b,
                    "convention": self.convention,
                    "convention_label": self.convention_label,
                    "unit": self.unit,
                    "decisive_weight": self.decisive_weight,
                    "bootstrap": self.bootstrap,
                    "seed": self.seed,
                    "filters": self.filters,
                    "command": self.command(),
                },
                "a": self.side_a,
                "b": self.side_b,
                "convention": self.convention,
                "filters": self.filters,
                "overlap": {"judgments": self.overlap, "kept_on": self.overlap_kept_on},
                "simulated_left_out": self.simulated_left_out,
                "agreement": self.summary.to_json(),
                "raters": {"a": self.raters_a.to_json(), "b": self.raters_b.to_json()},
                "ranks": self.ranks,
                "confusion": records(self.confusion.reset_index(names="a")),
                "by_majority": records(self.by_majority),
                "by_category": records(self.by_category),
                "by_model_pair": records(self.by_model_pair),
                "position_bias": records(self.position_bias),
                "swap_consistency": records(self.swap_consistency),
                "ratings": records(self.ratings),
            }
        )


def _set(selector: OutcomeFilter) -> dict[str, Any]:
    """The dimensions a selector sets, to describe it together with the other filters."""
    return {name: value for name, value in vars(selector).items() if value}


def _without_overlap(
    first: pd.DataFrame, second: pd.DataFrame, names: tuple[str, str]
) -> tuple[pd.DataFrame, pd.DataFrame, int, str | None]:
    """The two sides with every judgment both select counted once: on the side that selects
    fewer judgments (it names them more narrowly, e.g. ``rater:h1`` within ``human``), or on
    side a when both select as many. Refuses sides that select the same judgments."""
    # a judgment both select has one evaluator: compare the keys of shared evaluators' rows only
    shared_by = set(first["evaluator"].unique()) & set(second["evaluator"].unique())
    maybe_a = first["evaluator"].isin(shared_by).to_numpy()
    maybe_b = second["evaluator"].isin(shared_by).to_numpy()
    key_a, key_b = _judgment_keys(first[maybe_a]), _judgment_keys(second[maybe_b])
    in_b, in_a = np.zeros(len(first), dtype=bool), np.zeros(len(second), dtype=bool)
    in_b[maybe_a] = np.isin(key_a, key_b)
    in_a[maybe_b] = np.isin(key_b, key_a)
    shared = int(in_b.sum())  # a judgment is one row of each side that selects it
    if not shared:
        return first, second, 0, None
    if shared == len(first) == len(second):
        raise AnalysisError(
            f"{names[0]!r} and {names[1]!r} select the same {shared} judgments: "
            "agreement needs two different evaluators"
        )
    keep_on = "b" if len(second) < len(first) else "a"
    if keep_on == "a":
        second = second[~in_a].reset_index(drop=True)
    else:
        first = first[~in_b].reset_index(drop=True)
    for name, side in zip(names, (first, second), strict=True):
        if side.empty:
            raise AnalysisError(
                f"every judgment {name!r} selects is also selected by the other side "
                f"({shared} judgments): choose sides that do not contain each other"
            )
    return first, second, shared, keep_on


def _judgment_keys(judgments: pd.DataFrame) -> np.ndarray:
    """One integer per judgment, unique across the stores: its origin's rank and its row id."""
    origin = pd.Categorical(judgments["origin"], categories=list(ORIGINS)).codes.astype(np.int64)
    return origin * (1 << 48) + judgments["row_id"].to_numpy(dtype=np.int64)


def _rank_agreement(
    battles_a: pd.DataFrame, battles_b: pd.DataFrame, rounds: int, seed: int
) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The two sides' Bradley-Terry leaderboards compared, each from its battle counts
    (:func:`_battle_counts` rows, of one or more items each)."""
    from workbench.stats.rank_agreement import (
        ci_order_agreement,
        kendall_tau,
        spearman_correlation,
    )

    board_a = compute_leaderboard(_pooled(battles_a), "bt", bootstrap=rounds, seed=seed).table
    board_b = compute_leaderboard(_pooled(battles_b), "bt", bootstrap=rounds, seed=seed).table
    ratings_a = board_a.set_index("model")["rating"]
    ratings_b = board_b.set_index("model")["rating"]
    shared = sorted(set(ratings_a.index) & set(ratings_b.index))
    ratings = pd.DataFrame(
        {
            "model": shared,
            "rating_a": [float(ratings_a[model]) for model in shared],
            "rating_b": [float(ratings_b[model]) for model in shared],
        }
    )
    if len(shared) < 3:
        return ratings, None
    # ratings are relative: compare them on the shared models only
    result: dict[str, Any] = {
        "models": len(shared),
        "spearman": spearman_correlation(ratings_a, ratings_b),
        "kendall_tau": kendall_tau(ratings_a, ratings_b),
        "ci_order": None,
    }
    if rounds:
        renamed = {"ci_lower": "lower", "ci_upper": "upper"}
        order = ci_order_agreement(
            board_a.set_index("model")[["ci_lower", "ci_upper"]].rename(columns=renamed),
            board_b.set_index("model")[["ci_lower", "ci_upper"]].rename(columns=renamed),
        )
        result["ci_order"] = {
            "pairs": order.pairs,
            "agree": order.agree,
            "contradict": order.contradict,
            "share": order.share,
        }
    return ratings, result


def agreement(
    bundle: Bundle,
    side_a: str = HUMAN_SIDE,
    side_b: str = JUDGE_SIDE,
    filters: OutcomeFilter | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    cache: JudgmentCache | None = None,
    convention: str = DEFAULT_AGREEMENT_CONVENTION,
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
) -> AgreementResult:
    """Agreement of side a with side b (sides are ``workbench agreement --a/--b`` selectors,
    e.g. ``human``, ``judge``, ``run:NAME``, ``annotator:NAME``) under ``convention``
    (:data:`~workbench.stats.agreement.AGREEMENT_CONVENTIONS`: majority against majority, or
    MT-Bench's side b majority against each vote of side a), within ``filters``: the summary,
    its confusion matrix, agreement by how strong side a's majority was, by category and by
    model pair, each side's inter-rater agreement, each evaluator's first-position win share
    where positions were randomized, and the rank agreement of the two sides' leaderboards
    (``bootstrap`` rounds for their intervals; a decisive verdict counts ``decisive_weight``
    battles, as on the leaderboard). A judgment both sides select counts on
    one side only (see :func:`_without_overlap`). With ``cache`` (the panels' worker) the two
    sides' judgments are read incrementally; the statistics are computed again on them."""
    filters = filters or OutcomeFilter()
    _check_convention(convention)
    select_a, select_b = parse_selector(side_a), parse_selector(side_b)
    kept: list[SideTables | None] = [None, None]
    if cache is None:
        first_side = _pairwise(bundle, filters, select_a)
        second_side = _pairwise(bundle, filters, select_b)
    else:  # each side's judgments and its kept tables, from one snapshot
        first_side, kept[0] = _kept_side(bundle, cache, (filters, select_a), decisive_weight)
        second_side, kept[1] = _kept_side(bundle, cache, (filters, select_b), decisive_weight)
    for label, name, side, selector in (
        ("a", side_a, first_side, select_a),
        ("b", side_b, second_side, select_b),
    ):
        if side.empty:
            wanted = replace(filters, **_set(selector))
            raise AnalysisError(
                f"agreement needs pairwise judgments on both sides: none match {name!r} "
                f"(side {label}; {describe_empty(wanted, _available_sources(bundle))})"
            )
    first_side, second_side, overlap, kept_on = _without_overlap(
        first_side, second_side, (side_a, side_b)
    )
    tables = None
    if kept[0] is not None and kept[1] is not None and not overlap:
        tables = (kept[0], kept[1])  # of the kept frames, which the overlap left unchanged
    result = agreement_of_sides(
        first_side,
        second_side,
        (side_a, side_b),
        filters.describe(),
        bootstrap=bootstrap,
        seed=seed,
        overlap=overlap,
        overlap_kept_on=kept_on,
        tables=tables,
        convention=convention,
        decisive_weight=decisive_weight,
        selection=filters,
    )
    return replace(
        result, simulated_left_out=_simulated_of_sides(bundle, filters, select_a, select_b)
    )


def _simulated_of_sides(
    bundle: Bundle, filters: OutcomeFilter, select_a: OutcomeFilter, select_b: OutcomeFilter
) -> int:
    """The simulated judge's verdicts ``filters`` leave out that side a or side b would select,
    each counted once (a verdict both sides select is in both counts and their overlap)."""
    with bundle.read_session() as session:
        on_a = simulated_left_out(session, filters, select_a)
        on_b = simulated_left_out(session, filters, select_b)
        on_both = simulated_left_out(session, filters, select_a, select_b) if on_a and on_b else 0
    return on_a + on_b - on_both


def _check_convention(convention: str) -> None:
    if convention not in AGREEMENT_CONVENTIONS:
        raise AnalysisError(
            f"unknown agreement convention '{convention}' "
            f"(choose {', '.join(AGREEMENT_CONVENTIONS)})"
        )


def _comparison_keys(judgments: pd.DataFrame) -> list[str]:
    """The columns that identify a comparison among these judgments (as
    :func:`~workbench.stats.agreement.aligned_preferences` finds them)."""
    return [column for column in COMPARISON_COLUMNS if column in judgments.columns] + [
        "first",
        "second",
    ]


#: the per-item tables one side of an agreement is reduced to (:func:`_side_tables`)
SideTables = dict[str, pd.DataFrame]


def _side_tables(
    judgments: pd.DataFrame,
    keys: list[str],
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
) -> SideTables:
    """Everything :func:`agreement_of_sides` needs of one side's judgments, as tables of rows
    that each depend on one item's judgments only: the majority per comparison, the raters'
    label counts per comparison and the raters, the position tallies and the swapped-order
    verdicts per evaluator and item, the battle counts per item, and the items' categories.
    The statistics are computed from these, whether kept by the panels' cache (which
    recomputes only the items new judgments touch) or made now from all the judgments."""
    from workbench.stats.position_bias import position_tallies, swap_pairs, swap_verdicts

    rater_counts, raters = rater_tables(judgments)
    swaps = swap_verdicts(judgments)
    return {
        "majorities": majority_preferences(judgments, keys),
        "rater_counts": rater_counts,
        "raters": raters,
        "positions": position_tallies(judgments),
        "swaps": swaps,
        "swap_pairs": swap_pairs(swaps),
        "battles": _battle_counts(judgments, decisive_weight),
        "categories": judgments.drop_duplicates("item")[["item", "category"]],
    }


def _battle_counts(
    judgments: pd.DataFrame, decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT
) -> pd.DataFrame:
    """Battle weights and judgments per item, model pair as shown and outcome; a decisive
    verdict ("much better") weighs ``decisive_weight`` battles, as the leaderboard counts it, so
    a judge's verdicts and the battles derived from them rank the models alike."""
    weighted = (
        weight_by_strength(judgments, decisive_weight)
        if decisive_weight is not None and not judgments.empty
        else judgments
    )
    return (
        checked_battles(weighted)
        .groupby(["item", "model_a", "model_b", "outcome"], dropna=False, sort=True)
        .agg(weight=("weight", "sum"), **{JUDGMENTS_COLUMN: ("weight", "size")})
        .reset_index()
    )


def _pooled(battles: pd.DataFrame) -> pd.DataFrame:
    """Per-item battle counts pooled per model pair and outcome, in name order (so the fit does
    not depend on the order the rows were kept in)."""
    return (
        battles.groupby(["model_a", "model_b", "outcome"], sort=True)[["weight", JUDGMENTS_COLUMN]]
        .sum()
        .reset_index()
    )


def _kept_side(
    bundle: Bundle,
    cache: JudgmentCache,
    filters: tuple[OutcomeFilter, ...],
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
) -> tuple[pd.DataFrame, SideTables | None]:
    """One side's pairwise judgments and their :func:`_side_tables`, kept by ``cache``, which
    recomputes the tables only on the items new judgments touch."""
    return cache.pairwise_with_tables(
        bundle,
        filters,
        f"agreement-side:{decisive_weight}",
        lambda frame: _side_tables(frame, _comparison_keys(frame), decisive_weight),
    )


def agreement_of_sides(
    first_side: pd.DataFrame,
    second_side: pd.DataFrame,
    names: tuple[str, str],
    filters: str,
    bootstrap: int = 0,
    seed: int = 0,
    overlap: int = 0,
    overlap_kept_on: str | None = None,
    tables: tuple[SideTables, SideTables] | None = None,
    convention: str = DEFAULT_AGREEMENT_CONVENTION,
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
    selection: OutcomeFilter | None = None,
) -> AgreementResult:
    """The whole of :func:`agreement` on two sides' pairwise judgments already read and
    separated (no judgment on both sides), named ``names`` and selected by the filters
    ``filters`` describes. The report calls it on judgments it has read once, so its human vs
    judge section is this result, not a second computation of it. ``tables``: the two sides'
    :func:`_side_tables` when kept (the panels' cache), instead of making them now; every
    statistic is computed from these tables either way, so the two give the same result.
    ``convention`` and ``decisive_weight`` as :func:`agreement`; ``selection``: the filters,
    when known, so the result can print the command that reproduces it."""
    from workbench.stats.position_bias import first_position_wins_of, swap_consistency_of_sides

    _check_convention(convention)
    side_a, side_b = names
    keys = _comparison_keys(first_side)
    if tables is None:
        tables = (
            _side_tables(first_side, keys, decisive_weight),
            _side_tables(second_side, keys, decisive_weight),
        )
    kept_a, kept_b = tables
    aligned = aligned_majorities(kept_a["majorities"], kept_b["majorities"], keys)
    if aligned.empty:
        raise AnalysisError(f"{side_a!r} and {side_b!r} judged no comparison in common")
    if convention == MT_BENCH_CONVENTION:
        aligned = aligned_votes(aligned, kept_a["rater_counts"], keys)
    summary = aligned_agreement(aligned)
    labels = list(PREFERENCES)
    confusion = (
        pd.crosstab(aligned["preference_a"], aligned["preference_b"])
        .reindex(index=labels, columns=labels, fill_value=0)
        .rename_axis(index=side_a, columns=side_b)
    )
    strength = aligned.assign(
        majority=[
            f"{int(support)}/{int(votes)}"
            for support, votes in zip(aligned["support_a"], aligned["votes_a"], strict=True)
        ],
        agree=aligned["preference_a"] == aligned["preference_b"],
    )
    by_majority = (
        strength.groupby("majority")
        .agg(comparisons=("agree", "size"), agreement=("agree", "mean"))
        .reset_index()
        .sort_values("majority", ascending=False, kind="stable")
        .reset_index(drop=True)
    )
    # an item's category is the same on both sides: the first side's, or the second's
    categories = (
        pd.concat([kept_a["categories"], kept_b["categories"]], ignore_index=True)
        .drop_duplicates("item")
        .set_index("item")["category"]
    )
    with_category = aligned.assign(category=aligned["item"].map(categories))
    by_category = grouped_agreement(with_category, ["category"])
    by_model_pair = grouped_agreement(aligned, ["first", "second"])
    ratings, ranks = _rank_agreement(kept_a["battles"], kept_b["battles"], bootstrap, seed)
    positions = pd.concat([kept_a["positions"], kept_b["positions"]], ignore_index=True)
    swap_table = swap_consistency_of_sides(
        (kept_a["swaps"], kept_b["swaps"]), (kept_a["swap_pairs"], kept_b["swap_pairs"])
    )
    nan = float("nan")
    return AgreementResult(
        side_a=side_a,
        side_b=side_b,
        filters=filters,
        overlap=overlap,
        overlap_kept_on=overlap_kept_on,
        summary=summary,
        raters_a=rater_agreement_of(kept_a["rater_counts"], kept_a["raters"]),
        raters_b=rater_agreement_of(kept_b["rater_counts"], kept_b["raters"]),
        confusion=confusion,
        by_majority=by_majority,
        by_category=by_category,
        by_model_pair=by_model_pair,
        position_bias=first_position_wins_of(positions),
        swap_consistency=swap_table,
        ratings=ratings,
        ranks=ranks,
        spearman=ranks["spearman"] if ranks else nan,
        kendall=ranks["kendall_tau"] if ranks else nan,
        rank_models=len(ratings),
        convention=convention,
        decisive_weight=decisive_weight,
        bootstrap=bootstrap,
        seed=seed,
        selection=selection,
    )


def human_judge_agreement(bundle: Bundle) -> AgreementResult:
    """:func:`agreement` of the human majority with the judge majority (``workbench agreement
    --a human --b judge``)."""
    return agreement(bundle, HUMAN_SIDE, JUDGE_SIDE)
