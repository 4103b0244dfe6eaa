"""Offline packs: a pack is a blind, self-contained bundle an annotator can work in; merging it
back is idempotent, order-independent, and reports conflicts."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from tests.backends import BundleBackend, Location
from tests.services.campaign_helpers import (
    MODELS,
    build_campaign_bundle,
    registry_with_all_protocols,
)
from workbench.services.campaign_errors import PackError
from workbench.services.campaigns import (
    CampaignSpec,
    add_annotator,
    campaign_details,
    create_campaign,
)
from workbench.services.packs import export_pack, merge_pack, pack_info
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle
from workbench.storage.models import PairLease

PLUGINS = registry_with_all_protocols()
VOTE_COLUMNS = (
    "uuid, campaign_id, pair_id, annotator_id, item_id, turn_index, criterion, model_a_id, "
    "model_b_id, choice, grade, comment, skip_reason, shown_at, cast_at, duration_ms, retracted_at"
)


@pytest.fixture(scope="module")
def main_template(
    bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory
) -> Location:
    path = build_campaign_bundle(
        tmp_path_factory.mktemp("main"), items=4, into=bundle_backend.new_location()
    )
    with Bundle.open(path) as bundle:
        add_annotator(bundle, "ann", "Ann", "ophthalmology")
        add_annotator(bundle, "bob")
        create_campaign(
            bundle, CampaignSpec("c", "chirp-five-criteria", seed=3, votes_per_pair=2), PLUGINS
        )
    return path


@pytest.fixture
def main(main_template: Location, bundle_backend: BundleBackend) -> Location:
    """The campaign's bundle, in a file or on the server; packs are always files."""
    return bundle_backend.copy(main_template)


def export(main: Location, annotator: str, out: Path, limit: int | None = None) -> Path:
    with Bundle.open(main) as bundle:
        export_pack(bundle, "c", annotator, out, limit)
    return out


def annotate(pack: Path, annotator: str, count: int, choice: str = "a") -> None:
    with Bundle.open(pack) as bundle:
        session = AnnotationSession(bundle, "c", annotator, PLUGINS)
        for _ in range(count):
            task = session.next_task()
            assert task is not None
            session.cast(task.token, dict.fromkeys(answer_names(), choice))


def answer_names() -> list[str]:
    return [c.name for c in PLUGINS.protocol("chirp-five-criteria").criteria]


def votes(location: Location) -> list[tuple[Any, ...]]:
    with Bundle.open(location) as bundle, bundle.read_session() as session:
        rows = session.execute(text(f"SELECT {VOTE_COLUMNS} FROM votes ORDER BY uuid"))
        return [tuple(row) for row in rows]


def merge(main: Location, pack: Path) -> dict[str, Any]:
    with Bundle.open(main) as bundle:
        return merge_pack(bundle, pack).as_dict()


def test_a_pack_is_blind_and_self_contained(main: Location, tmp_path: Path) -> None:
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=5)
    raw = pack.read_bytes()
    for name in MODELS:
        assert name.encode() not in raw
    assert b"a.png" not in raw and b"items.jsonl" not in raw
    with Bundle.open(pack) as bundle:
        info = pack_info(bundle)
        assert info is not None and (info.campaign, info.annotator, info.tasks) == ("c", "ann", 5)
        session = AnnotationSession(bundle, "c", "ann", PLUGINS)
        task = session.next_task()
        assert task is not None
        assert task.progress.total == 5 and task.images[0].data
        assert all(len(turn.responses) == 2 and all(turn.responses) for turn in task.turns)
    with Bundle.open(main) as bundle:
        assert pack_info(bundle) is None


def test_pack_slice_matches_the_schedule(main: Location, tmp_path: Path) -> None:
    pack = export(main, "ann", tmp_path / "ann.wbb")
    connection = sqlite3.connect(pack)
    try:
        sequences = [row[0] for row in connection.execute("SELECT sequence FROM scheduled_pairs")]
        gold = connection.execute(
            "SELECT count(*) FROM scheduled_pairs WHERE gold_choice IS NOT NULL"
        )
        assert gold.fetchone() == (0,)
    finally:
        connection.close()
    with Bundle.open(main) as bundle:
        schedule = campaign_details(bundle, "c")["schedule"]
    assert sorted(sequences) == [row["sequence"] for row in schedule]


def test_merge_is_idempotent_and_maps_votes_to_models(main: Location, tmp_path: Path) -> None:
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=6)
    annotate(pack, "ann", 4)
    with Bundle.open(pack) as bundle:
        session = AnnotationSession(bundle, "c", "ann", PLUGINS)
        session.undo()
        task = session.next_task()
        assert task is not None
        session.skip(task.token, "cannot tell")
    first = merge(main, pack)
    assert first["added"] == 4 * 5 + 1 and first["conflicts"] == []
    after_first = votes(main)
    second = merge(main, pack)
    assert second["added"] == 0 and second["unchanged"] == 21 and votes(main) == after_first
    with Bundle.open(main) as bundle:
        details = campaign_details(bundle, "c")
    assert details["annotators"]["ann"] == {"answered": 3, "skipped": 1}
    pack_votes = {row[0]: row for row in votes(pack)}
    schedule = {row["sequence"]: row for row in details["schedule"]}
    with Bundle.open(main) as bundle, bundle.read_session() as read:
        rows = read.execute(
            text(
                "SELECT v.uuid, p.sequence, a.name, b.name FROM votes v "
                "JOIN scheduled_pairs p ON v.pair_id = p.id "
                "JOIN models a ON v.model_a_id = a.id JOIN models b ON v.model_b_id = b.id"
            )
        ).all()
    for uuid, sequence, left, right in rows:
        assert (schedule[sequence]["left"], schedule[sequence]["right"]) == (left, right)
        assert uuid in pack_votes
    # the main bundle's annotator queue now skips what ann did offline
    with Bundle.open(main) as bundle:
        session = AnnotationSession(bundle, "c", "ann", PLUGINS)
        given = session.next_task()
        assert given is not None
        assert given.progress.done == 4


def test_two_packs_merge_the_same_in_either_order(
    main: Location, tmp_path: Path, bundle_backend: BundleBackend
) -> None:
    ann_pack = export(main, "ann", tmp_path / "ann.wbb", limit=8)
    bob_pack = export(main, "bob", tmp_path / "bob.wbb", limit=8)
    annotate(ann_pack, "ann", 3, "a")
    early_copy = tmp_path / "ann-early.wbb"  # the annotator kept a copy, then went on
    copy_bundle(ann_pack, early_copy)
    with Bundle.open(ann_pack) as bundle:
        # retracts the third answer, which the early copy holds as standing
        assert AnnotationSession(bundle, "c", "ann", PLUGINS).undo() is not None
    annotate(ann_pack, "ann", 2, "tie")
    annotate(bob_pack, "bob", 5, "b")

    one, two = bundle_backend.copy(main), bundle_backend.copy(main)
    for pack in (early_copy, ann_pack, bob_pack):
        merge(one, pack)
    for pack in (bob_pack, ann_pack, early_copy):
        merge(two, pack)
    assert votes(one) == votes(two)
    assert len(votes(one)) == (5 + 5) * 5  # with the retracted answer, kept and marked
    assert sum(row[-1] is not None for row in votes(one)) == 5
    for pack in (ann_pack, bob_pack, early_copy):
        assert merge(one, pack)["added"] == 0
    assert votes(one) == votes(two)


def test_a_retraction_wins_in_either_order(
    main: Location, tmp_path: Path, bundle_backend: BundleBackend
) -> None:
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=4)
    annotate(pack, "ann", 2)
    before_undo = tmp_path / "before.wbb"
    copy_bundle(pack, before_undo)
    with Bundle.open(pack) as bundle:
        AnnotationSession(bundle, "c", "ann", PLUGINS).undo()
    one, two = bundle_backend.copy(main), bundle_backend.copy(main)
    merge(one, before_undo)
    report = merge(one, pack)
    assert report["retractions"] == 5 and report["added"] == 0
    merge(two, pack)
    assert merge(two, before_undo)["retractions"] == 0
    assert votes(one) == votes(two)
    assert sum(row[-1] is not None for row in votes(one)) == 5


def test_conflicts_are_reported_and_resolved_the_same_way(
    main: Location, tmp_path: Path, bundle_backend: BundleBackend
) -> None:
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=3)
    annotate(pack, "ann", 1, "a")
    edited = tmp_path / "edited.wbb"
    copy_bundle(pack, edited)
    connection = sqlite3.connect(edited)
    with connection:
        connection.execute("UPDATE votes SET choice = 'b' WHERE criterion = 'overall'")
    connection.close()
    one, two = bundle_backend.copy(main), bundle_backend.copy(main)
    merge(one, pack)
    report_one = merge(one, edited)
    merge(two, edited)
    report_two = merge(two, pack)
    assert votes(one) == votes(two)
    for report in (report_one, report_two):
        (conflict,) = report["conflicts"]
        assert conflict["kind"] == "changed_vote" and conflict["annotator"] == "ann"

    # the same annotator answering one task in two packs: both answers kept, reported
    second_pack = export(main, "ann", tmp_path / "again.wbb", limit=1)
    annotate(second_pack, "ann", 1, "tie")
    report = merge(one, second_pack)
    (twice,) = report["conflicts"]
    assert twice["kind"] == "answered_twice" and len(twice["uuids"]) == 2


def test_pack_errors(main: Location, tmp_path: Path, bundle_backend: BundleBackend) -> None:
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=1)
    with pytest.raises(PackError, match="already exists"):
        export(main, "ann", pack)
    plain = tmp_path / "plain.wbb"
    Bundle.create(plain).close()
    with Bundle.open(main) as bundle:
        with pytest.raises(PackError, match="not an offline pack"):
            merge_pack(bundle, plain)
        with pytest.raises(PackError, match="at least one task"):
            export_pack(bundle, "c", "ann", tmp_path / "none.wbb", limit=0)
    other = build_campaign_bundle(tmp_path / "other", items=2, into=bundle_backend.new_location())
    with Bundle.open(other) as bundle, pytest.raises(PackError, match="not in this bundle"):
        merge_pack(bundle, pack)
    assert not (tmp_path / "none.wbb").exists()


def test_nothing_to_pack(main: Location, tmp_path: Path) -> None:
    with Bundle.open(main) as bundle:
        create_campaign(
            bundle,
            CampaignSpec("tiny", "arena-battle", items=_one_item(), models=MODELS[:2]),
            PLUGINS,
        )
        session = AnnotationSession(bundle, "tiny", "ann", PLUGINS)
        task = session.next_task()
        assert task is not None
        session.cast(task.token, "a")
        with pytest.raises(PackError, match="no open task"):
            export_pack(bundle, "tiny", "ann", tmp_path / "p.wbb")
    assert not (tmp_path / "p.wbb").exists()


def _one_item() -> Any:
    from workbench.services.campaign_items import ItemSpec

    return ItemSpec("q000")


def pack_sequences(pack: Path) -> set[int]:
    with Bundle.open(pack) as bundle, bundle.read_session() as session:
        return set(session.scalars(text("SELECT sequence FROM scheduled_pairs")))


def test_a_packed_task_is_reserved_until_its_pack_is_merged(main: Location, tmp_path: Path) -> None:
    with Bundle.open(main) as bundle:
        add_annotator(bundle, "cy")
        create_campaign(
            bundle, CampaignSpec("solo", "chirp-five-criteria", seed=3, votes_per_pair=1), PLUGINS
        )
        export_pack(bundle, "solo", "ann", tmp_path / "ann.wbb", limit=2)
        export_pack(bundle, "solo", "bob", tmp_path / "bob.wbb")
    reserved = pack_sequences(tmp_path / "ann.wbb")
    assert len(reserved) == 2
    # the second pack and the app leave the first pack's tasks alone: each needs one vote
    assert not reserved & pack_sequences(tmp_path / "bob.wbb")
    with Bundle.open(main) as bundle:
        in_app = AnnotationSession(bundle, "solo", "cy", PLUGINS)
        assert in_app.next_task() is None  # the two packs hold every task between them

    with Bundle.open(tmp_path / "ann.wbb") as pack:
        session = AnnotationSession(pack, "solo", "ann", PLUGINS)
        for _ in range(2):
            task = session.next_task()
            assert task is not None
            session.cast(task.token, dict.fromkeys(answer_names(), "a"))
    with Bundle.open(main) as bundle:
        merge_pack(bundle, tmp_path / "ann.wbb")
        with bundle.read_session() as read:
            leases = read.execute(
                text(
                    "SELECT count(*) FROM pair_leases JOIN annotators a ON a.id = annotator_id "
                    "WHERE a.handle = 'ann'"
                )
            ).scalar()
    assert leases == 0


def test_pack_reservations_last_as_the_campaign_says(main: Location, tmp_path: Path) -> None:
    with Bundle.open(main) as bundle:
        create_campaign(
            bundle,
            CampaignSpec("short", "chirp-five-criteria", seed=3, pack_lease_days=0.5),
            PLUGINS,
        )
        export_pack(bundle, "short", "ann", tmp_path / "ann.wbb", limit=1)
        with bundle.read_session() as session:
            lease = session.scalars(select(PairLease)).one()
    assert lease.expires_at - lease.leased_at == timedelta(hours=12)


def test_votes_of_other_annotators_in_a_hand_edited_pack_are_refused(
    main: Location, tmp_path: Path
) -> None:
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=4)
    annotate(pack, "ann", 2)
    # hand-edited: votes attributed to someone else, known to the main bundle or not
    with Bundle.open(pack) as bundle:
        add_annotator(bundle, "bob")
        add_annotator(bundle, "mallory")
    connection = sqlite3.connect(pack)
    try:
        with connection:
            ann_votes = connection.execute(
                "SELECT votes.uuid FROM votes JOIN annotators ON annotators.id = annotator_id "
                "WHERE handle = 'ann' ORDER BY votes.uuid"
            ).fetchall()
            for index, (uuid,) in enumerate(ann_votes[:4]):
                handle = "bob" if index % 2 else "mallory"
                connection.execute(
                    "UPDATE votes SET annotator_id = (SELECT id FROM annotators WHERE handle = ?) "
                    "WHERE uuid = ?",
                    (handle, uuid),
                )
    finally:
        connection.close()
    report = merge(main, pack)
    assert report["refused"] == {"bob": 2, "mallory": 2}
    assert report["added"] == len(ann_votes) - 4 and report["annotators_added"] == []
    with Bundle.open(main) as bundle, bundle.read_session() as session:
        handles = session.execute(
            text(
                "SELECT DISTINCT handle FROM votes JOIN annotators ON annotators.id = annotator_id"
            )
        ).all()
        known = session.execute(text("SELECT handle FROM annotators ORDER BY handle")).all()
    assert handles == [("ann",)]
    assert known == [("ann",), ("bob",)]


def test_offset_aware_times_in_a_pack_merge_as_utc(main: Location, tmp_path: Path) -> None:
    """A pack's times are copied by the copier's one normaliser: a hand-edited (or foreign)
    pack holding times with an offset lands in UTC, and merging it again changes nothing."""
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=2)
    annotate(pack, "ann", 1)
    connection = sqlite3.connect(pack)
    with connection:
        connection.execute(
            "UPDATE votes SET shown_at = '2026-03-01 12:00:00.000000+02:00', "
            "cast_at = '2026-03-01 12:00:05.000000+02:00'"
        )
    connection.close()
    first = merge(main, pack)
    assert first["added"] > 0
    columns = VOTE_COLUMNS.split(", ")
    shown, cast = columns.index("shown_at"), columns.index("cast_at")
    for row in votes(main):
        assert str(row[shown]).startswith("2026-03-01 10:00:00"), row[shown]
        assert str(row[cast]).startswith("2026-03-01 10:00:05"), row[cast]
    again = merge(main, pack)
    assert (again["added"], again["unchanged"], again["conflicts"]) == (0, first["added"], [])


def test_a_pack_vote_under_another_vote_s_uuid_is_refused_and_changes_nothing(
    main: Location, tmp_path: Path
) -> None:
    """The copier compares every column outside the vote policy's mutable ones: a hand-edited
    pack vote that reuses the UUID of bob's vote (another annotator, another task) is a
    conflict, so bob's vote keeps its answer instead of being 'reconciled' with ann's."""
    bob_pack = export(main, "bob", tmp_path / "bob.wbb", limit=1)
    annotate(bob_pack, "bob", 1, "b")
    merge(main, bob_pack)
    ann_pack = export(main, "ann", tmp_path / "ann.wbb", limit=3)
    annotate(ann_pack, "ann", 2, "a")
    with Bundle.open(main) as bundle, bundle.read_session() as session:
        bob_uuid = session.execute(
            text(
                "SELECT votes.uuid FROM votes JOIN annotators ON annotators.id = annotator_id "
                "WHERE handle = 'bob' AND criterion = 'overall'"
            )
        ).scalar_one()
    connection = sqlite3.connect(ann_pack)
    with connection:
        connection.execute(
            "UPDATE votes SET uuid = ? WHERE uuid = (SELECT min(uuid) FROM votes "
            "WHERE criterion = 'overall')",
            (bob_uuid,),
        )
    connection.close()
    before = votes(main)
    with pytest.raises(PackError, match="cannot be merged"):
        merge(main, ann_pack)
    assert votes(main) == before


def test_a_pack_is_neither_merged_into_nor_exported_from_another_pack(
    main: Location, tmp_path: Path
) -> None:
    """A pack keeps no campaign salt: merging into one ended in KeyError 'pack_salt'."""
    first = export(main, "ann", tmp_path / "first.wbb", limit=1)
    second = export(main, "ann", tmp_path / "second.wbb", limit=1)
    annotate(second, "ann", 1)
    before = first.read_bytes()
    with Bundle.open(first) as pack:
        with pytest.raises(
            PackError, match="is itself an offline pack; merge a pack into the main"
        ):
            merge_pack(pack, second)
        with pytest.raises(PackError, match="is itself an offline pack; export a pack from"):
            export_pack(pack, "c", "ann", tmp_path / "third.wbb")
    assert not (tmp_path / "third.wbb").exists()
    assert first.read_bytes() == before


def test_a_pack_carries_the_campaigns_guidelines(main: Location, tmp_path: Path) -> None:
    """The README's annotator path is a pack: its annotator reads the guidelines at the start
    of a session as one at the lab does (a pack once left them behind)."""
    from workbench.services.campaigns import campaign_guidelines, set_campaign_guidelines

    guidelines = "# How to judge\n\nLook at every image before answering."
    with Bundle.open(main) as bundle:
        set_campaign_guidelines(bundle, "c", guidelines)
    pack = export(main, "ann", tmp_path / "ann.wbb", limit=2)
    with Bundle.open(pack) as bundle:
        assert campaign_guidelines(bundle, "c") == guidelines
        assert AnnotationSession(bundle, "c", "ann", PLUGINS).guidelines == guidelines
