"""New SQLite bundles in tests get the head schema by replaying a template, not the migrations.

Creating a bundle runs every Alembic migration on the empty file: about 0.17 s of CPU, paid by
each of the many bundles the suite creates in-process. ``replaying_the_schema()`` (an autouse
session fixture in tests/conftest.py) swaps ``workbench.storage.bundle._upgrade`` for one that,
on an empty SQLite database only, runs the SQL dump of a bundle the real migrations made once
per process (every table, index and the alembic_version row; no bundle_info row, which
``Bundle._create_in_place`` writes as ever). Everything else about creating a bundle is the
app's own code. A database that has tables (an older bundle being upgraded) and a server
database still run the migrations, and so does every bundle a child process creates.
tests/storage/test_bundle_template.py checks that both ways give the same bundle.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from workbench.storage import bundle as bundle_module

Upgrade = Callable[[Connection], None]

#: the app's own upgrade, the migrations (taken when the suite's conftest imports this module,
#: before its fixture replaces it)
run_the_migrations: Upgrade = bundle_module._upgrade


def schema_dump(upgrade: Upgrade) -> list[str]:
    """The SQL statements that rebuild what ``upgrade`` writes into an empty SQLite bundle
    (tables, indexes, triggers, views and the rows its migrations insert), bundle_info left out."""
    with tempfile.TemporaryDirectory(prefix="bundle-template-") as folder:
        path = Path(folder) / "template.wbb"
        with _patched_upgrade(upgrade):
            bundle_module.Bundle.create(path).close()
        connection = sqlite3.connect(path)
        try:
            with connection:
                connection.execute("DELETE FROM bundle_info")
            statements = list(connection.iterdump())
        finally:
            connection.close()
    return [s for s in statements if s not in ("BEGIN TRANSACTION;", "COMMIT;")]


def _is_empty_sqlite(connection: Connection) -> bool:
    if connection.dialect.name != "sqlite":
        return False
    return connection.execute(text("SELECT count(*) FROM sqlite_master")).scalar() == 0


def replaying(upgrade: Upgrade) -> Upgrade:
    """``upgrade``, except that an empty SQLite database gets the dump of what it writes: one
    dump per migrations folder and head (a test may point the app at a later schema)."""
    dumps: dict[tuple[str, str], list[str]] = {}

    def replay_or_upgrade(connection: Connection) -> None:
        if not _is_empty_sqlite(connection):
            upgrade(connection)
            return
        key = (str(bundle_module.MIGRATIONS_DIR), bundle_module.HEAD_REVISION)
        if key not in dumps:
            dumps[key] = schema_dump(upgrade)
        for statement in dumps[key]:
            connection.exec_driver_sql(statement)

    return replay_or_upgrade


@contextmanager
def _patched_upgrade(upgrade: Upgrade) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bundle_module, "_upgrade", upgrade)
        yield


@contextmanager
def replaying_the_schema() -> Iterator[None]:
    """While open, new empty SQLite bundles are made from the dump of the migrations."""
    with _patched_upgrade(replaying(run_the_migrations)):
        yield
