"""Opening, creating and migrating bundles, in files and (marked ``postgres``) on a server."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from tests.backends import Location
from workbench.storage import (
    Bundle,
    BundleError,
    BundleTooNewError,
    MigrationDeclinedError,
    NotABundleError,
    head_revision,
)
from workbench.storage import bundle as bundle_module
from workbench.storage.models import Base, Model


# SQLAlchemy cannot reflect SQLite's expression indexes (ux_judge_verdicts_request, schema
# 0003, folds NULLs with coalesce): it skips them with this warning
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based")
def test_new_bundle_has_the_schema_of_the_models(bundle_location: Location) -> None:
    with Bundle.create(bundle_location) as bundle, bundle.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        assert bundle.revision() == head_revision()
        assert len(bundle.info()["bundle_id"]) == 32
    assert differences == []


def test_new_bundle_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    with Bundle.create(tmp_path / "b.wbb") as bundle, bundle.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert (bundle.path, bundle.location, bundle.dialect) == (
            tmp_path / "b.wbb",
            str(tmp_path / "b.wbb"),
            "sqlite",
        )
        assert not bundle.is_server


def test_foreign_keys_are_enforced(bundle_location: Location) -> None:
    with (
        Bundle.create(bundle_location) as bundle,
        pytest.raises(IntegrityError, match=r"(?i)foreign key"),
        bundle.session() as session,
    ):
        session.execute(text("INSERT INTO turns (item_id, \"index\", prompt) VALUES (999, 1, 'x')"))


def test_failed_transaction_leaves_nothing(bundle_location: Location) -> None:
    with Bundle.create(bundle_location) as bundle:
        with pytest.raises(RuntimeError), bundle.session() as session:
            session.add(Model(name="m"))
            session.flush()
            raise RuntimeError("crash in the middle of a unit of work")
        with bundle.read_session() as session:
            assert session.scalars(select(Model)).all() == []


def test_create_refuses_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(b"")
    with pytest.raises(BundleError, match="already exists"):
        Bundle.create(path)


def test_open_refuses_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "notes.wbb"
    path.write_text("hello")
    with pytest.raises(NotABundleError, match="not an SQLite database"):
        Bundle.open(path)


def test_open_refuses_an_sqlite_file_that_is_not_a_bundle(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (x)")
    with pytest.raises(NotABundleError, match="not a VLM Workbench bundle"):
        Bundle.open(path)


def test_open_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="no bundle at"):
        Bundle.open(tmp_path / "absent.wbb")


def test_newer_schema_is_refused_on_either_backend(bundle_location: Location) -> None:
    with Bundle.create(bundle_location) as bundle, bundle.session() as session:
        session.execute(text("UPDATE alembic_version SET version_num = 'f00dfeed'"))
    with pytest.raises(BundleTooNewError, match="newer VLM Workbench"):
        Bundle.open(bundle_location)


def test_bundle_from_a_newer_app_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "b.wbb"
    Bundle.create(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = 'f00dfeed'")
    before = path.read_bytes()
    with pytest.raises(BundleTooNewError, match="newer VLM Workbench"):
        Bundle.open(path)
    assert path.read_bytes() == before


NEXT_REVISION = '''
"""a later schema, for the migration test"""
import sqlalchemy as sa
from alembic import op

revision = "9999"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("models") as batch:
        batch.add_column(sa.Column("family", sa.String(64), nullable=True))


def downgrade():
    with op.batch_alter_table("models") as batch:
        batch.drop_column("family")
'''


@pytest.fixture
def later_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the migrations with one more revision, standing in for a future release."""
    migrations = tmp_path / "migrations"
    shutil.copytree(bundle_module.MIGRATIONS_DIR, migrations)
    (migrations / "versions" / "9999_later.py").write_text(
        NEXT_REVISION.format(head=head_revision())
    )
    return migrations


def test_older_bundle_is_backed_up_then_migrated_with_its_data(
    tmp_path: Path, later_schema: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.wbb"
    with Bundle.create(path) as bundle, bundle.session() as session:
        session.add(Model(name="kept-model"))
    original_head = head_revision()

    monkeypatch.setattr(bundle_module, "MIGRATIONS_DIR", later_schema)
    monkeypatch.setattr(bundle_module, "HEAD_REVISION", "9999")  # the future release's
    with Bundle.open(path) as bundle:
        assert bundle.revision() == "9999"
        with bundle.engine.connect() as connection:
            row = connection.exec_driver_sql("SELECT name, family FROM models").one()
        assert tuple(row) == ("kept-model", None)

    backups = list(tmp_path.glob(f"old.backup-{original_head}-*.wbb"))
    assert len(backups) == 1
    with sqlite3.connect(backups[0]) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (
            original_head,
        )
        assert connection.execute("SELECT name FROM models").fetchall() == [("kept-model",)]


def test_migration_can_be_declined(
    tmp_path: Path, later_schema: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.wbb"
    Bundle.create(path).close()
    monkeypatch.setattr(bundle_module, "MIGRATIONS_DIR", later_schema)
    monkeypatch.setattr(bundle_module, "HEAD_REVISION", "9999")  # the future release's
    with pytest.raises(MigrationDeclinedError, match="older schema"):
        Bundle.open(path, migrate=False)
    assert not list(tmp_path.glob("old.backup-*"))


def test_migration_keeps_data_on_either_backend(
    bundle_location: Location, later_schema: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Bundle.create(bundle_location) as bundle, bundle.session() as session:
        session.add(Model(name="kept-model"))
    monkeypatch.setattr(bundle_module, "MIGRATIONS_DIR", later_schema)
    monkeypatch.setattr(bundle_module, "HEAD_REVISION", "9999")  # the future release's
    with pytest.raises(MigrationDeclinedError, match="older schema"):
        Bundle.open(bundle_location, migrate=False)
    with Bundle.open(bundle_location) as bundle, bundle.engine.connect() as connection:
        assert bundle.revision() == "9999"
        row = connection.exec_driver_sql("SELECT name, family FROM models").one()
    assert tuple(row) == ("kept-model", None)


def test_reader_does_not_block_a_writer(bundle_location: Location) -> None:
    path = bundle_location
    Bundle.create(path).close()
    with Bundle.open(path) as reader, Bundle.open(path) as writer:
        with reader.read_session() as snapshot:
            snapshot.scalars(select(Model)).all()
            with writer.session() as session:
                session.add(Model(name="written-while-reading"))
        with reader.read_session() as session:
            assert session.scalars(select(Model.name)).all() == ["written-while-reading"]


def test_the_declared_head_is_alembics_head() -> None:
    """HEAD_REVISION lets an open skip Alembic; a new migration must move it too."""
    assert head_revision() == bundle_module.alembic_head_revision()


def test_opening_a_current_bundle_does_not_import_alembic(tmp_path: Path) -> None:
    path = tmp_path / "current.wbb"
    Bundle.create(path).close()
    probe = (
        "import sys; from workbench.storage import Bundle\n"
        f"with Bundle.open({str(path)!r}) as bundle: revision = bundle.revision()\n"
        "print(revision, 'alembic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [head_revision(), "False"]


def test_a_bundle_with_two_schema_revisions_is_refused(tmp_path: Path) -> None:
    """Read without Alembic, the version table is still checked as Alembic checks it."""
    path = tmp_path / "branched.wbb"
    Bundle.create(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO alembic_version VALUES ('0003')")
    with pytest.raises(BundleError, match="2 schema revisions"):
        Bundle.open(path, migrate=False)


def test_a_refused_import_leaves_a_newer_bundle_s_journal_mode_alone(tmp_path: Path) -> None:
    """The newer app's file was switched to WAL by the open that then refused it."""
    from tests.importers.canonical_helpers import item_line, write_jsonl
    from workbench.services.importing import import_files

    path = tmp_path / "b.wbb"
    Bundle.create(path).close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE alembic_version SET version_num = 'f00dfeed'")
    connection.commit()
    assert connection.execute("PRAGMA journal_mode = DELETE").fetchone() == ("delete",)
    connection.close()
    before = path.read_bytes()
    with pytest.raises(BundleTooNewError, match="newer VLM Workbench"):
        import_files(path, [write_jsonl(tmp_path / "in", [item_line("q1")])], "jsonl")
    assert path.read_bytes() == before  # bytes 18-19 say rollback journal, not WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.wbb", "in"]
