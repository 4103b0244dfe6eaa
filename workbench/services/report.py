"""The content of an evaluation report (``workbench report``, File > Export report…): every
number a PI publishes about a bundle, gathered from the functions ``workbench leaderboard``,
``workbench agreement`` and ``workbench contradictions`` use, plus the bundle's provenance.
Qt-free; the HTML is drawn by :mod:`workbench.services.report_html`.

The leaderboard and agreement numbers are computed exactly as the CLI computes them (the
outcomes read model, then :mod:`workbench.stats`), so a test can check the report against
``workbench leaderboard --json`` and ``workbench agreement --json``."""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import func, select

from workbench import __version__, plugins
from workbench.errors import WorkbenchError
from workbench.progress import Progress
from workbench.services.analysis import (
    CYCLES,
    DISAGREEMENT,
    FAILURE_KINDS,
    MAX_CYCLE_LENGTH,
    AnalysisError,
    LeaderboardResult,
    agreement_of_sides,
    failure_cases,
    leaderboard,
    scores,
)
from workbench.services.analysis_request import (
    AUTO,
    HUMAN,
    JUDGE,
    POOLED,
    PREDICTION_POWERED,
    AnalysisRequest,
    RequestError,
    TooFewBattles,
)
from workbench.services.analysis_request import (
    DEFAULT_BOOTSTRAP_ROUNDS as DEFAULT_BOOTSTRAP_ROUNDS,
)
from workbench.services.browse import SQL_FLAGS, ItemDetail, image_bytes, item_detail
from workbench.services.inter_annotator import (
    InterAnnotatorResult,
    attention_check_keys,
    rater_groups,
    status_command,
)
from workbench.services.outcomes import (
    OutcomeFilter,
    judgments_frame,
    pairwise_outcomes,
    simulated_left_out,
)
from workbench.services.rank_comparison import (
    RankingComparisonResult,
    RankingInputError,
    compare_requests,
)
from workbench.stats.agreement import DEFAULT_AGREEMENT_CONVENTION
from workbench.stats.contradictions import contradiction_counts, find_cycles
from workbench.stats.cycle_scopes import CYCLE_SCOPES, DEFAULT_CYCLE_SCOPE, POOLED_PER_ITEM
from workbench.stats.errors import StatsInputError
from workbench.stats.position_bias import RANDOMIZED
from workbench.storage.bundle import Bundle
from workbench.storage.models import (
    Annotator,
    Campaign,
    Import,
    ImportFile,
    ItemCategory,
    JudgeRun,
    JudgeVerdict,
    PriorJudgment,
    Vote,
)

#: the report's defaults (the leaderboard panel's rounds; the CLI's seed)
#: the two sides compared under "human vs judge" (``workbench agreement --a human --b judge``)
HUMAN_SIDE, JUDGE_SIDE = "human", "judge"
#: what ``--exclude-refusal`` does to each section that does not leave refusals out, and why
REFUSAL_NOT_APPLIED = {
    "powered": "not applied: a prediction-powered board pairs each human vote with the judge's "
    "verdicts on the same comparison, and workbench leaderboard --method ppi takes no "
    "--exclude-refusal",
    "agreement": "not applied: agreement asks whether two evaluators judged the same "
    "comparisons alike, and a refusing answer is judged like any other (workbench agreement "
    "reads every comparison)",
    "inter_annotator": "not applied: raters' agreement on a comparison does not depend on "
    "whether an answer refuses (workbench campaign status reads every vote)",
    "cycles": "not applied: a cycle is within one evaluator's judgments of one item, refusing "
    "answers included (workbench contradictions reads every comparison)",
    "gallery": "not applied: the failure cases are read by workbench failures, which reads "
    "every comparison",
    "scores": "not applied: each benchmark's scores follow its paper's protocol, which counts "
    "every answer",
}
#: the sections whose numbers leave refusing battles out when the report is asked to
REFUSAL_APPLIED = ("leaderboard", "win_matrix", "categories", "rank_comparison")
#: how many failure cases the gallery shows, and how many cycles it lists
MAX_GALLERY_ITEMS = 60
MAX_LISTED_CYCLES = 100
NO_CATEGORY = "(no category)"


class ReportError(WorkbenchError):
    """The report cannot be made (no judgments match the filters)."""


@dataclass(frozen=True)
class ReportRequest:
    """The report's options: the analysis request of its leaderboards (the other sections
    read the same selection, both kinds unless one is named) and the gallery's size."""

    analysis: AnalysisRequest = field(default_factory=AnalysisRequest)
    gallery_items: int = MAX_GALLERY_ITEMS

    @property
    def filters(self) -> OutcomeFilter:
        """The selection every section reads: the request's, with both kinds of evaluator
        unless it names one (human vs judge needs both)."""
        named = self.analysis.kind not in (AUTO, POOLED)
        return replace(self.analysis, kind=self.analysis.kind if named else POOLED).filters()

    @property
    def bootstrap(self) -> int:
        return self.analysis.bootstrap

    @property
    def seed(self) -> int:
        return self.analysis.seed

    @property
    def anchor(self) -> str | None:
        return self.analysis.anchor


@dataclass(frozen=True)
class Board:
    """A leaderboard as ``workbench leaderboard --json`` prints it, with upper-bound ranks, the
    request it answers and the command that prints it."""

    document: dict[str, Any]
    table: pd.DataFrame  # model, rating, ci_lower, ci_upper, win_rate_vs_anchor, n, rank_ub
    battles: int
    request: AnalysisRequest

    @property
    def command(self) -> str:
        return self.request.to_command(output="--json")


@dataclass(frozen=True)
class CategoryBoard:
    category: str
    board: Board

    @property
    def command(self) -> str:
        return self.board.command


@dataclass(frozen=True)
class RankComparisonSection:
    """Two boards of the report's bundle compared by rank, as ``workbench compare-rankings
    BUNDLE BUNDLE --a-request=... --b-request=... --json`` prints them."""

    name: str
    result: RankingComparisonResult

    @property
    def document(self) -> dict[str, Any]:
        return self.result.to_json()

    @property
    def command(self) -> str:
        return self.result.command()


@dataclass(frozen=True)
class AgreementSection:
    """Human vs judge, as ``workbench agreement --a human --b judge --json`` plus the panel's
    confusion matrix, per-matchup kappa and rating scatter."""

    document: dict[str, Any]
    confusion: pd.DataFrame
    by_model_pair: pd.DataFrame  # first, second, comparisons, agreement, cohen_kappa
    ratings: pd.DataFrame  # model, rating_a, rating_b
    position_bias: pd.DataFrame  # first_position_wins of the randomized evaluators
    not_randomized: list[str]


@dataclass(frozen=True)
class GalleryCase:
    item: int
    label: str
    reason: str
    detail: ItemDetail
    models: tuple[str, str] | None
    verdicts: list[str]
    images: list[bytes | None]


@dataclass
class ReportContent:
    """Everything the report shows; a section left None carries its reason in ``missing``."""

    request: ReportRequest
    bundle_location: str
    created_at: str
    app_version: str
    summary: dict[str, Any]
    leaderboard: Board | None = None
    style_board: Board | None = None
    style_dropped: int = 0
    win_fraction: pd.DataFrame | None = None
    category_boards: list[CategoryBoard] = field(default_factory=list)
    #: categories with no board: the reason for each (too few battles for every model...)
    categories_unrated: dict[str, str] = field(default_factory=dict)
    #: battles of items without a category (no filter selects them: on the overall board only)
    uncategorised_battles: int = 0
    agreement: AgreementSection | None = None
    #: boards of one bundle compared by rank (human vs judge, each judge run vs the humans)
    rank_comparisons: list[RankComparisonSection] = field(default_factory=list)
    #: comparisons that could not be made, with the reason
    rank_comparisons_unmade: dict[str, str] = field(default_factory=dict)
    #: the humans' ratings powered by the judge's verdicts (prediction-powered inference)
    powered_board: Board | None = None
    inter_annotator: list[dict[str, Any]] = field(default_factory=list)
    cycles: pd.DataFrame | None = None
    #: the listed cycles' scope (workbench.stats.cycle_scopes), their count and items, and the
    #: count of the other scope (pooled per item)
    cycle_scope: str = DEFAULT_CYCLE_SCOPE
    cycle_count: int = 0
    cycle_items: int = 0
    pooled_cycle_count: int = 0
    pooled_cycle_items: int = 0
    gallery: list[GalleryCase] = field(default_factory=list)
    #: the failure-case lists the gallery draws from (:data:`REPORT_FAILURE_KINDS`), each as
    #: ``workbench failures --json`` prints it, with its command (None when the report's
    #: selection is filtered: the command reads the whole bundle)
    failures: list[dict[str, Any]] = field(default_factory=list)
    #: each benchmark's own tables (``workbench scores``), by benchmark, then table name
    benchmark_scores: dict[str, dict[str, pd.DataFrame]] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)


# --- helpers -----------------------------------------------------------------------------------


def upper_bound_ranks(table: pd.DataFrame) -> list[int]:
    """Chatbot Arena's rank (UB): 1 + the number of models whose lower bound is above this
    model's upper bound, so models with overlapping intervals share a rank. Without intervals
    the rating itself is both bounds."""
    lower = table["ci_lower"].fillna(table["rating"]).to_numpy(dtype=float)
    upper = table["ci_upper"].fillna(table["rating"]).to_numpy(dtype=float)
    return [int(1 + np.sum(lower > bound)) for bound in upper]


def _board(result: LeaderboardResult) -> Board:
    table = result.table.copy()
    table["rank_ub"] = upper_bound_ranks(table)
    return Board(result.to_json(), table, result.battles, result.request)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return _jsonable(value.item())
    if value is pd.NA or value is None:
        return None
    return value


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [_jsonable(row) for row in table.astype(object).to_dict(orient="records")]


def filter_flags(filters: OutcomeFilter, kind_flag: str = "--kind") -> str:
    """The CLI flags that reproduce ``filters`` (``--source a --category b``), the kind of
    evaluator under ``kind_flag`` (``workbench failures`` spells it ``--judgments``)."""
    flags = {
        "sources": "--source",
        "campaigns": "--campaign",
        "annotators": "--annotator",
        "judge_runs": "--judge-run",
        "raters": "--rater",
        "categories": "--category",
        "families": "--family",
        "languages": "--language",
        "turns": "--turn",
        "criteria": "--criterion",
        "kinds": kind_flag,
        "origins": "--origin",
    }
    parts = []
    for name, flag in flags.items():
        for value in getattr(filters, name):
            parts.append(f"{flag} {_quoted(str(value))}")
    for category in filters.exclude_categories:
        parts.append(f"--exclude-category {_quoted(str(category))}")
    switches = (
        (filters.include_derived, "--include-derived"),
        (filters.include_simulated, "--include-simulated"),
        (filters.multi_turn, "--multi-turn"),
        (filters.exclude_ties, "--exclude-ties"),
        (filters.exclude_flagged, "--exclude-flagged"),
    )
    parts += [flag for on, flag in switches if on]
    return " ".join(parts)


def _quoted(text: str) -> str:
    return shlex.quote(text)


# --- sections ----------------------------------------------------------------------------------


def _summary(bundle: Bundle, judgments: pd.DataFrame, battles: pd.DataFrame) -> dict[str, Any]:
    with bundle.read_session() as session:
        votes = session.scalar(select(func.count(Vote.id)).where(Vote.retracted_at.is_(None)))
        verdicts = session.scalar(select(func.count(JudgeVerdict.id)))
        imported = session.scalar(select(func.count(PriorJudgment.id)))
        annotators = session.scalar(select(func.count(Annotator.id)))
    models = sorted(set(battles["model_a"]) | set(battles["model_b"]))
    human = judgments[judgments["kind"] == "human"]
    return {
        "items": int(judgments["item"].nunique()),
        "models": len(models),
        "model_names": models,
        "sources": sorted(str(value) for value in judgments["source"].dropna().unique()),
        "battles": len(battles),
        "human_votes": int((judgments["origin"] == "campaign").sum()),
        "imported_human_judgments": int(
            ((judgments["origin"] == "imported") & (judgments["kind"] == "human")).sum()
        ),
        "imported_judge_judgments": int(
            ((judgments["origin"] == "imported") & (judgments["kind"] == "judge")).sum()
        ),
        "judge_verdicts": int((judgments["origin"] == "judge-run").sum()),
        "annotators": int(human.loc[human["origin"] == "campaign", "annotator"].nunique()),
        "raters": int(human.loc[human["origin"] == "imported", "rater"].nunique()),
        "judge_runs": int(judgments["judge_run"].nunique()),
        "campaigns": int(judgments["campaign"].nunique()),
        "bundle_totals": {
            "votes": int(votes or 0),
            "judge_verdicts": int(verdicts or 0),
            "imported_judgments": int(imported or 0),
            "annotators": int(annotators or 0),
        },
    }


def _leaderboards(content: ReportContent, bundle: Bundle) -> AnalysisRequest | None:
    """The overall board and the style-controlled one, each the leaderboard service's answer
    to a request (so ``workbench leaderboard`` with the printed command gives the same
    numbers); returns the overall board's request, resolved (its kind and anchor named), or
    None when no model has the request's minimum of battles (the section says so)."""
    try:
        result = leaderboard(bundle, content.request.analysis)
    except TooFewBattles as error:
        for key in ("leaderboard", "style", "win_matrix", "categories"):
            content.missing[key] = f"No board: {error}."
        return None
    except AnalysisError as error:
        raise ReportError(str(error)) from error
    content.leaderboard = _board(result)
    content.win_fraction = result.win_fraction
    resolved = result.request
    try:
        styled = leaderboard(bundle, replace(resolved, style_control=True))
    except RequestError as error:
        content.missing["style"] = f"Style control cannot rate this selection: {error}."
    except AnalysisError as error:
        content.missing["style"] = (
            f"Style control needs the answers' texts ({error}); import the models' outputs to "
            "fill this section."
        )
    except StatsInputError as error:
        content.missing["style"] = f"Style control could not be fitted: {error}."
    else:
        content.style_board = _board(styled)
        content.style_dropped = styled.battles_without_answers
    return resolved


def _powered_board(content: ReportContent, bundle: Bundle) -> None:
    """The overall request answered by prediction-powered inference: the human votes' ratings,
    their intervals narrowed by the judge's verdicts where the judge follows the humans. Shown
    when the selection holds both kinds on shared comparisons; otherwise the reason."""
    request = replace(
        content.request.analysis,
        method=PREDICTION_POWERED,
        kind=AUTO,
        style_control=False,
        answer_tokens=False,
        exclude_refusal=False,
    )
    try:
        result = leaderboard(bundle, request)
    except (AnalysisError, RequestError, StatsInputError) as error:
        content.missing["powered"] = f"No prediction-powered board: {error}."
        return
    content.powered_board = _board(result)


def _category_sizes(bundle: Bundle, counted: pd.DataFrame) -> pd.Series:
    """Battles per category among ``counted``: an item of several categories (its first is
    ``category``, the others tagged) counts in each, as the ``--category`` filter selects it."""
    first = counted[["item", "category"]].dropna()
    with bundle.read_session() as session:
        tags = pd.DataFrame(
            session.execute(select(ItemCategory.item_id, ItemCategory.category)).all(),
            columns=["item", "category"],
        )
    tags = tags[tags["item"].isin(set(counted["item"].dropna()))]
    per_item = counted["item"].value_counts()
    memberships = pd.concat([first.drop_duplicates(), tags]).drop_duplicates()
    sizes = memberships["item"].map(per_item).fillna(0).groupby(memberships["category"]).sum()
    return sizes.astype(int)


def _category_boards(
    content: ReportContent, bundle: Bundle, battles: pd.DataFrame, resolved: AnalysisRequest
) -> None:
    """One board for every category of the selection's battles, most battles first (every
    category of a multi-label item counted): the overall request with ``--category NAME`` (its
    anchor where the anchor has a board in the category, else the category's own default
    anchor). A model in fewer battles than the request's minimum is left out with the reason;
    a category where no model has that many gets no board, with the reason."""
    kind = resolved.kind
    counted = battles if kind == POOLED else battles[battles["kind"] == kind]
    content.uncategorised_battles = int(counted["category"].isna().sum())
    sizes = _category_sizes(bundle, counted)
    categories = sorted(sizes.index, key=lambda name: (-sizes[name], str(name)))
    if not categories:
        content.missing["categories"] = (
            "No judged item has a category; categories come from the importer (ConvBench, "
            "VisIT-Bench, VisionArena) or the canonical JSONL's category field."
        )
        return
    for category in categories:
        request = replace(resolved, categories=(str(category),))
        try:
            try:
                result = leaderboard(bundle, request)
            except RequestError as error:
                if not str(error).startswith("--anchor"):
                    raise
                result = leaderboard(bundle, replace(request, anchor=None))
        except (AnalysisError, RequestError, StatsInputError) as error:
            content.categories_unrated[str(category)] = str(error)
            continue
        content.category_boards.append(CategoryBoard(str(category), _board(result)))


def _rank_comparisons(content: ReportContent, bundle: Bundle, judgments: pd.DataFrame) -> None:
    """The human board against the judge board, and each judge run's board against the humans',
    compared by rank (:func:`compare_requests`, what ``workbench compare-rankings`` prints for
    the printed command). Each side is the report's request with its kind (and judge run)
    named and the default anchor (an anchor moves ratings, not ranks)."""
    base = replace(content.request.analysis, anchor=None)
    kinds = set(judgments["kind"].dropna())
    pairwise = judgments[judgments["model_b"].notna()]
    runs = sorted(str(name) for name in pairwise["judge_run"].dropna().unique())
    human, judge = replace(base, kind=HUMAN), replace(base, kind=JUDGE)
    wanted: list[tuple[str, AnalysisRequest, AnalysisRequest]] = []
    if HUMAN in kinds and JUDGE in kinds:
        wanted.append(("human vs judge", human, judge))
        wanted += [
            (f"judge run {run} vs human", replace(judge, judge_runs=(run,)), human) for run in runs
        ]
    if not wanted:
        content.missing["rank_comparison"] = (
            "Comparing boards by rank needs human judgments and judge verdicts in the "
            f"selection; it has {'only ' + ', '.join(sorted(kinds)) if kinds else 'neither'}."
        )
        return
    for name, first, second in wanted:
        try:
            result = compare_requests(bundle, first, second)
        except RankingInputError as error:
            content.rank_comparisons_unmade[name] = str(error)
            continue
        content.rank_comparisons.append(RankComparisonSection(name, result))
    if not content.rank_comparisons:
        content.missing["rank_comparison"] = "No two boards could be compared: " + "; ".join(
            f"{name}: {reason}" for name, reason in content.rank_comparisons_unmade.items()
        )


def refusal_notes(request: ReportRequest) -> dict[str, str]:
    """What ``--exclude-refusal`` does to each section (empty when it is not asked): applied to
    the boards, stated as not applied, with the reason, everywhere else."""
    if not request.analysis.exclude_refusal:
        return {}
    applied = "applied: battles in which either answer refuses are left out"
    return {**dict.fromkeys(REFUSAL_APPLIED, applied), **REFUSAL_NOT_APPLIED}


def _agreement_section(content: ReportContent, outcomes: pd.DataFrame) -> None:
    request = content.request
    # the report's sides are the two kinds (the agreement selectors "human" and "judge")
    side_a = outcomes[outcomes["kind"] == HUMAN_SIDE].reset_index(drop=True)
    side_b = outcomes[outcomes["kind"] == JUDGE_SIDE].reset_index(drop=True)
    if side_a.empty or side_b.empty:
        content.missing["agreement"] = (
            "Human vs judge needs human and judge judgments of the same comparisons; "
            f"this selection has {len(side_a)} human and {len(side_b)} judge judgments. "
            "Run a campaign and a judge run on the same pairs (or import a benchmark with both)."
        )
        return
    try:
        result = agreement_of_sides(
            side_a,
            side_b,
            (HUMAN_SIDE, JUDGE_SIDE),
            request.filters.describe(),
            bootstrap=request.bootstrap,
            seed=request.seed,
            selection=request.filters,
        )
    except AnalysisError:
        content.missing["agreement"] = (
            "The humans and the judges judged no comparison in common; run the judge on a "
            "campaign's pairs (workbench judge BUNDLE --campaign NAME)."
        )
        return
    bias = result.position_bias
    randomized = bias["positions"] == RANDOMIZED
    content.agreement = AgreementSection(
        document=result.to_json(),
        confusion=result.confusion,
        by_model_pair=result.by_model_pair,
        ratings=result.ratings,
        position_bias=bias[randomized].reset_index(drop=True),
        not_randomized=sorted(str(name) for name in bias.loc[~randomized, "evaluator"]),
    )


def _inter_annotator(
    bundle: Bundle, outcomes: pd.DataFrame, filters: OutcomeFilter
) -> list[dict[str, Any]]:
    """Fleiss' kappa and Krippendorff's alpha within each campaign and within each imported
    benchmark's human raters (:func:`~workbench.services.inter_annotator.rater_groups`, the
    routine of ``workbench campaign status`` and ``workbench agreement --inter-annotator``),
    where some comparison was rated at least twice. Each row's command prints it: ``campaign
    status`` for a campaign of an unfiltered report (it reads the whole campaign, as the
    monitor does), ``agreement --inter-annotator`` with the report's selection otherwise."""
    with bundle.read_session() as session:
        checks = attention_check_keys(session)
    groups = rater_groups(outcomes, checks)
    selected = InterAnnotatorResult(groups, filters).command()
    whole = not filter_flags(filters)
    for row in groups:
        campaign = row["campaign"]
        row["command"] = status_command(campaign) if campaign and whole else selected
    return groups


def _cycles(content: ReportContent, outcomes: pd.DataFrame) -> None:
    """The cycles of the default scope (per evaluator) listed, and the count of the other scope
    (pooled per item), both by the routine ``workbench contradictions --scope`` runs."""
    content.cycle_scope = DEFAULT_CYCLE_SCOPE
    cycles = find_cycles(outcomes, DEFAULT_CYCLE_SCOPE, MAX_CYCLE_LENGTH)
    pooled = find_cycles(outcomes, POOLED_PER_ITEM, MAX_CYCLE_LENGTH)
    content.cycle_count = len(cycles)
    content.cycle_items = int(cycles["item"].nunique()) if len(cycles) else 0
    content.pooled_cycle_count = len(pooled)
    content.pooled_cycle_items = int(pooled["item"].nunique()) if len(pooled) else 0
    if cycles.empty:
        content.missing["cycles"] = (
            f"No evaluator's preferences on an item form a cycle (A > B > C > A; "
            f"{CYCLE_SCOPES[DEFAULT_CYCLE_SCOPE]}). Cycles need three or more models judged on "
            "the same item by the same evaluator."
        )
        return
    labels = outcomes.drop_duplicates("item").set_index("item")
    listed = cycles.head(MAX_LISTED_CYCLES).copy()
    listed["label"] = [
        f"{labels.loc[item, 'source']}/{labels.loc[item, 'item_external_id']}"
        for item in listed["item"]
    ]
    # the graph's edges run from loser to winner, so each model loses to the next
    listed["cycle"] = [" < ".join(map(str, cycle)) for cycle in listed["cycle"]]
    content.cycles = listed[["item", "label", "evaluator", "cycle"]].reset_index(drop=True)
    content.summary["cycles_per_item"] = records(contradiction_counts(cycles, "item").head(20))


def _verdict_text(row: Any) -> str:
    winner = {"a": row.model_a, "b": row.model_b}.get(str(row.outcome), str(row.outcome))
    return f"{row.evaluator} ({row.origin}): {row.model_a} vs {row.model_b} -> {winner}"


#: the questions of ``workbench failures`` whose items the report's gallery shows, with the
#: reason a case of each gives
REPORT_FAILURE_KINDS = {
    DISAGREEMENT: "judge and human majority disagree",
    CYCLES: "preference cycle",
}


def _failures(content: ReportContent, bundle: Bundle, outcomes: pd.DataFrame) -> None:
    """The failure-case lists of :data:`REPORT_FAILURE_KINDS` from :func:`failure_cases`, the
    function ``workbench failures`` calls (cycles in the default scope, per evaluator). A
    filtered report keeps the selection's items and prints no command: the command reads the
    whole bundle."""
    filtered = bool(filter_flags(content.request.filters))
    selected = set(int(item) for item in outcomes["item"].dropna().unique())
    for kind in REPORT_FAILURE_KINDS:
        cases = failure_cases(bundle, kind, scope=DEFAULT_CYCLE_SCOPE)
        document = cases.to_json()
        if filtered:
            document["items"] = [row for row in document["items"] if row["item"] in selected]
        content.failures.append(
            {
                "kind": kind,
                "question": FAILURE_KINDS[kind],
                "command": None if filtered else cases.command(),
                "document": document,
            }
        )


def _gallery(content: ReportContent, bundle: Bundle, outcomes: pd.DataFrame) -> None:
    """Failure cases among the selection's items (:func:`_failures`'s lists): human and judge
    majorities disagree (the panel's flag), or an evaluator's preferences form a cycle."""
    _failures(content, bundle, outcomes)
    reasons: dict[int, str] = {}
    for entry in content.failures:
        for row in entry["document"]["items"]:
            reasons.setdefault(int(row["item"]), REPORT_FAILURE_KINDS[entry["kind"]])
    if not reasons:
        content.missing["gallery"] = (
            "No failure case: no item where the human and judge majorities disagree, and no "
            "preference cycle. Both need several evaluators on the same items."
        )
        return
    chosen = sorted(reasons)[: content.request.gallery_items]
    with bundle.read_session() as session:
        for item in chosen:
            # the case's reason is known from the failure lists; the detail's own disagreement
            # flag would compare the item's majorities again (a frame per item), and is unused
            detail = item_detail(session, item, flags=SQL_FLAGS)
            if detail is None:
                continue
            judged = outcomes[outcomes["item"] == item]
            pair = judged[
                judged["model_b"].notna() & (judged["model_a"] != judged["model_b"])
            ].head(1)
            models = (
                (str(pair["model_a"].iloc[0]), str(pair["model_b"].iloc[0])) if len(pair) else None
            )
            if models is not None:  # the verdicts on this pair, in either order
                first, second = models
                judged = judged[
                    ((judged["model_a"] == first) & (judged["model_b"] == second))
                    | ((judged["model_a"] == second) & (judged["model_b"] == first))
                ]
            images = [
                None if slot.image_id is None else image_bytes(session, slot.image_id)
                for slot in detail.images[:4]
            ]
            content.gallery.append(
                GalleryCase(
                    item=item,
                    label=f"{detail.source}/{detail.external_id}",
                    reason=reasons[item],
                    detail=detail,
                    models=models,
                    verdicts=[_verdict_text(row) for row in judged.head(12).itertuples()],
                    images=images,
                )
            )
    if len(reasons) > len(chosen):
        content.summary["gallery_omitted"] = len(reasons) - len(chosen)


def _provenance(bundle: Bundle, judgments: pd.DataFrame) -> dict[str, Any]:
    runs_used = {str(name) for name in judgments["judge_run"].dropna().unique()}
    campaigns_used = {str(name) for name in judgments["campaign"].dropna().unique()}
    with bundle.read_session() as session:
        imports = [
            {
                "importer": row.importer,
                "importer_version": row.importer_version,
                "app_version": row.app_version,
                "finished_at": row.finished_at.isoformat(timespec="seconds"),
                "counts": row.counts,
                "files": [
                    {"name": file.file_name, "sha256": file.sha256, "bytes": file.size_bytes}
                    for file in session.scalars(
                        select(ImportFile)
                        .where(ImportFile.import_id == row.id)
                        .order_by(ImportFile.id)
                    )
                ],
            }
            for row in session.scalars(select(Import).order_by(Import.id))
        ]
        campaigns = [
            {
                "name": row.name,
                "protocol": row.protocol,
                "seed": row.seed,
                "votes_per_pair": row.votes_per_pair,
                "status": row.status,
            }
            for row in session.scalars(select(Campaign).order_by(Campaign.id))
            if row.name in campaigns_used
        ]
        runs = []
        for row in session.scalars(select(JudgeRun).order_by(JudgeRun.id)):
            if row.name not in runs_used:
                continue
            parameters = dict(row.parameters or {})
            selection = parameters.get("selection") or {}
            runs.append(
                {
                    "name": row.name,
                    "template": row.template_name,
                    "template_version": row.template_version,
                    "judge_model": row.judge_model,
                    "temperature": parameters.get("temperature"),
                    "both_orders": selection.get("swap") if isinstance(selection, dict) else None,
                    "status": row.status,
                }
            )
        info = bundle.info()
    return {"imports": imports, "campaigns": campaigns, "judge_runs": runs, "bundle": info}


def _commands(content: ReportContent) -> dict[str, str]:
    """The commands that reproduce the report's sections; the leaderboards' are their
    requests' canonical commands."""
    request = content.request
    flags = filter_flags(request.filters)
    tail = f" {flags}" if flags else ""
    rounds = f"--bootstrap {request.bootstrap} --seed {request.seed}"
    commands: dict[str, str] = {}
    if content.leaderboard is not None:
        commands["leaderboard"] = content.leaderboard.command
        commands["heatmap"] = content.leaderboard.request.to_command(output="--heatmap winrate.svg")
    if content.style_board is not None:
        commands["style"] = content.style_board.command
    if content.powered_board is not None:
        commands["powered"] = content.powered_board.command
    for compared in content.rank_comparisons:
        commands[f"rank comparison {compared.name}"] = compared.command
    commands["agreement"] = (
        f"workbench agreement BUNDLE --a human --b judge --convention "
        f"{DEFAULT_AGREEMENT_CONVENTION} {rounds}{tail} --json"
    )
    commands["cycles"] = (
        f"workbench contradictions BUNDLE --scope {DEFAULT_CYCLE_SCOPE} "
        f"--max-length {MAX_CYCLE_LENGTH}{tail} --json"
    )
    commands["cycles_pooled"] = (
        f"workbench contradictions BUNDLE --scope {POOLED_PER_ITEM} "
        f"--max-length {MAX_CYCLE_LENGTH}{tail} --json"
    )
    for entry in content.failures:
        if entry["command"] is not None:
            commands[f"failures {entry['kind']}"] = entry["command"]
    commands["report"] = request.analysis.to_command(command="report", output="--out report.html")
    return commands


def reproducible_sections(content: ReportContent) -> list[dict[str, Any]]:
    """Each section whose numbers a printed command reproduces: its name, kind (what the
    command prints), command and the document it shows, for the report's data block and the
    test that runs every command."""
    sections = []
    boards = [
        ("leaderboard", content.leaderboard),
        ("style", content.style_board),
        ("prediction-powered", content.powered_board),
    ]
    boards += [(f"category {entry.category}", entry.board) for entry in content.category_boards]
    comparisons = [
        {
            "section": f"rank comparison {entry.name}",
            "kind": "compare-rankings",
            "command": entry.command,
            "document": entry.document,
        }
        for entry in content.rank_comparisons
    ]
    for name, board in boards:
        if board is not None:
            sections.append(
                {
                    "section": name,
                    "kind": "leaderboard",
                    "command": board.command,
                    "document": board.document,
                }
            )
    sections += comparisons
    if content.agreement is not None:
        sections.append(
            {
                "section": "agreement",
                "kind": "agreement",
                "command": content.commands["agreement"],
                "document": content.agreement.document,
            }
        )
    for name, scope, cycles, items in (
        ("cycles", content.cycle_scope, content.cycle_count, content.cycle_items),
        ("cycles_pooled", POOLED_PER_ITEM, content.pooled_cycle_count, content.pooled_cycle_items),
    ):
        sections.append(
            {
                "section": f"cycles {scope}",
                "kind": "cycles",
                "command": content.commands[name],
                "document": {"scope": scope, "cycles": cycles, "items_with_cycles": items},
            }
        )
    for row in content.inter_annotator:
        sections.append(
            {
                "section": f"inter-annotator {row['group']}",
                "kind": "campaign status"
                if row["command"].startswith("workbench campaign status")
                else "inter-annotator",
                "command": row["command"],
                "document": row,
            }
        )
    for entry in content.failures:
        if entry["command"] is not None:
            sections.append(
                {
                    "section": f"failures {entry['kind']}",
                    "kind": "failures",
                    "command": entry["command"],
                    "document": entry["document"],
                }
            )
    return sections


def _benchmark_scores(content: ReportContent, bundle: Bundle, judgments: pd.DataFrame) -> None:
    """The tables of each benchmark whose source the selection holds (VisIT-Bench's agreement
    by majority, ConvBench's S and R scores, CHIRP's kappa...): what ``workbench scores
    --benchmark NAME`` prints, from the same service function."""
    sources = set(judgments["source"].dropna())
    for plugin in plugins.registry().plugins:
        for provider in plugin.scores:
            if provider.source not in sources:
                continue
            try:
                rounds = (content.request.bootstrap, content.request.seed)
                result = scores(bundle, provider, content.request.filters, boards=rounds)
            except (AnalysisError, StatsInputError) as error:
                content.missing[f"scores:{provider.name}"] = str(error)
                continue
            tables = {name: table for name, table in result.tables.items() if not table.empty}
            if tables:
                content.benchmark_scores[provider.name] = tables
                content.commands[f"scores:{provider.name}"] = result.command
    if not content.benchmark_scores:
        content.missing["scores"] = (
            "No benchmark with scores of its own (VisIT-Bench, ConvBench, CHIRP, WildVision-Bench, "
            "VisionArena) has judgments "
            "in the selection."
        )


# --- the report --------------------------------------------------------------------------------

#: the steps :func:`build_report` reports progress for
STEPS = ("judgments", "leaderboard", "categories", "agreement", "cycles", "gallery", "methods")


def build_report(
    bundle: Bundle, request: ReportRequest, progress: Progress | None = None
) -> ReportContent:
    """Gather the report on the judgments ``request.filters`` selects. Reads only; raises
    :class:`ReportError` when nothing matches."""

    def step(name: str) -> None:
        if progress is not None:
            progress(name, STEPS.index(name), len(STEPS))

    step("judgments")
    with bundle.read_session() as session:
        judgments = judgments_frame(session, request.filters)
        simulated = simulated_left_out(session, request.filters)
    battles = pairwise_outcomes(judgments)
    if battles.empty:
        if simulated:
            raise ReportError(
                f"only simulated verdicts match {request.filters.describe()}: the {simulated} "
                "verdicts of simulated judge runs (drawn at random) are left out; pass "
                "--include-simulated to count them"
            )
        raise ReportError(f"no pairwise judgments match {request.filters.describe()}")
    content = ReportContent(
        request=request,
        bundle_location=str(bundle.location),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        app_version=__version__,
        summary=_summary(bundle, judgments, battles),
    )
    step("leaderboard")
    resolved = _leaderboards(content, bundle)
    step("categories")
    if resolved is not None and content.leaderboard is not None:
        content.summary["anchor"] = resolved.anchor
        content.summary["judgments_rated"] = resolved.kind_label
        content.summary["left_out"] = content.leaderboard.document["left_out"]
        _category_boards(content, bundle, battles, resolved)
    _rank_comparisons(content, bundle, judgments)
    step("agreement")
    outcomes = pairwise_outcomes(judgments)
    _agreement_section(content, outcomes)
    _powered_board(content, bundle)
    content.inter_annotator = _inter_annotator(bundle, outcomes, request.filters)
    if not content.inter_annotator:
        content.missing["inter_annotator"] = (
            "No comparison was rated by two or more annotators of one campaign (or two raters "
            "of an imported benchmark). Create a campaign with --votes-per-pair 2 or more."
        )
    step("cycles")
    _cycles(content, outcomes)
    step("gallery")
    _gallery(content, bundle, outcomes)
    step("methods")
    content.provenance = _provenance(bundle, judgments)
    content.commands = _commands(content)
    _benchmark_scores(content, bundle, judgments)
    if progress is not None:
        progress("done", len(STEPS), len(STEPS))
    return content
