"""A campaign's practice round: tasks with known answers that an annotator answers before the
real ones and is told, after each, whether the answer was the expected one and why.

The round is stored in the campaign's settings (``create_campaign`` draws it), not in the
schedule: a practice answer is checked here, in memory, and never becomes a vote, so it cannot
reach progress, counters, statistics or exports. What is written is only that an annotator has
done (or skipped) the round, in the same settings, so it is offered once per annotator.
Practice tasks are shown exactly like real ones (``build_task``), so they are as blind.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.domain.protocols import AnnotationProtocol
from workbench.services.blind_tasks import BlindTask, Progress, build_task
from workbench.services.campaign_errors import AnswerError, CampaignError, StaleTaskError
from workbench.services.campaign_items import REFERENCE_NAME
from workbench.services.campaign_settings import (
    CampaignSettings,
    PracticeTask,
    changed_settings,
    settings_of,
)
from workbench.storage.bundle import Bundle
from workbench.storage.models import Campaign, Item, Model, ScheduledPair, Source

#: how an annotator left the round, as remembered in the campaign's settings
COMPLETED = "completed"
SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class PracticeFeedback:
    """What the annotator is told after a practice answer: whether it was the expected one,
    the expected choice's label, and the coordinator's explanation."""

    correct: bool
    expected: str
    explanation: str


def _pair(session: Session, practice: PracticeTask) -> ScheduledPair:
    """A transient scheduled pair (never added to the session) for ``build_task``."""
    item_id = session.scalar(
        select(Item.id)
        .join(Source, Item.source_id == Source.id)
        .where(Source.name == practice.source, Item.external_id == practice.item)
    )
    if item_id is None:
        raise CampaignError("a practice task's item is no longer in this bundle")
    names = [name for name in (practice.left, practice.right) if name not in (None, REFERENCE_NAME)]
    ids = dict(session.execute(select(Model.name, Model.id).where(Model.name.in_(names))).all())

    if len(ids) < len(set(names)):
        raise CampaignError("a practice task's model is no longer in this bundle")

    def side(name: str | None) -> int | None:
        return None if name is None or name == REFERENCE_NAME else ids[name]

    return ScheduledPair(
        item_id=item_id,
        turn_index=practice.turn,
        left_model_id=side(practice.left),
        right_model_id=side(practice.right),
    )


class PracticeRound:
    """The practice round of one annotator in one campaign (see the module docstring)."""

    def __init__(
        self,
        bundle: Bundle,
        campaign_id: int,
        annotator_handle: str,
        protocol: AnnotationProtocol,
        output_context: str,
        settings: CampaignSettings,
        preview: bool,
    ) -> None:
        self._bundle = bundle
        self._campaign_id = campaign_id
        self._handle = annotator_handle
        self._protocol = protocol
        self._output_context = output_context
        self._tasks = list(settings.practice)
        done = settings.practice_done
        #: whether the round is still to be offered (never in a preview, which writes nothing)
        self.pending = bool(self._tasks) and not preview and annotator_handle not in done
        #: whether the annotator may skip the round
        self.optional = settings.practice_optional
        self._shown: tuple[str, PracticeTask] | None = None

    def __len__(self) -> int:
        return len(self._tasks)

    def task(self, index: int) -> BlindTask:
        """Practice task ``index`` (from 0), blind like a real task, named by a fresh token;
        its progress counts the practice round only."""
        practice = self._tasks[index]
        token = secrets.token_urlsafe(16)
        with self._bundle.read_session() as session:
            task = build_task(
                session,
                _pair(session, practice),
                self._protocol,
                self._output_context,
                token,
                Progress(index, len(self._tasks) - index),
            )
        self._shown = (token, practice)
        return task

    def check(
        self, token: str, rows: Sequence[tuple[str, str | None, float | None]]
    ) -> PracticeFeedback:
        """Compare checked answer ``rows`` (the first criterion's choice, as attention checks
        are scored) with the expected answer of the practice task ``token`` names. Nothing is
        stored."""
        if self._shown is None or self._shown[0] != token:
            raise StaleTaskError("this practice task is no longer the current one")
        practice = self._shown[1]
        if not rows or rows[0][1] is None:
            raise AnswerError("answer the question first")
        expected = self._protocol.choice(practice.answer)
        return PracticeFeedback(rows[0][1] == practice.answer, expected.label, practice.explanation)

    def finish(self, skipped: bool = False) -> None:
        """Remember that the annotator has done (or skipped) the round; it is not offered again."""
        if not self.pending:
            return
        if skipped and not self.optional:
            raise AnswerError("this campaign asks every annotator to do the practice round")
        with self._bundle.session() as session:
            campaign = session.scalars(
                select(Campaign).where(Campaign.id == self._campaign_id).with_for_update()
            ).one()
            done = dict(settings_of(campaign).practice_done)
            done[self._handle] = SKIPPED if skipped else COMPLETED
            campaign.settings = changed_settings(campaign, practice_done=done)
        self.pending = False
        self._shown = None
