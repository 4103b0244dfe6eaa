"""The campaign monitor: how a running campaign stands, for the person running it.

Per annotator: tasks answered and skipped (from the campaign counters), the median time per
answered task (``votes.duration_ms``, measured from the task shown to the answer stored), the
reasons given for skips, and attention-check accuracy. Across annotators: agreement on the
comparisons at least two of them judged, as Fleiss' kappa and Krippendorff's alpha, overall and
per item category (items without one are category "none"), computed by
:mod:`workbench.services.inter_annotator` exactly as the report computes it; grading protocols
(whose votes are grades, not preferences) by :func:`agreement` on each task's grades (interval
alpha). And the tasks that cannot finish: short of votes, with no annotator left who has not
skipped them. ``workbench campaign status`` prints this, and the Campaign monitor window shows
it.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from workbench.services import inter_annotator
from workbench.services.campaign_settings import settings_of
from workbench.services.campaigns import assigned_annotators, find_campaign, gold_report
from workbench.services.flags import flag_counts, flagged_tasks
from workbench.services.pair_choice import ADAPTIVE, pair_choice
from workbench.stats.errors import StatsInputError
from workbench.stats.kappa import fleiss_kappa, krippendorff_alpha
from workbench.storage.bundle import Bundle
from workbench.storage.models import (
    Annotator,
    Campaign,
    CampaignAnnotatorCount,
    CampaignCount,
    CampaignPairCount,
    Item,
    PairLease,
    ScheduledPair,
    Source,
    Vote,
)

#: the category reported for items that have none
NO_CATEGORY = inter_annotator.NO_CATEGORY

Label = str | float


def _number(value: float) -> float | None:
    """A figure for JSON: None where it cannot be computed (NaN)."""
    return None if value is None or math.isnan(value) else round(float(value), 4)


def agreement(labels: dict[int, dict[int, Label]], graded: bool = False) -> dict[str, Any]:
    """Agreement of the annotators on tasks each rated by two or more: ``labels[task][rater]``
    (the grades of a grading campaign; preferences go through
    :func:`workbench.services.inter_annotator.annotator_agreement`).

    Fleiss' kappa needs the same number of ratings per task, so it is computed over the tasks
    with the most common number (>= 2) of ratings (``fleiss_comparisons``); Krippendorff's
    alpha takes every task rated at least twice (``comparisons``). Either is None where it
    cannot be computed (too few tasks, or a single label throughout)."""
    rated = {task: raters for task, raters in labels.items() if len(raters) >= 2}
    # the keys of the preference figures (RaterAgreement's), so both print alike
    result: dict[str, Any] = {
        "raters": len({rater for raters in rated.values() for rater in raters}),
        "comparisons": len(rated),
        "fleiss_kappa": None,
        "fleiss_comparisons": 0,
        "krippendorff_alpha": None,
    }
    if not rated:
        return result
    categories = sorted({label for raters in rated.values() for label in raters.values()}, key=str)
    index = {label: number for number, label in enumerate(categories)}
    sizes = Counter(len(raters) for raters in rated.values())
    usual = max(sizes, key=lambda size: (sizes[size], size))
    table = np.zeros((sizes[usual], len(categories)))
    row = 0
    for raters in rated.values():
        if len(raters) == usual:
            for label in raters.values():
                table[row, index[label]] += 1
            row += 1
    people = sorted({rater for raters in rated.values() for rater in raters})
    person = {rater: number for number, rater in enumerate(people)}
    reliability = np.full((len(people), len(rated)), np.nan)
    for column, raters in enumerate(rated.values()):
        for rater, label in raters.items():
            reliability[person[rater], column] = float(label) if graded else index[label]
    try:
        result["fleiss_kappa"] = _number(fleiss_kappa(table))
        result["fleiss_comparisons"] = int(sizes[usual])
    except StatsInputError:
        pass
    try:
        level: Literal["interval", "nominal"] = "interval" if graded else "nominal"
        result["krippendorff_alpha"] = _number(krippendorff_alpha(reliability, level))
    except StatsInputError:
        pass
    return result


def stuck_tasks(session: Session, campaign_id: int) -> list[dict[str, Any]]:
    """The tasks that can never get the votes they need, each with the reason: an open task
    (not an attention check) short of votes whose annotators not yet at it are too few,
    since everyone else has skipped it (or the bundle has fewer annotators than votes asked).
    Read from the campaign counters: only the skips of the stuck tasks are looked up."""
    assigned = assigned_annotators(session.get_one(Campaign, campaign_id))
    everyone = session.scalar(select(func.count()).select_from(Annotator)) or 0
    annotators = len(assigned) if assigned is not None else everyone
    skips = func.coalesce(CampaignPairCount.skips, 0)
    votes = func.coalesce(CampaignPairCount.votes, 0)
    rows = session.execute(
        select(
            ScheduledPair.id,
            ScheduledPair.sequence,
            ScheduledPair.votes_target,
            votes,
            Source.name,
            Item.external_id,
        )
        .join(Item, Item.id == ScheduledPair.item_id)
        .join(Source, Source.id == Item.source_id)
        .outerjoin(CampaignPairCount, CampaignPairCount.pair_id == ScheduledPair.id)
        .where(
            ScheduledPair.campaign_id == campaign_id,
            ScheduledPair.gold_choice.is_(None),
            votes < ScheduledPair.votes_target,
            annotators - skips < ScheduledPair.votes_target,
        )
        .order_by(ScheduledPair.sequence)
    ).all()
    skipped: dict[int, dict[str, str]] = defaultdict(dict)
    if rows:
        for pair_id, handle, reason in session.execute(
            select(Vote.pair_id, Annotator.handle, Vote.skip_reason)
            .join(Annotator, Annotator.id == Vote.annotator_id)
            .where(
                Vote.pair_id.in_([row[0] for row in rows]),
                Vote.retracted_at.is_(None),
                Vote.skip_reason.is_not(None),
            )
        ):
            if pair_id is not None and reason is not None:  # as the query selects
                skipped[pair_id][handle] = reason
    stuck = []
    for pair_id, sequence, target, answers, source, external_id in rows:
        by = skipped.get(pair_id, {})
        if by:
            who = ", ".join(f"{handle} ({reason})" for handle, reason in sorted(by.items()))
            reason = f"skipped by {who}; no other annotator is left to give it"
        else:
            who = "the campaign is assigned to" if assigned is not None else "the bundle has"
            reason = f"{who} {annotators} annotator(s) for {target} votes"
        stuck.append(
            {
                "task": sequence,
                "source": source,
                "item": external_id,
                "votes": answers,
                "votes_target": target,
                "skipped_by": dict(sorted(by.items())),
                "reason": f"{answers} of {target} votes: {reason}",
            }
        )
    return stuck


def campaign_status(bundle: Bundle, name: str) -> dict[str, Any]:
    """Everything the monitor shows for the campaign ``name``, as plain JSON-ready data."""
    now = datetime.now(UTC)
    with bundle.read_session() as session:
        campaign = find_campaign(session, name)
        criterion = settings_of(campaign).criterion
        graded = False  # set by the first grade read: grading protocols store grades
        counts = session.get(CampaignCount, campaign.id)
        handles = dict(session.execute(select(Annotator.id, Annotator.handle)).all())
        progress = {
            row.annotator_id: row
            for row in session.scalars(
                select(CampaignAnnotatorCount).where(
                    CampaignAnnotatorCount.campaign_id == campaign.id
                )
            )
        }
        flags = flag_counts(session, campaign.id)
        flagged = flagged_tasks(session, campaign.id)
        active_leases = session.scalar(
            select(func.count())
            .select_from(PairLease)
            .join(ScheduledPair, ScheduledPair.id == PairLease.pair_id)
            .where(ScheduledPair.campaign_id == campaign.id, PairLease.expires_at > now)
        )
        rows = session.execute(
            select(
                Vote.pair_id,
                Vote.annotator_id,
                Vote.choice,
                Vote.grade,
                Vote.skip_reason,
                Vote.duration_ms,
                Item.category,
                ScheduledPair.gold_choice.is_not(None),
            )
            .join(Item, Item.id == Vote.item_id)
            .join(ScheduledPair, ScheduledPair.id == Vote.pair_id)
            .where(
                Vote.campaign_id == campaign.id,
                Vote.retracted_at.is_(None),
                (Vote.criterion == criterion) | Vote.skip_reason.is_not(None),
            )
        ).all()
        gold = gold_report(session, campaign)
        stuck = stuck_tasks(session, campaign.id)
        preferences = inter_annotator.campaign_agreement(session, campaign.name)
        standing = _adaptive_standing(session, campaign)
    durations: dict[int, list[int]] = defaultdict(list)
    reasons: dict[int, Counter[str]] = defaultdict(Counter)
    labels: dict[int, dict[int, Label]] = defaultdict(dict)
    categories: dict[int, str] = {}
    for pair_id, annotator_id, choice, grade, skip, duration, category, is_gold in rows:
        if skip is not None:
            reasons[annotator_id][skip] += 1
            continue
        if duration is not None:
            durations[annotator_id].append(duration)
        label = choice if choice is not None else grade
        if label is None or is_gold:  # attention checks are scored against their answer
            continue
        graded = graded or grade is not None
        assert pair_id is not None  # the query joins each vote to its scheduled pair
        labels[pair_id][annotator_id] = label
        categories[pair_id] = category or NO_CATEGORY
    annotators = []
    for annotator_id in sorted(set(progress) | set(reasons), key=lambda a: handles[a]):
        handle = handles[annotator_id]
        row = progress.get(annotator_id)
        checks = gold.get(handle)
        annotators.append(
            {
                "annotator": handle,
                "answered": row.answered if row else 0,
                "skipped": row.skipped if row else 0,
                "median_seconds_per_task": (
                    round(statistics.median(durations[annotator_id]) / 1000, 2)
                    if durations[annotator_id]
                    else None
                ),
                "skip_reasons": dict(sorted(reasons[annotator_id].items())),
                "gold": (
                    {
                        "answered": checks["answered"],
                        "correct": checks["correct"],
                        "accuracy": _number(checks["correct"] / checks["answered"])
                        if checks["answered"]
                        else None,
                    }
                    if checks
                    else None
                ),
            }
        )
    by_category: dict[str, dict[int, dict[int, Label]]] = defaultdict(dict)
    for pair_id, raters in labels.items():
        by_category[categories[pair_id]][pair_id] = raters
    if graded:
        agreement_figures: dict[str, Any] = {
            "definition": "per task, each annotator's grade; interval Krippendorff's alpha",
            "overall": agreement(labels, graded),
            "by_category": {
                category: agreement(tasks, graded)
                for category, tasks in sorted(by_category.items())
            },
        }
    else:
        agreement_figures = preferences
    return {
        "request": {
            "campaign": campaign.name,
            "agreement_definition": agreement_figures["definition"],
            "command": inter_annotator.status_command(campaign.name),
        },
        "campaign": campaign.name,
        "protocol": campaign.protocol,
        "status": campaign.status,
        "tasks": counts.tasks if counts else 0,
        "gold_tasks": counts.gold_tasks if counts else 0,
        "complete_tasks": counts.complete_tasks if counts else 0,
        "answered": counts.answered if counts else 0,
        "skipped": counts.skipped if counts else 0,
        "flags": flags,
        "flagged_tasks": flagged,
        "active_leases": active_leases or 0,
        "annotators": annotators,
        "stuck_tasks": stuck,
        "agreement": agreement_figures,
        "pairing": pair_choice(campaign.settings, campaign.name),
        "adaptive": standing,
    }


def _adaptive_standing(session: Session, campaign: Campaign) -> dict[str, Any] | None:
    """An adaptive campaign's rating differences with their intervals and which pairs are
    unresolved (None for a uniform campaign)."""
    if pair_choice(campaign.settings, campaign.name) != ADAPTIVE:
        return None
    # imported here: the rule's scipy is not loaded for uniform campaigns
    from workbench.services.adaptive_pairing import adaptive_standing

    return adaptive_standing(session, campaign)
