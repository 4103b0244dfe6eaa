"""Adjudication: the tasks where annotators disagree (or, on request, where the humans and an LLM
judge do), and the coordinator's settled answer for them, kept with a note, who decided and when.

A task is named by its sequence number in the campaign's schedule (``campaign show --json``).
Answers are positional, as annotators gave them ("a" = Response 1, shown left). Settled answers
are judgments of their own in the one read model (:mod:`workbench.storage.judgments`, origin
``adjudication``, evaluator ``adjudicated``), so statistics and exports select them like any
evaluator (``workbench leaderboard --origin adjudication``).
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from workbench.plugins import Registry
from workbench.services.blind_tasks import BlindTask, Progress, build_task
from workbench.services.campaign_errors import CampaignError
from workbench.services.campaign_settings import settings_of
from workbench.services.campaigns import campaign_protocol, find_campaign
from workbench.services.voting import answer_rows
from workbench.storage.bundle import Bundle
from workbench.storage.judgment_counts import ADJUDICATION, changing
from workbench.storage.models import (
    Adjudication,
    Annotator,
    Item,
    JudgeRun,
    JudgeVerdict,
    Model,
    ScheduledPair,
    Source,
    Vote,
)

log = logging.getLogger(__name__)

#: a judge's outcome seen from the other side
_SWAPPED = {"a": "b", "b": "a"}


def _answer(choice: str | None, grade: float | None) -> str | float | None:
    return choice if choice is not None else grade


def _judge_answers(
    session: Session, run_name: str, pairs: dict[int, ScheduledPair]
) -> dict[tuple[int, str], str]:
    """The judge run's outcome per (task, criterion), turned to the task's positions (the judge
    may have been shown the models the other way round); orderings that disagree are left out."""
    run = session.scalar(select(JudgeRun).where(JudgeRun.name == run_name))
    if run is None:
        raise CampaignError(f"no judge run named '{run_name}' in this bundle")
    by_slot: dict[tuple[int, int | None], list[ScheduledPair]] = defaultdict(list)
    for pair in pairs.values():
        by_slot[(pair.item_id, pair.turn_index)].append(pair)
    found: dict[tuple[int, str], set[str]] = defaultdict(set)
    verdicts = session.execute(
        select(
            JudgeVerdict.item_id,
            JudgeVerdict.turn_index,
            JudgeVerdict.criterion,
            JudgeVerdict.model_a_id,
            JudgeVerdict.model_b_id,
            JudgeVerdict.outcome,
        ).where(JudgeVerdict.run_id == run.id, JudgeVerdict.error.is_(None))
    )
    for item_id, turn, criterion, model_a, model_b, outcome in verdicts:
        if outcome is None:
            continue
        for pair in by_slot.get((item_id, turn), ()):
            if (pair.left_model_id, pair.right_model_id) == (model_a, model_b):
                found[(pair.id, criterion)].add(outcome)
            elif (pair.left_model_id, pair.right_model_id) == (model_b, model_a):
                found[(pair.id, criterion)].add(_SWAPPED.get(outcome, outcome))
    return {key: next(iter(values)) for key, values in found.items() if len(values) == 1}


def disagreements(bundle: Bundle, name: str, judge_run: str | None = None) -> list[dict[str, Any]]:
    """The campaign's tasks (attention checks aside) where the standing answers of two or more
    annotators differ on a criterion; with ``judge_run``, also those where the annotators'
    majority answer differs from that run's verdict. Each with the item, the two models (for the
    coordinator; the dialog hides them until revealed), every vote, and the settled answer if
    one was recorded."""
    with bundle.read_session() as session:
        campaign = find_campaign(session, name)
        pairs = {
            pair.id: pair
            for pair in session.scalars(
                select(ScheduledPair).where(
                    ScheduledPair.campaign_id == campaign.id, ScheduledPair.gold_choice.is_(None)
                )
            )
        }
        models = dict(session.execute(select(Model.id, Model.name)).all())
        votes = session.execute(
            select(
                Vote.pair_id,
                Vote.criterion,
                Annotator.handle,
                Vote.choice,
                Vote.grade,
                Vote.comment,
                Vote.cast_at,
            )
            .join(Annotator, Annotator.id == Vote.annotator_id)
            .where(
                Vote.campaign_id == campaign.id,
                Vote.retracted_at.is_(None),
                Vote.skip_reason.is_(None),
            )
            .order_by(Vote.cast_at, Vote.id)
        ).all()
        by_task: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
        for pair_id, criterion, handle, choice, grade, comment, cast_at in votes:
            if pair_id in pairs:
                by_task[(pair_id, criterion)].append(
                    {
                        "annotator": handle,
                        "answer": _answer(choice, grade),
                        "comment": comment,
                        "cast_at": cast_at.isoformat(),
                    }
                )
        judged = _judge_answers(session, judge_run, pairs) if judge_run else {}
        settled = {
            (row.pair_id, row.criterion): row
            for row in session.scalars(
                select(Adjudication).where(Adjudication.campaign_id == campaign.id)
            )
        }
        items = {
            item_id: (source, external_id, category)
            for item_id, source, external_id, category in session.execute(
                select(Item.id, Source.name, Item.external_id, Item.category)
                .join(Source, Source.id == Item.source_id)
                .where(Item.id.in_({pair.item_id for pair in pairs.values()}))
            )
        }
    rows = []
    for (pair_id, criterion), task_votes in sorted(
        by_task.items(), key=lambda entry: (pairs[entry[0][0]].sequence, entry[0][1])
    ):
        answers = Counter(vote["answer"] for vote in task_votes)
        humans_differ = len(task_votes) >= 2 and len(answers) > 1
        judge = judged.get((pair_id, criterion))
        majority = answers.most_common(1)[0][0]
        judge_differs = judge is not None and (len(answers) > 1 or majority != judge)
        if not humans_differ and not judge_differs:
            continue
        pair = pairs[pair_id]
        source, external_id, category = items[pair.item_id]
        adjudication = settled.get((pair_id, criterion))
        rows.append(
            {
                "task": pair.sequence,
                "criterion": criterion,
                "source": source,
                "item": external_id,
                "category": category,
                "turn": pair.turn_index,
                "left": models.get(pair.left_model_id) if pair.left_model_id else None,
                "right": models.get(pair.right_model_id) if pair.right_model_id else None,
                "reason": "annotators" if humans_differ else "judge",
                "votes": task_votes,
                "judge": {"run": judge_run, "answer": judge} if judge is not None else None,
                "adjudication": _settled_json(adjudication) if adjudication else None,
            }
        )
    return rows


@dataclass(frozen=True)
class AnswerOption:
    """One answer the coordinator can record: the stored ``value``, the ``label`` and the
    ``key`` the annotators' buttons show for it ("a", "Response 1", "A")."""

    value: str
    label: str
    key: str


def answer_options(
    bundle: Bundle, name: str, plugins: Registry | None = None
) -> list[AnswerOption]:
    """Each answer the campaign's protocol allows, for the record buttons, with the key the
    annotators press for it; a grading protocol offers its grades (a one-character grade is
    its own key)."""
    with bundle.read_session() as session:
        protocol = campaign_protocol(find_campaign(session, name), plugins)
    if protocol.grade_scale is not None:
        grades = [f"{value:g}" for value in protocol.grade_scale.values()]
        return [AnswerOption(grade, grade, grade if len(grade) == 1 else "") for grade in grades]
    return [AnswerOption(choice.value, choice.label, choice.key) for choice in protocol.choices]


def disputed_task(
    bundle: Bundle, name: str, task: int, plugins: Registry | None = None
) -> BlindTask:
    """Task number ``task`` as annotators saw it (prompt, images, both responses in their
    positions, no model names), for the adjudication dialog."""
    with bundle.read_session() as session:
        campaign = find_campaign(session, name)
        pair = session.scalar(
            select(ScheduledPair).where(
                ScheduledPair.campaign_id == campaign.id, ScheduledPair.sequence == task
            )
        )
        if pair is None:
            raise CampaignError(f"campaign '{campaign.name}' has no task {task}")
        context = settings_of(campaign).output_context
        protocol = campaign_protocol(campaign, plugins)
        return build_task(session, pair, protocol, context, f"task-{task}", Progress(0, 0))


def _utc_text(moment: datetime) -> str:
    """A moment as stored times read back (naive UTC), whether just set or read."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat()


def _settled_json(row: Adjudication) -> dict[str, Any]:
    return {
        "answer": _answer(row.choice, row.grade),
        "note": row.note,
        "adjudicator": row.adjudicator,
        "adjudicated_at": _utc_text(row.adjudicated_at),
    }


def record_adjudication(
    bundle: Bundle,
    name: str,
    task: int,
    answer: str,
    note: str,
    adjudicator: str,
    criterion: str | None = None,
    plugins: Registry | None = None,
) -> dict[str, Any]:
    """Record the settled answer of task number ``task`` (replacing an earlier one for the same
    criterion). The answer is checked against the campaign's protocol as a vote would be; the
    record keeps the note, the adjudicator and the time."""
    adjudicator = adjudicator.strip()
    if not adjudicator:
        raise CampaignError("say who adjudicates (--adjudicator HANDLE)")
    with bundle.session() as session:
        campaign = find_campaign(session, name)
        protocol = campaign_protocol(campaign, plugins)
        names = [c.name for c in protocol.criteria]
        criterion = criterion or names[0]
        if criterion not in names:
            raise CampaignError(f"this campaign has no criterion '{criterion}'")
        pair = session.scalar(
            select(ScheduledPair).where(
                ScheduledPair.campaign_id == campaign.id, ScheduledPair.sequence == task
            )
        )
        if pair is None:
            raise CampaignError(f"campaign '{campaign.name}' has no task {task}")
        # checked as a vote would be (the protocol's choices or grade scale; a note where a
        # choice needs a comment); every criterion shares the protocol's answers
        rows = answer_rows(protocol, dict.fromkeys(names, answer), note.strip() or None)
        _, choice, grade = next(row for row in rows if row[0] == criterion)
        settled = and_(Adjudication.pair_id == pair.id, Adjudication.criterion == criterion)
        with changing(session, ADJUDICATION, settled):
            stored = session.scalar(select(Adjudication).where(settled))
            if stored is None:
                stored = Adjudication(campaign_id=campaign.id, pair_id=pair.id, criterion=criterion)
                session.add(stored)
            stored.choice, stored.grade = choice, grade
            stored.note = note.strip()
            stored.adjudicator = adjudicator
            stored.adjudicated_at = datetime.now(UTC)
            session.flush()
        result = {"campaign": campaign.name, "task": task, "criterion": criterion}
        result |= _settled_json(stored)
    log.info("adjudicated task %d of %s", task, campaign.name)
    return result
