"""The one read model of judgments: imported prior judgments (``prior_judgments``), campaign votes
that were not retracted (``votes``), judge verdicts without an error (``judge_verdicts``) and
coordinators' settled answers to disputed campaign tasks (``adjudications``), as one SQL query
with the same columns whatever the store, and filters compiled into its ``WHERE``.

Every reader of judgments (analyses, the inspector's counts and flags, exports, the judge's
worklists, the change fingerprint) goes through this module, so they cannot disagree on what a
judgment is. Columns (:data:`COLUMNS`):

``origin`` (:class:`~workbench.domain.JudgmentOrigin`), ``kind`` (human | judge), ``evaluator``
(the imported rater or importer, the annotator's handle, the judge run's name), ``source``,
``importer``, ``campaign``, ``judge_run``, ``annotator``, ``rater``, ``item`` (row id) and
``item_external_id``, the item's ``category``/``family``/``language`` (NULL when the source gave
none), ``turn`` (NULL for the whole conversation), ``turn_category``, ``criterion``, ``context``,
``model_a``/``model_b`` (the sides as shown, first is ``model_a``; the reference answer's side is
:data:`~workbench.domain.REFERENCE_SIDE`), ``outcome`` (a | b | tie | both_bad, NULL for a grade
or a non-pairwise answer), ``strength``, ``label``, ``score``, ``position_flip``, ``group_key``,
``time`` (when it was cast or given; NULL for imported ones), ``derived`` (true for an imported
judgment derived from another stored one, see :data:`~workbench.domain.DERIVED_KEY`),
``unparsed`` (true for a judge verdict the judge gave no readable answer for, counted as its
template says, a tie; a request that failed, or an unreadable answer a template counts as no
outcome, is no judgment and is not here), ``row_id`` (its id in its own table). Rows come in
stored order: imported, then votes, then verdicts, then adjudications, each by id (online Elo
and the bootstrap depend on a stable order).

An adjudication is a human judgment of origin ``adjudication`` whose evaluator is
:data:`ADJUDICATED` (one evaluator for every settled answer) and whose ``rater`` is the
adjudicator; its campaign, item, turn and sides are those of the task as it was shown. It
settles votes that are already counted, so a filter keeps adjudications only when it asks for
them (see :meth:`OutcomeFilter.keeps_adjudications`).

Written with SQLAlchemy Core only, so the same statements run on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ColumnElement,
    Float,
    Integer,
    String,
    and_,
    bindparam,
    case,
    cast,
    false,
    func,
    literal,
    literal_column,
    not_,
    null,
    or_,
    select,
    type_coerce,
    union_all,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased
from sqlalchemy.sql import Subquery
from sqlalchemy.types import TypeEngine

from workbench.domain import (
    DERIVED_KEY,
    REFERENCE_SIDE,
    STANDARD_CONTEXT,
    UNPARSED_KEY,
    JudgmentKind,
    JudgmentOrigin,
    Outcome,
)
from workbench.domain.judgments import SIMULATED_JUDGE_MODEL, JudgmentSelection
from workbench.storage.models import (
    Adjudication,
    Annotator,
    Campaign,
    Flag,
    Import,
    Item,
    ItemCategory,
    JudgeRun,
    JudgeVerdict,
    JudgmentCount,
    Model,
    PriorJudgment,
    ScheduledPair,
    Source,
    Turn,
    UtcDateTime,
    Vote,
)

COLUMNS = (
    "origin",
    "kind",
    "evaluator",
    "source",
    "importer",
    "campaign",
    "judge_run",
    "annotator",
    "rater",
    "item",
    "item_external_id",
    "category",
    "family",
    "language",
    "turn",
    "turn_category",
    "criterion",
    "context",
    "model_a",
    "model_b",
    "outcome",
    "strength",
    "label",
    "score",
    "position_flip",
    "group_key",
    "time",
    "derived",
    "unparsed",
    "row_id",
)

ORIGINS = tuple(origin.value for origin in JudgmentOrigin)
KINDS = tuple(kind.value for kind in JudgmentKind)
OUTCOME_VALUES = tuple(outcome.value for outcome in Outcome)
ADJUDICATION = JudgmentOrigin.ADJUDICATION.value
#: the evaluator of every adjudicated answer (who settled it is the row's ``rater``)
ADJUDICATED = "adjudicated"


@dataclass(frozen=True)
class OutcomeFilter(JudgmentSelection):
    """Which judgments to keep: the selection (:class:`JudgmentSelection`) with the read
    model's own dimensions (evaluators, kinds, conversation contexts, item ids).

    Derived judgments (an importer's battles computed from verdicts it also stored) are left
    out unless ``include_derived`` is set or the filter names raters or evaluators, which
    selects them by name: counting both would count the same evidence twice. ``categories``
    keeps an item whose category is one of them or that is tagged with one of them (an item
    of a multi-label source has several, :class:`~workbench.storage.models.ItemCategory`).
    Adjudications (a settled answer to a task whose votes are counted already) are left out the
    same way, and also kept when the filter names the ``adjudication`` origin. The simulated
    judge's verdicts are kept when the filter names judge runs, which selects them by name.
    ``exclude_flagged`` finds flagged comparisons with :func:`flagged_clause`."""

    evaluators: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    contexts: tuple[str, ...] = ()
    items: tuple[int, ...] = ()

    # filter field -> read-model column
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
        "items": "item",
    }

    def _dimensions(self) -> Iterable[tuple[str, tuple[Any, ...]]]:
        for name, column in self._COLUMN_OF.items():
            if getattr(self, name):
                yield column, getattr(self, name)

    def keeps_derived(self) -> bool:
        return self.include_derived or bool(self.raters or self.evaluators)

    def keeps_simulated(self) -> bool:
        return self.include_simulated or bool(self.judge_runs)

    def keeps_adjudications(self) -> bool:
        return self.keeps_derived() or ADJUDICATION in self.origins

    def clauses(self, rows: Subquery) -> list[Any]:
        """The filter as SQL conditions on the columns of :func:`judgment_rows`, adjudications
        aside (:func:`_where` leaves them out unless one of the filters it combines asks)."""
        found: list[ColumnElement[bool]] = [
            _category_clause(rows, values)
            if column == "category"
            else rows.c[column].in_(list(values))
            for column, values in self._dimensions()
        ]
        if not self.keeps_derived():
            found.append(rows.c.derived == false())
        if not self.keeps_simulated():
            found.append(not_(simulated_clause(rows)))
        if self.multi_turn:
            found.append(rows.c.item.in_(select(Turn.item_id).where(Turn.index >= 2)))
        if self.exclude_ties:
            # a grade (no outcome) is not a tie
            found.append(or_(rows.c.outcome.is_(None), rows.c.outcome.in_(["a", "b"])))
        if self.exclude_categories:
            found.append(not_(_category_clause(rows, self.exclude_categories, null_safe=True)))
        if self.exclude_flagged:
            found.append(not_(flagged_clause(rows)))
        return found

    def reads_items(self) -> bool:
        """Whether the filter needs each judgment's item (not in the narrow battle rows)."""
        return self.multi_turn or bool(self.exclude_categories) or self.exclude_flagged

    def describe(self) -> str:
        """The filters set, as ``source=a|b, turn=1``, or ``no filters``."""
        parts = [f"{column}={'|'.join(map(str, values))}" for column, values in self._dimensions()]
        parts += self.switches_text()
        return ", ".join(parts) or "no filters"


#: flags that stand (not retracted): the ones that leave comparisons out
_FLAG_STANDS = Flag.retracted_at.is_(None)


def flagged_clause(rows: Subquery) -> ColumnElement[bool]:
    """Whether a row of :func:`judgment_rows` is on a flagged comparison: a standing flag on
    its item as a whole (no model: a broken image, an offensive item, the reference answer),
    or on the answer of the model on either of its sides (an answer that names its model)."""
    flagged_model = aliased(Model)
    return (
        select(Flag.id)
        .outerjoin(flagged_model, flagged_model.id == Flag.model_id)
        .where(
            Flag.item_id == rows.c.item,
            _FLAG_STANDS,
            or_(
                Flag.model_id.is_(None),
                flagged_model.name == rows.c.model_a,
                flagged_model.name == rows.c.model_b,
            ),
        )
        .exists()
    )


def flagged_judgments(session: Session, *filters: OutcomeFilter | None) -> int:
    """How many pairwise judgments ``filters`` select, flagged ones kept, are on a flagged
    comparison (:func:`flagged_clause`): what a board says it counted, or with
    ``exclude_flagged`` left out. 0 at the cost of one index read when no flag stands."""
    if session.scalar(select(Flag.id).where(_FLAG_STANDS).limit(1)) is None:
        return 0
    return int(session.scalar(_flagged_counts_statement(filters)) or 0)


def _flagged_counts_statement(
    filters: Sequence[OutcomeFilter | None], by_kind: bool = False
) -> Any:
    """The statement of :func:`flagged_judgments`; ``by_kind``: per kind of evaluator and
    whether the rows are the simulated judge's (the quick path picks its own)."""
    combined = [one or OutcomeFilter() for one in filters] or [OutcomeFilter()]
    keeping = [replace(one, exclude_flagged=False) for one in combined]
    rows = judgment_rows()
    conditions = _where(rows, keeping) + _pairwise(rows) + [flagged_clause(rows)]
    if not by_kind:
        return select(func.count()).select_from(rows).where(*conditions)
    simulated = case((simulated_clause(rows), 1), else_=0)
    return (
        select(rows.c.kind, simulated, func.count())
        .where(*conditions)
        .group_by(rows.c.kind, simulated)
        .order_by(rows.c.kind, simulated)
    )


def simulated_clause(rows: Subquery) -> ColumnElement[bool]:
    """Whether a row of :func:`judgment_rows` (or of the narrower stores, which have
    ``origin`` and ``row_id`` too) is a verdict of a simulated judge run."""
    runs = select(JudgeRun.id).where(JudgeRun.judge_model == SIMULATED_JUDGE_MODEL)
    if "judge_run_id" in rows.c:  # a cell of the kept counts knows its run
        return and_(rows.c.origin == JudgmentOrigin.JUDGE_RUN.value, rows.c.judge_run_id.in_(runs))
    verdicts = select(JudgeVerdict.id).where(JudgeVerdict.run_id.in_(runs))
    return and_(rows.c.origin == JudgmentOrigin.JUDGE_RUN.value, rows.c.row_id.in_(verdicts))


def simulated_left_out(session: Session, *filters: OutcomeFilter | None) -> int:
    """How many pairwise verdicts of simulated judge runs ``filters`` leave out (0 when one of
    them keeps them): what a board says it did not count."""
    combined = [one or OutcomeFilter() for one in filters] or [OutcomeFilter()]
    if any(one.keeps_simulated() for one in combined):
        return 0
    simulated_runs = select(JudgeRun.id).where(JudgeRun.judge_model == SIMULATED_JUDGE_MODEL)
    if session.scalar(simulated_runs.limit(1)) is None:
        return 0  # the usual case, answered without reading the judgments
    keeping = [replace(one, include_simulated=True) for one in combined]
    if _kept_will_do(keeping):
        rows = kept_cell_rows(keeping)
        counted: Any = func.sum(rows.c.judgments)
    else:
        stores = _pairwise_stores() if _pairwise_will_do(keeping) else _wide_stores()
        rows = union_all(*stores).subquery("judgments")
        counted = func.count()
    conditions = _where(rows, keeping) + _pairwise(rows) + [simulated_clause(rows)]
    return int(session.scalar(select(counted).select_from(rows).where(*conditions)) or 0)


def tagged_categories(session: Session) -> list[str]:
    """The categories multi-label items are tagged with (besides each item's first, which is
    its ``category``), for the pickers."""
    return list(session.scalars(select(ItemCategory.category).distinct()))


def _category_clause(
    rows: Subquery, values: Sequence[Any], null_safe: bool = False
) -> ColumnElement[bool]:
    """An item is in a category when it is its one category or one of several it has
    (:class:`~workbench.storage.models.ItemCategory`, a multi-label source's tags).
    ``null_safe`` makes a judgment without item or category test false, not NULL (so that
    its negation keeps it)."""
    tagged = select(ItemCategory.item_id).where(ItemCategory.category.in_(list(values)))
    if null_safe:
        return or_(
            func.coalesce(rows.c.category, "").in_(list(values)),
            func.coalesce(rows.c.item, -1).in_(tagged),
        )
    return or_(rows.c.category.in_(list(values)), rows.c.item.in_(tagged))


def _metadata_text(column: Any, key: str) -> Any:
    return column[key].as_string()


def _side(name: Any, other: Any, outcome: Any) -> Any:
    # a pairwise judgment with one side missing compared a model with the reference answer
    return case(
        (and_(name.is_(None), other.is_not(None), outcome.is_not(None)), literal(REFERENCE_SIDE)),
        else_=name,
    )


def _prior_derived() -> Any:
    return _metadata_text(PriorJudgment.metadata_, DERIVED_KEY).is_not(None)


def _campaign_context() -> Any:
    # the outputs a campaign showed (an ablation's, or the standard ones), as a judge run's
    return func.coalesce(
        _metadata_text(Campaign.settings, "output_context"), literal(STANDARD_CONTEXT, String)
    )


def _verdict_unparsed() -> Any:
    return _metadata_text(JudgeVerdict.metadata_, UNPARSED_KEY).is_not(None)


#: provenance an export carries besides :data:`COLUMNS`; NULL where a store has none
DETAIL_COLUMNS: dict[str, TypeEngine[Any]] = {
    "raw_text": String(),
    "metadata": JSON(),  # an imported judgment's stored metadata
    "protocol": String(),  # a vote's campaign protocol
    "campaign_context": String(),  # the output context the campaign showed
    "vote_uuid": String(),
    "shown_at": UtcDateTime(),
    "duration_ms": Integer(),
    "skip_reason": String(),
    "pair_sequence": Integer(),  # the vote's task in its campaign's schedule
    "judge_model": String(),
    "template_name": String(),
    "template_version": String(),
    "request_hash": String(),
}


#: the ids a cell of the kept counts is keyed by (:mod:`workbench.storage.judgment_counts`),
#: where the read model's columns carry names; NULL where a store has none
CELL_COLUMNS: dict[str, TypeEngine[Any]] = {
    name: Integer()
    for name in (
        "import_id",
        "campaign_id",
        "annotator_id",
        "judge_run_id",
        "source_id",
        "model_a_id",
        "model_b_id",
    )
}


def _text(value: Any = None) -> Any:
    return cast(null(), String) if value is None else literal(value, String)


# --- the stores, declared once --------------------------------------------------------------


@dataclass(frozen=True)
class StoreJoin:
    """A table a store's rows are joined with (``outer``: kept without a match), after the
    joins named in ``through`` (those its condition reads)."""

    target: Any
    on: Any
    outer: bool = False
    through: tuple[str, ...] = ()


@dataclass(frozen=True)
class StoreColumn:
    """One column of a store's judgments: its SQL expression and the joins it reads."""

    expression: Any
    joins: tuple[str, ...] = ()


def _column(expression: Any, *joins: str) -> StoreColumn:
    return StoreColumn(expression, joins)


def _item_columns() -> dict[str, StoreColumn]:
    """The columns every store reads from its judgment's item, through its ``item`` join."""
    return {
        "item_external_id": _column(Item.external_id, "item"),
        "category": _column(Item.category, "item"),
        "family": _column(Item.family, "item"),
        "language": _column(Item.language, "item"),
    }


@dataclass(frozen=True)
class JudgmentStore:
    """One table of judgments as the read model shows it: the origin its rows have, the
    condition under which a row is no judgment (``left_out``: a retracted vote, a failed
    call; each on a partial index), the joins its columns may read, and the expression of
    every column of :data:`COLUMNS` (and of the :data:`DETAIL_COLUMNS` it has). Each variant
    of the union (wide, pairwise, narrow, the quick path's compiled text, the fingerprint)
    is generated from these, selecting only the columns it reads and joining only what they
    read: the joins left out are on required keys (or outer), so every variant has the same
    rows."""

    origin: str
    table: Any
    left_out: Any | None
    joins: dict[str, StoreJoin]
    columns: dict[str, StoreColumn]

    def __post_init__(self) -> None:
        missing = [name for name in COLUMNS if name not in self.columns]
        unknown = [
            name
            for name in self.columns
            if name not in COLUMNS and name not in DETAIL_COLUMNS and name not in CELL_COLUMNS
        ]
        if missing or unknown:
            raise ValueError(
                f"judgment store {self.origin!r}: columns missing {missing}, unknown {unknown}"
            )

    def select(self, columns: Sequence[str]) -> Any:
        """The store's judgments with ``columns`` (labelled so, in that order; a detail
        column the store lacks is a typed NULL), joining only what they read."""
        chosen: list[Any] = []
        needed: set[str] = set()
        for name in columns:
            column = self.columns.get(name)
            if column is None:
                # an id a store has not is a typed NULL (PostgreSQL reads a bare one as text)
                empty = (
                    type_coerce(null(), DETAIL_COLUMNS[name])
                    if name in DETAIL_COLUMNS
                    else cast(null(), CELL_COLUMNS[name])
                )
                chosen.append(empty.label(name))
                continue
            chosen.append(column.expression.label(name))
            needed.update(column.joins)
        pending = list(needed)
        while pending:
            needed.update(through := self.joins[pending.pop()].through)
            pending += through
        statement = select(*chosen).select_from(self.table)
        for name, join in self.joins.items():  # declared order: a join after those it reads
            if name in needed:
                statement = statement.join(join.target, join.on, isouter=join.outer)
        if self.left_out is not None:
            statement = statement.where(not_(self.left_out))
        return statement


def _declared_stores() -> tuple[JudgmentStore, ...]:
    side_a, side_b = aliased(Model, name="side_a"), aliased(Model, name="side_b")

    def sides(outcome: Any, *joins: str) -> dict[str, StoreColumn]:
        return {
            "model_a": _column(
                _side(side_a.name, side_b.name, outcome), "side_a", "side_b", *joins
            ),
            "model_b": _column(
                _side(side_b.name, side_a.name, outcome), "side_a", "side_b", *joins
            ),
            "outcome": _column(outcome, *joins),
        }

    def turn(item: Any, index: Any, *through: str) -> StoreJoin:
        return StoreJoin(Turn, (Turn.item_id == item) & (Turn.index == index), True, through)

    prior_outcome = PriorJudgment.outcome
    imported = JudgmentStore(
        origin=JudgmentOrigin.IMPORTED.value,
        table=PriorJudgment,
        left_out=None,
        joins={
            "side_a": StoreJoin(side_a, PriorJudgment.model_a_id == side_a.id),
            "side_b": StoreJoin(side_b, PriorJudgment.model_b_id == side_b.id, outer=True),
            "item": StoreJoin(Item, PriorJudgment.item_id == Item.id, outer=True),
            "source": StoreJoin(Source, Item.source_id == Source.id, True, ("item",)),
            "import": StoreJoin(Import, PriorJudgment.import_id == Import.id),
            "turn": turn(PriorJudgment.item_id, PriorJudgment.turn_index),
        },
        columns={
            "origin": _column(literal(JudgmentOrigin.IMPORTED.value, String)),
            "kind": _column(PriorJudgment.kind),
            "evaluator": _column(func.coalesce(PriorJudgment.rater, Import.importer), "import"),
            "source": _column(Source.name, "source"),
            "importer": _column(Import.importer, "import"),
            "campaign": _column(_text()),
            "judge_run": _column(_text()),
            "annotator": _column(_text()),
            "rater": _column(PriorJudgment.rater),
            "item": _column(PriorJudgment.item_id),
            **_item_columns(),
            "turn": _column(PriorJudgment.turn_index),
            "turn_category": _column(Turn.category, "turn"),
            "criterion": _column(PriorJudgment.criterion),
            "context": _column(
                func.coalesce(_metadata_text(PriorJudgment.metadata_, "context"), STANDARD_CONTEXT)
            ),
            **sides(prior_outcome),
            "strength": _column(func.coalesce(PriorJudgment.strength, 1)),
            "label": _column(PriorJudgment.label),
            "score": _column(PriorJudgment.score),
            "position_flip": _column(cast(null(), Boolean)),
            "group_key": _column(PriorJudgment.group_key),
            "time": _column(type_coerce(null(), UtcDateTime())),
            "derived": _column(_prior_derived()),
            # an exported judge verdict counted as a tie for want of a readable one, imported
            "unparsed": _column(_metadata_text(PriorJudgment.metadata_, UNPARSED_KEY).is_not(None)),
            "row_id": _column(PriorJudgment.id),
            "raw_text": _column(PriorJudgment.raw_text),
            "metadata": _column(PriorJudgment.metadata_),
            "import_id": _column(PriorJudgment.import_id),
            "source_id": _column(Item.source_id, "item"),
            "model_a_id": _column(PriorJudgment.model_a_id),
            "model_b_id": _column(PriorJudgment.model_b_id),
        },
    )
    # a pairwise choice is an outcome; verification choices and skips are not
    # (comparisons, not IN: a list given to IN is spliced into the SQL at every execution, and
    # a vote reads its task's cells through this twice)
    is_outcome = or_(*(Vote.choice == value for value in OUTCOME_VALUES))
    vote_outcome = case((is_outcome, Vote.choice), else_=null())
    votes = JudgmentStore(
        origin=JudgmentOrigin.CAMPAIGN.value,
        table=Vote,
        left_out=Vote.retracted_at.is_not(None),
        joins={
            "side_a": StoreJoin(side_a, Vote.model_a_id == side_a.id, outer=True),
            "side_b": StoreJoin(side_b, Vote.model_b_id == side_b.id, outer=True),
            "campaign": StoreJoin(Campaign, Vote.campaign_id == Campaign.id),
            "annotator": StoreJoin(Annotator, Vote.annotator_id == Annotator.id),
            "item": StoreJoin(Item, Vote.item_id == Item.id),
            "source": StoreJoin(Source, Item.source_id == Source.id, through=("item",)),
            "turn": turn(Vote.item_id, Vote.turn_index),
            "pair": StoreJoin(ScheduledPair, Vote.pair_id == ScheduledPair.id, outer=True),
        },
        columns={
            "origin": _column(literal(JudgmentOrigin.CAMPAIGN.value, String)),
            "kind": _column(literal(JudgmentKind.HUMAN.value, String)),
            "evaluator": _column(Annotator.handle, "annotator"),
            "source": _column(Source.name, "source"),
            "importer": _column(_text()),
            "campaign": _column(Campaign.name, "campaign"),
            "judge_run": _column(_text()),
            "annotator": _column(Annotator.handle, "annotator"),
            "rater": _column(_text()),
            "item": _column(Vote.item_id),
            **_item_columns(),
            "turn": _column(Vote.turn_index),
            "turn_category": _column(Turn.category, "turn"),
            "criterion": _column(Vote.criterion),
            "context": _column(_campaign_context(), "campaign"),
            **sides(vote_outcome),
            "strength": _column(literal(1, Integer)),
            "label": _column(Vote.choice),
            "score": _column(Vote.grade),
            "position_flip": _column(cast(null(), Boolean)),
            "group_key": _column(
                case(
                    (Vote.pair_id.is_not(None), "pair:" + cast(Vote.pair_id, String)),
                    else_=null(),
                )
            ),
            "time": _column(Vote.cast_at),
            "derived": _column(false()),
            "unparsed": _column(false()),
            "row_id": _column(Vote.id),
            "raw_text": _column(Vote.comment),
            "protocol": _column(Campaign.protocol, "campaign"),
            "campaign_context": _column(
                _metadata_text(Campaign.settings, "output_context"), "campaign"
            ),
            "vote_uuid": _column(Vote.uuid),
            "shown_at": _column(Vote.shown_at),
            "duration_ms": _column(Vote.duration_ms),
            "skip_reason": _column(Vote.skip_reason),
            "pair_sequence": _column(ScheduledPair.sequence, "pair"),
            "campaign_id": _column(Vote.campaign_id),
            "annotator_id": _column(Vote.annotator_id),
            "source_id": _column(Item.source_id, "item"),
            "model_a_id": _column(Vote.model_a_id),
            "model_b_id": _column(Vote.model_b_id),
        },
    )
    verdicts = JudgmentStore(
        origin=JudgmentOrigin.JUDGE_RUN.value,
        table=JudgeVerdict,
        left_out=JudgeVerdict.error.is_not(None),
        joins={
            "side_a": StoreJoin(side_a, JudgeVerdict.model_a_id == side_a.id),
            "side_b": StoreJoin(side_b, JudgeVerdict.model_b_id == side_b.id, outer=True),
            "run": StoreJoin(JudgeRun, JudgeVerdict.run_id == JudgeRun.id),
            "item": StoreJoin(Item, JudgeVerdict.item_id == Item.id),
            "source": StoreJoin(Source, Item.source_id == Source.id, through=("item",)),
            "turn": turn(JudgeVerdict.item_id, JudgeVerdict.turn_index),
        },
        columns={
            "origin": _column(literal(JudgmentOrigin.JUDGE_RUN.value, String)),
            "kind": _column(literal(JudgmentKind.JUDGE.value, String)),
            "evaluator": _column(JudgeRun.name, "run"),
            "source": _column(Source.name, "source"),
            "importer": _column(_text()),
            "campaign": _column(_text()),
            "judge_run": _column(JudgeRun.name, "run"),
            "annotator": _column(_text()),
            "rater": _column(_text()),
            "item": _column(JudgeVerdict.item_id),
            **_item_columns(),
            "turn": _column(JudgeVerdict.turn_index),
            "turn_category": _column(Turn.category, "turn"),
            "criterion": _column(JudgeVerdict.criterion),
            "context": _column(
                func.coalesce(_metadata_text(JudgeRun.parameters, "context"), STANDARD_CONTEXT),
                "run",
            ),
            **sides(JudgeVerdict.outcome),
            "strength": _column(func.coalesce(JudgeVerdict.strength, 1)),
            "label": _column(JudgeVerdict.label),
            "score": _column(cast(JudgeVerdict.score, Float)),
            "position_flip": _column(JudgeVerdict.position_flip),
            "group_key": _column(_text()),
            "time": _column(JudgeVerdict.created_at),
            "derived": _column(false()),
            "unparsed": _column(_verdict_unparsed()),
            "row_id": _column(JudgeVerdict.id),
            "raw_text": _column(JudgeVerdict.raw_text),
            "judge_model": _column(JudgeRun.judge_model, "run"),
            "template_name": _column(JudgeRun.template_name, "run"),
            "template_version": _column(JudgeRun.template_version, "run"),
            "request_hash": _column(JudgeVerdict.request_hash),
            "judge_run_id": _column(JudgeVerdict.run_id),
            "source_id": _column(Item.source_id, "item"),
            "model_a_id": _column(JudgeVerdict.model_a_id),
            "model_b_id": _column(JudgeVerdict.model_b_id),
        },
    )
    settled = case((Adjudication.choice.in_(OUTCOME_VALUES), Adjudication.choice), else_=null())
    adjudications = JudgmentStore(
        origin=ADJUDICATION,
        table=Adjudication,
        left_out=None,
        joins={
            "pair": StoreJoin(ScheduledPair, Adjudication.pair_id == ScheduledPair.id),
            "campaign": StoreJoin(Campaign, Adjudication.campaign_id == Campaign.id),
            "item": StoreJoin(Item, ScheduledPair.item_id == Item.id, through=("pair",)),
            "source": StoreJoin(Source, Item.source_id == Source.id, through=("item",)),
            # the sides as the task showed them, as the votes it settles have them
            "side_a": StoreJoin(side_a, ScheduledPair.left_model_id == side_a.id, True, ("pair",)),
            "side_b": StoreJoin(side_b, ScheduledPair.right_model_id == side_b.id, True, ("pair",)),
            "turn": turn(ScheduledPair.item_id, ScheduledPair.turn_index, "pair"),
        },
        columns={
            "origin": _column(literal(ADJUDICATION, String)),
            "kind": _column(literal(JudgmentKind.HUMAN.value, String)),
            "evaluator": _column(literal(ADJUDICATED, String)),
            "source": _column(Source.name, "source"),
            "importer": _column(_text()),
            "campaign": _column(Campaign.name, "campaign"),
            "judge_run": _column(_text()),
            "annotator": _column(_text()),
            "rater": _column(Adjudication.adjudicator),
            "item": _column(ScheduledPair.item_id, "pair"),
            **_item_columns(),
            "turn": _column(ScheduledPair.turn_index, "pair"),
            "turn_category": _column(Turn.category, "turn"),
            "criterion": _column(Adjudication.criterion),
            "context": _column(_campaign_context(), "campaign"),
            **sides(settled),
            "strength": _column(literal(1, Integer)),
            "label": _column(Adjudication.choice),
            "score": _column(Adjudication.grade),
            "position_flip": _column(cast(null(), Boolean)),
            "group_key": _column("pair:" + cast(Adjudication.pair_id, String)),
            "time": _column(Adjudication.adjudicated_at),
            "derived": _column(false()),
            "unparsed": _column(false()),
            "row_id": _column(Adjudication.id),
            "raw_text": _column(Adjudication.note),
            "protocol": _column(Campaign.protocol, "campaign"),
            "campaign_context": _column(
                _metadata_text(Campaign.settings, "output_context"), "campaign"
            ),
            "pair_sequence": _column(ScheduledPair.sequence, "pair"),
            "campaign_id": _column(Adjudication.campaign_id),
            "source_id": _column(Item.source_id, "item"),
            "model_a_id": _column(ScheduledPair.left_model_id, "pair"),
            "model_b_id": _column(ScheduledPair.right_model_id, "pair"),
        },
    )
    return (imported, votes, verdicts, adjudications)


#: every store of judgments, in stored order (a position in stored order is the store's index,
#: then the row's id): the one declaration every variant of the union is generated from
STORES: tuple[JudgmentStore, ...] = _declared_stores()


def _stores(columns: Sequence[str]) -> list[Any]:
    """Each store's select of ``columns``, in the order of :data:`STORES`."""
    return [store.select(columns) for store in STORES]


def judgment_rows(details: bool = False) -> Subquery:
    """Every judgment of a bundle with :data:`COLUMNS` (and :data:`DETAIL_COLUMNS` with
    ``details``), as a subquery to select from."""
    return union_all(*_wide_stores(details)).subquery("judgments")


def _wide_stores(details: bool = False) -> list[Any]:
    """:func:`judgment_rows`'s selects, one per store in the order of :data:`STORES`."""
    return _stores(COLUMNS + (tuple(DETAIL_COLUMNS) if details else ()))


#: the columns of :func:`narrow_judgment_rows`: what the inspector's counts per item need
NARROW_COLUMNS = ("origin", "kind", "item", "derived")


def _narrow_stores() -> list[Any]:
    """Each store's judgments with only :data:`NARROW_COLUMNS` (without joins but an
    adjudication's task, which holds its item): one indexed query per store."""
    return _stores(NARROW_COLUMNS)


#: the columns of :func:`pairwise_judgment_rows`: what battle counts read, and the filters they
#: can take without the wide rows
PAIRWISE_COLUMNS = (
    "origin",
    "kind",
    "campaign",
    "model_a",
    "model_b",
    "outcome",
    "strength",
    "derived",
    "row_id",
)


def _pairwise_stores() -> list[Any]:
    """Each store's judgments with only :data:`PAIRWISE_COLUMNS`: only the joins those columns
    need (the models, and a vote's or adjudication's campaign for its name). Each join the
    wide rows have besides costs a lookup per judgment, which on a million votes is most of a
    battle count's time."""
    return _stores(PAIRWISE_COLUMNS)


def pairwise_judgment_rows() -> Subquery:
    """:func:`_pairwise_stores` as one subquery."""
    return union_all(*_pairwise_stores()).subquery("judgments")


def _pairwise_will_do(filters: Sequence[OutcomeFilter | None]) -> bool:
    """Whether every filter reads only :data:`PAIRWISE_COLUMNS`."""
    return all(
        column in PAIRWISE_COLUMNS
        for one in filters
        if one is not None
        for column, _ in one._dimensions()
    ) and not any(one.reads_items() for one in filters if one is not None)


#: the read-model columns a cell of the kept counts (:class:`JudgmentCount`) answers filters
#: on: a filter on any other (an item's category, a rater, the item itself) reads the judgments
KEPT_COLUMNS = (
    "origin",
    "kind",
    "source",
    "campaign",
    "judge_run",
    "annotator",
    "turn",
    "criterion",
    "context",
)


def _kept_will_do(filters: Sequence[OutcomeFilter | None]) -> bool:
    """Whether the kept counts answer every filter: each names no column but
    :data:`KEPT_COLUMNS` (a rater or evaluator, which selects an imported rater's judgments,
    is not kept per cell) and reads no item."""
    return all(
        column in KEPT_COLUMNS
        for one in filters
        if one is not None
        for column, _ in one._dimensions()
    ) and not any(one.reads_items() for one in filters if one is not None)


def kept_cell_rows(filters: Sequence[OutcomeFilter | None] = ()) -> Subquery:
    """The kept counts (:class:`~workbench.storage.models.JudgmentCount`) as rows with the read
    model's column names (``origin``, ``kind``, ``model_a``, ``model_b``, ``outcome``,
    ``derived`` and those of :data:`KEPT_COLUMNS` the ``filters`` name), the cell's
    ``judge_run_id`` (for :func:`simulated_clause`), ``judgments``, ``strong`` (the decisive
    ones of strength 2 or more) and ``first_position``: joining only the names the filters
    read."""
    cells = JudgmentCount.__table__
    side_a, side_b = aliased(Model, name="side_a"), aliased(Model, name="side_b")
    named = {column for one in filters if one is not None for column, _ in one._dimensions()}
    columns: list[Any] = [
        cells.c.origin,
        cells.c.kind,
        _side(side_a.name, side_b.name, cells.c.outcome).label("model_a"),
        _side(side_b.name, side_a.name, cells.c.outcome).label("model_b"),
        cells.c.outcome,
        cells.c.derived,
        cells.c.judge_run_id,
        cells.c.judgments,
        cells.c.strong,
        cells.c.first_position,
    ]
    statement_joins: list[tuple[Any, Any]] = [
        (side_a, side_a.id == cells.c.model_a_id),
        (side_b, side_b.id == cells.c.model_b_id),
    ]
    names = {
        "source": (Source, Source.name, cells.c.source_id == Source.id),
        "campaign": (Campaign, Campaign.name, cells.c.campaign_id == Campaign.id),
        "judge_run": (JudgeRun, JudgeRun.name, cells.c.judge_run_id == JudgeRun.id),
        "annotator": (Annotator, Annotator.handle, cells.c.annotator_id == Annotator.id),
    }
    for column, (target, name, on) in names.items():
        if column in named:
            columns.append(name.label(column))
            statement_joins.append((target, on))
    if "turn" in named:
        columns.append(case((cells.c.turn == -1, null()), else_=cells.c.turn).label("turn"))
    columns += [cells.c.criterion, cells.c.context]
    statement = select(*columns).select_from(cells)
    for target, on in statement_joins:
        statement = statement.outerjoin(target, on)
    return statement.subquery("kept_judgments")


def narrow_judgment_rows() -> Subquery:
    """:func:`_narrow_stores` as one subquery."""
    return union_all(*_narrow_stores()).subquery("narrow_judgments")


def _origin_order(rows: Subquery) -> Any:
    return case(*((rows.c.origin == store.origin, rank) for rank, store in enumerate(STORES)))


def _where(rows: Subquery, filters: Sequence[OutcomeFilter | None]) -> list[Any]:
    combined = [one or OutcomeFilter() for one in filters] or [OutcomeFilter()]
    conditions: list[Any] = []
    for one in combined:
        conditions += one.clauses(rows)
    # a selector naming the adjudication origin (``agreement --b adjudication``) is combined
    # with filters that do not; it is still what the caller asked for
    if not any(one.keeps_adjudications() for one in combined):
        conditions.append(rows.c.origin != ADJUDICATION)
    return conditions


def _pairwise(rows: Subquery) -> list[Any]:
    return [rows.c.outcome.is_not(None), rows.c.model_a.is_not(None), rows.c.model_b.is_not(None)]


def select_judgments(
    *filters: OutcomeFilter | None,
    columns: Sequence[str] = COLUMNS,
    pairwise: bool = False,
    after: Sequence[int] | None = None,
) -> Any:
    """The statement reading ``columns`` of the judgments every filter keeps (all of them AND),
    in stored order; ``pairwise`` keeps only outcomes between two named sides. Naming a
    column of :data:`DETAIL_COLUMNS` adds the provenance columns to the read. ``after`` (a
    :func:`fingerprint`) keeps only the judgments stored since it was taken."""
    stores = _wide_stores(any(name in DETAIL_COLUMNS for name in columns))
    if after is not None:
        stores = _stored_after(stores, after)
    rows = union_all(*stores).subquery("judgments")
    conditions = _where(rows, filters) + (_pairwise(rows) if pairwise else [])
    return (
        select(*(rows.c[name] for name in columns))
        .where(*conditions)
        .order_by(_origin_order(rows), rows.c.row_id)
    )


def read_judgments(
    session: Session,
    *filters: OutcomeFilter | None,
    columns: Sequence[str] = COLUMNS,
    pairwise: bool = False,
    after: Sequence[int] | None = None,
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The column names and rows of :func:`select_judgments`."""
    statement = select_judgments(*filters, columns=columns, pairwise=pairwise, after=after)
    result = session.execute(statement)
    return list(result.keys()), [tuple(row) for row in result]


def has_pairwise_judgments(session: Session, *filters: OutcomeFilter | None) -> bool:
    """Whether the filters keep a pairwise judgment: one kept cell when the kept counts
    answer them (a lookup whatever the bundle's size), else the first judgment found."""
    if _kept_will_do(filters):
        rows = kept_cell_rows(filters)
        conditions = _where(rows, filters) + _pairwise(rows)
        statement: Any = select(rows.c.kind).where(*conditions).limit(1)
    else:
        statement = select_judgments(*filters, columns=("kind",), pairwise=True).limit(1)
    return session.execute(statement).first() is not None


def distinct_values(
    session: Session,
    column: str,
    *filters: OutcomeFilter | None,
    pairwise: bool = False,
) -> list[Any]:
    """The values ``column`` takes among the judgments the filters keep (NULL left out), sorted;
    one ``SELECT DISTINCT``."""
    rows = judgment_rows()
    conditions = _where(rows, filters) + (_pairwise(rows) if pairwise else [])
    statement = select(rows.c[column]).where(*conditions, rows.c[column].is_not(None)).distinct()
    return sorted(value for (value,) in session.execute(statement))


def distinct_combinations(
    session: Session,
    columns: Sequence[str],
    *filters: OutcomeFilter | None,
    pairwise: bool = False,
) -> dict[str, list[Any]]:
    """Per column of ``columns``, the values it takes among the judgments the filters keep
    (NULL left out), sorted: what :func:`distinct_values` gives for each, from one
    ``SELECT DISTINCT`` of the columns together. One scan of the judgments instead of one per
    column: the pickers' ten columns took 17.6 s at 1,000,000 votes as ten scans. Columns whose
    combinations are few (names of campaigns, categories, raters...) belong together; columns
    that multiply (the two models of a pair) make the distinct set large."""
    rows = judgment_rows()
    conditions = _where(rows, filters) + (_pairwise(rows) if pairwise else [])
    statement = select(*(rows.c[column] for column in columns)).where(*conditions).distinct()
    found: list[set[Any]] = [set() for _ in columns]
    for combination in session.execute(statement):
        for values, value in zip(found, combination, strict=True):
            if value is not None:
                values.add(value)
    return {column: sorted(values) for column, values in zip(columns, found, strict=True)}


def count_judgments(
    session: Session, *filters: OutcomeFilter | None, by: str | None = None
) -> dict[Any, int]:
    """How many judgments the filters keep: ``{None: n}``, or per value of column ``by``
    (NULL as the key None), in one ``GROUP BY``."""
    rows = judgment_rows()
    key = rows.c[by] if by is not None else literal(None)
    statement = select(key, func.count()).where(*_where(rows, filters)).group_by(key)
    return {value: int(count) for value, count in session.execute(statement)}


def battle_counts(
    session: Session,
    *filters: OutcomeFilter | None,
    decisive_weight: float | None = None,
) -> list[tuple[str, str, str, float, int]]:
    """Pairwise outcomes aggregated in SQL, one row per distinct (model_a, model_b, outcome):
    the battles they stand for (``decisive_weight`` counts a "much better" verdict, strength 2
    or more, as that many, WildVision-Bench's ``WEIGHT=3``) and the judgments behind them.
    Rows come in the order each triple first appears among the stored judgments, so the models
    are met in the same order as in a read of every judgment (Bradley-Terry's bootstrap numbers
    its cells by that order)."""
    rows = positioned_battle_counts(session, *filters, decisive_weight=decisive_weight)
    return [row[:5] for row in rows]


def positioned_battle_counts(
    session: Session,
    *filters: OutcomeFilter | None,
    decisive_weight: float | None = None,
    after: Sequence[int] | None = None,
) -> list[tuple[str, str, str, float, int, int]]:
    """:func:`battle_counts` with each triple's first position in stored order (last field),
    so counts read at different times merge in the order a single read gives. ``after`` (a
    :func:`fingerprint`) keeps only the judgments stored since it was taken: what a vote
    added, read at a cost that grows with the new rows, not with the bundle."""
    weight: Any = None if decisive_weight is None else literal(float(decisive_weight), Float)
    statement = _battle_counts_statement(filters, weight, after)
    return [
        (a, b, outcome, float(total), int(judgments), int(first))
        for a, b, outcome, total, judgments, first in session.execute(statement)
    ]


def _battle_counts_statement(
    filters: Sequence[OutcomeFilter | None],
    decisive_weight: Any,
    after: Sequence[int] | None,
    by_kind: bool = False,
) -> Any:
    """The statement of :func:`positioned_battle_counts`; ``decisive_weight`` is an SQL
    expression (a literal, or the bound parameter of :func:`compiled_battle_counts`), or None
    to count every judgment once."""
    if after is None and _kept_will_do(filters):
        # the counts kept per cell as judgments are written: a read of the cells, not a scan
        rows = kept_cell_rows(filters)
        decisive = rows.c.judgments - rows.c.strong
        if decisive_weight is None:
            total: Any = cast(func.sum(rows.c.judgments), Float)
        else:
            total = func.sum(cast(decisive, Float) + rows.c.strong * decisive_weight)
        counted: Any = func.sum(rows.c.judgments)
        first: Any = func.min(rows.c.first_position)
    else:
        stores = _pairwise_stores() if _pairwise_will_do(filters) else _wide_stores()
        if after is not None:
            stores = _stored_after(stores, after)
        rows = union_all(*stores).subquery("judgments")
        if decisive_weight is None:
            weight: Any = literal(1.0, Float)
        else:
            weight = case(
                (and_(rows.c.outcome.in_(["a", "b"]), rows.c.strength >= 2), decisive_weight),
                else_=literal(1.0, Float),
            )
        total, counted = func.sum(weight), func.count()
        # a position in stored order: origin first, then the row's id within its store
        first = func.min(_origin_order(rows) * literal(1 << 40, BigInteger) + rows.c.row_id)
    conditions = _where(rows, filters) + _pairwise(rows)
    # by kind: the quick path picks the human or the judge rows (the request's kind) itself,
    # and keeps or leaves out (and counts) the simulated judge's verdicts
    simulated = case((simulated_clause(rows), 1), else_=0)
    kind = [rows.c.kind, simulated] if by_kind else []
    return (
        select(rows.c.model_a, rows.c.model_b, rows.c.outcome, total, counted, first, *kind)
        .where(*conditions)
        .group_by(rows.c.model_a, rows.c.model_b, rows.c.outcome, *kind)
        .order_by(first)
    )


#: the module holding :func:`compiled_battle_counts` as text, for readers without SQLAlchemy
COMPILED_QUERIES_MODULE = Path(__file__).with_name("compiled_queries.py")


#: how each dialect's text marks a named parameter: ``:name`` for sqlite3, ``%(name)s`` for
#: psycopg (whose compiler writes a ``%`` as ``%%``, undone for the markers alone)
_PARAMETER_MARKERS = {"sqlite": ":{}", "postgresql": "%({})s"}


def _compiled(statement: Any, dialect: str) -> str:
    # chosen first, then called: SQLite's ``dialect`` alias alone is unannotated
    make = sqlite.dialect if dialect == "sqlite" else postgresql.dialect
    compiler = make()
    text = str(statement.compile(dialect=compiler, compile_kwargs={"literal_binds": True}))
    if dialect == "postgresql":
        for name in ("decisive_weight", "campaign"):
            text = text.replace(f"%%({name})s", f"%({name})s")
    return text


def _marker(name: str, dialect: str, type_: Any = None) -> Any:
    return literal_column(_PARAMETER_MARKERS[dialect].format(name), type_)


def compiled_battle_counts(campaign: bool = False, dialect: str = "sqlite") -> str:
    """:func:`battle_counts` of every judgment (no filter, the simulated judge's verdicts
    kept), or with ``campaign`` of one campaign's, per kind of evaluator and whether the rows
    are the simulated judge's (two last columns), as SQLite or PostgreSQL text (``dialect``):
    its values written in, the decisive weight and the campaign left as the parameters
    ``decisive_weight`` and ``campaign``. The command line's leaderboard runs it through
    :mod:`workbench.storage.fast_read` without importing SQLAlchemy;
    :data:`COMPILED_QUERIES_MODULE` holds it and a test keeps it current."""
    # bare parameter markers, so that every other value can be rendered as a literal
    weight = _marker("decisive_weight", dialect, Float)
    marker = _marker("campaign", dialect)
    filters = OutcomeFilter(campaigns=(marker,) if campaign else (), include_simulated=True)
    statement = _battle_counts_statement((filters,), weight, None, by_kind=True)
    return _compiled(statement, dialect)


def compiled_flagged_counts(campaign: bool = False, dialect: str = "sqlite") -> str:
    """:func:`flagged_judgments` of every judgment, or with ``campaign`` of one campaign's,
    per kind of evaluator and whether the rows are the simulated judge's, as SQLite or
    PostgreSQL text (the campaign left as the parameter ``campaign``), for the quick path as
    :func:`compiled_battle_counts`."""
    marker = _marker("campaign", dialect)
    filters = OutcomeFilter(campaigns=(marker,) if campaign else (), include_simulated=True)
    statement = _flagged_counts_statement((filters,), by_kind=True)
    return _compiled(statement, dialect)


def compiled_queries_source() -> str:
    """The text of :data:`COMPILED_QUERIES_MODULE` for this version of the read model."""
    parts = [
        '"""Generated by ``python -m workbench.storage.judgments``: the read model\'s queries\n'
        "as SQLite and PostgreSQL text, for readers that must not import SQLAlchemy\n"
        "(storage.fast_read). Do not edit; tests/storage/test_fast_read.py checks that it is\n"
        'current."""\n'
    ]
    for prefix, dialect in (("", "sqlite"), ("SERVER_", "postgresql")):
        for name, text in (
            ("BATTLE_COUNTS_SQL", compiled_battle_counts(dialect=dialect)),
            ("CAMPAIGN_BATTLE_COUNTS_SQL", compiled_battle_counts(True, dialect)),
            ("FLAGGED_COUNTS_SQL", compiled_flagged_counts(dialect=dialect)),
            ("CAMPAIGN_FLAGGED_COUNTS_SQL", compiled_flagged_counts(True, dialect)),
        ):
            parts.append(f'\n{prefix}{name} = """\\\n{text}\n"""\n')
    return "".join(parts)


def _stored_after(stores: Sequence[Any], after: Sequence[int]) -> list[Any]:
    """Each store's select (in the order of :data:`STORES`) kept to the rows with an id above
    the store's largest in fingerprint ``after``. The condition goes inside each select, where
    it is a range of the store's primary key: put on the union as ``(origin = ... AND row_id >
    ...) OR ...`` SQLite read every row of every store (0.3 s per vote at 1,000,000 votes)."""
    return [
        store.where(table.id > largest)
        for store, (table, _left_out), largest in zip(
            stores, _fingerprint_stores(), _largest_ids(after), strict=True
        )
    ]


def counts_per_item(session: Session, ids: Sequence[int] | None = None) -> dict[int, int]:
    """How many judgments each item has (of ``ids``, or of every item), derived ones included:
    the inspector shows what is stored. Counted per store, so each count uses its item index."""
    counts: dict[int, int] = {}
    for store in _narrow_stores():
        item = store.selected_columns.item
        # the item column of the store's own table, which its index covers
        column = item.element if hasattr(item, "element") else item
        statement = store.with_only_columns(column, func.count()).where(column.is_not(None))
        if ids is not None:
            statement = statement.where(column.in_(list(ids)))
        for found, count in session.execute(statement.group_by(column)):
            counts[int(found)] = counts.get(int(found), 0) + int(count)
    return counts


@cache
def _item_summary_statement() -> Any:
    # built once: showing the next item runs it with a new id instead of composing the union
    # again, which costs more than the query itself
    rows = narrow_judgment_rows()
    return (
        select(rows.c.kind, func.count())
        .where(rows.c.item == bindparam("item_id"))
        .group_by(rows.c.kind)
    )


def judgments_of_item(session: Session, item_id: int) -> dict[str, int]:
    """How many judgments of each kind (human, judge) one item has, derived ones included (the
    inspector shows what is stored)."""
    result = session.connection().execute(_item_summary_statement(), {"item_id": item_id})
    return {str(kind): int(count) for kind, count in result}


def kinds_per_item(session: Session, ids: Sequence[int] | None = None) -> dict[int, set[str]]:
    """Which kinds of evaluator (human, judge) judged each item, per store on its item index."""
    found: dict[int, set[str]] = {}
    for store in _narrow_stores():
        item, kind = store.selected_columns.item, store.selected_columns.kind
        column = item.element if hasattr(item, "element") else item
        statement = store.with_only_columns(column, kind).where(column.is_not(None)).distinct()
        if ids is not None:
            statement = statement.where(column.in_(list(ids)))
        for value, name in session.execute(statement):
            found.setdefault(int(value), set()).add(str(name))
    return found


def _fingerprint_stores() -> list[tuple[Any, Any]]:
    """The stores a fingerprint covers, in the order of :data:`STORES`, with the condition
    under which the read model leaves a row out (each on a partial index of schema 0005)."""
    return [(store.table, store.left_out) for store in STORES]


def fingerprint_statements() -> list[Any]:
    """The queries :func:`fingerprint` runs, in order (for the test of their query plans).

    Per store: the count of all rows, the count of the rows left out (stores with a condition
    only), the largest id stored. Each is one query, not ``count(id), max(id) ... WHERE shown``:
    SQLite answers a bare ``count(*)`` from its smallest index, the left-out rows from their
    partial index and ``max(id)`` from the end of the primary key, where the combined query
    read the whole table (0.35 s at 1,000,000 votes)."""
    statements: list[Any] = []
    for table, left_out in _fingerprint_stores():
        statements.append(select(func.count()).select_from(table))
        if left_out is not None:
            statements.append(select(func.count()).select_from(table).where(left_out))
        statements.append(select(func.max(table.id)))
    statements.append(select(func.max(Adjudication.adjudicated_at)))
    return statements


def fingerprint(session: Session) -> tuple[int, ...]:
    """A cheap fingerprint of the stored judgments: per store, the count of the rows the read
    model shows (same conditions as :func:`judgment_rows`) and the largest id stored (shown or
    not: rows stored after it are the new ones, see :func:`stored_after`), and the latest
    adjudication time (recording a task again replaces its row in place). It changes when a
    judgment arrives, is retracted or is settled again, and costs a few index reads whatever
    the bundle's size (see :func:`fingerprint_statements`), not the union's joins."""
    statements = iter(fingerprint_statements())
    values: list[int] = []
    for _table, left_out in _fingerprint_stores():
        count = int(session.execute(next(statements)).scalar() or 0)
        if left_out is not None:
            count -= int(session.execute(next(statements)).scalar() or 0)
        largest = session.execute(next(statements)).scalar()
        values += [count, int(largest or 0)]
    values.append(_microseconds(session.execute(next(statements)).scalar()))
    return tuple(values)


def judgment_total(session: Session) -> int:
    """How many judgments the read model shows, from :func:`fingerprint`'s per-store counts: a
    few index reads whatever the bundle's size, where counting the union joins every row."""
    values = fingerprint(session)
    return sum(values[0:-1:2])


def _microseconds(moment: datetime | None) -> int:
    if moment is None:
        return 0
    if moment.tzinfo is None:  # stored times read back as naive UTC
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000)


def stored_after(session: Session, after: Sequence[int]) -> tuple[int, ...]:
    """Per store (in :func:`fingerprint`'s order), how many of the rows the read model shows
    have an id above the largest one in fingerprint ``after``."""
    found: list[int] = []
    for statement, largest in zip(stored_after_statements(), _largest_ids(after), strict=True):
        found.append(int(session.execute(statement, {"largest": largest}).scalar_one()))
    return tuple(found)


def stored_after_statements() -> list[Any]:
    """The queries :func:`stored_after` runs, one per store, each with a ``largest`` parameter:
    a range of the primary key, so a vote's refresh reads the new rows, not the bundle."""
    statements: list[Any] = []
    for table, left_out in _fingerprint_stores():
        statement = select(func.count(table.id)).where(table.id > bindparam("largest"))
        if left_out is not None:
            statement = statement.where(not_(left_out))
        statements.append(statement)
    return statements


def only_added(before: Sequence[int], now: Sequence[int], added: Sequence[int]) -> bool:
    """Whether, between fingerprints ``before`` and ``now``, judgments were only added: each
    store grew by exactly the rows stored after ``before`` (``added``, from
    :func:`stored_after`: none retracted) and no adjudication was recorded or replaced in place
    (its time changed)."""
    stores = len(_fingerprint_stores())
    return now[2 * stores :] == before[2 * stores :] and all(
        new - old == count
        for old, new, count in zip(
            before[0 : 2 * stores : 2], now[0 : 2 * stores : 2], added, strict=True
        )
    )


@dataclass(frozen=True)
class CatchUp:
    """How a reader that kept what it read as of fingerprint ``before`` comes up to ``now``:
    read everything again (``full``: a first read, a retraction, an adjudication), only the
    rows stored after ``after``, or nothing (``after`` None and not ``full``)."""

    now: tuple[int, ...]
    full: bool
    after: Sequence[int] | None


def catch_up(session: Session, before: Sequence[int] | None) -> CatchUp:
    """The one rule the kept readers (the leaderboard's battle counts, the other panels'
    judgments) use to decide what to read, in the caller's snapshot."""
    now = fingerprint(session)
    if before is None or not only_added(before, now, stored_after(session, before)):
        return CatchUp(now, full=True, after=None)
    return CatchUp(now, full=False, after=before if tuple(now) != tuple(before) else None)


def _largest_ids(after: Sequence[int]) -> Sequence[int]:
    """The largest id per store in fingerprint ``after``, in the order of :data:`ORIGINS`."""
    return after[1 : 2 * len(_fingerprint_stores()) : 2]


if __name__ == "__main__":
    COMPILED_QUERIES_MODULE.write_text(compiled_queries_source())
