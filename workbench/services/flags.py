"""Flags: an item, or one model's answer on it, that should not count as it is (a broken image,
an answer that names its model, offensive content, something else told in a note).

Annotators raise them from a task (``AnnotationSession.flag``: the task stays theirs to
answer); the model-name detector (:mod:`workbench.importers.model_mentions`) raises them on the
answers of each import in its transaction (:func:`flag_model_mentions`), and a judge run on
the answers it sends (:func:`flag_sent_answers`). ``campaign status``
counts a campaign's flags by reason (:func:`flag_counts`), and a campaign created with
``exclude_flagged`` schedules no comparison with a flagged answer or item
(:func:`leave_out_flagged`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from workbench.importers.model_mentions import names_its_model
from workbench.services.campaign_errors import AnswerError
from workbench.services.campaign_items import Eligibility
from workbench.storage.bundle import Bundle
from workbench.storage.models import (
    Annotator,
    Flag,
    Item,
    Model,
    Output,
    ScheduledPair,
    Source,
    Turn,
)

#: the reasons a flag can give, with what the annotator reads
FLAG_REASONS = {
    "broken_image": "The image is broken or does not load",
    "names_model": "A response names its model",
    "offensive": "Offensive content",
    "other": "Something else (say what)",
}
ANNOTATOR = "annotator"
DETECTOR = "detector"
#: a judge run's model-name check of the answers it sends
JUDGE_RUN = "judge-run"


def check_reason(reason: str, note: str) -> None:
    if reason not in FLAG_REASONS:
        raise AnswerError(f"a flag's reason is one of: {', '.join(FLAG_REASONS)}")
    if reason == "other" and not note.strip():
        raise AnswerError("say what is wrong: a flag for something else needs a note")


def add_flag(
    session: Session,
    *,
    item_id: int,
    model_id: int | None,
    reason: str,
    note: str,
    origin: str,
    campaign_id: int | None = None,
    pair_id: int | None = None,
    annotator_id: int | None = None,
) -> Flag:
    """Store a flag in the caller's write transaction."""
    check_reason(reason, note)
    flag = Flag(
        uuid=uuid.uuid4().hex,
        item_id=item_id,
        model_id=model_id,
        campaign_id=campaign_id,
        pair_id=pair_id,
        annotator_id=annotator_id,
        reason=reason,
        note=note.strip(),
        origin=origin,
        created_at=datetime.now(UTC),
    )
    session.add(flag)
    return flag


def _machine_flagged(session: Session) -> set[tuple[int, int | None]]:
    """The (item, model) answers the model-name rule flagged already, at import or by a judge
    run (retracted ones too: a coordinator's retraction is not undone by the next run)."""
    return {
        (item_id, model_id)
        for item_id, model_id in session.execute(
            select(Flag.item_id, Flag.model_id).where(
                Flag.origin.in_((DETECTOR, JUDGE_RUN)), Flag.reason == "names_model"
            )
        )
    }


def _flag_mentions(
    session: Session,
    answers: Iterable[tuple[int, int, str]],
    origin: str,
    note: Callable[[str], str],
) -> int:
    """Flag each (item, model, text) answer that names its model, once per item and model."""
    known = _machine_flagged(session)
    added = 0
    for item_id, model_id, text in answers:
        if (item_id, model_id) in known:
            continue
        mention = names_its_model(text)
        if mention is None:
            continue
        add_flag(
            session,
            item_id=item_id,
            model_id=model_id,
            reason="names_model",
            note=note(mention.phrase),
            origin=origin,
        )
        known.add((item_id, model_id))
        added += 1
    return added


def flag_model_mentions(session: Session, import_id: int | None = None) -> int:
    """Flag every answer (of the import ``import_id``, else of the bundle) that names its
    model (``names_model``, origin ``detector``, the phrase as the note), once per item and
    model, in the caller's write transaction; returns how many flags were added."""
    answers = (
        select(Turn.item_id, Output.model_id, Output.text)
        .join(Turn, Turn.id == Output.turn_id)
        .order_by(Output.id)
    )
    if import_id is not None:
        answers = answers.where(Output.import_id == import_id)
    rows = ((item_id, model_id, text) for item_id, model_id, text in session.execute(answers))
    return _flag_mentions(session, rows, DETECTOR, lambda phrase: phrase)


#: items per query when reading the answers a judge run sends (under any store's parameter cap)
_ITEMS_PER_READ = 500


def flag_sent_answers(
    session: Session, run_name: str, sent: Iterable[tuple[int, int]], context: str
) -> int:
    """Flag the answers a judge run sends, (item, model) pairs in output ``context``, that name
    their model, by the rule the importer applies (origin ``judge-run``, the phrase and the run
    as the note), in the caller's write transaction: a bundle imported before the rule existed
    gets its flags from the first run that sends the answers. Returns how many were added."""
    wanted = set(sent)
    items = sorted({item_id for item_id, _model in wanted})
    found: list[tuple[int, int, str]] = []
    for start in range(0, len(items), _ITEMS_PER_READ):
        chunk = items[start : start + _ITEMS_PER_READ]
        for item_id, model_id, text in session.execute(
            select(Turn.item_id, Output.model_id, Output.text)
            .join(Turn, Turn.id == Output.turn_id)
            .where(Turn.item_id.in_(chunk), Output.context == context)
            .order_by(Output.id)
        ):
            if (item_id, model_id) in wanted:
                found.append((item_id, model_id, text))
    return _flag_mentions(
        session, found, JUDGE_RUN, lambda phrase: f"{phrase} (judge run {run_name})"
    )


def detect_model_names(bundle: Bundle) -> int:
    """:func:`flag_model_mentions` over every answer of the bundle, in a transaction of its
    own (for a bundle imported before the detector existed)."""
    with bundle.session() as session:
        return flag_model_mentions(session)


def flag_counts(session: Session, campaign_id: int) -> dict[str, int]:
    """A campaign's standing flags raised by its annotators, by reason."""
    return {
        reason: count
        for reason, count in session.execute(
            select(Flag.reason, func.count())
            .where(Flag.campaign_id == campaign_id, Flag.retracted_at.is_(None))
            .group_by(Flag.reason)
            .order_by(Flag.reason)
        )
    }


def flagged_tasks(session: Session, campaign_id: int) -> list[dict[str, Any]]:
    """A campaign's standing flags raised by its annotators, one row per flag in task order:
    the task, its item, the reason, what it flags (the item, or the answer shown at one
    position: no model named, as the annotator saw none), who raised it and the note."""
    rows = session.execute(
        select(
            ScheduledPair.sequence,
            Source.name,
            Item.external_id,
            Flag.reason,
            Flag.model_id,
            Annotator.handle,
            Flag.note,
        )
        .join(Item, Item.id == Flag.item_id)
        .join(Source, Source.id == Item.source_id)
        .outerjoin(ScheduledPair, ScheduledPair.id == Flag.pair_id)
        .outerjoin(Annotator, Annotator.id == Flag.annotator_id)
        .where(Flag.campaign_id == campaign_id, Flag.retracted_at.is_(None))
        .order_by(ScheduledPair.sequence, Flag.id)
    ).all()
    return [
        {
            "task": sequence,
            "source": source,
            "item": external_id,
            "reason": reason,
            "flags": "an answer" if model_id is not None else "the item",
            "by": handle,
            "note": note,
        }
        for sequence, source, external_id, reason, model_id, handle, note in rows
    ]


def leave_out_flagged(session: Session, eligible: Eligibility) -> int:
    """Take out of ``eligible`` every contestant whose answer on a slot's item is flagged, and
    every contestant of a slot whose item itself is flagged (a campaign created with
    ``exclude_flagged``); returns how many (slot, contestant) places were taken out."""
    flagged = session.execute(
        select(Flag.item_id, Model.name)
        .outerjoin(Model, Model.id == Flag.model_id)
        .where(Flag.retracted_at.is_(None))
    ).all()
    whole_items = {item_id for item_id, name in flagged if name is None}
    answers = {(item_id, name) for item_id, name in flagged if name is not None}
    removed = 0
    for slot, contestants in eligible.contestants.items():
        item_id = eligible.item_ids[slot]
        kept = (
            []
            if item_id in whole_items
            else [c for c in contestants if not isinstance(c, str) or (item_id, c) not in answers]
        )
        removed += len(contestants) - len(kept)
        contestants[:] = kept
    return removed
