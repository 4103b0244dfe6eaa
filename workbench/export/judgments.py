"""Every judgment an export may carry, read through the judgment read model
(:mod:`workbench.storage.judgments`) with its provenance columns: judgments imported with a
benchmark, campaign votes that were not retracted and judge verdicts without an error.

``model_a`` is always the side shown first (left); a side that was the reference answer
rather than a model's output is named ``reference``, as the statistics name it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from workbench.domain import REFERENCE_SIDE, STANDARD_CONTEXT, UNPARSED_KEY, JudgmentOrigin
from workbench.export.options import ExportError, ExportOptions, JudgmentSource
from workbench.export.pseudonyms import pseudonym
from workbench.storage.judgments import COLUMNS, DETAIL_COLUMNS, OutcomeFilter, select_judgments
from workbench.storage.models import Campaign

IMPORTED, CAMPAIGN, JUDGE_RUN, ADJUDICATION = (
    JudgmentOrigin.IMPORTED.value,
    JudgmentOrigin.CAMPAIGN.value,
    JudgmentOrigin.JUDGE_RUN.value,
    JudgmentOrigin.ADJUDICATION.value,
)
#: rows read from the database at a time
_BATCH = 10_000


@dataclass(frozen=True)
class Judgment:
    """One judgment with what a labeled set needs; ``metadata`` is the stored metadata for an
    imported judgment and the provenance (campaign, timestamps, judge run) for the others."""

    origin: str
    kind: str
    item_id: int | None
    turn: int | None
    criterion: str
    model_a: str
    model_b: str | None
    outcome: str | None
    strength: int
    label: str | None
    score: float | None
    rater: str | None
    group: str | None
    raw_text: str | None
    metadata: dict[str, Any] = field(default_factory=dict)

    def canonical(self) -> dict[str, Any]:
        """The judgment as a canonical item line holds it (docs/formats.md)."""
        return {
            "kind": self.kind,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "outcome": self.outcome,
            "strength": self.strength,
            "criterion": self.criterion,
            "turn": self.turn,
            "rater": self.rater,
            "group": self.group,
            "label": self.label,
            "score": self.score,
            "raw_text": self.raw_text,
            "metadata": self.metadata,
        }


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _shown(name: str | None) -> str | None:
    # the side a vote showed, as stored: the reference answer has no model name
    return None if name == REFERENCE_SIDE else name


def _judgment(row: Any, key: bytes | None) -> Judgment:
    """One read-model row (with its detail columns) as an export holds it."""
    origin = row.origin
    # a task with no model at all (verification) judged the reference itself
    model_a = row.model_a if row.model_a is not None else REFERENCE_SIDE
    common = {
        "origin": origin,
        "kind": row.kind,
        "item_id": row.item,
        "turn": row.turn,
        "criterion": row.criterion,
        "model_a": model_a,
        "model_b": row.model_b,
        "outcome": row.outcome,
        "strength": int(row.strength),
        "label": row.label,
        "score": row.score,
        "raw_text": row.raw_text,
    }
    if origin == IMPORTED:
        return Judgment(
            **common, rater=row.rater, group=row.group_key, metadata=dict(row.metadata or {})
        )
    if origin == CAMPAIGN:
        sequence = row.pair_sequence
        return Judgment(
            **common,
            rater=pseudonym(row.annotator, key) if key is not None else row.annotator,
            group=f"campaign:{row.campaign}:task:{sequence}" if sequence is not None else None,
            metadata={
                "origin": CAMPAIGN,
                "campaign": row.campaign,
                "protocol": row.protocol,
                "context": str(row.campaign_context or STANDARD_CONTEXT),
                "vote_uuid": row.vote_uuid,
                "shown_left": _shown(row.model_a),
                "shown_right": _shown(row.model_b),
                "shown_at": _time(row.shown_at),
                "cast_at": _time(row.time),
                "duration_ms": row.duration_ms,
                "skip_reason": row.skip_reason,
            },
        )
    if origin == ADJUDICATION:
        sequence = row.pair_sequence
        return Judgment(
            **common,
            # the adjudicator is a person, hidden like an annotator
            rater=pseudonym(row.rater, key) if key is not None else row.rater,
            group=f"campaign:{row.campaign}:task:{sequence}",
            metadata={
                "origin": ADJUDICATION,
                "campaign": row.campaign,
                "protocol": row.protocol,
                "context": str(row.campaign_context or STANDARD_CONTEXT),
                "shown_left": _shown(row.model_a),
                "shown_right": _shown(row.model_b),
                "adjudicated_at": _time(row.time),
            },
        )
    return Judgment(
        **common,
        rater=row.judge_model,
        group=f"judge-run:{row.judge_run}:request:{row.request_hash}",
        metadata={
            "origin": JUDGE_RUN,
            "judge_run": row.judge_run,
            "judge_model": row.judge_model,
            "context": row.context,
            "judge_prompt": row.template_name,
            "template_version": row.template_version,
            "position_flip": row.position_flip,
            "request_hash": row.request_hash,
            "created_at": _time(row.time),
            # a tie counted for want of a readable verdict; the key only on those
            **({UNPARSED_KEY: True} if row.unparsed else {}),
        },
    )


def _statement(
    session: Session, options: ExportOptions, columns: tuple[str, ...] = (*COLUMNS, *DETAIL_COLUMNS)
) -> Any:
    filters = OutcomeFilter(include_derived=True, include_simulated=True)
    if options.campaign is not None:
        exists = session.scalar(select(Campaign.id).where(Campaign.name == options.campaign))
        if exists is None:
            names = ", ".join(session.scalars(select(Campaign.name).order_by(Campaign.name)))
            raise ExportError(
                f"no campaign named '{options.campaign}' in this bundle (campaigns: "
                f"{names or 'none'})"
            )
        filters = replace(filters, campaigns=(options.campaign,))
    if options.source is not JudgmentSource.ALL:
        filters = replace(filters, kinds=(options.source.value,))
    return select_judgments(filters, columns=columns)


def check_judgment_options(session: Session, options: ExportOptions) -> None:
    """Raise :class:`ExportError` for options no export can be made of (an unknown campaign),
    before any file is opened."""
    _statement(session, options)


def iter_judgments(
    session: Session, options: ExportOptions, *, by_item: bool = False
) -> Iterator[Judgment]:
    """The judgments the options select, read through the judgment read model (derived ones
    included: an export carries everything stored), one at a time: in stored order, or with
    ``by_item`` grouped by item (ascending item row id; judgments without an item come first
    or last as the database sorts NULL), so a writer can work one item at a time.

    Rows come from the database in batches of :data:`_BATCH` and each is turned into a
    :class:`Judgment` only when asked for: a million votes are never held at once."""
    statement = _statement(session, options)
    if by_item:
        # the writers that group by item sort their records by content afterwards, so the order
        # within an item does not matter; the database sorts (on disk when it must), not Python
        statement = statement.order_by(None).order_by(statement.selected_columns.item)
    key = options.pseudonym_key
    rows = session.execute(statement.execution_options(yield_per=_BATCH))
    for row in rows:
        judgment = _judgment(row, key)
        yield _hide_imported_rater(judgment, key) if key is not None else judgment


def count_judged_items(session: Session, options: ExportOptions) -> int:
    """How many items the selected judgments name (for the progress of a writer that goes one
    item at a time); read on the narrow columns, not the provenance."""
    named = _statement(session, options, columns=("item",)).order_by(None).subquery()
    return int(session.scalar(select(func.count(distinct(named.c.item)))) or 0)


def _hide_imported_rater(judgment: Judgment, key: bytes) -> Judgment:
    # imported human raters are people too (VisIT-Bench's crowd workers); judges are not
    if judgment.origin != IMPORTED or judgment.kind != "human" or judgment.rater is None:
        return judgment
    return replace(judgment, rater=pseudonym(judgment.rater, key))
