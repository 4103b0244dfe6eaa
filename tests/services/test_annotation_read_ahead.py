"""Reading the next task ahead: the task after the one on screen is leased and built
while the annotator reads, the vote key makes it current without touching the bundle, and the
vote is committed afterwards; what was not committed is not lost, nor is any task."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import event, func, select

from tests.backends import BundleBackend
from tests.services.campaign_helpers import MODELS, build_campaign_bundle
from tests.services.test_campaigns_voting import PLUGINS, make_campaign
from workbench.services.campaign_errors import AnswerError, StaleTaskError
from workbench.services.campaigns import add_annotator, campaign_details
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import PairLease, Vote


@pytest.fixture(scope="module")
def template(bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory) -> Path | str:
    return build_campaign_bundle(
        tmp_path_factory.mktemp("read-ahead"), items=3, into=bundle_backend.new_location()
    )


@pytest.fixture
def bundle(template: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    with bundle_backend.opened_copy(template) as opened:
        add_annotator(opened, "ann")
        add_annotator(opened, "bob")
        make_campaign(opened, "arena-battle", models=list(MODELS[:2]), votes_per_pair=1)
        yield opened


def votes(bundle: Bundle) -> int:
    with bundle.read_session() as session:
        return session.execute(
            select(func.count()).select_from(Vote).where(Vote.retracted_at.is_(None))
        ).scalar_one()


T = TypeVar("T")


def statements_during(bundle: Bundle, action: Callable[[], T]) -> tuple[T, list[str]]:
    """``action()``'s result and the SQL statements it ran."""
    ran: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        ran.append(statement)

    event.listen(bundle.engine, "before_cursor_execute", record)
    try:
        return action(), ran
    finally:
        event.remove(bundle.engine, "before_cursor_execute", record)


def test_the_task_read_ahead_is_leased_and_shown_at_the_vote_without_the_disk(
    bundle: Bundle,
) -> None:
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    bob = AnnotationSession(bundle, "c", "bob", PLUGINS)
    first = ann.next_task()
    ahead = ann.read_ahead()
    assert first is not None and ahead is not None and ahead.turns != first.turns
    assert ann.read_ahead() is ahead  # read once per task on screen
    third = bob.next_task()  # both of ann's tasks are leased to her: bob gets the last
    assert third is not None and third.turns not in (first.turns, ahead.turns)
    given, ran = statements_during(bundle, lambda: ann.answer_ahead(first.token, "a"))
    assert ran == []  # nothing read or written at the key
    assert given is not None
    pending, shown = given
    assert shown.token == ahead.token and shown.turns == ahead.turns
    assert shown.progress.done == first.progress.done + 1
    assert votes(bundle) == 0  # not stored until committed
    with pytest.raises(StaleTaskError):  # the answered task has left the screen
        ann.cast(first.token, "b")
    receipt, after = ann.commit(pending)
    assert votes(bundle) == 1 and len(receipt.uuids) == 1
    assert after is None  # the last task is bob's
    bob.cast(third.token, "b")
    ann.cast(shown.token, "tie")  # the task shown at the key is the current one
    assert ann.next_task() is None
    assert campaign_details(bundle, "c")["complete_tasks"] == 3


def test_commit_stores_the_vote_renews_the_lease_and_reads_the_next_one_ahead(
    bundle: Bundle,
) -> None:
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    first = ann.next_task()
    assert first is not None
    ahead = ann.read_ahead()
    answered = ann.answer_ahead(first.token, "a")
    assert answered is not None
    pending, second = answered
    with bundle.read_session() as session:
        leased_before = session.scalar(select(func.max(PairLease.leased_at)))
        assert leased_before is not None
    commits: list[int] = []

    def count(_connection: object) -> None:
        commits.append(1)

    event.listen(bundle.engine, "commit", count)
    try:
        _receipt, third = ann.commit(pending)
    finally:
        event.remove(bundle.engine, "commit", count)
    # one write (the vote, the renewed lease and the next lease), then the next task's read:
    # as many as cast_and_next, the step before read-ahead
    assert len(commits) == 2
    assert third is not None
    assert second is not None
    assert third is not None and third.turns not in (first.turns, second.turns)
    assert ann.read_ahead() is third  # already read: no second lease
    with bundle.read_session() as session:
        leases = session.scalars(select(PairLease)).all()
    assert len(leases) == 2  # the task on screen (renewed) and the one after it
    assert max(lease.leased_at for lease in leases) > leased_before
    assert ahead is not None and second.token == ahead.token


def test_a_crash_before_the_commit_loses_the_unconfirmed_answer_only(bundle: Bundle) -> None:
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    first = ann.next_task()
    assert first is not None
    ann.read_ahead()
    answered = ann.answer_ahead(first.token, "a")
    assert answered is not None
    _pending, second = answered
    # the process dies here: the answer was never confirmed ("Saving…" on the page)
    again = AnnotationSession(bundle, "c", "ann", PLUGINS)
    resumed = again.next_task()
    assert resumed is not None
    assert resumed is not None and resumed.turns == first.turns
    again.cast(resumed.token, "a")
    following = again.next_task()  # the task read ahead is still hers, next in her queue
    assert following is not None and following.turns == second.turns
    assert votes(bundle) == 1


def test_take_back_returns_to_the_answered_task_with_the_same_read_ahead(bundle: Bundle) -> None:
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    first = ann.next_task()
    assert first is not None
    ahead = ann.read_ahead()
    assert ahead is not None
    answered = ann.answer_ahead(first.token, "a")
    assert answered is not None
    pending, _shown = answered
    assert ann.take_back(pending) is first
    read, ran = statements_during(bundle, ann.read_ahead)
    assert read is ahead and ran == []
    given = ann.answer_ahead(first.token, "b")  # the answer given again, as with Enter
    assert given is not None and given[1] is not None and given[1].token == ahead.token
    ann.commit(given[0])
    with bundle.read_session() as session:
        assert session.scalars(select(Vote.choice)).all() == ["b"]


def test_bad_answers_are_refused_at_the_key_and_change_nothing(bundle: Bundle) -> None:
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    first = ann.next_task()
    assert first is not None
    ann.read_ahead()
    with pytest.raises(AnswerError):
        assert first is not None
        ann.answer_ahead(first.token, "no-such-choice")
    given = ann.answer_ahead(first.token, "a")  # still the current task, still read ahead
    assert given is not None


def test_without_a_fresh_read_ahead_the_vote_key_falls_back(
    bundle: Bundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    first = ann.next_task()
    assert first is not None
    assert ann.answer_ahead(first.token, "a") is None  # nothing read ahead yet
    ahead = ann.read_ahead()
    assert ahead is not None
    later = time.monotonic() + 16 * 60  # more than half the 30-minute lease
    monkeypatch.setattr(time, "monotonic", lambda: later)
    assert ann.answer_ahead(first.token, "a") is None
    monkeypatch.undo()
    _receipt, second = ann.cast_and_next(first.token, "a")  # the step before read-ahead
    assert second is not None and second.turns == ahead.turns  # the same task, leased anew


def test_undo_and_skip_keep_every_task_in_the_queue(bundle: Bundle) -> None:
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    first = ann.next_task()
    assert first is not None
    ann.read_ahead()
    answered = ann.answer_ahead(first.token, "a")
    assert answered is not None
    pending, second = answered
    ann.commit(pending)  # reads the third ahead
    undone = ann.undo()
    assert undone is not None
    assert undone is not None and undone.turns == first.turns
    ann.skip(undone.token, "unreadable")
    seen = []
    while (task := ann.next_task()) is not None:
        seen.append(task.turns)
        ann.read_ahead()
        ann.cast(task.token, "b")
    assert second is not None
    assert len(seen) == 2 and second.turns in seen and first.turns not in seen
    assert ann.progress().done == 3 and ann.progress().remaining == 0
