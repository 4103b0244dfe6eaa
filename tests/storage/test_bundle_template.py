"""The suite's shortcut for new bundles (tests/bundle_template.py) makes the bundle the
migrations make: same schema, same rows, same settings; and it leaves upgrades of older
bundles and server databases to the migrations."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection

from tests.backends import Location
from tests.bundle_template import replaying, run_the_migrations
from workbench.storage import Bundle
from workbench.storage import bundle as bundle_module

PRAGMAS = ("journal_mode", "foreign_keys", "user_version", "application_id", "page_size")


def contents(path: Path) -> dict[str, Any]:
    """Everything about a bundle file but its bundle_info values (its own id and date)."""
    with closing(sqlite3.connect(path)) as connection:
        master = sorted(connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        rows = {
            name: sorted(connection.execute(f'SELECT * FROM "{name}"'))
            for kind, name, _table, _sql in master
            if kind == "table" and name != "bundle_info"
        }
        keys = sorted(connection.execute("SELECT key FROM bundle_info"))
        pragmas = {p: connection.execute(f"PRAGMA {p}").fetchall() for p in PRAGMAS}
    return {"master": master, "rows": rows, "info keys": keys, "pragmas": pragmas}


def test_a_replayed_bundle_equals_a_migrated_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle_module, "_upgrade", run_the_migrations)
    Bundle.create(tmp_path / "migrated.wbb").close()
    monkeypatch.setattr(bundle_module, "_upgrade", replaying(run_the_migrations))
    Bundle.create(tmp_path / "replayed.wbb").close()
    migrated, replayed = contents(tmp_path / "migrated.wbb"), contents(tmp_path / "replayed.wbb")
    assert migrated["master"] and migrated["rows"]["alembic_version"]
    assert replayed == migrated


def test_only_a_new_sqlite_bundle_is_replayed(
    bundle_location: Location, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server database, and an existing bundle being upgraded, run the migrations."""
    calls: list[str] = []

    def counted(connection: Connection) -> None:
        calls.append(connection.dialect.name)
        run_the_migrations(connection)

    monkeypatch.setattr(bundle_module, "_upgrade", replaying(counted))
    Bundle.create(tmp_path / "first.wbb").close()
    Bundle.create(tmp_path / "second.wbb").close()
    assert calls == ["sqlite"]  # the dump, made once

    Bundle.create(bundle_location).close()
    if isinstance(bundle_location, Path):
        assert calls == ["sqlite"]
    else:
        assert calls == ["sqlite", "postgresql"]

    with closing(sqlite3.connect(tmp_path / "second.wbb")) as connection, connection:
        connection.execute("UPDATE alembic_version SET version_num = '0007'")
    upgraded: list[str] = []
    monkeypatch.setattr(
        bundle_module, "_upgrade", replaying(lambda connection: upgraded.append("migrations"))
    )
    Bundle.open(tmp_path / "second.wbb").close()
    assert upgraded == ["migrations"]
