"""Every judgment an export may carry, from the three tables that hold them, in one shape:
judgments imported with a benchmark (``prior_judgments``), campaign votes that were not
retracted (``votes``) and judge verdicts without an error (``judge_verdicts``).

``model_a`` is always the side shown first (left); a side that was the reference answer
rather than a model's output is named ``reference``, as the statistics name it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from workbench.domain import Outcome
from workbench.export.options import ExportError, ExportOptions, JudgmentSource
from workbench.export.pseudonyms import pseudonym
from workbench.services.selection import REFERENCE_NAME
from workbench.storage.models import (
    Annotator,
    Campaign,
    JudgeRun,
    JudgeVerdict,
    Model,
    PriorJudgment,
    ScheduledPair,
    Vote,
)

IMPORTED, CAMPAIGN, JUDGE_RUN = "imported", "campaign", "judge-run"
STANDARD_CONTEXT = "standard"
_OUTCOMES = {outcome.value for outcome in Outcome}
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


def _sides(left: str | None, right: str | None, outcome: str | None) -> tuple[str, str | None]:
    # A pairwise answer with a side missing compared an output with the reference answer; a
    # task with no model at all (verification) judged the reference itself.
    if left is None:
        return REFERENCE_NAME, right
    if right is None and outcome is not None:
        return left, REFERENCE_NAME
    return left, right


def _prior(session: Session) -> Iterator[Judgment]:
    model_a, model_b = aliased(Model), aliased(Model)
    statement = (
        select(PriorJudgment, model_a.name, model_b.name)
        .join(model_a, PriorJudgment.model_a_id == model_a.id)
        .outerjoin(model_b, PriorJudgment.model_b_id == model_b.id)
        .order_by(PriorJudgment.id)
        .execution_options(yield_per=_BATCH)
    )
    for row, name_a, name_b in session.execute(statement):
        yield Judgment(
            origin=IMPORTED,
            kind=row.kind,
            item_id=row.item_id,
            turn=row.turn_index,
            criterion=row.criterion,
            model_a=name_a,
            model_b=name_b,
            outcome=row.outcome,
            strength=row.strength,
            label=row.label,
            score=row.score,
            rater=row.rater,
            group=row.group_key,
            raw_text=row.raw_text,
            metadata=dict(row.metadata_ or {}),
        )


def _votes(session: Session, campaign: str | None, key: bytes | None) -> Iterator[Judgment]:
    model_a, model_b = aliased(Model), aliased(Model)
    statement = (
        select(Vote, Campaign, Annotator.handle, ScheduledPair.sequence, model_a.name, model_b.name)
        .join(Campaign, Vote.campaign_id == Campaign.id)
        .join(Annotator, Vote.annotator_id == Annotator.id)
        .outerjoin(ScheduledPair, Vote.pair_id == ScheduledPair.id)
        .outerjoin(model_a, Vote.model_a_id == model_a.id)
        .outerjoin(model_b, Vote.model_b_id == model_b.id)
        .where(Vote.retracted_at.is_(None))
        .order_by(Vote.id)
        # in batches, so a million votes are never all held as ORM objects at once
        .execution_options(yield_per=_BATCH)
    )
    if campaign is not None:
        statement = statement.where(Campaign.name == campaign)
    for vote, found, handle, sequence, name_a, name_b in session.execute(statement):
        outcome = vote.choice if vote.choice in _OUTCOMES else None
        side_a, side_b = _sides(name_a, name_b, outcome)
        annotator = pseudonym(handle, key) if key is not None else handle
        yield Judgment(
            origin=CAMPAIGN,
            kind="human",
            item_id=vote.item_id,
            turn=vote.turn_index,
            criterion=vote.criterion,
            model_a=side_a,
            model_b=side_b,
            outcome=outcome,
            strength=1,
            label=vote.choice,
            score=vote.grade,
            rater=annotator,
            group=f"campaign:{found.name}:task:{sequence}" if sequence is not None else None,
            raw_text=vote.comment,
            metadata={
                "origin": CAMPAIGN,
                "campaign": found.name,
                "protocol": found.protocol,
                "context": str((found.settings or {}).get("output_context", STANDARD_CONTEXT)),
                "vote_uuid": vote.uuid,
                "shown_left": name_a,
                "shown_right": name_b,
                "shown_at": _time(vote.shown_at),
                "cast_at": _time(vote.cast_at),
                "duration_ms": vote.duration_ms,
                "skip_reason": vote.skip_reason,
            },
        )


def _verdicts(session: Session) -> Iterator[Judgment]:
    model_a, model_b = aliased(Model), aliased(Model)
    statement = (
        select(JudgeVerdict, JudgeRun, model_a.name, model_b.name)
        .join(JudgeRun, JudgeVerdict.run_id == JudgeRun.id)
        .join(model_a, JudgeVerdict.model_a_id == model_a.id)
        .outerjoin(model_b, JudgeVerdict.model_b_id == model_b.id)
        .where(JudgeVerdict.error.is_(None))
        .order_by(JudgeVerdict.id)
        .execution_options(yield_per=_BATCH)
    )
    for verdict, run, name_a, name_b in session.execute(statement):
        side_a, side_b = _sides(name_a, name_b, verdict.outcome)
        yield Judgment(
            origin=JUDGE_RUN,
            kind="judge",
            item_id=verdict.item_id,
            turn=verdict.turn_index,
            criterion=verdict.criterion,
            model_a=side_a,
            model_b=side_b,
            outcome=verdict.outcome,
            strength=verdict.strength,
            label=verdict.label,
            score=verdict.score,
            rater=run.judge_model,
            group=f"judge-run:{run.name}:request:{verdict.request_hash}",
            raw_text=verdict.raw_text,
            metadata={
                "origin": JUDGE_RUN,
                "judge_run": run.name,
                "judge_model": run.judge_model,
                "context": str((run.parameters or {}).get("context", STANDARD_CONTEXT)),
                "judge_prompt": run.template_name,
                "template_version": run.template_version,
                "position_flip": verdict.position_flip,
                "request_hash": verdict.request_hash,
                "created_at": _time(verdict.created_at),
            },
        )


def collect_judgments(session: Session, options: ExportOptions) -> list[Judgment]:
    """The judgments the options select, in a stable order (by their canonical content)."""
    if options.campaign is not None:
        exists = session.scalar(select(Campaign.id).where(Campaign.name == options.campaign))
        if exists is None:
            names = ", ".join(session.scalars(select(Campaign.name).order_by(Campaign.name)))
            raise ExportError(
                f"no campaign named '{options.campaign}' in this bundle (campaigns: "
                f"{names or 'none'})"
            )
        found = list(_votes(session, options.campaign, options.pseudonym_key))
    else:
        found = [
            *_prior(session),
            *_votes(session, None, options.pseudonym_key),
            *_verdicts(session),
        ]
    if options.source is not JudgmentSource.ALL:
        found = [judgment for judgment in found if judgment.kind == options.source.value]
    if options.pseudonym_key is not None:
        found = [_hide_imported_rater(judgment, options.pseudonym_key) for judgment in found]
    return found


def _hide_imported_rater(judgment: Judgment, key: bytes) -> Judgment:
    # imported human raters are people too (VisIT-Bench's crowd workers); judges are not
    if judgment.origin != IMPORTED or judgment.kind != "human" or judgment.rater is None:
        return judgment
    return replace(judgment, rater=pseudonym(judgment.rater, key))
