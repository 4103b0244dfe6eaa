"""What the analysis panels ask of a bundle: a leaderboard under the panel's switches, preference
graphs and cycles per item, failure cases, and human-vs-judge agreement. Qt-free; every number
comes from :mod:`workbench.stats`, and every call opens its own short read transaction so the GUI
can run it on a worker thread."""

from __future__ import annotations

from dataclasses import dataclass, replace

import networkx as nx
import pandas as pd
from matplotlib.figure import Figure

from workbench.errors import WorkbenchError
from workbench.plugins import registry
from workbench.services.browse import ItemFlag, item_flags
from workbench.services.judgment_activity import judgment_activity  # noqa: F401 - re-exported
from workbench.services.outcomes import (
    IMPORTED,
    OutcomeFilter,
    answer_style_features,
    judgments_frame,
    pairwise_outcomes,
    parse_selector,
)
from workbench.stats.agreement import AgreementSummary, agreement_summary, aligned_preferences
from workbench.stats.bradley_terry import Anchor
from workbench.stats.contradictions import (
    contradiction_counts,
    find_contradictions,
    preference_graph,
)
from workbench.stats.leaderboard import Leaderboard, compute_leaderboard
from workbench.stats.plots import ratings_forest_plot, win_rate_heatmap
from workbench.stats.position_bias import first_position_wins
from workbench.stats.preferences import PREFERENCES
from workbench.stats.rank_agreement import kendall_tau, spearman_correlation
from workbench.stats.winrate import pairwise_win_fraction
from workbench.storage.bundle import Bundle

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
#: cycles longer than this are not enumerated (a dense graph of many models holds very many)
MAX_CYCLE_LENGTH = 6


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


def _pairwise(bundle: Bundle, filters: OutcomeFilter | None = None) -> pd.DataFrame:
    with bundle.read_session() as session:
        return pairwise_outcomes(judgments_frame(session, filters))


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


def analysis_choices(bundle: Bundle) -> AnalysisChoices:
    outcomes = _pairwise(bundle)

    def values(*columns: str) -> tuple[str, ...]:
        found: set[str] = set()
        for column in columns:
            found |= {str(value) for value in outcomes[column].dropna().unique()}
        return tuple(sorted(found))

    sides = (
        HUMAN_SIDE,
        JUDGE_SIDE,
        IMPORTED,
        *(f"campaign:{name}" for name in values("campaign")),
        *(f"run:{name}" for name in values("judge_run")),
        *(f"annotator:{name}" for name in values("annotator")),
    )
    return AnalysisChoices(
        values("category"),
        values("criterion"),
        values("model_a", "model_b"),
        values("campaign"),
        values("language"),
        sides,
    )


# --- leaderboard --------------------------------------------------------------------------------


#: bootstrap rounds of the panel's 95% intervals unless the user asks for more (CHIRP: 500)
DEFAULT_BOOTSTRAP_ROUNDS = 100


@dataclass(frozen=True)
class LeaderboardRequest:
    """The leaderboard panel's switches. ``anchor`` names the model pinned at 1000 whose
    predicted win rate the table shows (None: the model with the most battles)."""

    method: str = "bt"
    style_control: bool = False
    source: str = ALL_SOURCES
    category: str | None = None
    criterion: str | None = None
    campaign: str | None = None
    language: str | None = None
    anchor: str | None = None
    bootstrap: int = DEFAULT_BOOTSTRAP_ROUNDS
    seed: int = 0

    def filters(self) -> OutcomeFilter:
        return replace(
            _filter_for(self.source, self.category, self.criterion),
            campaigns=(self.campaign,) if self.campaign else (),
            languages=(self.language,) if self.language else (),
        )


@dataclass(frozen=True)
class LeaderboardResult:
    request: LeaderboardRequest
    board: Leaderboard
    win_fraction: pd.DataFrame  # observed win rate, row beats column, in the table's order
    battles: int
    battles_without_answers: int = 0

    @property
    def table(self) -> pd.DataFrame:
        return self.board.table

    def forest_figure(self) -> Figure:
        method = "Bradley-Terry" if self.board.method == "bt" else "Online Elo"
        title = f"{method} ratings ({self.battles} battles)"
        if self.board.anchor is not None:
            title += f"\nanchor {self.board.anchor.model} = {self.board.anchor.rating:g}"
        return ratings_forest_plot(self.table, title)

    def heatmap_figure(self) -> Figure:
        return win_rate_heatmap(self.win_fraction)


def _default_anchor(battles: pd.DataFrame) -> str:
    sides = pd.concat([battles["model_a"], battles["model_b"]])
    counts = sides.value_counts()
    # most battles first, then by name so the choice does not depend on row order
    return str(sorted(counts.index, key=lambda model: (-counts[model], model))[0])


def leaderboard(bundle: Bundle, request: LeaderboardRequest) -> LeaderboardResult:
    """The leaderboard of the judgments the request selects (as ``workbench leaderboard``)."""
    filters = request.filters()
    battles = _pairwise(bundle, filters)
    if battles.empty:
        raise AnalysisError(f"no pairwise judgments match {filters.describe()}")
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
    models = set(battles["model_a"]) | set(battles["model_b"])
    anchor_model = (
        request.anchor
        if request.anchor is not None and request.anchor in models
        else _default_anchor(battles)
    )
    board = compute_leaderboard(
        battles,
        method=request.method,  # type: ignore[arg-type]
        anchor=Anchor(anchor_model, 1000.0),
        bootstrap=request.bootstrap,
        seed=request.seed,
        style_features=style_features,
    )
    order = list(board.table["model"])
    fraction = pairwise_win_fraction(battles).reindex(index=order, columns=order)
    return LeaderboardResult(request, board, fraction, len(battles), dropped)


# --- preference graphs and cycles ---------------------------------------------------------------


@dataclass(frozen=True)
class CycleRow:
    item: int
    label: str  # source/external id
    category: str | None
    cycles: int


def items_by_cycles(bundle: Bundle, source: str = ALL_SOURCES) -> list[CycleRow]:
    """Items whose pooled judgments (of the chosen source) hold preference cycles, most cycles
    first (then by label)."""
    outcomes = _pairwise(bundle, _filter_for(source, None, None))
    outcomes = outcomes[outcomes["item"].notna()]
    if outcomes.empty:
        return []
    cycles = find_contradictions(outcomes, group_by=("item",), max_length=MAX_CYCLE_LENGTH)
    if cycles.empty:
        return []
    counts = contradiction_counts(cycles, "item")
    first = outcomes.drop_duplicates("item").set_index("item")
    rows = [
        CycleRow(
            item=int(item),
            label=f"{first.loc[item, 'source']}/{first.loc[item, 'item_external_id']}",
            category=None if pd.isna(first.loc[item, "category"]) else first.loc[item, "category"],
            cycles=int(count),
        )
        for item, count in zip(counts["item"], counts["cycles"], strict=True)
    ]
    return sorted(rows, key=lambda row: (-row.cycles, row.label))


def item_graph(bundle: Bundle, item_id: int, source: str = ALL_SOURCES) -> nx.DiGraph:
    """The preference graph of one item's pooled judgments (edges loser -> winner, with
    ``votes`` and ``consensus``)."""
    outcomes = _pairwise(bundle, _filter_for(source, None, None))
    return preference_graph(outcomes[outcomes["item"] == item_id])


def category_graph(bundle: Bundle, category: str, source: str = ALL_SOURCES) -> nx.DiGraph:
    """The preference graph of the pooled judgments of every item in ``category``."""
    outcomes = _pairwise(bundle, _filter_for(source, category, None))
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
) -> pd.DataFrame:
    """The judgments behind one edge of a preference graph: every pairwise judgment of the two
    ``models`` (either order) on the item or in the category, one row each with the item's
    label, where it came from (imported, campaign, judge-run), the rater, annotator or judge
    run, the outcome named by model (or ``tie``/``both_bad``) and the criterion."""
    outcomes = _pairwise(bundle, _filter_for(source, category, None))
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


@dataclass(frozen=True)
class FailureRow:
    item: int
    label: str
    category: str | None
    detail: str


def _labels(bundle: Bundle, ids: set[int]) -> dict[int, tuple[str, str | None]]:
    from workbench.services.browse import item_rows

    with bundle.read_session() as session:
        rows = item_rows(session, sorted(ids))
    return {row.id: (f"{row.source}/{row.external_id}", row.category) for row in rows}


def failure_cases(bundle: Bundle, kind: str, model: str | None = None) -> list[FailureRow]:
    """Items that answer one of a PI's questions (:data:`FAILURE_KINDS`), sorted by label.
    ``model`` is the chosen model of :data:`LOSES_TO_ALL`."""
    details: dict[int, str] = {}
    if kind in (DISAGREEMENT, REFERENCE_FLAGGED):
        flag = ItemFlag.DISAGREEMENT if kind == DISAGREEMENT else ItemFlag.REFERENCE_PROBLEM
        with bundle.read_session() as session:
            flags = item_flags(session)
        details = {item: str(flag) for item, found in flags.items() if flag in found}
    elif kind == CYCLES:
        details = {row.item: f"{row.cycles} cycle(s)" for row in items_by_cycles(bundle)}
    elif kind == LOWEST_TURN_SCORES:
        return _lowest_turn_scores(bundle)
    elif kind == LOSES_TO_ALL:
        if not model:
            raise AnalysisError("choose the model that loses")
        outcomes = _pairwise(bundle)
        outcomes = outcomes[outcomes["item"].notna()]
        for item, group in outcomes.groupby("item"):
            graph = preference_graph(group)
            if model not in graph or graph.number_of_nodes() < 2:
                continue
            others = graph.number_of_nodes() - 1
            if graph.out_degree(model) == others and graph.in_degree(model) == 0:
                details[int(item)] = f"{model} loses to {others} model(s)"
    else:
        raise AnalysisError(f"unknown failure case '{kind}' (choose {', '.join(FAILURE_KINDS)})")
    labels = _labels(bundle, set(details))
    rows = [
        FailureRow(item, labels[item][0], labels[item][1], detail)
        for item, detail in details.items()
        if item in labels
    ]
    return sorted(rows, key=lambda row: row.label)


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
    comparisons both judged; each side is its majority preference per comparison."""

    side_a: str
    side_b: str
    summary: AgreementSummary
    confusion: pd.DataFrame  # rows: side a's majority, columns: side b's (first/second/tie)
    by_majority: pd.DataFrame  # majority (e.g. "3/3"), comparisons, agreement
    by_category: pd.DataFrame  # category, comparisons, agreement, cohen_kappa
    by_model_pair: pd.DataFrame  # first, second, comparisons, agreement, cohen_kappa
    position_bias: pd.DataFrame  # first_position_wins per evaluator
    ratings: pd.DataFrame  # model, rating_a, rating_b: the two sides' Bradley-Terry ratings
    spearman: float
    kendall: float
    rank_models: int


def _agreement_by(
    side_a: pd.DataFrame, side_b: pd.DataFrame, aligned: pd.DataFrame, columns: list[str]
) -> pd.DataFrame:
    """Agreement (ties as a label) and Cohen's kappa within each group of comparisons sharing
    ``columns``, computed by :func:`agreement_summary` on each group's judgments."""
    groups = aligned[columns].drop_duplicates().sort_values(columns, kind="stable")
    rows = []
    for key in groups.itertuples(index=False, name=None):
        mask_a = pd.Series(True, index=side_a.index)
        mask_b = pd.Series(True, index=side_b.index)
        for column, value in zip(columns, key, strict=True):
            mask_a &= side_a[column] == value
            mask_b &= side_b[column] == value
        summary = agreement_summary(side_a[mask_a], side_b[mask_b])
        rows.append((*key, summary.comparisons, summary.agreement_with_ties, summary.cohen_kappa))
    return pd.DataFrame(rows, columns=[*columns, "comparisons", "agreement", "cohen_kappa"])


def _ordered_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``first``/``second``: its model pair in alphabetical order, the order the
    engine names preferences by."""
    low = frame[["model_a", "model_b"]].min(axis=1)
    high = frame[["model_a", "model_b"]].max(axis=1)
    return frame.assign(first=low, second=high)


def agreement(
    bundle: Bundle, side_a: str = HUMAN_SIDE, side_b: str = JUDGE_SIDE
) -> AgreementResult:
    """Agreement of side a's majority with side b's (sides are ``workbench agreement --a/--b``
    selectors, e.g. ``human``, ``judge``, ``run:NAME``, ``annotator:NAME``): the summary, its
    confusion matrix, agreement by how strong side a's majority was, by category and by model
    pair, each evaluator's first-position win share, and the rank correlation of the two sides'
    leaderboards with the ratings behind it."""
    outcomes = _pairwise(bundle)
    first_side = parse_selector(side_a).apply(outcomes)
    second_side = parse_selector(side_b).apply(outcomes)
    if first_side.empty or second_side.empty:
        empty = side_a if first_side.empty else side_b
        raise AnalysisError(
            f"agreement needs pairwise judgments on both sides: none match {empty!r}"
        )
    summary = agreement_summary(first_side, second_side)
    aligned = aligned_preferences(first_side, second_side)
    if aligned.empty:
        raise AnalysisError(f"{side_a!r} and {side_b!r} judged no comparison in common")
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
    categories = outcomes.drop_duplicates("item").set_index("item")["category"]
    first_side, second_side = _ordered_pairs(first_side), _ordered_pairs(second_side)
    with_category = aligned.assign(category=aligned["item"].map(categories))
    by_category = _agreement_by(first_side, second_side, with_category, ["category"])
    by_model_pair = _agreement_by(first_side, second_side, aligned, ["first", "second"])

    both = pd.concat([first_side, second_side], ignore_index=True)
    ratings_a = compute_leaderboard(first_side).table.set_index("model")["rating"]
    ratings_b = compute_leaderboard(second_side).table.set_index("model")["rating"]
    shared = sorted(set(ratings_a.index) & set(ratings_b.index))
    ratings = pd.DataFrame(
        {
            "model": shared,
            "rating_a": [float(ratings_a[model]) for model in shared],
            "rating_b": [float(ratings_b[model]) for model in shared],
        }
    )
    nan = float("nan")
    return AgreementResult(
        side_a=side_a,
        side_b=side_b,
        summary=summary,
        confusion=confusion,
        by_majority=by_majority,
        by_category=by_category,
        by_model_pair=by_model_pair,
        position_bias=first_position_wins(both.drop(columns=["first", "second"])),
        ratings=ratings,
        spearman=spearman_correlation(ratings_a, ratings_b) if len(shared) >= 3 else nan,
        kendall=kendall_tau(ratings_a, ratings_b) if len(shared) >= 3 else nan,
        rank_models=len(shared),
    )


def human_judge_agreement(bundle: Bundle) -> AgreementResult:
    """:func:`agreement` of the human majority with the judge majority (``workbench agreement
    --a human --b judge``)."""
    return agreement(bundle, HUMAN_SIDE, JUDGE_SIDE)
