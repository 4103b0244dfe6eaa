"""Push and pull: a bundle copied to a server (or another file) and back, table by table, images
included; copying again changes nothing; votes gained on either side merge by UUID; a conflict
or another bundle's database is refused with the target unchanged."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

from tests.backends import BundleBackend, PostgresBackend, postgres_admin_url
from tests.fixtures.make_bundle_0001 import FIXTURE
from tests.importers.canonical_helpers import write_jsonl
from tests.services.campaign_helpers import (
    MODELS,
    campaign_item,
    registry_with_all_protocols,
)
from workbench.services.campaign_items import ItemSpec
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.sync import copy_bundle_rows, pull, push
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle, head_revision
from workbench.storage import transfer as transfer_module
from workbench.storage.bundle import copy_bundle
from workbench.storage.models import (
    Annotator,
    Base,
    Image,
    JudgeRun,
    JudgeVerdict,
    Model,
    ResponseCache,
    ScheduledPair,
    Vote,
)
from workbench.storage.transfer import (
    DERIVED_TABLES,
    RULES,
    TRANSIENT_TABLES,
    TransferConflictError,
    TransferRefusedError,
    copied_tables,
)

PLUGINS = registry_with_all_protocols()
CAMPAIGN = "sync-check"


def _cast(bundle: Bundle, handle: str, votes: int) -> list[str]:
    session = AnnotationSession(bundle, CAMPAIGN, handle, PLUGINS)
    uuids: list[str] = []
    for number in range(votes):
        task = session.next_task()
        assert task is not None
        uuids += session.cast(task.token, ("a", "b", "tie")[number % 3]).uuids
    return uuids


def _add_judge_run(bundle: Bundle) -> None:
    """A judge run with two verdicts and a cached response, as the judge runner stores them."""
    with bundle.session() as session:
        model_a, model_b = session.scalars(select(Model.id).order_by(Model.name).limit(2))
        item_id = session.scalar(select(ScheduledPair.item_id).limit(1))
        run = JudgeRun(
            name="judge-1",
            template_name="pairwise",
            template_version="1",
            template_text="Compare {a} and {b}.",
            judge_model="judge-model",
            parameters={"temperature": 0},
            status="completed",
            finished_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        )
        session.add(run)
        session.flush()
        for order, outcome in (((model_a, model_b), "a"), ((model_b, model_a), "b")):
            session.add(
                JudgeVerdict(
                    run_id=run.id,
                    item_id=item_id,
                    turn_index=1,
                    model_a_id=order[0],
                    model_b_id=order[1],
                    outcome=outcome,
                    request_hash=hashlib.sha256(repr(order).encode()).hexdigest(),
                    raw_text=f"[[{outcome.upper()}]]",
                    cost_usd=0.001,
                )
            )
        session.add(ResponseCache(request_hash="f" * 64, response_text="[[A]]", usage={"n": 1}))


@pytest.fixture(scope="module")
def template(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle with real VisIT-Bench items and images, synthetic answered items, a campaign
    with votes from one annotator, and a judge run."""
    folder = tmp_path_factory.mktemp("sync-template")
    path = folder / "template.wbb"
    import_files(path, [shared_data / "visit-bench"], "visit-bench")
    lines = [campaign_item(f"q{n:03d}", MODELS) for n in range(6)]
    import_files(path, [write_jsonl(folder / "src", lines)], "jsonl")
    with Bundle.open(path) as bundle:
        create_campaign(
            bundle,
            CampaignSpec(CAMPAIGN, "arena-battle", items=ItemSpec("tests"), votes_per_pair=2),
            PLUGINS,
        )
        add_annotator(bundle, "ann", "Ann", "linguist")
        add_annotator(bundle, "bob")
        _cast(bundle, "ann", 4)
        _add_judge_run(bundle)
    return path


@pytest.fixture
def local(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "local.wbb")
    return tmp_path / "local.wbb"


@pytest.fixture
def remote(bundle_location: Path | str) -> str:
    """Where a bundle is pushed: a file path that does not exist yet, or an empty database."""
    return str(bundle_location)


@pytest.fixture(scope="module")
def pushed_template(template: Path, bundle_backend: BundleBackend) -> Path | str:
    """The template pushed once to a file or a database of the module's backend, as
    ``push(local, remote)`` leaves a remote for every test's fresh copy of it; read-only."""
    location = bundle_backend.new_location()
    push(template, str(location))
    return location


@pytest.fixture
def pushed_remote(pushed_template: Path | str, bundle_backend: BundleBackend) -> Iterator[str]:
    """A remote that ``local`` was pushed to: a copy of the pushed template (a file copy, or a
    database made with it as its template), a fraction of a push's cost."""
    location = bundle_backend.copy(pushed_template)
    yield str(location)
    bundle_backend.discard(location)


# --- reading bundles back ----------------------------------------------------------------------


def _normal(value: Any) -> Any:
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    return value


def table_rows(location: str | Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every copied table, in primary-key order, in a dialect-neutral form."""
    with Bundle.open(location) as bundle, bundle.read_session() as session:
        return {
            table.name: [
                tuple(_normal(value) for value in row)
                for row in session.execute(select(table).order_by(*table.primary_key.columns)).all()
            ]
            for table in copied_tables()
        }


def vote_facts(location: str | Path) -> set[tuple[Any, ...]]:
    """Votes named by what they mean, not by ids: uuid, task, annotator, answer, retracted."""
    with Bundle.open(location) as bundle, bundle.read_session() as session:
        rows = session.execute(
            select(
                Vote.uuid,
                ScheduledPair.sequence,
                Annotator.handle,
                Vote.choice,
                Vote.retracted_at.is_not(None),
            )
            .join(ScheduledPair, Vote.pair_id == ScheduledPair.id)
            .join(Annotator, Vote.annotator_id == Annotator.id)
        ).all()
    return {tuple(row) for row in rows}


def row_counts(location: str | Path) -> dict[str, int]:
    with Bundle.open(location) as bundle, bundle.read_session() as session:
        return {
            table.name: session.scalar(select(func.count()).select_from(table)) or 0
            for table in copied_tables()
        }


# --- tests -------------------------------------------------------------------------------------


def test_every_table_has_a_transfer_rule() -> None:
    tables = {table.name for table in Base.metadata.sorted_tables}
    assert {table.name for table in copied_tables()} == tables - TRANSIENT_TABLES - DERIVED_TABLES
    assert set(RULES) <= tables


def test_push_copies_every_row_and_pushing_again_copies_nothing(local: Path, remote: str) -> None:
    first = push(local, remote)
    expected = table_rows(local)
    assert first.created and first.transfer.target_was_empty
    assert first.transfer.copied == sum(len(rows) for rows in expected.values())
    # a fresh target keeps the source's ids, so the whole content compares row by row
    assert table_rows(remote) == expected
    with Bundle.open(local) as bundle, bundle.read_session() as session:
        image_bytes = sum(len(data) for data in session.scalars(select(Image.data)))
    assert first.transfer.image_bytes == image_bytes > 1_000_000

    second = push(local, remote)
    assert second.transfer.copied == 0 and second.transfer.updated == 0
    assert not second.created
    assert table_rows(remote) == expected


def test_pull_brings_back_the_same_bundle(local: Path, pushed_remote: str, tmp_path: Path) -> None:
    back = tmp_path / "back.wbb"
    report = pull(pushed_remote, back)
    assert report.created
    assert table_rows(back) == table_rows(local)
    assert pull(pushed_remote, back).transfer.copied == 0


def test_votes_gained_on_both_sides_merge_both_ways(local: Path, pushed_remote: str) -> None:
    with Bundle.open(local) as bundle:
        add_annotator(bundle, "carol")  # a new annotator row on one side only
        local_new = _cast(bundle, "carol", 3)
    with Bundle.open(pushed_remote) as bundle:
        remote_new = _cast(bundle, "bob", 5)

    pushed = push(local, pushed_remote)
    assert pushed.transfer.tables["votes"].copied == len(local_new)
    assert pushed.transfer.tables["annotators"].copied == 1
    pulled = pull(pushed_remote, local)
    assert pulled.transfer.tables["votes"].copied == len(remote_new)
    assert pulled.transfer.tables["annotators"].copied == 0

    both = vote_facts(local)
    assert both == vote_facts(pushed_remote)
    assert {row[0] for row in both} >= set(local_new) | set(remote_new)
    assert push(local, pushed_remote).transfer.copied == 0
    assert pull(pushed_remote, local).transfer.copied == 0


def test_a_retraction_travels_and_is_not_undone(local: Path, pushed_remote: str) -> None:
    with Bundle.open(local) as bundle:
        AnnotationSession(bundle, CAMPAIGN, "ann", PLUGINS).undo()
    retracted = {row[0] for row in vote_facts(local) if row[4]}
    assert len(retracted) == 1

    report = push(local, pushed_remote)
    assert report.transfer.tables["votes"].updated == 1
    assert {row[0] for row in vote_facts(pushed_remote) if row[4]} == retracted
    # pulling the older, unretracted state back does not bring the vote back to life
    assert pull(pushed_remote, local).transfer.updated == 0
    assert {row[0] for row in vote_facts(local) if row[4]} == retracted


def test_a_conflicting_row_fails_the_whole_transfer_and_changes_nothing(
    local: Path, pushed_remote: str
) -> None:
    with Bundle.open(local) as bundle:
        _cast(bundle, "bob", 2)  # rows that would be copied if the transfer went through
        with bundle.session() as session:
            session.execute(
                update(Model).where(Model.name == MODELS[0]).values(display_name="Renamed")
            )
    before = table_rows(pushed_remote)
    with pytest.raises(TransferConflictError, match=r"models \(name='alphavision-7b'\).*display"):
        push(local, pushed_remote)
    assert table_rows(pushed_remote) == before


def test_another_bundles_database_is_refused_unchanged(
    local: Path, remote: str, template: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.wbb"
    lines = [campaign_item("z001", MODELS[:2])]
    import_files(other, [write_jsonl(tmp_path / "other-src", lines)], "jsonl")
    push(other, remote)
    before = table_rows(remote)
    with pytest.raises(TransferRefusedError, match="holds another bundle"):
        push(local, remote)
    assert table_rows(remote) == before


def test_copying_a_bundle_onto_itself_is_refused(local: Path) -> None:
    with pytest.raises(TransferRefusedError, match="same bundle"):
        copy_bundle_rows(local, str(local.parent / "." / local.name))


def test_a_failed_pull_into_a_new_file_leaves_no_file(
    local: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise TransferRefusedError("stop")

    monkeypatch.setattr("workbench.services.sync.copy_rows", broken)
    target = tmp_path / "never.wbb"
    with pytest.raises(TransferRefusedError):
        pull(str(local), target)
    assert not target.exists()


def test_images_stream_in_bounded_batches(
    local: Path, remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer_module, "IMAGE_BATCH_BYTES", 1_000_000)
    with Bundle.open(local) as bundle, bundle.read_session() as session:
        sizes = list(session.scalars(select(Image.size_bytes).order_by(Image.id)))
    batches: list[int] = []

    def progress(phase: str, done: int, _total: int) -> None:
        if phase == "images data":
            batches.append(done)

    push(local, remote, progress)
    assert len(batches) >= sum(sizes) // 1_000_000 > 5
    # no batch held much more than the limit: one image at most beyond it
    steps = [b - a for a, b in zip([0, *batches], batches, strict=False)]
    assert max(steps) < len(sizes) / 5
    assert table_rows(remote)["images"] == table_rows(local)["images"]


@pytest.mark.postgres
def test_server_ids_continue_above_the_copied_rows(local: Path) -> None:
    server = PostgresBackend(postgres_admin_url())
    try:
        url = server.new_location()
        push(local, url)
        with Bundle.open(url) as bundle:
            add_annotator(bundle, "dave")  # takes an id from the sequence: must not collide
            _cast(bundle, "dave", 2)
            with bundle.read_session() as session:
                ids = list(session.scalars(select(Annotator.id).order_by(Annotator.id)))
        assert ids == sorted(set(ids)) and ids[-1] > 2
        assert pull(url, local).transfer.tables["votes"].copied == 2
    finally:
        server.close()


def test_a_judge_run_resumed_on_one_side_brings_its_verdicts_and_state(
    local: Path, pushed_remote: str
) -> None:
    later = datetime(2026, 2, 1, tzinfo=UTC)
    with Bundle.open(local) as bundle, bundle.session() as session:
        run = session.scalars(select(JudgeRun).where(JudgeRun.name == "judge-1")).one()
        run.status, run.finished_at, run.budget = "budget_exhausted", later, {"max_cost": 1.0}
        first = session.scalars(select(JudgeVerdict).order_by(JudgeVerdict.id)).first()
        assert first is not None
        session.add(
            JudgeVerdict(
                run_id=run.id,
                item_id=first.item_id,
                turn_index=2,
                model_a_id=first.model_a_id,
                model_b_id=first.model_b_id,
                outcome="tie",
                request_hash="e" * 64,
            )
        )
    report = push(local, pushed_remote).transfer
    assert report.tables["judge_runs"].updated == 1
    assert report.tables["judge_verdicts"].copied == 1
    with Bundle.open(pushed_remote) as bundle, bundle.read_session() as session:
        run = session.scalars(select(JudgeRun).where(JudgeRun.name == "judge-1")).one()
        assert (run.status, run.budget) == ("budget_exhausted", {"max_cost": 1.0})
        assert session.scalar(select(func.count()).select_from(JudgeVerdict)) == 3
    # the side that finished earlier does not roll the other back
    assert pull(pushed_remote, local).transfer.updated == 0


def test_an_older_bundle_is_upgraded_before_it_is_pushed(remote: str, tmp_path: Path) -> None:
    older = tmp_path / "older.wbb"
    shutil.copy(FIXTURE, older)
    report = push(older, remote)
    assert report.transfer.copied > 0
    with Bundle.open(older) as bundle:
        assert bundle.revision() == head_revision()
    assert table_rows(remote) == table_rows(older)
    assert list(tmp_path.glob("older.backup-*.wbb")), "the file is backed up before its upgrade"


def test_one_annotator_answering_a_task_on_both_sides_is_reported_as_a_pack_merge_does(
    local: Path, pushed_remote: str
) -> None:
    """A pulled copy and the server, the same annotator, the same task: push kept both votes,
    both counted, with no word; a pack merge reports the same case as answered_twice."""
    with Bundle.open(pushed_remote) as bundle:
        on_server = _cast(bundle, "bob", 1)
    with Bundle.open(local) as bundle:
        on_copy = _cast(bundle, "bob", 1)

    pushed = push(local, pushed_remote)
    (conflict,) = pushed.conflicts
    assert conflict.kind == "answered_twice" and conflict.annotator == "bob"
    assert sorted(conflict.uuids) == sorted(on_server + on_copy)
    assert pushed.as_dict()["conflicts"][0]["kind"] == "answered_twice"
    # pulling back reports the same task, and a push with nothing new still says so
    assert [c.uuids for c in pull(pushed_remote, local).conflicts] == [conflict.uuids]
    assert push(local, pushed_remote).transfer.copied == 0


def test_the_loser_of_two_pulls_into_one_new_file_merges_into_the_winner(
    local: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second pull saw no file, then found one published by the first: it exited 1
    instead of merging, as docs/team.md says a pull into an existing copy does."""
    target = tmp_path / "copy.wbb"
    pull(str(local), target)  # the winner
    # the class the sync service looks up (it imports Bundle from workbench.storage.bundle)
    monkeypatch.setattr(Bundle, "exists", classmethod(lambda cls, location: False))
    loser = pull(str(local), target)
    assert not loser.created
    assert loser.transfer.copied == 0  # everything was there already
    assert vote_facts(target) == vote_facts(local)
