"""Lease-based hand-out of annotation tasks: annotators working at once are never given the
same task beyond its votes target; an expired lease frees the task; a second answer from the
same annotator is refused; and a bundle from before leases migrates with its data."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import func, select, update

from tests.backends import BundleBackend, Location
from tests.services.campaign_helpers import (
    MODELS,
    build_campaign_bundle,
    registry_with_all_protocols,
    same_task,
)
from workbench.services.campaign_errors import StaleTaskError
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import DEFAULT_LEASE, AnnotationSession
from workbench.storage import Bundle, head_revision
from workbench.storage.bundle import _alembic_config
from workbench.storage.dialects import make_engine, parse_location
from workbench.storage.models import Campaign, PairLease, ScheduledPair, Vote

PLUGINS = registry_with_all_protocols()
ANNOTATORS = tuple(f"annotator-{n:02d}" for n in range(8))


@pytest.fixture(scope="module")
def template(bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory) -> Location:
    location = build_campaign_bundle(
        tmp_path_factory.mktemp("leases"), items=4, into=bundle_backend.new_location()
    )
    with Bundle.open(location) as bundle:
        for handle in ANNOTATORS:
            add_annotator(bundle, handle)
    return location


@pytest.fixture
def bundle(template: Location, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    with bundle_backend.opened_copy(template) as opened:
        yield opened


def campaign(bundle: Bundle, votes_per_pair: int = 1, models: int = 2) -> int:
    """An arena campaign; returns its number of tasks."""
    spec = CampaignSpec(
        "c", "arena-battle", models=list(MODELS[:models]), seed=4, votes_per_pair=votes_per_pair
    )
    return create_campaign(bundle, spec, PLUGINS).tasks


def session(bundle: Bundle, handle: str) -> AnnotationSession:
    return AnnotationSession(bundle, "c", handle, PLUGINS)


def leases(bundle: Bundle) -> list[tuple[int, int, datetime, datetime]]:
    with bundle.read_session() as read:
        return [
            (row[0], row[1], row[2], row[3])
            for row in read.execute(
                select(
                    PairLease.pair_id,
                    PairLease.annotator_id,
                    PairLease.leased_at,
                    PairLease.expires_at,
                )
            )
        ]


def expire_leases(bundle: Bundle) -> None:
    with bundle.session() as write:
        write.execute(update(PairLease).values(expires_at=datetime.now(UTC) - timedelta(1)))


def test_the_last_vote_of_a_task_is_handed_to_one_annotator(bundle: Bundle) -> None:
    tasks = campaign(bundle)
    sessions = [session(bundle, handle) for handle in ANNOTATORS[: tasks + 1]]
    handed = [s.next_task() for s in sessions]
    shown = [repr(task.turns) for task in handed[:tasks] if task is not None]
    assert len(set(shown)) == tasks  # each annotator got a different task
    assert handed[tasks] is None  # every task is leased: nothing left for the last one
    held = leases(bundle)
    assert len(held) == tasks and {expires - leased for *_, leased, expires in held} == {
        DEFAULT_LEASE
    }
    # answering releases the lease; the task is full, so the late annotator still gets nothing
    first = sessions[0]
    first_task = handed[0]
    assert first_task is not None
    first.cast(first_task.token, "a")
    assert len(leases(bundle)) == tasks - 1
    assert sessions[tasks].next_task() is None


def test_with_two_votes_left_one_lease_holds_one_of_them(bundle: Bundle) -> None:
    tasks = campaign(bundle, votes_per_pair=2)
    ann, bob, cat = (session(bundle, handle) for handle in ANNOTATORS[:3])
    first = ann.next_task()
    assert first is not None
    ann.cast(first.token, "a")  # one vote of two given
    bobs = bob.next_task()
    assert bobs is not None
    # the first task still needs a vote: bob holds it now (shown the other way round)
    assert same_task(bobs.turns, first.turns)
    cats = cat.next_task()
    assert cats is not None
    assert not same_task(cats.turns, first.turns)
    assert cats.progress.remaining == tasks - 1


def test_an_expired_lease_frees_the_task(bundle: Bundle) -> None:
    campaign(bundle, models=2)
    ann, bob = session(bundle, ANNOTATORS[0]), session(bundle, ANNOTATORS[1])
    held = ann.next_task()
    assert held is not None
    given = bob.next_task()
    assert given is not None
    assert given.turns != held.turns
    expire_leases(bundle)
    other = session(bundle, ANNOTATORS[2])
    given = other.next_task()
    assert given is not None
    assert given.turns == held.turns
    # ann answers after the lease expired: the vote is still stored (it is ann's work)
    receipt = ann.cast(held.token, "a")
    with bundle.read_session() as read:
        assert read.scalar(select(func.count()).where(Vote.uuid.in_(receipt.uuids))) == 1


def test_a_campaign_setting_overrides_the_lease(bundle: Bundle) -> None:
    campaign(bundle)
    with bundle.session() as write:
        found = write.scalars(select(Campaign)).one()
        found.settings = {**found.settings, "lease_minutes": 2}
    session(bundle, ANNOTATORS[0]).next_task()
    ((_pair, _annotator, leased_at, expires_at),) = leases(bundle)
    assert expires_at - leased_at == timedelta(minutes=2)


def test_a_second_answer_from_the_same_annotator_is_refused(bundle: Bundle) -> None:
    campaign(bundle)
    window, other_window = session(bundle, ANNOTATORS[0]), session(bundle, ANNOTATORS[0])
    task = window.next_task()
    assert task is not None
    again = other_window.next_task()
    assert again is not None
    assert again.turns == task.turns  # their own lease does not hide the task from them
    window.cast(task.token, "a")
    with pytest.raises(StaleTaskError, match="answered already"):
        assert again is not None
        other_window.cast(again.token, "b")
    with bundle.read_session() as read:
        assert read.scalar(select(func.count()).select_from(Vote)) == 1


def test_undo_leases_the_task_again(bundle: Bundle) -> None:
    campaign(bundle)
    ann = session(bundle, ANNOTATORS[0])
    task = ann.next_task()
    assert task is not None
    ann.cast(task.token, "a")
    assert leases(bundle) == []
    given = ann.undo()
    assert given is not None
    assert given.turns == task.turns
    assert [row[1] for row in leases(bundle)] == [ann._annotator_id]
    given = session(bundle, ANNOTATORS[1]).next_task()
    assert given is not None
    assert given.turns != task.turns


def test_concurrent_hand_out_gives_distinct_tasks(bundle: Bundle) -> None:
    tasks = campaign(bundle, models=4)
    assert tasks >= 2 * len(ANNOTATORS)
    start, handed = threading.Barrier(len(ANNOTATORS)), threading.Barrier(len(ANNOTATORS))
    voted: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def annotate(handle: str) -> None:
        try:
            mine = session(bundle, handle)
            start.wait()
            first = mine.next_task()  # everyone asks at the same moment
            assert first is not None
            handed.wait()  # and holds the first task until all have one
            voted[handle] = [repr(first.turns)]
            mine.cast(first.token, "a")
            while (task := mine.next_task()) is not None:
                voted[handle].append(repr(task.turns))
                mine.cast(task.token, "b")
        except BaseException as error:  # reported below, with the thread's name
            errors.append(error)

    threads = [threading.Thread(target=annotate, args=(h,), name=h) for h in ANNOTATORS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    firsts = [shown[0] for shown in voted.values()]
    assert len(set(firsts)) == len(ANNOTATORS)
    with bundle.read_session() as read:
        per_pair = Counter(read.scalars(select(Vote.pair_id)))
        pair_count = read.scalar(select(func.count()).select_from(ScheduledPair))
    assert pair_count == tasks and set(per_pair.values()) == {1} and len(per_pair) == tasks
    assert sum(len(shown) for shown in voted.values()) == tasks


def table_counts(bundle: Bundle) -> dict[str, int]:
    with bundle.read_session() as read:
        return {
            model.__tablename__: read.execute(select(func.count()).select_from(model)).scalar_one()
            for model in (Campaign, ScheduledPair, Vote)
        }


def test_a_bundle_from_before_leases_migrates_with_its_data(
    template: Location, bundle_backend: BundleBackend
) -> None:
    location = bundle_backend.copy(template)
    with Bundle.open(location) as bundle:
        campaign(bundle)
        ann = session(bundle, ANNOTATORS[0])
        for _ in range(2):
            task = ann.next_task()
            assert task is not None
            ann.cast(task.token, "a")
        before = table_counts(bundle)
    engine = make_engine(parse_location(location))
    try:
        with engine.begin() as connection:
            command.downgrade(_alembic_config(connection), "0001")
    finally:
        engine.dispose()
    with Bundle.open(location) as bundle:
        assert bundle.revision() == head_revision()
        assert table_counts(bundle) == before
        given = session(bundle, ANNOTATORS[0]).next_task()
        assert given is not None
        assert given.progress.done == 2
        assert len(leases(bundle)) == 1
    bundle_backend.discard(location)
