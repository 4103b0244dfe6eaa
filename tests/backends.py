"""Where test bundles live: a file in a temporary folder, or a fresh database on the test
PostgreSQL server named by $WORKBENCH_TEST_POSTGRES_URL (an admin URL; scripts/test starts one).

Without that variable the PostgreSQL variants skip, except in CI (CI=true), where they fail:
CI must not pass by silently leaving the server out.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

from workbench.storage.bundle import Bundle, copy_bundle
from workbench.storage.files import sidecar_paths

POSTGRES_URL_ENV = "WORKBENCH_TEST_POSTGRES_URL"
#: every test database starts with this, so a leftover one is easy to recognise
DATABASE_PREFIX = "wbtest_"

#: the parameters of a fixture that runs a test on both backends
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]

Location = Path | str


def postgres_admin_url() -> str:
    """The test server's admin URL; skips the test without one (fails in CI)."""
    url = os.environ.get(POSTGRES_URL_ENV, "").strip()
    if not url:
        message = f"no PostgreSQL test server (set {POSTGRES_URL_ENV})"
        if os.environ.get("CI") == "true":
            pytest.fail(message + "; CI must run the PostgreSQL tests")
        pytest.skip(message)
    return url


class BundleBackend:
    """Hands out fresh bundle locations on one backend, and removes them again."""

    name: str

    def new_location(self) -> Location:
        """An empty place for a new bundle (Bundle.create or an import puts one there)."""
        raise NotImplementedError

    def copy(self, source: Location) -> Location:
        """A copy of the closed bundle at ``source``, at a new location."""
        raise NotImplementedError

    def restore(self, source: Location, target: Location) -> None:
        """Make the closed bundle at ``target`` (a location this backend handed out) a copy of
        the closed bundle at ``source`` again, at the same location: an engine of ``target``
        disposed of (:meth:`Bundle.close`) can go on, and keeps the statements it compiled."""
        raise NotImplementedError

    def discard(self, location: Location) -> None:
        """Remove a location this backend handed out (a no-op for files; tmp folders go)."""

    @contextmanager
    def opened_copy(self, source: Location) -> Iterator[Bundle]:
        """A copy of the closed bundle at ``source``, open for the block, discarded after it:
        a function fixture's bundle that its test may write to."""
        location = self.copy(source)
        with Bundle.open(location) as opened:
            yield opened
        self.discard(location)

    def close(self) -> None:
        """Remove everything this backend still holds."""


class SqliteBackend(BundleBackend):
    name = "sqlite"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._numbers = itertools.count()

    def new_location(self) -> Path:
        return self.folder / f"bundle-{next(self._numbers)}.wbb"

    def copy(self, source: Location) -> Path:
        target = self.new_location()
        copy_bundle(Path(source), target)
        return target

    def restore(self, source: Location, target: Location) -> None:
        # the target's write-ahead log belongs to its old content
        for sidecar in sidecar_paths(Path(target)):
            sidecar.unlink(missing_ok=True)
        copy_bundle(Path(source), Path(target))


class PostgresBackend(BundleBackend):
    """Each location is a database ``wbtest_<random>`` on the admin URL's server; copies use
    ``CREATE DATABASE ... TEMPLATE``, which is much faster than building a bundle again."""

    name = "postgresql"

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self._created: list[str] = []

    def _admin(self, statement: sql.SQL | sql.Composed) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            connection.execute(statement)

    def _url_of(self, database: str) -> str:
        return make_url(self.admin_url).set(database=database).render_as_string(False)

    def _new_database(self, template: str | None = None) -> str:
        database = DATABASE_PREFIX + uuid.uuid4().hex[:12]
        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database))
        if template is not None:
            statement = sql.SQL("{} TEMPLATE {}").format(statement, sql.Identifier(template))
        self._admin(statement)
        self._created.append(database)
        return database

    def new_location(self) -> str:
        return self._url_of(self._new_database())

    def copy(self, source: Location) -> str:
        template = make_url(str(source)).database
        assert template is not None
        return self._url_of(self._new_database(template))

    def restore(self, source: Location, target: Location) -> None:
        template, database = make_url(str(source)).database, make_url(str(target)).database
        assert template is not None and database in self._created
        self._admin(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(database)))
        self._admin(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(database), sql.Identifier(template)
            )
        )

    def discard(self, location: Location) -> None:
        database = make_url(str(location)).database
        if database in self._created:
            self._created.remove(database)
            self._admin(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
            )

    def close(self) -> None:
        for database in list(self._created):
            self.discard(self._url_of(database))


def make_backend(name: str, folder: Path) -> BundleBackend:
    """The backend called ``name`` ("sqlite" or "postgresql"); files go under ``folder``."""
    if name == "sqlite":
        return SqliteBackend(folder)
    return PostgresBackend(postgres_admin_url())
