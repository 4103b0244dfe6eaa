"""Campaign counters stay equal to a recount of the votes and leases after any sequence of
votes, skips, undos, hand-outs, expired leases and pack merges, on SQLite and PostgreSQL; and
the progress an annotator sees equals the queue's own count."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import CompoundSelect, Select, func, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite

from tests.backends import BundleBackend, Location
from tests.services.campaign_helpers import (
    MODELS,
    build_campaign_bundle,
    registry_with_all_protocols,
)
from workbench.services.campaign_errors import PackError, StaleTaskError
from workbench.services.campaigns import (
    CampaignSpec,
    GoldSpec,
    add_annotator,
    create_campaign,
)
from workbench.services.packs import export_pack, merge_pack
from workbench.services.voting import AnnotationSession, open_pairs
from workbench.storage import Bundle, head_revision
from workbench.storage.bundle import _alembic_config
from workbench.storage.counters import rebuild_counters
from workbench.storage.dialects import make_engine, parse_location
from workbench.storage.models import (
    Annotator,
    Campaign,
    CampaignAnnotatorCount,
    CampaignCount,
    CampaignPairCount,
    PairLease,
    ScheduledPair,
    Vote,
)

PLUGINS = registry_with_all_protocols()
ANNOTATORS = ("ann-0", "ann-1", "ann-2")


@pytest.fixture(scope="module")
def template(bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory) -> Location:
    location = build_campaign_bundle(
        tmp_path_factory.mktemp("counters"), items=3, into=bundle_backend.new_location()
    )
    with Bundle.open(location) as bundle:
        for handle in ANNOTATORS:
            add_annotator(bundle, handle)
        spec = CampaignSpec(
            "c",
            "arena-battle",
            models=list(MODELS[:3]),
            seed=2,
            votes_per_pair=2,
            # an attention check goes to everyone and never completes
            gold=[GoldSpec("q000", "a", first=MODELS[0], second=MODELS[1])],
        )
        create_campaign(bundle, spec, PLUGINS)
    return location


def recount(bundle: Bundle) -> dict[str, object]:
    """The counters as they should be, computed from the rows in plain Python."""
    with bundle.read_session() as read:
        pairs = read.execute(
            select(
                ScheduledPair.id,
                ScheduledPair.campaign_id,
                ScheduledPair.votes_target,
                ScheduledPair.gold_choice,
            )
        ).all()
        votes = read.execute(
            select(Vote.pair_id, Vote.annotator_id, Vote.skip_reason).where(
                Vote.retracted_at.is_(None)
            )
        ).all()
        lease_rows = read.execute(select(PairLease.pair_id)).all()
        campaigns = read.scalars(select(Campaign.id)).all()
    # the column is nullable: a vote without a pair would be keyed by None and count for none
    answered: dict[int | None, set[int]] = defaultdict(set)
    touched: dict[int | None, set[int]] = defaultdict(set)
    for pair_id, annotator_id, skip_reason in votes:
        touched[pair_id].add(annotator_id)
        if skip_reason is None:
            answered[pair_id].add(annotator_id)
    leases: dict[int, int] = defaultdict(int)
    for (pair_id,) in lease_rows:
        leases[pair_id] += 1
    campaign_rows = {c: [0, 0, 0, 0, 0, 0] for c in campaigns}
    pair_rows = {}
    people: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for pair_id, campaign_id, target, gold in pairs:
        is_open = gold is not None or len(answered[pair_id]) < target
        skipped = touched[pair_id] - answered[pair_id]
        row = campaign_rows[campaign_id]
        for index, value in enumerate(
            (
                1,
                gold is not None,
                not is_open,
                len(answered[pair_id]),
                len(skipped),
                leases[pair_id],
            )
        ):
            row[index] += int(value)
        if touched[pair_id] or leases[pair_id]:
            pair_rows[pair_id] = (len(answered[pair_id]), len(skipped), leases[pair_id])
        for annotator_id in touched[pair_id]:
            person = people[(campaign_id, annotator_id)]
            person[0] += annotator_id in answered[pair_id]
            person[1] += annotator_id in skipped
            person[2] += is_open
    return {"campaigns": campaign_rows, "pairs": pair_rows, "annotators": dict(people)}


def stored(bundle: Bundle) -> dict[str, object]:
    with bundle.read_session() as read:
        campaigns = {
            row.campaign_id: [
                row.tasks,
                row.gold_tasks,
                row.complete_tasks,
                row.answered,
                row.skipped,
                row.leases,
            ]
            for row in read.scalars(select(CampaignCount))
        }
        pairs = {
            row.pair_id: (row.votes, row.skips, row.leases)
            for row in read.scalars(select(CampaignPairCount))
            if row.votes or row.skips or row.leases
        }
        people = {
            (row.campaign_id, row.annotator_id): [row.answered, row.skipped, row.answered_open]
            for row in read.scalars(select(CampaignAnnotatorCount))
            if row.answered or row.skipped or row.answered_open
        }
    return {"campaigns": campaigns, "pairs": pairs, "annotators": people}


def queue_progress(bundle: Bundle, annotator: AnnotationSession) -> tuple[int, int]:
    """Progress the slow way: the queue's open tasks recounted (what the counters replace)."""
    holding = annotator._shown.pair_id if annotator._shown else None
    with bundle.read_session() as read:
        campaign_id = read.scalar(select(Campaign.id).where(Campaign.name == "c"))
        annotator_id = read.scalar(
            select(Annotator.id).where(Annotator.handle == annotator.annotator_handle)
        )
        done = read.scalar(
            select(func.count(func.distinct(Vote.pair_id))).where(
                Vote.campaign_id == campaign_id,
                Vote.annotator_id == annotator_id,
                Vote.retracted_at.is_(None),
            )
        )
        assert campaign_id is not None
        assert annotator_id is not None
        open_now = open_pairs(campaign_id, annotator_id)
        still_open: Select[Any] | CompoundSelect[Any] = open_now
        if holding is not None:
            still_open = open_now.union(select(literal(holding)))
        remaining = read.scalar(select(func.count()).select_from(still_open.subquery()))
    return done or 0, remaining or 0


STEP = st.tuples(
    st.sampled_from(["next", "vote", "next", "vote", "skip", "undo", "expire", "pack"]),
    st.integers(0, len(ANNOTATORS) - 1),
    st.sampled_from(["a", "b", "tie", "both_bad"]),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEP, min_size=1, max_size=25))
def test_counters_equal_a_recount_after_any_sequence_of_writes(
    template: Location,
    bundle_backend: BundleBackend,
    reopened: tuple[Location, Bundle],
    tmp_path_factory: pytest.TempPathFactory,
    steps: list[tuple[str, int, str]],
) -> None:
    location, bundle = reopened
    bundle.close()
    bundle_backend.restore(template, location)
    packs = tmp_path_factory.mktemp("packs")
    with bundle:
        annotators = [AnnotationSession(bundle, "c", h, PLUGINS) for h in ANNOTATORS]
        for number, (action, who, choice) in enumerate(steps):
            annotator = annotators[who]
            if action == "next":
                annotator.next_task()
            elif action in ("vote", "skip") and annotator._shown is not None:
                token = annotator._shown.task.token
                # a pack may have answered the task on screen meanwhile: refused, as it should
                with contextlib.suppress(StaleTaskError):
                    if action == "vote":
                        annotator.cast(token, choice)
                    else:
                        annotator.skip(token, "cannot tell")
            elif action == "undo":
                annotator.undo()
            elif action == "expire":
                with bundle.session() as write:
                    write.execute(update(PairLease).values(expires_at=PairLease.leased_at))
            elif action == "pack":
                _pack_round_trip(bundle, ANNOTATORS[who], packs / f"p{number}.wbb")
            assert stored(bundle) == recount(bundle), (number, action)
            for each in annotators:
                counted = each.progress()
                assert (counted.done, counted.remaining) == queue_progress(bundle, each)


@pytest.fixture(scope="module")
def reopened(
    template: Location, bundle_backend: BundleBackend
) -> Iterator[tuple[Location, Bundle]]:
    """One bundle object for every example of the test above, put back to the template
    (:meth:`BundleBackend.restore`) before each: its engine keeps the statements it compiled,
    which a new engine compiles again (a third of an example's time on this small bundle)."""
    location = bundle_backend.copy(template)
    bundle = Bundle.open(location)
    yield location, bundle
    bundle.close()
    bundle_backend.discard(location)


def _pack_round_trip(bundle: Bundle, handle: str, path: Path) -> None:
    """Export a pack (which leases its tasks), answer its first task in it, and merge it."""
    try:
        export_pack(bundle, "c", handle, path, limit=2)
    except PackError as error:  # no open task for this annotator: nothing to pack
        assert "no open task" in str(error)
        return
    with Bundle.open(path) as pack:
        offline = AnnotationSession(pack, "c", handle, PLUGINS)
        task = offline.next_task()
        if task is not None:
            offline.cast(task.token, "a")
    merge_pack(bundle, path)


def test_rebuild_gives_what_the_writers_kept(
    template: Location, bundle_backend: BundleBackend
) -> None:
    location = bundle_backend.copy(template)
    try:
        with Bundle.open(location) as bundle:
            first, second = (AnnotationSession(bundle, "c", h, PLUGINS) for h in ANNOTATORS[:2])
            for _ in range(3):
                task = first.next_task()
                assert task is not None
                first.cast(task.token, "a")
                task = second.next_task()
                assert task is not None
                second.skip(task.token, "unreadable")
            kept = stored(bundle)
            with bundle.session() as write:
                rebuild_counters(write)
            assert stored(bundle) == kept == recount(bundle)
    finally:
        bundle_backend.discard(location)


def test_migration_0004_fills_the_counters_of_an_existing_bundle(
    template: Location, bundle_backend: BundleBackend
) -> None:
    location = bundle_backend.copy(template)
    try:
        with Bundle.open(location) as bundle:
            first, second = (AnnotationSession(bundle, "c", h, PLUGINS) for h in ANNOTATORS[:2])
            for _ in range(2):
                task = first.next_task()
                assert task is not None
                first.cast(task.token, "b")
            task = second.next_task()
            assert task is not None
            second.skip(task.token, "no image")
            second.next_task()  # a lease held at the time of the upgrade
            expected = recount(bundle)
        engine = make_engine(parse_location(location))
        try:
            with engine.begin() as connection:
                command.downgrade(_alembic_config(connection), "0002")
        finally:
            engine.dispose()
        with Bundle.open(location) as bundle:
            assert bundle.revision() == head_revision()
            assert stored(bundle) == expected == recount(bundle)
    finally:
        bundle_backend.discard(location)


def test_counters_when_every_annotator_answers_every_task_they_are_given(
    template: Location, bundle_backend: BundleBackend
) -> None:
    """All three annotators work until nothing is left: ordinary tasks complete at two votes,
    the attention check stays open for everyone and is answered three times."""
    location = bundle_backend.copy(template)
    try:
        with Bundle.open(location) as bundle:
            for handle in ANNOTATORS:
                annotator = AnnotationSession(bundle, "c", handle, PLUGINS)
                while (task := annotator.next_task()) is not None:
                    annotator.cast(task.token, "a")
                assert annotator.progress().remaining == 0
            assert stored(bundle) == recount(bundle)
            with bundle.read_session() as read:
                counts = read.scalars(select(CampaignCount)).one()
            assert counts.gold_tasks == 1
            assert counts.complete_tasks == counts.tasks - counts.gold_tasks
    finally:
        bundle_backend.discard(location)


def test_a_vote_and_the_next_lease_build_no_statement_and_leases_read_no_answer(
    template: Location, bundle_backend: BundleBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counters' and the queue's statements are built once and only bound per vote
    (building them anew cost the worker more CPU than running them), and a block
    that writes leases only reads no answer; the counters stay equal to a recount."""
    from sqlalchemy import event

    from workbench.services import blind_tasks, voting
    from workbench.storage import counters

    location = bundle_backend.copy(template)
    try:
        with Bundle.open(location) as bundle:
            annotator = AnnotationSession(bundle, "c", ANNOTATORS[0], PLUGINS)
            task = annotator.next_task()
            assert task is not None
            _receipt, task = annotator.cast_and_next(task.token, "a")  # every shape built once

            def built(*_args: object, **_kwargs: object) -> None:
                raise AssertionError("a statement was built during a vote")

            for module, names in (
                (counters, ("select", "exists", "delete")),
                (sqlite, ("insert",)),
                (postgresql, ("insert",)),
                (voting, ("select", "exists", "delete", "insert")),
                (blind_tasks, ("select",)),
            ):
                for name in names:
                    monkeypatch.setattr(module, name, built)
            ran: list[str] = []

            def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
                ran.append(statement)

            event.listen(bundle.engine, "before_cursor_execute", record)
            try:
                assert task is not None
                _receipt, task = annotator.cast_and_next(task.token, "b")
                monkeypatch.undo()
                before = len(ran)
                assert task is not None
                with bundle.session() as write:
                    other = write.scalar(select(Annotator.id).where(Annotator.handle == "ann-1"))
                    pair = write.scalar(select(ScheduledPair.id).limit(1))
                    assert other is not None and pair is not None
                    voting.lease_pairs(write, [pair], other, voting.DEFAULT_LEASE)
                leasing = ran[before:]
            finally:
                event.remove(bundle.engine, "before_cursor_execute", record)
            assert task is not None
            assert leasing and not [s for s in leasing if "FROM votes" in s]
            assert stored(bundle) == recount(bundle)
    finally:
        bundle_backend.discard(location)
