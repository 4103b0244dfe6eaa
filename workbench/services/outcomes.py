"""Pairwise outcomes and grades from a bundle as one pandas DataFrame, whichever table they live
in: judgments imported with a benchmark (``prior_judgments``), human votes cast in campaigns
(``votes``, retracted ones left out) and LLM-judge verdicts (``judge_verdicts``); with filters by
source, campaign, annotator, judge run, category, language, turn, criterion, kind and origin.

Every row has the columns of :data:`COLUMNS`. ``model_a`` is the side shown first; a side that
was the reference answer rather than a model's output is named ``reference``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from workbench.domain import Outcome
from workbench.errors import WorkbenchError
from workbench.services.selection import REFERENCE_NAME
from workbench.stats.style import STYLE_FEATURES, style_counts
from workbench.stats.weighting import weight_by_strength
from workbench.storage.bundle import Bundle
from workbench.storage.models import (
    Annotator,
    Campaign,
    Import,
    Item,
    JudgeRun,
    JudgeVerdict,
    Model,
    Output,
    PriorJudgment,
    Source,
    Turn,
    Vote,
)

log = logging.getLogger(__name__)

IMPORTED, CAMPAIGN, JUDGE_RUN = "imported", "campaign", "judge-run"
ORIGINS = (IMPORTED, CAMPAIGN, JUDGE_RUN)
KINDS = ("human", "judge")
STANDARD_CONTEXT = "standard"

COLUMNS = (
    "origin",  # imported | campaign | judge-run
    "kind",  # human | judge
    "evaluator",  # imported rater, annotator handle, or judge run name
    "source",
    "importer",
    "campaign",
    "judge_run",
    "annotator",
    "rater",
    "item",  # the item's row id in the bundle
    "item_external_id",
    "category",
    "family",
    "language",
    "turn",  # turn index, NaN for a judgment of the whole conversation
    "turn_category",  # the judged turn's own category (ConvBench's per-turn categories)
    "criterion",
    "context",  # the conversation context judged ("standard", or a ConvBench ablation)
    "model_a",
    "model_b",
    "outcome",
    "strength",
    "label",
    "score",
    "position_flip",
    "group_key",
    "weight",
)

_OUTCOME_VALUES = {outcome.value for outcome in Outcome}


class UnknownSelectorError(WorkbenchError):
    pass


@dataclass(frozen=True)
class OutcomeFilter:
    """Which judgments to keep; an empty tuple keeps everything on that dimension, several
    values keep any of them, and the dimensions combine with AND."""

    sources: tuple[str, ...] = ()
    campaigns: tuple[str, ...] = ()
    annotators: tuple[str, ...] = ()
    judge_runs: tuple[str, ...] = ()
    raters: tuple[str, ...] = ()
    evaluators: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    turns: tuple[int, ...] = ()
    criteria: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()
    contexts: tuple[str, ...] = ()

    # filter field -> frame column
    _COLUMN_OF = {  # noqa: RUF012 - a class-level constant, not a dataclass field
        "sources": "source",
        "campaigns": "campaign",
        "annotators": "annotator",
        "judge_runs": "judge_run",
        "raters": "rater",
        "evaluators": "evaluator",
        "categories": "category",
        "families": "family",
        "languages": "language",
        "turns": "turn",
        "criteria": "criterion",
        "kinds": "kind",
        "origins": "origin",
        "contexts": "context",
    }

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        keep = np.ones(len(frame), dtype=bool)
        for spec in fields(self):
            wanted = getattr(self, spec.name)
            if wanted:
                keep &= frame[self._COLUMN_OF[spec.name]].isin(list(wanted)).to_numpy()
        return frame[keep]

    def describe(self) -> str:
        """The filters set, as ``source=a|b, turn=1``, or ``no filters``."""
        parts = [
            f"{self._COLUMN_OF[spec.name]}={'|'.join(map(str, getattr(self, spec.name)))}"
            for spec in fields(self)
            if getattr(self, spec.name)
        ]
        return ", ".join(parts) or "no filters"


_SELECTOR_FIELDS = {
    "source": "sources",
    "campaign": "campaigns",
    "annotator": "annotators",
    "run": "judge_runs",
    "rater": "raters",
    "evaluator": "evaluators",
    "category": "categories",
    "language": "languages",
    "criterion": "criteria",
}


def parse_selector(text: str) -> OutcomeFilter:
    """An evaluator selector (``workbench agreement --a/--b``) as a filter.

    Terms joined by commas must all hold: ``human`` or ``judge`` (kind), ``imported``,
    ``campaign`` or ``judge-run`` (origin), or ``KEY:VALUE`` with KEY one of source, campaign,
    annotator, run, rater, evaluator, category, language, criterion. Example:
    ``human,source:visit-bench`` or ``run:gpt4o-reference-free``.
    """
    values: dict[str, list[str]] = {}
    for term in (part.strip() for part in text.split(",")):
        if not term:
            continue
        if term in KINDS:
            values.setdefault("kinds", []).append(term)
        elif term in ORIGINS:
            values.setdefault("origins", []).append(term)
        elif ":" in term and term.split(":", 1)[0] in _SELECTOR_FIELDS:
            key, value = term.split(":", 1)
            values.setdefault(_SELECTOR_FIELDS[key], []).append(value)
        else:
            keys = ", ".join(f"{key}:NAME" for key in _SELECTOR_FIELDS)
            raise UnknownSelectorError(
                f"cannot read '{term}' in '{text}': use human, judge, imported, campaign, "
                f"judge-run or one of {keys}"
            )
    if not values:
        raise UnknownSelectorError("an empty selector selects nothing")
    changes: dict[str, tuple[Any, ...]] = {key: tuple(items) for key, items in values.items()}
    return replace(OutcomeFilter(), **changes)


def _item_columns(item_id: Any, turn_index: Any) -> list[Any]:
    return [
        item_id.label("item"),
        Item.external_id.label("item_external_id"),
        Item.category.label("category"),
        Item.family.label("family"),
        Item.language.label("language"),
        Source.name.label("source"),
        turn_index.label("turn"),
        Turn.category.label("turn_category"),
    ]


def _frame(session: Session, statement: Any) -> pd.DataFrame:
    result = session.execute(statement)
    return pd.DataFrame(result.all(), columns=list(result.keys()))


def _prior_frame(session: Session) -> pd.DataFrame:
    model_a, model_b = aliased(Model), aliased(Model)
    statement = (
        select(
            *_item_columns(PriorJudgment.item_id, PriorJudgment.turn_index),
            PriorJudgment.kind.label("kind"),
            PriorJudgment.rater.label("rater"),
            Import.importer.label("importer"),
            PriorJudgment.criterion.label("criterion"),
            PriorJudgment.metadata_.label("metadata"),
            model_a.name.label("model_a"),
            model_b.name.label("model_b"),
            PriorJudgment.outcome.label("outcome"),
            PriorJudgment.strength.label("strength"),
            PriorJudgment.label.label("label"),
            PriorJudgment.score.label("score"),
            PriorJudgment.group_key.label("group_key"),
        )
        .join(model_a, PriorJudgment.model_a_id == model_a.id)
        .outerjoin(model_b, PriorJudgment.model_b_id == model_b.id)
        .outerjoin(Item, PriorJudgment.item_id == Item.id)
        .outerjoin(Source, Item.source_id == Source.id)
        .join(Import, PriorJudgment.import_id == Import.id)
        .outerjoin(
            Turn, (Turn.item_id == PriorJudgment.item_id) & (Turn.index == PriorJudgment.turn_index)
        )
        # in the order they were stored: online Elo and the bootstrap depend on it, and only
        # an ORDER BY makes it the same on every backend
        .order_by(PriorJudgment.id)
    )
    frame = _frame(session, statement)
    frame["origin"] = IMPORTED
    frame["evaluator"] = frame["rater"].fillna(frame["importer"])
    frame["context"] = [
        (metadata or {}).get("context", STANDARD_CONTEXT) for metadata in frame["metadata"]
    ]
    return frame.drop(columns="metadata")


def _vote_frame(session: Session) -> pd.DataFrame:
    model_a, model_b = aliased(Model), aliased(Model)
    statement = (
        select(
            *_item_columns(Vote.item_id, Vote.turn_index),
            Campaign.name.label("campaign"),
            Annotator.handle.label("annotator"),
            Vote.criterion.label("criterion"),
            model_a.name.label("model_a"),
            model_b.name.label("model_b"),
            Vote.choice.label("label"),
            Vote.grade.label("score"),
            Vote.pair_id.label("pair_id"),
        )
        .outerjoin(model_a, Vote.model_a_id == model_a.id)
        .outerjoin(model_b, Vote.model_b_id == model_b.id)
        .join(Campaign, Vote.campaign_id == Campaign.id)
        .join(Annotator, Vote.annotator_id == Annotator.id)
        .join(Item, Vote.item_id == Item.id)
        .join(Source, Item.source_id == Source.id)
        .outerjoin(Turn, (Turn.item_id == Vote.item_id) & (Turn.index == Vote.turn_index))
        .where(Vote.retracted_at.is_(None))
        .order_by(Vote.id)
    )
    frame = _frame(session, statement)
    frame["origin"] = CAMPAIGN
    frame["kind"] = "human"
    frame["evaluator"] = frame["annotator"]
    frame["context"] = STANDARD_CONTEXT
    # a pairwise choice is an outcome; verification choices and skips are not
    frame["outcome"] = frame["label"].where(frame["label"].isin(list(_OUTCOME_VALUES)))
    frame["strength"] = 1
    frame["group_key"] = [
        None if pd.isna(pair) else f"pair:{int(pair)}" for pair in frame["pair_id"]
    ]
    return frame.drop(columns="pair_id")


def _verdict_frame(session: Session) -> pd.DataFrame:
    model_a, model_b = aliased(Model), aliased(Model)
    statement = (
        select(
            *_item_columns(JudgeVerdict.item_id, JudgeVerdict.turn_index),
            JudgeRun.name.label("judge_run"),
            JudgeRun.parameters.label("parameters"),
            JudgeVerdict.criterion.label("criterion"),
            model_a.name.label("model_a"),
            model_b.name.label("model_b"),
            JudgeVerdict.outcome.label("outcome"),
            JudgeVerdict.strength.label("strength"),
            JudgeVerdict.label.label("label"),
            JudgeVerdict.score.label("score"),
            JudgeVerdict.position_flip.label("position_flip"),
        )
        .join(model_a, JudgeVerdict.model_a_id == model_a.id)
        .outerjoin(model_b, JudgeVerdict.model_b_id == model_b.id)
        .join(JudgeRun, JudgeVerdict.run_id == JudgeRun.id)
        .join(Item, JudgeVerdict.item_id == Item.id)
        .join(Source, Item.source_id == Source.id)
        .outerjoin(
            Turn, (Turn.item_id == JudgeVerdict.item_id) & (Turn.index == JudgeVerdict.turn_index)
        )
        .where(JudgeVerdict.error.is_(None))
        .order_by(JudgeVerdict.id)
    )
    frame = _frame(session, statement)
    frame["origin"] = JUDGE_RUN
    frame["kind"] = "judge"
    frame["evaluator"] = frame["judge_run"]
    frame["context"] = [
        (parameters or {}).get("context", STANDARD_CONTEXT) for parameters in frame["parameters"]
    ]
    return frame.drop(columns="parameters")


def _name_reference_sides(frame: pd.DataFrame) -> pd.DataFrame:
    # a pairwise judgment with one side missing compared a model with the reference answer
    pairwise = frame["outcome"].notna()
    for side, other in (("model_a", "model_b"), ("model_b", "model_a")):
        missing = pairwise & frame[side].isna() & frame[other].notna()
        frame.loc[missing, side] = REFERENCE_NAME
    return frame


def judgments_frame(session: Session, filters: OutcomeFilter | None = None) -> pd.DataFrame:
    """Every judgment of the bundle (pairwise outcomes and grades) with :data:`COLUMNS`,
    filtered."""
    parts = [_prior_frame(session), _vote_frame(session), _verdict_frame(session)]
    columns = [column for column in COLUMNS if column != "weight"]
    frame = pd.concat(
        [part.reindex(columns=columns).astype(object) for part in parts], ignore_index=True
    )
    frame = _name_reference_sides(frame)
    frame["weight"] = 1.0
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce")
    frame["turn"] = frame["turn"].astype("Int64")
    frame["strength"] = frame["strength"].fillna(1).astype(int)
    return (filters or OutcomeFilter()).apply(frame).reset_index(drop=True)


def pairwise_outcomes(frame: pd.DataFrame, decisive_weight: float | None = None) -> pd.DataFrame:
    """The rows of a judgments frame that are pairwise outcomes between two named sides, ready
    for :mod:`workbench.stats`. ``decisive_weight`` counts each "much better" verdict as that
    many battles (WildVision-Bench uses 3)."""
    pairwise = frame[
        frame["outcome"].notna() & frame["model_a"].notna() & frame["model_b"].notna()
    ].reset_index(drop=True)
    if decisive_weight is not None:
        pairwise = weight_by_strength(pairwise, decisive_weight)
    return pairwise


def grades(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a judgments frame that carry a numeric grade (``score``)."""
    return frame[frame["score"].notna()].reset_index(drop=True)


def load_outcomes(
    bundle: Bundle,
    filters: OutcomeFilter | None = None,
    decisive_weight: float | None = None,
) -> pd.DataFrame:
    """Pairwise outcomes of an open bundle, filtered (see :func:`pairwise_outcomes`)."""
    with bundle.read_session() as session:
        frame = judgments_frame(session, filters)
    return pairwise_outcomes(frame, decisive_weight)


def distinct_values(frame: pd.DataFrame, column: str) -> list[Any]:
    """The values a column takes, for messages and pickers (NaN left out)."""
    return sorted(value for value in frame[column].dropna().unique())


def describe_empty(filters: OutcomeFilter, available: Iterable[str]) -> str:
    """A user-facing explanation of why a selection is empty."""
    known = ", ".join(sorted(set(available))) or "none"
    return (
        f"no pairwise outcomes match {filters.describe()} (sources with judgments in the "
        f"bundle: {known})"
    )


def answer_style_features(
    session: Session, battles: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Style counts (:data:`workbench.stats.style.STYLE_FEATURES`) of both answers of every
    battle, from the models' stored outputs in the standard context: the judged turn's answer,
    or all turns' answers together for a judgment of the whole conversation (as FastChat sums
    over a conversation). Length is the output's ``token_len`` metadata where the source gave
    one. Returns features for side a, side b, and which battles had both answers."""
    items = sorted({int(item) for item in battles["item"].dropna().unique()})
    per_turn: dict[tuple[int, str], dict[int, np.ndarray]] = {}
    for start in range(0, len(items), 500):
        chunk = items[start : start + 500]
        statement = (
            select(Turn.item_id, Turn.index, Model.name, Output.text, Output.metadata_)
            .join(Turn, Output.turn_id == Turn.id)
            .join(Model, Output.model_id == Model.id)
            .where(Turn.item_id.in_(chunk), Output.context == STANDARD_CONTEXT)
        )
        for item_id, turn_index, model, text, metadata in session.execute(statement):
            length = (metadata or {}).get("token_len")
            counts = style_counts(text, length if isinstance(length, int) else None)
            per_turn.setdefault((item_id, model), {})[turn_index] = np.array(
                [counts[name] for name in STYLE_FEATURES], dtype=np.float64
            )

    def features(item: Any, turn: Any, model: str) -> np.ndarray | None:
        if pd.isna(item):
            return None
        answers = per_turn.get((int(item), model))
        if not answers:
            return None
        if pd.isna(turn):
            return np.sum(list(answers.values()), axis=0)
        return answers.get(int(turn))

    width = len(STYLE_FEATURES)
    features_a = np.zeros((len(battles), width))
    features_b = np.zeros((len(battles), width))
    found = np.zeros(len(battles), dtype=bool)
    rows = zip(
        battles["item"], battles["turn"], battles["model_a"], battles["model_b"], strict=True
    )
    for index, (item, turn, model_a, model_b) in enumerate(rows):
        side_a, side_b = features(item, turn, model_a), features(item, turn, model_b)
        if side_a is not None and side_b is not None:
            features_a[index], features_b[index], found[index] = side_a, side_b, True
    return features_a, features_b, found
