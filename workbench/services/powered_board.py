"""The prediction-powered leaderboard: the humans' Bradley-Terry ratings, with the judge's
verdicts on the same kind of comparisons narrowing their intervals where the judge follows the
humans (:mod:`workbench.stats.ppi`). It answers an :class:`AnalysisRequest` whose method is
``ppi``, at every door that answers a leaderboard request (``workbench leaderboard``, the
Leaderboard panel, the report), through :func:`workbench.services.analysis.leaderboard`.

The request's selection is split into its two sides: the human side keeps the request's
campaigns, annotators, raters and human origins; the judge side keeps its judge runs and the
judge origins; both keep the item dimensions (source, category, turn, criterion...). One
comparison is an item, turn, criterion and output context with an unordered model pair: each
human vote on a comparison the judge judged is one labelled row, with the judge's mean verdict
on that comparison (both orders averaged) as its prediction; the comparisons no human voted on
carry the judge's verdicts alone. A "much better" verdict counts as better (each comparison
counts once) and a tie or both-bad half to each side."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from workbench.domain.judgments import JudgmentOrigin
from workbench.services.analysis_request import (
    HUMAN,
    JUDGE,
    AnalysisRequest,
    RequestError,
    TooFewBattles,
    most_battles,
    too_few_battles,
)
from workbench.services.outcomes import flagged_judgments, judgments_frame, simulated_left_out
from workbench.stats.bradley_terry import Anchor
from workbench.stats.leaderboard import Leaderboard
from workbench.stats.ppi import Comparisons, prediction_powered_ratings
from workbench.stats.preferences import FIRST, SECOND, oriented
from workbench.stats.winrate import pairwise_win_fraction, predicted_win_rate
from workbench.storage.judgments import OutcomeFilter

if TYPE_CHECKING:
    from workbench.services.analysis import LeaderboardResult
    from workbench.storage.bundle import Bundle

#: what identifies one comparison across the two sides (and the columns read for it)
COMPARISON = ("item", "turn", "criterion", "context")
_READ = (*COMPARISON, "model_a", "model_b", "outcome", "strength")
_HUMAN_ORIGINS = frozenset(
    {JudgmentOrigin.IMPORTED, JudgmentOrigin.CAMPAIGN, JudgmentOrigin.ADJUDICATION}
)
_JUDGE_ORIGINS = frozenset({JudgmentOrigin.IMPORTED, JudgmentOrigin.JUDGE_RUN})


@dataclass(frozen=True)
class PoweredInputs:
    """What a prediction-powered board was computed from, as every door states it."""

    human_votes: int  # human votes on comparisons the judge also judged (the labelled rows)
    judge_verdicts: int  # judge verdicts read, on every comparison of the selection
    judged_by_both: int  # comparisons with a human vote and a judge verdict
    judge_only: int  # comparisons only the judge judged
    human_votes_without_verdict: int  # human votes the judge gave no verdict beside: unused
    judge_weight: float  # PPI++'s tuned weight of the judge (0: the humans' own fit)
    coverage: float

    def to_json(self) -> dict[str, Any]:
        return {
            "human_votes": self.human_votes,
            "judge_verdicts": self.judge_verdicts,
            "comparisons_judged_by_both": self.judged_by_both,
            "comparisons_judged_by_the_judge_only": self.judge_only,
            "human_votes_without_a_verdict": self.human_votes_without_verdict,
            "judge_weight": self.judge_weight,
            "coverage": self.coverage,
        }

    def describe(self) -> str:
        """One line for the CLI, the panel's status and the report."""
        line = (
            f"prediction-powered: {self.human_votes} human votes on {self.judged_by_both} "
            f"comparisons the judge also judged, {self.judge_verdicts} judge verdicts "
            f"({self.judge_only} comparisons judged by the judge only); judge weight "
            f"{self.judge_weight:.2f}"
        )
        if self.human_votes_without_verdict:
            line += (
                f"; {self.human_votes_without_verdict} human votes have no judge verdict beside "
                "them and are not used"
            )
        return line


def side_filters(request: AnalysisRequest) -> tuple[OutcomeFilter, OutcomeFilter]:
    """The read model's filters of the request's human side and of its judge side."""
    human = replace(request.filters(), kinds=(HUMAN,), judge_runs=())
    judge = replace(request.filters(), kinds=(JUDGE,), campaigns=(), annotators=(), raters=())
    if request.origins:
        human = replace(human, origins=_kept(request.origins, _HUMAN_ORIGINS))
        judge = replace(judge, origins=_kept(request.origins, _JUDGE_ORIGINS))
    return human, judge


def _kept(origins: tuple[str, ...], allowed: frozenset[JudgmentOrigin]) -> tuple[str, ...]:
    # origins that name only the other kind's stores leave this side unrestricted
    return tuple(origin for origin in origins if origin in allowed)


def _scores(frame: pd.DataFrame) -> pd.DataFrame:
    """Oriented judgments with their comparison key and P(first model won): 1, 0 or 0.5."""
    if frame.empty:
        return frame.assign(key=pd.Series(dtype=object), score=pd.Series(dtype=float))
    turned = oriented(frame)
    score = np.where(
        turned["preference"] == FIRST, 1.0, np.where(turned["preference"] == SECOND, 0.0, 0.5)
    )
    parts = [
        turned[column].astype("string").fillna("") for column in (*COMPARISON, "first", "second")
    ]
    key = parts[0].str.cat(parts[1:], sep="\x1f")
    return turned.assign(key=key.to_numpy(), score=score)


def _read(bundle: Bundle, filters: OutcomeFilter) -> pd.DataFrame:
    with bundle.read_session() as session:
        return judgments_frame(session, filters, pairwise=True, columns=_READ)


def powered_leaderboard(bundle: Bundle, request: AnalysisRequest) -> LeaderboardResult:
    """The prediction-powered board of ``request`` (method ``ppi``), as a
    :class:`~workbench.services.analysis.LeaderboardResult` whose ``powered`` states its
    inputs. Refuses, naming the option, a selection without human votes, without judge
    verdicts, or without a comparison judged by both."""
    # start-up: the whole analysis package, needed only to wrap the result
    from workbench.services.analysis import LeaderboardResult

    human_filter, judge_filter = side_filters(request)
    human, judge = _scores(_read(bundle, human_filter)), _scores(_read(bundle, judge_filter))
    if human.empty:
        raise RequestError(
            "--method ppi: this selection has no human votes to anchor the ratings "
            "(check --campaign, --annotator, --rater and the item filters)"
        )
    if judge.empty:
        raise RequestError(
            "--method ppi: this selection has no judge verdicts to power the ratings "
            "(run a judge on these comparisons, or check --judge-run)"
        )
    prediction = judge.groupby("key", sort=False)["score"].mean()
    judged = human["key"].isin(prediction.index).to_numpy()
    labelled = human[judged].reset_index(drop=True)
    if labelled.empty:
        raise RequestError(
            "--method ppi: no comparison of this selection has both a human vote and a judge "
            "verdict (the judge must judge the comparisons humans voted on)"
        )
    unlabelled = prediction[~prediction.index.isin(labelled["key"])]
    pairs = judge.drop_duplicates("key").set_index("key")[["first", "second"]]
    judge_only = pairs.loc[unlabelled.index].assign(score=unlabelled.to_numpy())

    minimum = max(request.min_battles, 1)  # a model no human rated has nothing to correct it
    left_out = too_few_battles(
        [(str(a), str(b), 1) for a, b in zip(labelled["first"], labelled["second"], strict=True)]
        + [(str(model), str(model), 0) for model in _models(judge_only)],
        minimum,
    )
    if left_out:
        labelled = labelled[~_touches(labelled, left_out)].reset_index(drop=True)
        judge_only = judge_only[~_touches(judge_only, left_out)]
    if labelled.empty:
        raise TooFewBattles(
            f"no model of this selection has {minimum} human votes or more (--min-battles; "
            f"{', '.join(f'{model} {count}' for model, count in sorted(left_out.items()))}): "
            "lower --min-battles to rate them anyway"
        )
    models = sorted(_models(labelled) | _models(judge_only))
    index = {model: position for position, model in enumerate(models)}
    anchor = _anchor(request, labelled, models, left_out)
    ratings = prediction_powered_ratings(
        len(models),
        _comparisons(labelled, index),
        prediction.reindex(labelled["key"]).to_numpy(),
        _comparisons(judge_only, index),
        anchor=index[anchor],
        anchor_rating=request.anchor_rating,
        alpha=1 - request.coverage,
    )
    table = _table(models, ratings, labelled, judge, anchor)
    board = Leaderboard(
        method=request.method,
        anchor=Anchor(anchor, request.anchor_rating),
        bootstrap=0,
        seed=None,
        table=table,
    )
    inputs = PoweredInputs(
        human_votes=len(labelled),
        judge_verdicts=len(judge),
        judged_by_both=int(labelled["key"].nunique()),
        judge_only=len(judge_only),
        human_votes_without_verdict=int((~judged).sum()),
        judge_weight=ratings.lam,
        coverage=request.coverage,
    )

    order = list(table["model"])
    votes = labelled[["model_a", "model_b", "outcome", "weight"]]
    fraction = pairwise_win_fraction(votes).reindex(index=order, columns=order)
    with bundle.read_session() as session:
        simulated = simulated_left_out(session, judge_filter)
        flagged = flagged_judgments(session, human_filter) + flagged_judgments(
            session, judge_filter
        )
    return LeaderboardResult(
        request.resolved(HUMAN, anchor),
        board,
        fraction,
        len(labelled),
        left_out=left_out,
        simulated_left_out=simulated,
        flagged_judgments=flagged,
        powered=inputs,
    )


def _models(frame: pd.DataFrame) -> set[str]:
    return set(map(str, frame["first"])) | set(map(str, frame["second"]))


def _touches(frame: pd.DataFrame, models: dict[str, int]) -> np.ndarray:
    result: np.ndarray = (frame["first"].isin(models) | frame["second"].isin(models)).to_numpy()
    return result


def _comparisons(frame: pd.DataFrame, index: dict[str, int]) -> Comparisons:
    return Comparisons(
        np.array([index[str(model)] for model in frame["first"]], dtype=int),
        np.array([index[str(model)] for model in frame["second"]], dtype=int),
        frame["score"].to_numpy(dtype=float),
    )


def _anchor(
    request: AnalysisRequest, labelled: pd.DataFrame, models: list[str], left_out: dict[str, int]
) -> str:
    """The request's anchor, or the model in the most human votes (the default rule)."""
    if request.anchor is None:
        return most_battles(
            (str(a), str(b), 1) for a, b in zip(labelled["first"], labelled["second"], strict=True)
        )
    if request.anchor in left_out:
        raise RequestError(
            f"--anchor {request.anchor}: the model has {left_out[request.anchor]} human votes, "
            f"fewer than --min-battles {request.min_battles}, so it is not on this board"
        )
    if request.anchor not in models:
        raise RequestError(
            f"--anchor {request.anchor}: not a model of this selection (models: "
            f"{', '.join(models)})"
        )
    return request.anchor


def _table(
    models: list[str], ratings: Any, labelled: pd.DataFrame, judge: pd.DataFrame, anchor: str
) -> pd.DataFrame:
    rating = pd.Series(ratings.ratings, index=models)
    human_votes = pd.concat([labelled["first"], labelled["second"]]).astype(str).value_counts()
    verdicts = pd.concat([judge["first"], judge["second"]]).astype(str).value_counts()
    table = pd.DataFrame(
        {
            "model": models,
            "rating": ratings.ratings,
            "ci_lower": ratings.lower,
            "ci_upper": ratings.upper,
            "win_rate_vs_anchor": predicted_win_rate(rating, anchor).to_numpy(),
            "n": human_votes.reindex(models).fillna(0).astype(int).to_numpy(),
            "judge_verdicts": verdicts.reindex(models).fillna(0).astype(int).to_numpy(),
            "standard_error": ratings.standard_errors,
            "rank_lower": ratings.rank_lower.astype(int),
            "rank_upper": ratings.rank_upper.astype(int),
        }
    )
    return table.sort_values(["rating", "model"], ascending=[False, True]).reset_index(drop=True)
