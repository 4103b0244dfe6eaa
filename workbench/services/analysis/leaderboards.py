"""The leaderboard under the panels' switches (``workbench leaderboard``, the Leaderboard panel)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench.export.spreadsheet import spreadsheet_safe
from workbench.services.analysis.common import RATING_COLUMNS, AnalysisError, available_sources
from workbench.services.analysis_request import (
    AUTO,
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
from workbench.services.battle_tally import BattleTally, CountRow
from workbench.services.outcomes import (
    OutcomeFilter,
    answer_refusals,
    answer_style_features,
    describe_empty,
    flagged_judgments,
    judgments_frame,
    mean_answer_tokens,
    simulated_left_out,
)
from workbench.services.to_json import jsonable
from workbench.stats.battles import JUDGMENTS_COLUMN
from workbench.stats.bradley_terry import Anchor
from workbench.stats.leaderboard import Leaderboard, compute_leaderboard
from workbench.stats.weighting import weight_by_strength
from workbench.stats.winrate import pairwise_win_fraction
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import battle_counts, distinct_values, has_pairwise_judgments

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from workbench.services.powered_board import PoweredInputs


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
        result: dict[str, Any] = jsonable(document)
        return result

    def write_csv(self, path: Path) -> None:
        """The table as CSV (``workbench leaderboard --csv``, the panel's export) under a first
        line naming the request and its command, with cells a spreadsheet would run as
        formulas neutralised."""
        with path.open("w", encoding="utf-8", newline="") as stream:
            stream.write(csv_request_line(self.request) + "\n")
            self.table.map(spreadsheet_safe).to_csv(stream, index=False)

    def forest_figure(self) -> Figure:
        # start-up: matplotlib, needed only where a figure is drawn
        from workbench.stats.plots import ratings_forest_plot

        method = METHODS[self.board.method]
        unit = "human votes" if self.powered is not None else "battles"
        title = f"{method} ratings ({self.battles} {unit}, {self.request.kind_label})"
        if self.board.anchor is not None:
            title += f"\nanchor {self.board.anchor.model} = {self.board.anchor.rating:g}"
        return ratings_forest_plot(self.table, title)

    def heatmap_figure(self) -> Figure:
        # start-up: matplotlib, needed only where a figure is drawn
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


def _has_judgments(bundle: Bundle, selection: OutcomeFilter) -> bool:
    """Whether ``selection`` keeps a pairwise judgment: the first one found, not a count."""
    with bundle.read_session() as session:
        return has_pairwise_judgments(session, selection)


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
        raise AnalysisError(describe_empty(selection, available_sources(bundle)))
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
        # start-up: scipy.stats, needed only by a prediction-powered board
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
        raise AnalysisError(describe_empty(filters, available_sources(bundle)))
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
