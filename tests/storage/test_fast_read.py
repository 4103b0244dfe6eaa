"""The SQLAlchemy-free reader: its compiled statement is the read model's, its schema revision
is Alembic's head, it counts exactly what :func:`battle_counts` counts, and it declines (None)
whatever it is not sure of, writing nothing."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.orm import Session

from tests.backends import BundleBackend
from tests.importers.canonical_helpers import write_jsonl
from tests.services.campaign_ops_bundle import build_ops_bundle
from tests.shared_builds import copy_of
from tests.storage.counted_bundle import build_counted_bundle
from tests.storage.test_judgment_counts import source_lines
from workbench.storage import Bundle, fast_read
from workbench.storage.bundle import alembic_head_revision
from workbench.storage.judgments import (
    COMPILED_QUERIES_MODULE,
    OutcomeFilter,
    battle_counts,
    compiled_queries_source,
    flagged_judgments,
    read_judgments,
)
from workbench.storage.revision import HEAD_REVISION


@pytest.fixture(scope="module")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory, demo_bundle_template: Path) -> Path:
    return copy_of(demo_bundle_template, tmp_path_factory.mktemp("demo"))


def of_kind(rows: list[fast_read.KindCountRow] | None, kind: str) -> list[fast_read.CountRow]:
    """The quick reader's counts of one kind of evaluator, the simulated judge's left out as
    the read model's default filter leaves them out."""
    assert rows is not None
    return [row for row_kind, simulated, row in rows if row_kind == kind and not simulated]


def per_kind(session: Session, filters: OutcomeFilter, weight: float) -> dict[str, list[Any]]:
    return {
        kind: battle_counts(session, filters, OutcomeFilter(kinds=(kind,)), decisive_weight=weight)
        for kind in ("human", "judge")
    }


def test_the_compiled_statements_are_current() -> None:
    assert COMPILED_QUERIES_MODULE.read_text() == compiled_queries_source(), (
        "the read model changed: regenerate with python -m workbench.storage.judgments"
    )


def test_the_schema_revision_is_alembics_head() -> None:
    assert alembic_head_revision() == HEAD_REVISION, (
        "a new migration: set workbench.storage.revision.HEAD_REVISION to its revision"
    )


@pytest.mark.parametrize("weight", [3.0, 1.0, 2.5])
def test_counts_equal_the_read_models(demo_bundle: Path, weight: float) -> None:
    with Bundle.open(demo_bundle) as bundle, bundle.read_session() as session:
        expected = per_kind(session, OutcomeFilter(), weight)
    # the demo has human and judge judgments to count
    assert expected["human"] and expected["judge"]
    found = fast_read.battle_counts(demo_bundle, weight)
    for kind, counted in expected.items():
        assert of_kind(found, kind) == counted


def test_one_campaigns_counts_equal_the_read_models(tmp_path: Path) -> None:
    path, _ = build_ops_bundle(tmp_path)
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        _names, rows = read_judgments(session, OutcomeFilter(), columns=("campaign",))
        campaigns = sorted({campaign for (campaign,) in rows if campaign is not None})
        assert campaigns  # votes cast in a campaign
        expected = {
            name: per_kind(session, OutcomeFilter(campaigns=(name,)), 3.0)
            for name in [*campaigns, "no such campaign"]
        }
    assert expected[campaigns[0]]["human"]
    for name, counted in expected.items():
        found = fast_read.battle_counts(path, 3.0, campaign=name)
        for kind in ("human", "judge"):
            assert of_kind(found, kind) == counted[kind]


@pytest.mark.shared_data
def test_counts_equal_the_read_models_on_wildvision(full_bundle: Path) -> None:
    with Bundle.open(full_bundle) as bundle, bundle.read_session() as session:
        expected = per_kind(session, OutcomeFilter(), 3.0)
    found = fast_read.battle_counts(full_bundle, 3.0)
    for kind, counted in expected.items():
        assert of_kind(found, kind) == counted


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_another_schema_is_left_to_the_usual_open(demo_bundle: Path, tmp_path: Path) -> None:
    older = tmp_path / "older.wbb"
    with sqlite3.connect(demo_bundle) as source, sqlite3.connect(older) as target:
        source.backup(target)
    with sqlite3.connect(older) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0003'")
    before = _digest(older)
    assert fast_read.battle_counts(older, 3.0) is None
    assert _digest(older) == before


def test_what_is_not_a_bundle_file_is_declined(tmp_path: Path) -> None:
    text = tmp_path / "notes.wbb"
    text.write_text("not a database")
    plain = tmp_path / "plain.wbb"
    with sqlite3.connect(plain) as connection:
        connection.execute("CREATE TABLE t (x)")
    assert fast_read.battle_counts(text, 3.0) is None
    assert fast_read.battle_counts(plain, 3.0) is None
    assert fast_read.battle_counts(tmp_path / "missing.wbb", 3.0) is None
    assert fast_read.battle_counts(tmp_path, 3.0) is None
    assert fast_read.battle_counts("postgresql://lab@db/", 3.0) is None  # names no database
    assert text.read_text() == "not a database"


def test_info_value_reads_what_bundle_info_holds(demo_bundle: Path) -> None:
    with Bundle.open(demo_bundle) as bundle:
        info = bundle.info()
    assert info  # the bundle's id, the app version that made it
    for key, value in info.items():
        assert fast_read.info_value(demo_bundle, key) == fast_read.InfoValue(value)
    assert fast_read.info_value(demo_bundle, "no such key") == fast_read.InfoValue(None)


def test_info_value_declines_what_it_is_not_sure_of(demo_bundle: Path, tmp_path: Path) -> None:
    assert fast_read.info_value("postgresql://host/db", "pack") is None
    assert fast_read.info_value(tmp_path / "absent.wbb", "pack") is None
    assert fast_read.info_value(tmp_path, "pack") is None  # a folder
    not_sqlite = tmp_path / "text.wbb"
    not_sqlite.write_text("not a database")
    assert fast_read.info_value(not_sqlite, "pack") is None
    older = tmp_path / "older.wbb"
    older.write_bytes(demo_bundle.read_bytes())
    with sqlite3.connect(older) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0003'")
    connection.close()
    before = hashlib.sha256(older.read_bytes()).hexdigest()
    assert fast_read.info_value(older, "pack") is None  # left to Bundle.open to migrate
    assert hashlib.sha256(older.read_bytes()).hexdigest() == before


# --- a bundle on a PostgreSQL server ---------------------------------------------------------


@pytest.fixture(scope="module")
def jsonl_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("src"), source_lines())


@pytest.fixture(scope="module")
def sqlite_reference(tmp_path_factory: pytest.TempPathFactory, jsonl_source: Path) -> Path:
    path = tmp_path_factory.mktemp("reference") / "reference.wbb"
    build_counted_bundle(path, jsonl_source)
    return path


def test_a_server_bundle_reads_the_counts_a_file_reads(
    bundle_backend: BundleBackend, jsonl_source: Path, sqlite_reference: Path
) -> None:
    """The same judgments on either backend: the quick reader's counts (every judgment, one
    campaign's, the flagged ones) equal the read model's on that bundle and the file's, read
    through the database's driver alone."""
    location = bundle_backend.new_location()
    build_counted_bundle(location, jsonl_source)
    for campaign in (None, "pilot"):
        filters = OutcomeFilter(campaigns=("pilot",) if campaign else ())
        with Bundle.open(location) as bundle, bundle.read_session() as session:
            expected = per_kind(session, filters, 2.5)
            flagged = flagged_judgments(session, filters)
        assert expected["human"] and flagged
        found = fast_read.battle_counts(location, 2.5, campaign)
        assert found == fast_read.battle_counts(sqlite_reference, 2.5, campaign)
        for kind, counted in expected.items():
            assert of_kind(found, kind) == counted
        flagged_read = fast_read.flagged_counts(location, campaign)
        assert flagged_read == fast_read.flagged_counts(sqlite_reference, campaign)
        assert flagged_read is not None
        assert sum(count for _kind, simulated, count in flagged_read if not simulated) == flagged
        # what a board reads: both in one snapshot
        assert fast_read.board_counts(location, 2.5, campaign) == (found, flagged_read)


def test_a_server_url_it_cannot_read_is_left_to_the_usual_open(
    bundle_backend: BundleBackend,
) -> None:
    """A URL without a database or with a control character is declined before connecting; a
    server bundle at another schema revision is declined, and nothing is written to it."""
    assert fast_read.battle_counts("postgresql://lab@127.0.0.1:1/", 3.0) is None
    assert fast_read.battle_counts("postgresql://lab@127.0.0.1:1/db%00x", 3.0) is None
    if bundle_backend.name != "postgresql":
        return
    location = bundle_backend.new_location()
    Bundle.create(location).close()
    assert fast_read.battle_counts(location, 3.0) == []
    with psycopg.connect(str(location), autocommit=True) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0003'")
    assert fast_read.battle_counts(location, 3.0) is None
    assert fast_read.flagged_counts(location) is None
    with psycopg.connect(str(location)) as connection:
        found = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    assert found == [("0003",)]
