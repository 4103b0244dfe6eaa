"""A bundle written with the first schema (the committed fixture, revision 0001) opens in this
version with every row intact after a backup, and a bundle from a newer app is refused without
being touched."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.make_bundle_0001 import FIXTURE, REVISION, build
from workbench.storage import Bundle, BundleTooNewError, head_revision
from workbench.storage.backups import list_backups
from workbench.storage.integrity import integrity_check
from workbench.storage.queries import bundle_counts

Dump = dict[str, tuple[list[str], list[tuple[Any, ...]]]]


def dump(path: Path, columns: dict[str, list[str]] | None = None) -> Dump:
    """Every table's columns and rows (only ``columns`` of each table when given)."""
    connection = sqlite3.connect(path)
    try:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        result: Dump = {}
        for table in columns or tables:
            names = (columns or {}).get(table) or [
                row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')
            ]
            listed = ", ".join(f'"{name}"' for name in names)
            order = ", ".join(str(n) for n in range(1, len(names) + 1))
            rows = connection.execute(f'SELECT {listed} FROM "{table}" ORDER BY {order}').fetchall()
            result[table] = (names, rows)
        return result
    finally:
        connection.close()


@pytest.fixture
def old_bundle(tmp_path: Path) -> Path:
    copy = tmp_path / "old.wbb"
    shutil.copyfile(FIXTURE, copy)
    return copy


def test_the_fixture_is_small_at_the_first_revision_and_up_to_date(tmp_path: Path) -> None:
    assert FIXTURE.stat().st_size < 300_000
    committed = dump(FIXTURE)
    assert committed["alembic_version"][1] == [(REVISION,)]
    assert all(rows for table, (_, rows) in committed.items()), "every table has rows"
    regenerated = build(tmp_path / "again.wbb")
    assert dump(regenerated) == committed, "run python tests/fixtures/make_bundle_0001.py"


def test_an_old_bundle_is_migrated_with_every_row_intact(old_bundle: Path) -> None:
    before = dump(old_bundle)
    old_columns = {table: names for table, (names, _) in before.items()}
    del old_columns["alembic_version"]
    with Bundle.open(old_bundle, migrate=True) as bundle:
        assert bundle.revision() == head_revision()
        with bundle.read_session() as session:
            totals = bundle_counts(session)["totals"]
    assert totals["items"] == len(before["items"][1])
    assert totals["outputs"] == len(before["outputs"][1])
    after = dump(old_bundle, old_columns)
    for table, (_, rows) in after.items():
        assert rows == before[table][1], f"{table} changed in the upgrade"
    assert integrity_check(old_bundle, full=True) == []
    backups = list_backups(old_bundle)
    if head_revision() == REVISION:
        assert backups == []  # nothing to upgrade, nothing copied
    else:
        assert [backup.reason for backup in backups] == [REVISION]
        assert dump(backups[0].path) == before


@pytest.mark.parametrize("migrate", [True, False])
def test_a_bundle_from_a_newer_app_is_refused_untouched(old_bundle: Path, migrate: bool) -> None:
    connection = sqlite3.connect(old_bundle)
    with connection:
        connection.execute("UPDATE alembic_version SET version_num = 'ffff_from_the_future'")
    connection.close()
    before = old_bundle.read_bytes()
    with pytest.raises(BundleTooNewError, match=r"newer VLM Workbench.*Update the app"):
        Bundle.open(old_bundle, migrate=migrate)
    assert old_bundle.read_bytes() == before
    assert list_backups(old_bundle) == []
