"""Pairwise outcomes and grades of a bundle as a pandas DataFrame for the analyses, read through
the one judgment read model (:mod:`workbench.storage.judgments`) with its filters in SQL: imported
judgments, campaign votes and judge verdicts in the same columns. Also the agreement panel's
and CLI's side selectors, and answer style features for style control.

Every row has the columns of :data:`COLUMNS`. ``model_a`` is the side shown first; a side that
was the reference answer rather than a model's output is named ``reference``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.domain import STANDARD_CONTEXT, JudgmentOrigin
from workbench.errors import WorkbenchError
from workbench.stats.refusals import is_refusal
from workbench.stats.style import STYLE_FEATURES, count_tokens, style_counts
from workbench.stats.weighting import weight_by_strength
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import COLUMNS as READ_MODEL_COLUMNS
from workbench.storage.judgments import (
    KINDS,
    ORIGINS,
    OutcomeFilter,
    flagged_judgments,
    read_judgments,
    simulated_left_out,
)
from workbench.storage.models import Model, Output, Turn

log = logging.getLogger(__name__)

IMPORTED = JudgmentOrigin.IMPORTED.value

#: the read model's columns and ``weight`` (how many battles a row counts as)
COLUMNS = (*READ_MODEL_COLUMNS, "weight")


class UnknownSelectorError(WorkbenchError):
    pass


__all__ = [
    "COLUMNS",
    "KINDS",
    "ORIGINS",
    "OutcomeFilter",
    "UnknownSelectorError",
    "flagged_judgments",
    "simulated_left_out",
]


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
    ``campaign``, ``judge-run`` or ``adjudication`` (origin), or ``KEY:VALUE`` with KEY one of
    source, campaign, annotator, run, rater, evaluator, category, language, criterion. Example:
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
                f"judge-run, adjudication or one of {keys}"
            )
    if not values:
        raise UnknownSelectorError("an empty selector selects nothing")
    # field names checked above; each value has its field's type (turns are ints)
    changes: dict[str, Any] = {key: tuple(items) for key, items in values.items()}
    return replace(OutcomeFilter(), **changes)


def judgments_frame(
    session: Session,
    *filters: OutcomeFilter | None,
    pairwise: bool = False,
    columns: Sequence[str] = READ_MODEL_COLUMNS,
    after: Sequence[int] | None = None,
) -> pd.DataFrame:
    """The judgments every filter keeps (pairwise outcomes and grades), with ``columns`` of
    :data:`COLUMNS` (all by default; a rating reads only the sides, outcome and strength) and
    ``weight``, in stored order; the filters run in SQL. ``after`` (a
    :func:`~workbench.storage.judgments.fingerprint`) reads only the judgments stored since
    it was taken, in SQL too (:class:`~workbench.services.judgment_cache.JudgmentCache`)."""
    names, rows = read_judgments(session, *filters, pairwise=pairwise, columns=columns, after=after)
    frame = pd.DataFrame(rows, columns=names, dtype=object)
    frame["weight"] = 1.0
    conversions: dict[str, Callable[[pd.Series], pd.Series]] = {
        "score": lambda values: pd.to_numeric(values, errors="coerce"),
        "turn": lambda values: values.astype("Int64"),
        "strength": lambda values: values.fillna(1).astype(int),
        "derived": lambda values: values.astype(bool),
        "row_id": lambda values: values.astype(np.int64),
    }
    for column, convert in conversions.items():
        if column in frame.columns:
            frame[column] = convert(frame[column])
    return frame


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
        frame = judgments_frame(session, filters, pairwise=True)
    return pairwise_outcomes(frame, decisive_weight)


def describe_empty(filters: OutcomeFilter, available: Iterable[str]) -> str:
    """A user-facing explanation of why a selection is empty."""
    known = ", ".join(sorted(set(available))) or "none"
    return (
        f"no pairwise judgments match {filters.describe()} (sources with judgments in the "
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
            result: np.ndarray | None = np.sum(list(answers.values()), axis=0)
            return result
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


def mean_answer_tokens(session: Session, models: Iterable[str]) -> dict[str, float]:
    """Each model's mean answer length in tokens over all its stored answers (one per turn, in
    the standard context): the output's ``token_len`` metadata where the source gave one, as
    WildVision-Bench's "Avg Tokens" column, else words and punctuation marks (the length of
    style control). Models without answers are left out."""
    totals: dict[str, list[float]] = {}
    statement = (
        select(Model.name, Output.text, Output.metadata_)
        .join(Model, Output.model_id == Model.id)
        .where(Model.name.in_(list(models)), Output.context == STANDARD_CONTEXT)
    )
    for model, text, metadata in session.execute(statement):
        length = (metadata or {}).get("token_len")
        counted = length if isinstance(length, int) else count_tokens(text)
        total = totals.setdefault(model, [0.0, 0.0])
        total[0] += counted
        total[1] += 1
    return {model: total / answers for model, (total, answers) in totals.items()}


def answer_refusals(session: Session, battles: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Whether each battle's side a and side b answer refuses (:func:`workbench.stats.refusals.
    is_refusal`), from the models' stored outputs in the standard context: the judged turn's
    answer, or any turn's for a judgment of the whole conversation. A missing answer does not
    refuse."""
    items = sorted({int(item) for item in battles["item"].dropna().unique()})
    refused: dict[tuple[int, str], dict[int, bool]] = {}
    for start in range(0, len(items), 500):
        chunk = items[start : start + 500]
        statement = (
            select(Turn.item_id, Turn.index, Model.name, Output.text)
            .join(Turn, Output.turn_id == Turn.id)
            .join(Model, Output.model_id == Model.id)
            .where(Turn.item_id.in_(chunk), Output.context == STANDARD_CONTEXT)
        )
        for item_id, turn_index, model, text in session.execute(statement):
            refused.setdefault((item_id, model), {})[turn_index] = is_refusal(text)

    def refuses(item: Any, turn: Any, model: str) -> bool:
        if pd.isna(item):
            return False
        answers = refused.get((int(item), model), {})
        if pd.isna(turn):
            return any(answers.values())
        return answers.get(int(turn), False)

    rows = list(
        zip(battles["item"], battles["turn"], battles["model_a"], battles["model_b"], strict=True)
    )
    side_a = np.array([refuses(item, turn, a) for item, turn, a, _b in rows], dtype=bool)
    side_b = np.array([refuses(item, turn, b) for item, turn, _a, b in rows], dtype=bool)
    return side_a, side_b


def refusals_per_model(session: Session, models: Iterable[str] | None = None) -> dict[str, int]:
    """How many of each model's stored answers (one per turn, standard context) refuse by
    :func:`workbench.stats.refusals.is_refusal`; ``models`` limits the count to those."""
    return {
        model: refused for model, (refused, _answers) in refusal_counts(session, models).items()
    }


def refusal_counts(
    session: Session, models: Iterable[str] | None = None
) -> dict[str, tuple[int, int]]:
    """Per model, its refusing answers and its answers (one per turn, standard context)."""
    wanted = None if models is None else set(models)
    counts: dict[str, tuple[int, int]] = {}
    statement = (
        select(Model.name, Output.text)
        .join(Model, Output.model_id == Model.id)
        .where(Output.context == STANDARD_CONTEXT)
    )
    for model, text in session.execute(statement):
        if wanted is not None and model not in wanted:
            continue
        refused, answers = counts.get(model, (0, 0))
        counts[model] = (refused + int(is_refusal(text)), answers + 1)
    return counts
