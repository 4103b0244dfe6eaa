"""The ways out for a task that cannot finish (``services.monitor.stuck_tasks`` lists them): give
it to an annotator who has not answered it, or ask fewer votes of it. The CLI (``workbench
campaign reassign`` / ``lower-votes``) and the monitor dock's buttons call these functions.

Both write in one transaction through the campaign counters (``storage.counters.counting``), so
the task's, the campaign's and the annotators' progress stay right; neither removes a vote.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from workbench.services.campaign_errors import CampaignError
from workbench.services.campaign_settings import changed_settings, settings_of
from workbench.services.campaigns import (
    assigned_annotators,
    find_annotator,
    find_campaign,
)
from workbench.services.voting import lease_pairs
from workbench.storage.bundle import Bundle
from workbench.storage.counters import counting
from workbench.storage.models import Campaign, ScheduledPair, Vote

log = logging.getLogger(__name__)


def _open_task(session: Session, campaign: Campaign, task: int) -> tuple[ScheduledPair, int]:
    """Task number ``task`` of the campaign and its standing answers; it must be an ordinary
    task still short of votes."""
    pair = session.scalar(
        select(ScheduledPair).where(
            ScheduledPair.campaign_id == campaign.id, ScheduledPair.sequence == task
        )
    )
    if pair is None:
        raise CampaignError(f"campaign '{campaign.name}' has no task {task}")
    if pair.gold_choice is not None:
        raise CampaignError(f"task {task} is an attention check: every annotator is given it")
    answers = (
        session.scalar(
            select(func.count(func.distinct(Vote.annotator_id))).where(
                Vote.pair_id == pair.id, Vote.retracted_at.is_(None), Vote.skip_reason.is_(None)
            )
        )
        or 0
    )
    if answers >= pair.votes_target:
        raise CampaignError(
            f"task {task} has its {pair.votes_target} vote(s) already: nothing to unstick"
        )
    return pair, answers


def reassign_task(bundle: Bundle, name: str, task: int, handle: str) -> dict[str, Any]:
    """Give task number ``task`` to annotator ``handle``, who must not have answered it: the
    task is reserved for them (for as long as a pack's tasks are) and comes up in their queue;
    if they had skipped it, their skip is withdrawn (it stays in the record as retracted), so
    the task is theirs to answer again. A campaign assigned to named annotators takes them in."""
    handle = handle.strip()
    if not handle:
        raise CampaignError("say who takes the task (--to HANDLE)")
    with bundle.session() as session:
        campaign = find_campaign(session, name)
        annotator = find_annotator(session, handle)
        pair, answers = _open_task(session, campaign, task)
        standing = list(
            session.scalars(
                select(Vote).where(
                    Vote.pair_id == pair.id,
                    Vote.annotator_id == annotator.id,
                    Vote.retracted_at.is_(None),
                )
            )
        )
        if any(vote.skip_reason is None for vote in standing):
            raise CampaignError(
                f"{handle} has answered task {task} already; give it to another annotator"
            )
        assigned = assigned_annotators(campaign)
        if assigned is not None and handle not in assigned:
            # the campaign is assigned: the new annotator joins it (for this task and others)
            campaign.settings = changed_settings(campaign, annotators=(*assigned, handle))
        now = datetime.now(UTC)
        with counting(session, [pair.id]):
            for skip in standing:
                skip.retracted_at = now
            lease_pairs(session, [pair.id], annotator.id, settings_of(campaign).pack_lease)
        result = {
            "campaign": campaign.name,
            "task": task,
            "annotator": handle,
            "withdrawn_skips": [vote.skip_reason for vote in standing],
            "joined_campaign": assigned is not None and handle not in assigned,
            "votes": answers,
            "votes_target": pair.votes_target,
        }
    log.info("reassigned task %d of %s to %s", task, name, handle)
    return result


def lower_votes_needed(bundle: Bundle, name: str, task: int, votes: int) -> dict[str, Any]:
    """Ask ``votes`` votes of task number ``task`` instead of its current target: at least one,
    fewer than now, and no fewer than the answers it holds (so none of them is set aside). A
    task whose answers reach the new target is complete."""
    with bundle.session() as session:
        campaign = find_campaign(session, name)
        pair, answers = _open_task(session, campaign, task)
        before = pair.votes_target
        if not max(answers, 1) <= votes < before:
            raise CampaignError(
                f"--votes must be from {max(answers, 1)} (the answers task {task} holds, at "
                f"least one) to {before - 1} (below its target of {before}); got {votes}"
            )
        with counting(session, [pair.id]):
            pair.votes_target = votes
        result = {
            "campaign": campaign.name,
            "task": task,
            "votes": answers,
            "votes_target_before": before,
            "votes_target": votes,
            "complete": answers >= votes,
        }
    log.info("task %d of %s now needs %d vote(s) (was %d)", task, name, votes, before)
    return result
