"""An annotator at work on a campaign: the task queue, votes, skips and undo.

This is the code path the annotation view uses. Each vote is committed in its own transaction
before ``cast`` returns, so a task shown after a vote was confirmed can never be lost with it;
after a crash, a new session starts where the annotator was, because the queue is a function of
what is stored: the lowest-numbered task this annotator has not answered and that still needs
votes (attention checks go to everyone).

Many annotators may work on one bundle at once (on a server). A task handed out is leased to
its annotator for a while (30 minutes unless the campaign's ``lease_minutes`` setting says
otherwise), and an unexpired lease counts towards the task's votes target, so the last vote a
task needs is not handed to several people. The hand-out locks the task's row
(``FOR UPDATE SKIP LOCKED`` on PostgreSQL; SQLite's writers are serialized anyway) and counts
again once it holds the lock. An answer given after its lease expired is still stored: it is
the annotator's work, even if the task has meanwhile got its votes from others.

What the session hands out is blind (``BlindTask``): tasks are named by a random token that only
this session object can map back to a scheduled pair. Nothing it raises or logs names a model.
"""

from __future__ import annotations

import copy
import logging
import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BindParameter,
    Row,
    Select,
    bindparam,
    delete,
    distinct,
    exists,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from workbench.domain.protocols import AnnotationProtocol, swap_sides
from workbench.plugins import Registry
from workbench.services.blind_tasks import BlindTask, Progress, build_task
from workbench.services.campaign_errors import AnswerError, StaleTaskError
from workbench.services.campaign_settings import DEFAULT_LEASE_MINUTES, settings_of
from workbench.services.campaigns import (
    campaign_protocol,
    check_assigned,
    find_annotator,
    find_campaign,
)
from workbench.services.flags import ANNOTATOR, add_flag
from workbench.services.pair_choice import ADAPTIVE, pair_choice
from workbench.services.practice import PracticeFeedback, PracticeRound
from workbench.services.shown_order import ShownOrders
from workbench.storage.bundle import Bundle
from workbench.storage.counters import annotator_progress, counting, tasks_flagged_by
from workbench.storage.models import Campaign, PairLease, ScheduledPair, Vote

log = logging.getLogger(__name__)

Answer = str | float
Answers = Mapping[str, Answer] | Answer

#: how long a task stays reserved when its campaign sets no lease (``lease_minutes``)
DEFAULT_LEASE = timedelta(minutes=DEFAULT_LEASE_MINUTES)
#: who a preview without an annotator shows the queue for: no one (no row has this id)
NOBODY = -1
PREVIEW_HANDLE = "preview"


@dataclass(frozen=True, slots=True)
class VoteReceipt:
    """What a confirmed vote (or skip) returns: the stored rows' UUIDs and the progress with
    this answer counted (as of when its task was shown: the next task brings a fresh count)."""

    uuids: tuple[str, ...]
    progress: Progress


@dataclass(frozen=True, slots=True)
class _Shown:
    task: BlindTask
    pair_id: int
    shown_at: datetime
    started: float
    #: the task is shown with its scheduled right model first
    swapped: bool = False


@dataclass(frozen=True, slots=True)
class _Ahead:
    """The task read ahead while ``after`` is on screen: leased to this annotator at
    ``leased`` (monotonic seconds), its progress counted before ``after`` was answered."""

    task: BlindTask
    pair_id: int
    after: int
    leased: float
    swapped: bool = False


@dataclass(frozen=True, slots=True)
class PendingAnswer:
    """An answer given with :meth:`AnnotationSession.answer_ahead`: its task has left the
    screen, the answer is not stored until :meth:`AnnotationSession.commit` returns."""

    answered: _Shown
    rows: tuple[tuple[str, str | None, float | None], ...]
    comment: str | None
    following: _Shown
    ahead: _Ahead


def _now() -> datetime:
    return datetime.now(UTC)


def answer_rows(
    protocol: AnnotationProtocol, answers: Answers, comment: str | None
) -> list[tuple[str, str | None, float | None]]:
    """(criterion, choice, grade) for every criterion of the protocol, checked.

    A protocol with one criterion may be answered with the bare choice value (or grade).
    """
    if not isinstance(answers, Mapping):
        if len(protocol.criteria) != 1:
            raise AnswerError("answer each question of this task")
        answers = {protocol.criteria[0].name: answers}
    names = [criterion.name for criterion in protocol.criteria]
    unknown = sorted(set(answers) - set(names))
    if unknown:
        raise AnswerError(f"this task has no question {', '.join(unknown)}")
    missing = [c.label for c in protocol.criteria if answers.get(c.name) is None]
    if missing:
        raise AnswerError(f"answer every question first (missing: {', '.join(missing)})")
    rows: list[tuple[str, str | None, float | None]] = []
    for name in names:
        value = answers[name]
        if protocol.grade_scale is not None:
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                raise AnswerError("a grade must be a number")
            try:
                grade = float(value)
            except ValueError:
                raise AnswerError(f"'{value}' is not a grade") from None
            scale = protocol.grade_scale
            if not scale.contains(grade):
                raise AnswerError(
                    f"a grade is a whole number from {scale.minimum:g} to {scale.maximum:g}"
                )
            rows.append((name, None, grade))
        else:
            values = [choice.value for choice in protocol.choices]
            if value not in values:
                labels = ", ".join(choice.label for choice in protocol.choices)
                raise AnswerError(f"choose one of: {labels}")
            if value in protocol.comment_required_for and not comment:
                label = protocol.choice(str(value)).label
                raise AnswerError(f"'{label}' needs a comment saying what is wrong")
            rows.append((name, str(value), None))
    return rows


def open_pairs(
    campaign_id: int, annotator_id: int, now: datetime | BindParameter[datetime] | None = None
) -> Select[Any]:
    """The ids of the tasks an annotator may still be given: not answered (or skipped) by them,
    and short of votes counting the unexpired leases others hold on them, or an attention check
    (those go to everyone)."""
    answered_by_them = exists().where(
        Vote.pair_id == ScheduledPair.id,
        Vote.annotator_id == annotator_id,
        Vote.retracted_at.is_(None),
    )
    votes_so_far = (
        select(func.count(distinct(Vote.annotator_id)))
        .where(
            Vote.pair_id == ScheduledPair.id,
            Vote.retracted_at.is_(None),
            Vote.skip_reason.is_(None),
        )
        .scalar_subquery()
    )
    leased_to_others = (
        select(func.count())
        .where(
            PairLease.pair_id == ScheduledPair.id,
            PairLease.annotator_id != annotator_id,
            PairLease.expires_at > (now if now is not None else _now()),
        )
        .scalar_subquery()
    )
    return select(ScheduledPair.id).where(
        ScheduledPair.campaign_id == campaign_id,
        ~answered_by_them,
        or_(
            ScheduledPair.gold_choice.is_not(None),
            votes_so_far + leased_to_others < ScheduledPair.votes_target,
        ),
    )


# Built once (each binds its values): see AnnotationSession.__init__
_RELEASE = delete(PairLease).where(
    PairLease.annotator_id == bindparam("annotator"),
    PairLease.pair_id.in_(bindparam("ids", expanding=True)),
)
#: one task's (a vote's): a list of ids is spliced into the SQL at every execution
_RELEASE_ONE = delete(PairLease).where(
    PairLease.annotator_id == bindparam("annotator"), PairLease.pair_id == bindparam("id")
)
_LEASE = insert(PairLease)
_VOTE = insert(Vote)


def release_leases(session: Session, pair_ids: Sequence[int], annotator_id: int) -> None:
    """End the annotator's leases on ``pair_ids`` (answered, or about to be leased anew)."""
    with counting(session, pair_ids, answers=False):
        connection = session.connection()
        if len(pair_ids) == 1:
            connection.execute(_RELEASE_ONE, {"annotator": annotator_id, "id": pair_ids[0]})
        else:
            connection.execute(_RELEASE, {"annotator": annotator_id, "ids": list(pair_ids)})


def lease_pairs(
    session: Session,
    pair_ids: Sequence[int],
    annotator_id: int,
    duration: timedelta,
    swapped: Mapping[int, bool] | None = None,
) -> None:
    """Lease ``pair_ids`` to the annotator for ``duration`` from now, replacing any lease they
    held on them, in the caller's write transaction; ``swapped`` names the tasks shown with
    their right model first (see ``services.shown_order``)."""
    with counting(session, pair_ids, answers=False):
        release_leases(session, pair_ids, annotator_id)
        now = _now()
        # on the connection: the ORM's execution path is not used and costs CPU per vote
        session.connection().execute(
            _LEASE,
            [
                {
                    "pair_id": pair_id,
                    "annotator_id": annotator_id,
                    "leased_at": now,
                    "expires_at": now + duration,
                    "shown_swapped": bool(swapped and swapped.get(pair_id)),
                }
                for pair_id in pair_ids
            ],
        )


class AnnotationSession:
    """One annotator working through one campaign of an open bundle (or offline pack).

    The view calls :meth:`next_task`, shows it, and answers it with :meth:`cast` or
    :meth:`skip` (naming the task by its token); :meth:`undo` takes back the last answer and
    returns its task, which is then the current one again.

    A ``preview`` session (screenshots, a bundle open read-only) writes nothing: it shows the
    task the annotator (or, with ``annotator=None``, a newcomer) would get next, without
    leasing it, and refuses answers.
    """

    def __init__(
        self,
        bundle: Bundle,
        campaign: str,
        annotator: str | None,
        plugins: Registry | None = None,
        preview: bool = False,
    ) -> None:
        if annotator is None and not preview:
            raise AnswerError("say who annotates")
        with bundle.read_session() as session:
            found = find_campaign(session, campaign)
            person = find_annotator(session, annotator) if annotator is not None else None
            if person is not None:
                check_assigned(found, person.handle)
        self.bundle = bundle
        self.preview = preview
        self.protocol: AnnotationProtocol = campaign_protocol(found, plugins)
        self.campaign_name = found.name
        self.annotator_handle = person.handle if person is not None else PREVIEW_HANDLE
        self._campaign_id = found.id
        self._annotator_id = person.id if person is not None else NOBODY
        settings = settings_of(found)
        self._output_context = settings.output_context
        #: the campaign's guidelines for annotators (markdown), None when it has none
        self.guidelines: str | None = settings.guidelines
        self._lease_for = settings.lease
        self._orders = ShownOrders(
            found.id,
            self._annotator_id,
            self.protocol.output_count == 2,
            None if settings.shown_swapped is None else frozenset(settings.shown_swapped),
        )
        #: the order each task claimed by this session is shown in (True: swapped)
        self._swapped: dict[int, bool] = {}
        self._shown: _Shown | None = None
        #: the task after the one on screen, leased and built beforehand (see read_ahead)
        self._ahead: _Ahead | None = None
        #: the answer the last undo took back, by criterion (empty for a skip), and its
        #: comment: the page shows them selected, to change or save again
        self.taken_back: dict[str, Answer] = {}
        self.taken_back_comment: str | None = None
        # Built once: a statement object keeps its compiled form's cache key, so each claim
        # only binds values (building the query anew cost more CPU than running it).
        queue = open_pairs(self._campaign_id, self._annotator_id, now=bindparam("now"))
        # (pair id, sequence) of the next open task after the sequence ``after``
        self._next_open: Select[int, int] = (
            queue.add_columns(ScheduledPair.sequence)
            .where(ScheduledPair.sequence > bindparam("after"))
            .order_by(ScheduledPair.sequence)
            .limit(1)
            .with_for_update(of=ScheduledPair, skip_locked=True)
        )
        self._still_open = select(exists(queue.where(ScheduledPair.id == bindparam("pair"))))
        self._answered = select(
            exists().where(
                Vote.pair_id == bindparam("pair"),
                Vote.annotator_id == self._annotator_id,
                Vote.retracted_at.is_(None),
            )
        )
        self._pair_row = (
            select(ScheduledPair).where(ScheduledPair.id == bindparam("pair")).with_for_update()
        )
        self._task_columns = select(
            ScheduledPair.item_id,
            ScheduledPair.turn_index,
            ScheduledPair.left_model_id,
            ScheduledPair.right_model_id,
        ).where(ScheduledPair.id == bindparam("pair"))
        self._order_columns = select(
            ScheduledPair.sequence, ScheduledPair.left_model_id, ScheduledPair.right_model_id
        ).where(ScheduledPair.id == bindparam("pair"))
        # read at every hand-out: a campaign may be switched to adaptive pairing before its
        # first vote while a session is open
        self._settings = select(Campaign.settings).where(Campaign.id == self._campaign_id)
        #: the settings last read at a hand-out, and the pair choice they give
        self._known_pair_choice: tuple[dict[str, Any] | None, str] | None = None
        # an adaptive campaign's hand-out: the first open attention check, and the first open
        # ordinary task (of the pair drawn), other than the task on screen; the cheap tests
        # come first, so the queue's per-task counts run only on the tasks that pass them
        queue_test = queue.whereclause
        assert queue_test is not None  # open_pairs always filters
        self._queue_test = queue_test
        self._not_passing = ScheduledPair.id != bindparam("passing")
        self._open_check = (
            select(ScheduledPair.id, ScheduledPair.sequence)
            .where(ScheduledPair.gold_choice.is_not(None), self._not_passing, self._queue_test)
            .order_by(ScheduledPair.sequence)
            .limit(1)
        )
        #: the campaign's practice round for this annotator (answers checked, never stored)
        self.practice = PracticeRound(
            bundle,
            found.id,
            self.annotator_handle,
            self.protocol,
            self._output_context,
            settings,
            preview,
        )

    # --- the queue -----------------------------------------------------------------------------

    def _open_pairs(self) -> Select[Any]:
        return open_pairs(self._campaign_id, self._annotator_id)

    def _progress(self, session: Session, holding: int | None = None) -> Progress:
        """Answered so far, and open tasks left including ``holding`` (a task on screen stays
        the annotator's even if others have given it all its votes meanwhile), read from the
        campaign counters rather than recounted from the schedule."""
        counted = annotator_progress(session, self._campaign_id, self._annotator_id, holding)
        return Progress(
            counted.done,
            counted.remaining,
            counted.skipped,
            counted.campaign_tasks,
            counted.flagged,
        )

    def _is_answered(self, session: Session, pair_id: int) -> bool:
        return bool(session.connection().scalar(self._answered, {"pair": pair_id}))

    def _build(self, session: Session, pair_id: int) -> BlindTask:
        return build_task(
            session,
            session.connection().execute(self._task_columns, {"pair": pair_id}).one(),
            self.protocol,
            self._output_context,
            secrets.token_urlsafe(16),
            self._progress(session, holding=pair_id),
            swapped=self._swapped.get(pair_id, False),
        )

    def _show(self, session: Session, pair_id: int) -> BlindTask:
        task = self._build(session, pair_id)
        swapped = self._swapped.get(pair_id, False)
        self._shown = _Shown(task, pair_id, _now(), time.monotonic(), swapped)
        return task

    def _lock(self, session: Session, pair_id: int) -> Row[Any]:
        """The pair's row (its columns), locked until the transaction ends (a no-op on SQLite,
        whose writers hold the database's write lock from BEGIN). Read on the connection: an
        ORM object of it was never used, and loading one cost CPU at every vote."""
        return session.connection().execute(self._pair_row, {"pair": pair_id}).one()

    def _lease(self, session: Session, pair_id: int) -> None:
        """Take or renew this annotator's lease on a pair whose row the caller has locked, in
        the order the task is shown to them."""
        lease_pairs(session, [pair_id], self._annotator_id, self._lease_for, self._swapped)

    def _choose_order(self, session: Session, pair_id: int) -> None:
        connection = session.connection()  # the columns alone: an ORM object cost CPU per vote
        sequence, left, right = connection.execute(self._order_columns, {"pair": pair_id}).one()
        self._swapped[pair_id] = self._orders.choose(
            connection, pair_id, sequence, left, right, _now()
        )

    def _release(self, session: Session, pair_id: int) -> None:
        release_leases(session, [pair_id], self._annotator_id)

    def _claim(self, session: Session, passing: int | None = None) -> int | None:
        """Lock and lease the first open pair in sequence order other than ``passing`` (the
        task on screen, open to this annotator until answered), in the caller's write
        transaction; None when none is left. An adaptive campaign chooses the pair instead
        (:meth:`_claim_adaptive`)."""
        connection = session.connection()  # Core statements: the ORM's execution path is unused
        if self._pair_choice(connection.scalar(self._settings)) == ADAPTIVE:
            return self._claim_adaptive(session, passing)
        after = -1
        while True:
            candidate = connection.execute(self._next_open, {"now": _now(), "after": after}).first()
            if candidate is None:
                return None
            pair_id, after = candidate
            if pair_id == passing:
                continue
            # The candidate was chosen from a snapshot taken before its lock was granted; a new
            # statement sees what the lock's previous holder committed (its lease or vote). On
            # SQLite the write transaction began with the database's write lock, so the snapshot
            # is already the latest: no other writer can have committed since.
            if connection.dialect.name == "sqlite" or connection.scalar(
                self._still_open, {"now": _now(), "pair": pair_id}
            ):
                self._choose_order(session, pair_id)
                self._lease(session, pair_id)
                return pair_id

    def _pair_choice(self, settings: dict[str, Any] | None) -> str:
        """:func:`pair_choice` of the settings read at a hand-out, checked again only when they
        differ from the last ones read (checking them cost more than reading them)."""
        known = self._known_pair_choice
        if known is None or known[0] != settings:
            known = self._known_pair_choice = (
                copy.deepcopy(settings),
                pair_choice(settings, self.campaign_name),
            )
        return known[1]

    def _claim_adaptive(self, session: Session, passing: int | None) -> int | None:
        """Lease the task the adaptive rule chooses among those open to this annotator (other
        than ``passing``), logging the choice in the same transaction; an attention check
        comes first once it is due (see :func:`~workbench.services.adaptive_pairing.gold_due`),
        or when no other task is left."""
        # imported here: the rule's numpy and scipy are not loaded for uniform campaigns
        from workbench.services.adaptive_pairing import (
            ORIGIN_LEASE,
            candidates_and_unfinished,
            choose_tasks,
            gold_due,
            lock_campaign,
            of_pair,
        )

        lock_campaign(session, self._campaign_id)
        # statements after the lock: they see what the lock's previous holder committed
        connection = session.connection()
        values = {"now": _now(), "passing": passing if passing is not None else NOBODY}
        check = connection.execute(self._open_check, values).first()
        if check is not None and gold_due(session, self._campaign_id, check.sequence):
            pair_id: int = check.id
        else:
            campaign = session.get_one(Campaign, self._campaign_id)
            candidates, unfinished = candidates_and_unfinished(session, self._campaign_id)

            def first_open(number: int) -> int | None:
                statement = (
                    select(ScheduledPair.id)
                    .where(
                        ScheduledPair.campaign_id == self._campaign_id,
                        of_pair(candidates, number),
                        ScheduledPair.gold_choice.is_(None),
                        self._not_passing,
                        self._queue_test,
                    )
                    .order_by(ScheduledPair.sequence)
                    .limit(1)
                )
                return connection.scalar(statement, values)

            chosen = choose_tasks(
                session,
                campaign,
                self._annotator_id,
                unfinished,
                first_open,
                1,
                ORIGIN_LEASE,
                candidates,
            )
            if chosen:
                pair_id = chosen[0]
            elif check is not None:
                pair_id = check.id
            else:
                return None
        self._lock(session, pair_id)
        self._choose_order(session, pair_id)
        self._lease(session, pair_id)
        return pair_id

    def next_task(self) -> BlindTask | None:
        """The task to show: the one already shown and not yet answered (its lease renewed),
        else the next in the queue, leased to this annotator; None when this annotator has
        nothing left to do. A preview leases nothing."""
        if self.preview:
            return self._preview_task()
        with self.bundle.session() as session:
            shown = self._shown
            if shown is not None and not self._is_answered(session, shown.pair_id):
                self._lock(session, shown.pair_id)
                self._lease(session, shown.pair_id)
                return shown.task
            # a task read ahead stays leased to this annotator, so the queue hands it out again
            self._shown = self._ahead = None
            pair_id = self._claim(session)
        if pair_id is None:
            return None
        with self.bundle.read_session() as session:
            return self._show(session, pair_id)

    def _preview_task(self) -> BlindTask | None:
        with self.bundle.read_session() as session:
            if self._shown is not None:
                return self._shown.task
            pair_id = session.scalar(self._open_pairs().order_by(ScheduledPair.sequence).limit(1))
            return self._show(session, pair_id) if pair_id is not None else None

    def _refuse_in_preview(self) -> None:
        if self.preview:
            raise AnswerError("this is a preview: answers are not saved")

    def progress(self) -> Progress:
        with self.bundle.read_session() as session:
            return self._progress(session, self._shown.pair_id if self._shown else None)

    # --- answers -------------------------------------------------------------------------------

    def _current(self, token: str) -> _Shown:
        if self._shown is None or self._shown.task.token != token:
            raise StaleTaskError("this task is no longer the current one; show the next task")
        return self._shown

    def _store(
        self,
        shown: _Shown,
        rows: list[tuple[str, str | None, float | None]],
        comment: str | None,
        skip_reason: str | None,
        claim_next: bool = False,
        following: int | None = None,
    ) -> tuple[VoteReceipt, int | None]:
        """Store the answer rows; with ``claim_next``, also claim the next task in the same
        transaction, and return its pair id. ``following`` is the task already on screen in
        its place (a read-ahead one): its lease is renewed in the same transaction, and the
        task claimed is the one after it."""
        cast_at = _now()
        claimed = None
        duration_ms = round((time.monotonic() - shown.started) * 1000)
        uuids = []
        with self.bundle.session() as session:
            # The lock makes a second answer from this annotator (another window, another
            # machine) wait for the first and then see it.
            pair = self._lock(session, shown.pair_id)
            if self._is_answered(session, shown.pair_id):
                if following is None:
                    self._shown = None
                raise StaleTaskError("this task was answered already; show the next task")
            with counting(session, [pair.id]):
                votes = []
                for position, (criterion, shown_choice, grade) in enumerate(rows):
                    # stored in the task's scheduled terms, whatever order was shown
                    choice = swap_sides(shown_choice) if shown.swapped else shown_choice
                    vote_uuid = uuid.uuid4().hex
                    uuids.append(vote_uuid)
                    votes.append(
                        {
                            "uuid": vote_uuid,
                            "campaign_id": self._campaign_id,
                            "pair_id": pair.id,
                            "annotator_id": self._annotator_id,
                            "item_id": pair.item_id,
                            "turn_index": pair.turn_index,
                            "criterion": criterion,
                            "model_a_id": pair.left_model_id,
                            "model_b_id": pair.right_model_id,
                            "choice": choice,
                            "grade": grade,
                            "comment": comment if position == 0 else None,
                            "skip_reason": skip_reason,
                            "shown_at": shown.shown_at,
                            "cast_at": cast_at,
                            "duration_ms": duration_ms,
                            "retracted_at": None,
                            "shown_swapped": shown.swapped,
                        }
                    )
                # an INSERT of the rows, not Vote objects through the unit of work (whose
                # flush cost more CPU than the vote's SQL)
                session.connection().execute(_VOTE, votes)
                self._release(session, pair.id)
            if following is not None:
                self._lock(session, following)
                self._lease(session, following)
            if claim_next:
                claimed = self._claim(session, passing=following)
        # the transaction has committed: only now is the vote confirmed and the task released
        if following is None:
            self._shown = None
        log.debug("stored %d vote row(s): %s", len(uuids), ", ".join(uuids))
        # Counting the open tasks again costs a scan of the campaign per vote (most of a vote's
        # time on a large campaign); the next task shown recounts anyway.
        before = shown.task.progress
        return VoteReceipt(tuple(uuids), before.after_answer()), claimed

    def cast(self, token: str, answers: Answers, comment: str | None = None) -> VoteReceipt:
        """Store the answer to the task ``token`` names; returns once it is committed.

        ``answers`` maps each criterion to a choice value (or a grade); a protocol with one
        criterion takes the bare value. The choice is about positions ("a" = Response 1); the
        stored vote is in the task's scheduled order, with the order shown beside it.
        """
        self._refuse_in_preview()
        shown = self._current(token)
        comment = (comment or "").strip() or None
        rows = answer_rows(self.protocol, answers, comment)
        return self._store(shown, rows, comment, None)[0]

    def cast_and_next(
        self, token: str, answers: Answers, comment: str | None = None
    ) -> tuple[VoteReceipt, BlindTask | None]:
        """:meth:`cast`, then :meth:`next_task`, with the vote and the next task's lease in one
        transaction: one commit (one fsync on a bundle file) per answer instead of two. The vote
        is still committed before the next task is shown, since they commit together."""
        self._refuse_in_preview()
        shown = self._current(token)
        comment = (comment or "").strip() or None
        rows = answer_rows(self.protocol, answers, comment)
        self._ahead = None  # still leased to this annotator: the claim below finds it again
        receipt, pair_id = self._store(shown, rows, comment, None, claim_next=True)
        if pair_id is None:
            return receipt, None
        with self.bundle.read_session() as session:
            return receipt, self._show(session, pair_id)

    # --- reading ahead -------------------------------------------------------------------------

    def read_ahead(self) -> BlindTask | None:
        """Lease and build the task that follows the one on screen, while the annotator reads
        it (a worker calls this), so that :meth:`answer_ahead` can show it without waiting for
        the disk; None when nothing follows. The lease is what makes it this annotator's: a
        crash or a closed window leaves it leased to them, and their queue hands it out again.
        """
        if self.preview or self._shown is None:
            return None
        shown = self._shown
        ahead = self._ahead
        if ahead is not None and ahead.after == shown.pair_id:
            return ahead.task
        with self.bundle.session() as session:
            pair_id = self._claim(session, passing=shown.pair_id)
        return self._build_ahead(pair_id, shown.pair_id)

    def _build_ahead(self, pair_id: int | None, after: int) -> BlindTask | None:
        if pair_id is None:
            self._ahead = None
            return None
        leased = time.monotonic()
        with self.bundle.read_session() as session:
            task = self._build(session, pair_id)
        self._ahead = _Ahead(task, pair_id, after, leased, self._swapped.get(pair_id, False))
        return task

    def answer_ahead(
        self, token: str, answers: Answers, comment: str | None = None
    ) -> tuple[PendingAnswer, BlindTask] | None:
        """Take the answer to the task ``token`` names and make the task read ahead the current
        one, without touching the bundle (the GUI thread calls this at the vote key); the answer
        is stored by :meth:`commit`, and :meth:`take_back` returns to it if that fails. None,
        and nothing changed, when no task was read ahead for this one, or its lease is half
        gone (then :meth:`cast_and_next` claims afresh)."""
        self._refuse_in_preview()
        shown = self._current(token)
        ahead = self._ahead
        if ahead is None or ahead.after != shown.pair_id:
            return None
        if time.monotonic() - ahead.leased > self._lease_for.total_seconds() / 2:
            return None
        comment = (comment or "").strip() or None
        rows = answer_rows(self.protocol, answers, comment)
        before = ahead.task.progress
        # counted before this answer: one more done, one fewer left (as VoteReceipt counts); a
        # flag raised after the task ahead was read is counted on the task on screen
        flagged = max(before.flagged, shown.task.progress.flagged)
        task = replace(ahead.task, progress=replace(before.after_answer(), flagged=flagged))
        following = _Shown(task, ahead.pair_id, _now(), time.monotonic(), ahead.swapped)
        self._shown, self._ahead = following, None
        return PendingAnswer(shown, tuple(rows), comment, following, ahead), task

    def commit(self, pending: PendingAnswer) -> tuple[VoteReceipt, BlindTask | None]:
        """Store an answer given with :meth:`answer_ahead` (a worker calls this): in one
        transaction the votes, the renewed lease of the task now on screen and the lease of the
        one after it, which is then built and returned (None when nothing follows, or it could
        not be read: the vote is stored all the same). Raises StaleTaskError when the task was
        answered already (from another window); any other error leaves nothing stored."""
        following = pending.following.pair_id
        receipt, claimed = self._store(
            pending.answered,
            list(pending.rows),
            pending.comment,
            None,
            claim_next=True,
            following=following,
        )
        if self._shown is not pending.following:
            return receipt, None  # undone or moved on meanwhile: nothing to read ahead for
        try:
            return receipt, self._build_ahead(claimed, following)
        except Exception:  # the vote is committed; the next vote claims afresh instead
            log.exception("reading the next task ahead failed")
            self._ahead = None
            return receipt, None

    def take_back(self, pending: PendingAnswer) -> BlindTask:
        """Return to the task of an answer whose :meth:`commit` failed (the answer was not
        stored): it is the current one again, and the task shown meanwhile is the one read
        ahead for it again. Returns the task to show."""
        if self._shown is pending.following:
            self._shown, self._ahead = pending.answered, pending.ahead
        return pending.answered.task

    def check_practice(
        self, token: str, answers: Answers, comment: str | None = None
    ) -> PracticeFeedback:
        """Check the answer to the practice task ``token`` names, as :meth:`cast` checks a real
        one, and say whether it was the expected answer; nothing is stored."""
        comment = (comment or "").strip() or None
        return self.practice.check(token, answer_rows(self.protocol, answers, comment))

    def flag(
        self, token: str, reason: str, response: int | None = None, note: str = ""
    ) -> Progress:
        """Flag the task ``token`` names (``reason`` one of ``services.flags.FLAG_REASONS``):
        about the item, or with ``response`` (0 for Response 1, 1 for Response 2) about that
        answer, mapped to its model through the order the task is shown in. The task stays on
        screen, to be answered (or skipped) as usual; returns its progress with the flag
        counted."""
        self._refuse_in_preview()
        shown = self._current(token)
        with self.bundle.session() as session:
            pair = session.get_one(ScheduledPair, shown.pair_id)
            model_id = None
            if response is not None:
                sides = [pair.left_model_id, pair.right_model_id][: self.protocol.output_count]
                if shown.swapped:
                    sides.reverse()
                if not 0 <= response < len(sides):
                    raise AnswerError("this task has no such response to flag")
                model_id = sides[response]
            add_flag(
                session,
                item_id=pair.item_id,
                model_id=model_id,
                reason=reason,
                note=note,
                origin=ANNOTATOR,
                campaign_id=self._campaign_id,
                pair_id=pair.id,
                annotator_id=self._annotator_id,
            )
            session.flush()
            flagged = tasks_flagged_by(session, self._campaign_id, self._annotator_id)
        progress = replace(shown.task.progress, flagged=flagged)
        if self._shown is shown:
            self._shown = replace(shown, task=replace(shown.task, progress=progress))
        return progress

    def skip(self, token: str, reason: str) -> VoteReceipt:
        """Pass over the task with a reason; it is not shown to this annotator again (undo
        brings it back) and still counts as needing votes from others."""
        self._refuse_in_preview()
        shown = self._current(token)
        reason = reason.strip()
        if not reason:
            raise AnswerError("say why you skip this task")
        return self._store(shown, [(self.protocol.criteria[0].name, None, None)], None, reason)[0]

    def undo(self) -> BlindTask | None:
        """Retract this annotator's last answer (or skip) in the campaign and make its task the
        current one again, leased to them; None when there is nothing to undo. The rows stay,
        marked retracted."""
        self._refuse_in_preview()
        with self.bundle.session() as session:
            last = session.scalar(
                select(Vote)
                .where(
                    Vote.campaign_id == self._campaign_id,
                    Vote.annotator_id == self._annotator_id,
                    Vote.retracted_at.is_(None),
                    Vote.pair_id.is_not(None),
                )
                .order_by(Vote.cast_at.desc(), Vote.id.desc())
                .limit(1)
            )
            if last is None:
                return None
            # what was read ahead stays leased to this annotator: the queue hands it out again
            self._ahead = None
            pair_id = last.pair_id
            assert pair_id is not None
            self._lock(session, pair_id)
            standing = session.execute(
                select(
                    Vote.criterion, Vote.choice, Vote.grade, Vote.comment, Vote.shown_swapped
                ).where(
                    Vote.pair_id == pair_id,
                    Vote.annotator_id == self._annotator_id,
                    Vote.retracted_at.is_(None),
                    Vote.skip_reason.is_(None),
                )
            ).all()
            self._swapped[pair_id] = last.shown_swapped
            taken: dict[str, Answer] = {}
            for criterion, choice, grade, _comment, swapped in standing:
                # back in the terms of the order the task is shown in again
                shown_choice = swap_sides(choice) if swapped else choice
                answer = shown_choice if shown_choice is not None else grade
                if criterion is not None and answer is not None:
                    taken[criterion] = answer
            self.taken_back = taken
            self.taken_back_comment = next((row.comment for row in standing if row.comment), None)
            with counting(session, [pair_id]):
                session.execute(
                    update(Vote)
                    .where(
                        Vote.pair_id == pair_id,
                        Vote.annotator_id == self._annotator_id,
                        Vote.retracted_at.is_(None),
                    )
                    .values(retracted_at=_now())
                )
                self._lease(session, pair_id)
        with self.bundle.read_session() as session:
            return self._show(session, pair_id)
