"""Campaign progress counters, kept in the same transaction as the writes they count.

Every writer of votes or leases wraps its change in :func:`counting` with the tasks it touches;
the block locks those tasks, reads their standing answers, skips and leases before and after,
and moves the campaign, task and annotator counters by the difference. Counting the difference
of whole task states (instead of "+1 for a vote") is what keeps every writer right without it
knowing the rules: a pack merge, an undo or a lease renewal all go through the same arithmetic.
Writers that copy rows wholesale (a push, a pull, the migration) call :func:`rebuild_counters`.

What counts, matching the task queue in ``services.voting``: an annotator *answered* a task
when they hold a vote on it that is not retracted and not a skip; they *skipped* it when all
their standing rows on it are skips. A task is *open* while it is an attention check or has
fewer answers than its votes target.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Connection,
    Insert,
    Select,
    Table,
    bindparam,
    case,
    delete,
    exists,
    func,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from workbench.storage.batching import chunked
from workbench.storage.judgment_counts import changing_votes
from workbench.storage.models import (
    Base,
    Campaign,
    CampaignAnnotatorCount,
    CampaignCount,
    CampaignPairCount,
    Flag,
    PairLease,
    ScheduledPair,
    Vote,
)

Executor = Session | Connection


@dataclass(frozen=True, slots=True)
class _PairState:
    campaign_id: int
    votes_target: int
    is_gold: bool
    answerers: frozenset[int] = field(default_factory=frozenset)
    skippers: frozenset[int] = field(default_factory=frozenset)
    leases: int = 0

    @property
    def is_open(self) -> bool:
        return self.is_gold or len(self.answerers) < self.votes_target

    def touched_by(self, annotator_id: int) -> bool:
        return annotator_id in self.answerers or annotator_id in self.skippers


#: built upsert statements by (dialect, table, columns, added columns): building one (an
#: INSERT ... ON CONFLICT with its SET clause) cost more CPU than running it, once per counter
#: row per vote
_UPSERTS: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], Insert] = {}


def _upsert(
    executor: Executor, table: type[Base], row: dict[str, int], added: Iterable[str]
) -> None:
    """Insert ``row``, or, when its key is stored, add its ``added`` columns to the stored row."""
    bind = executor.get_bind() if isinstance(executor, Session) else executor
    name = "postgresql" if bind.dialect.name == "postgresql" else "sqlite"
    mapped = cast(Table, table.__table__)  # a declarative model's table is a Table
    added = tuple(added)
    key = (name, mapped.name, tuple(row), added)
    statement = _UPSERTS.get(key)
    if statement is None:
        dialect = postgresql if name == "postgresql" else sqlite
        inserting = dialect.insert(mapped).values({column: bindparam(column) for column in row})
        # ``excluded`` is the row that was to be inserted: the stored row grows by its values
        statement = inserting.on_conflict_do_update(
            index_elements=[column.name for column in mapped.primary_key.columns],
            set_={column: mapped.c[column] + inserting.excluded[column] for column in added},
        )
        _UPSERTS[key] = statement
    # on the session's connection: a Core statement run through the session pays for the ORM's
    # execution path, which it does not use
    (executor.connection() if isinstance(executor, Session) else executor).execute(statement, row)


def _pair_states(session: Session, pair_ids: list[int], answers: bool) -> dict[int, _PairState]:
    """The tasks' states, locking their rows. Without ``answers`` (a block that writes leases
    only) no answer is read: a lease changes no answer and no task's openness, so the states
    then differ in their leases alone, which is all :func:`_apply` needs of them."""
    connection = session.connection()  # Core statements: see _upsert
    one = len(pair_ids) == 1
    ids = {"id": pair_ids[0]} if one else {"ids": pair_ids}
    pairs = connection.execute(_PAIR_ROW if one else _PAIR_ROWS, ids).all()
    found: dict[int, set[int]] = defaultdict(set)
    skipped: dict[int, set[int]] = defaultdict(set)
    if answers:
        for pair_id, annotator_id, has_answer in connection.execute(
            _ANSWERS_OF_PAIR if one else _ANSWERS_OF_PAIRS, ids
        ):
            (found if has_answer else skipped)[pair_id].add(annotator_id)
    return {
        pair_id: _PairState(
            campaign_id,
            target,
            bool(gold),
            frozenset(found.get(pair_id, ())),
            frozenset(skipped.get(pair_id, ())),
            leases,
        )
        for pair_id, campaign_id, target, gold, leases in pairs
    }


def _standing_answers(*where: ColumnElement[bool]) -> Select[int | None, int, Any]:
    """(task, annotator, 1 if answered else 0 for skipped) for every standing answer or skip."""
    return (
        select(
            Vote.pair_id,
            Vote.annotator_id,
            func.max(case((Vote.skip_reason.is_(None), 1), else_=0)),
        )
        .where(Vote.retracted_at.is_(None), Vote.pair_id.is_not(None), *where)
        .group_by(Vote.pair_id, Vote.annotator_id)
    )


def _pair_rows(which: ColumnElement[bool]) -> Select[Any]:
    """(task, campaign, votes target, is an attention check, leases) of the tasks ``which``
    selects, locking their rows."""
    return (
        select(
            ScheduledPair.id,
            ScheduledPair.campaign_id,
            ScheduledPair.votes_target,
            ScheduledPair.gold_choice.is_not(None),
            select(func.count())
            .where(PairLease.pair_id == ScheduledPair.id)
            .correlate(ScheduledPair)
            .scalar_subquery(),
        )
        .where(which)
        .order_by(ScheduledPair.id)
        .with_for_update(of=ScheduledPair)
    )


# Built once: a statement keeps its compiled form's cache key, so each block only binds ids
# (building the queries anew per vote cost more CPU than running them). A vote's blocks touch
# one task each, and a list of ids is spliced into the SQL at every execution (SQLAlchemy's
# "expanding" parameters): one task is named by a plain parameter instead.
_PAIR_ROWS = _pair_rows(ScheduledPair.id.in_(bindparam("ids", expanding=True)))
_PAIR_ROW = _pair_rows(ScheduledPair.id == bindparam("id"))
_ANSWERS_OF_PAIRS = _standing_answers(Vote.pair_id.in_(bindparam("ids", expanding=True)))
_ANSWERS_OF_PAIR = _standing_answers(Vote.pair_id == bindparam("id"))


def _apply(session: Session, before: _PairState, after: _PairState, pair_id: int) -> None:
    campaign = after.campaign_id
    votes = len(after.answerers) - len(before.answerers)
    skips = len(after.skippers) - len(before.skippers)
    leases = after.leases - before.leases
    closed = int(not after.is_open) - int(not before.is_open)
    if votes or skips or leases:
        _upsert(
            session,
            CampaignPairCount,
            {
                "pair_id": pair_id,
                "campaign_id": campaign,
                "votes": votes,
                "skips": skips,
                "leases": leases,
            },
            ("votes", "skips", "leases"),
        )
    if votes or skips or leases or closed:
        changes = {"complete_tasks": closed, "answered": votes, "skipped": skips, "leases": leases}
        _upsert(session, CampaignCount, {"campaign_id": campaign, **changes}, changes)
    people = before.answerers | before.skippers | after.answerers | after.skippers
    for annotator_id in people:
        changes = {
            "answered": int(annotator_id in after.answerers)
            - int(annotator_id in before.answerers),
            "skipped": int(annotator_id in after.skippers) - int(annotator_id in before.skippers),
            "answered_open": int(after.touched_by(annotator_id) and after.is_open)
            - int(before.touched_by(annotator_id) and before.is_open),
        }
        if any(changes.values()):
            _upsert(
                session,
                CampaignAnnotatorCount,
                {"campaign_id": campaign, "annotator_id": annotator_id, **changes},
                changes,
            )


@contextmanager
def counting(session: Session, pair_ids: Iterable[int], *, answers: bool = True) -> Iterator[None]:
    """Keep the counters right across the votes and leases the block writes on ``pair_ids``;
    ``answers=False`` for a block that writes leases only (no answer is read then).

    The tasks' rows are locked first (in id order, so two writers cannot deadlock on them), so
    the before and after states are this transaction's alone.
    """
    active: set[int] = session.info.setdefault("counting_pairs", set())
    # a writer inside another's block (a lease released while a vote is stored) is already
    # counted by the outer block: counting it twice would add its change twice
    ids = sorted(set(pair_ids) - active)
    if not ids:
        yield
        return
    session.flush()  # the states are read on the connection, which does not flush the session
    # the leaderboards' judgment counts move with the same votes (leases change no judgment)
    judgments = changing_votes(session, ids) if answers else nullcontext()
    with judgments:
        before = _pair_states(session, ids, answers)
        active.update(ids)
        try:
            yield
            session.flush()
        finally:
            active.difference_update(ids)
        after = _pair_states(session, ids, answers)
        for pair_id, state in after.items():
            _apply(session, before[pair_id], state, pair_id)


def rebuild_counters(executor: Executor, campaign_ids: Iterable[int] | None = None) -> None:
    """Recount the counters of ``campaign_ids`` (all campaigns when None) from the votes, leases
    and schedule: after rows were copied in wholesale, and by the migration that adds them."""
    if campaign_ids is None:
        wanted = list(executor.scalars(select(Campaign.id)))
    else:
        wanted = sorted(set(campaign_ids))
    if not wanted:
        return
    for table in (CampaignAnnotatorCount, CampaignPairCount, CampaignCount):
        executor.execute(delete(table).where(table.campaign_id.in_(wanted)))
    pairs = {
        pair_id: (campaign_id, target, bool(gold))
        for pair_id, campaign_id, target, gold in executor.execute(
            select(
                ScheduledPair.id,
                ScheduledPair.campaign_id,
                ScheduledPair.votes_target,
                ScheduledPair.gold_choice.is_not(None),
            ).where(ScheduledPair.campaign_id.in_(wanted))
        )
    }
    answerers: dict[int, set[int]] = defaultdict(set)
    skippers: dict[int, set[int]] = defaultdict(set)
    for pair_id, annotator_id, has_answer in executor.execute(
        _standing_answers(Vote.campaign_id.in_(wanted))
    ):
        if pair_id in pairs:
            (answerers if has_answer else skippers)[pair_id].add(annotator_id)
    leases = dict(
        executor.execute(
            select(PairLease.pair_id, func.count())
            .join(ScheduledPair, ScheduledPair.id == PairLease.pair_id)
            .where(ScheduledPair.campaign_id.in_(wanted))
            .group_by(PairLease.pair_id)
        ).all()
    )
    totals = {
        campaign_id: dict.fromkeys(
            ("tasks", "gold_tasks", "complete_tasks", "answered", "skipped", "leases"), 0
        )
        | {"campaign_id": campaign_id}
        for campaign_id in wanted
    }
    people: dict[tuple[int, int], dict[str, int]] = {}
    pair_rows = []
    for pair_id, (campaign_id, target, gold) in pairs.items():
        state = _PairState(
            campaign_id,
            target,
            gold,
            frozenset(answerers[pair_id]),
            frozenset(skippers[pair_id]),
            leases.get(pair_id, 0),
        )
        total = totals[campaign_id]
        total["tasks"] += 1
        total["gold_tasks"] += gold
        total["complete_tasks"] += not state.is_open
        total["answered"] += len(state.answerers)
        total["skipped"] += len(state.skippers)
        total["leases"] += state.leases
        if state.answerers or state.skippers or state.leases:
            pair_rows.append(
                {
                    "pair_id": pair_id,
                    "campaign_id": campaign_id,
                    "votes": len(state.answerers),
                    "skips": len(state.skippers),
                    "leases": state.leases,
                }
            )
        for annotator_id in state.answerers | state.skippers:
            row = people.setdefault(
                (campaign_id, annotator_id),
                {"campaign_id": campaign_id, "annotator_id": annotator_id}
                | dict.fromkeys(("answered", "skipped", "answered_open"), 0),
            )
            row["answered"] += annotator_id in state.answerers
            row["skipped"] += annotator_id in state.skippers
            row["answered_open"] += state.is_open
    # Core inserts of the tables (a declarative model's table is a Table), not ORM bulk inserts
    executor.execute(cast(Table, CampaignCount.__table__).insert(), list(totals.values()))
    pair_table = cast(Table, CampaignPairCount.__table__)
    for start in range(0, len(pair_rows), 5000):
        executor.execute(pair_table.insert(), pair_rows[start : start + 5000])
    if people:
        people_table = cast(Table, CampaignAnnotatorCount.__table__)
        executor.execute(people_table.insert(), list(people.values()))


# --- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnnotatorProgress:
    """Tasks an annotator answered or skipped (``done``; ``skipped`` of them skipped), open
    tasks left for them, the campaign's tasks (the same for every annotator), and the tasks
    they flagged (a flag keeps the task, so a flagged task is also answered, skipped or left)."""

    done: int
    remaining: int
    skipped: int = 0
    campaign_tasks: int = 0
    flagged: int = 0


_CAMPAIGN_OPEN = select(
    CampaignCount.tasks - CampaignCount.complete_tasks, CampaignCount.tasks
).where(CampaignCount.campaign_id == bindparam("campaign"))
_ANNOTATOR_COUNTS = select(
    CampaignAnnotatorCount.answered + CampaignAnnotatorCount.skipped,
    CampaignAnnotatorCount.answered_open,
    CampaignAnnotatorCount.skipped,
).where(
    CampaignAnnotatorCount.campaign_id == bindparam("campaign"),
    CampaignAnnotatorCount.annotator_id == bindparam("annotator"),
)
# Flags are few (and those raised by annotators carry their campaign, which is indexed).
_FLAGGED_BY = select(func.count(func.distinct(Flag.pair_id))).where(
    Flag.campaign_id == bindparam("campaign"),
    Flag.annotator_id == bindparam("annotator"),
    Flag.retracted_at.is_(None),
)
# Leases are few, so they are read first and the tasks they hold looked up by id (a join from
# the schedule's side would walk the whole campaign).
_LEASED_TO_OTHERS = (
    select(PairLease.pair_id, func.count())
    .where(
        PairLease.annotator_id != bindparam("annotator"), PairLease.expires_at > bindparam("now")
    )
    .group_by(PairLease.pair_id)
)
_NOT_ANSWERED_BY_THEM = ~exists().where(
    Vote.pair_id == ScheduledPair.id,
    Vote.annotator_id == bindparam("annotator"),
    Vote.retracted_at.is_(None),
)
_LEASED_TASKS = (
    select(
        ScheduledPair.id,
        ScheduledPair.votes_target,
        func.coalesce(CampaignPairCount.votes, 0),
    )
    .outerjoin(CampaignPairCount, CampaignPairCount.pair_id == ScheduledPair.id)
    .where(
        ScheduledPair.id.in_(bindparam("ids", expanding=True)),
        ScheduledPair.campaign_id == bindparam("campaign"),
        ScheduledPair.gold_choice.is_(None),
        _NOT_ANSWERED_BY_THEM,
    )
)
_OPEN_FOR = (
    select(ScheduledPair.id)
    .outerjoin(CampaignPairCount, CampaignPairCount.pair_id == ScheduledPair.id)
    .where(
        ScheduledPair.id == bindparam("pair"),
        (ScheduledPair.gold_choice.is_not(None))
        | (func.coalesce(CampaignPairCount.votes, 0) < ScheduledPair.votes_target),
        _NOT_ANSWERED_BY_THEM,
    )
)


def annotator_progress(
    session: Session,
    campaign_id: int,
    annotator_id: int,
    holding: int | None = None,
    now: datetime | None = None,
) -> AnnotatorProgress:
    """Read from the counters: what the task queue (``services.voting.open_pairs``) would count,
    without scanning the schedule. Open tasks others hold unexpired leases on, enough to fill
    them, are left out (the leases are few: one per annotator at work, or a pack's); a task on
    screen (``holding``) stays the annotator's and is counted even if others filled it."""
    now = now or datetime.now(UTC)
    who = {"campaign": campaign_id, "annotator": annotator_id}
    connection = session.connection()  # Core statements: see _upsert
    campaign = connection.execute(_CAMPAIGN_OPEN, who).first()
    open_tasks, tasks = (campaign[0], campaign[1]) if campaign is not None else (0, 0)
    mine = connection.execute(_ANNOTATOR_COUNTS, who).first()
    done, answered_open, skipped = (mine[0], mine[1], mine[2]) if mine is not None else (0, 0, 0)
    open_for_me = open_tasks - answered_open
    leased = dict(connection.execute(_LEASED_TO_OTHERS, {**who, "now": now}).all())
    filled: set[int] = set()
    for chunk in chunked(list(leased), 500):
        for pair_id, target, votes in connection.execute(_LEASED_TASKS, {**who, "ids": chunk}):
            if votes < target <= votes + leased[pair_id]:
                filled.add(pair_id)
    remaining = open_for_me - len(filled)
    if holding is not None and (
        holding in filled
        or connection.scalar(_OPEN_FOR, {"pair": holding, "annotator": annotator_id}) is None
    ):
        remaining += 1
    return AnnotatorProgress(
        done,
        max(remaining, 0),
        skipped,
        tasks,
        tasks_flagged_by(session, campaign_id, annotator_id),
    )


def tasks_flagged_by(session: Session, campaign_id: int, annotator_id: int) -> int:
    """The campaign's tasks the annotator flagged (flags that stand)."""
    who = {"campaign": campaign_id, "annotator": annotator_id}
    return session.connection().scalar(_FLAGGED_BY, who) or 0
