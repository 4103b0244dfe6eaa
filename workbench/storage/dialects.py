"""Where a bundle lives and how to talk to it: an SQLite file or a PostgreSQL server.

Everything that differs between the two is here: parsing a location, building the engine
(SQLite pragmas and ``BEGIN IMMEDIATE`` writers; PostgreSQL READ COMMITTED writers and
REPEATABLE READ READ ONLY readers, UTC sessions, pre-ping), and turning a failed connection
into one line the user can act on.
"""

from __future__ import annotations

import random
import re
import sqlite3
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Engine, ExceptionContext, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Insert

from workbench.storage.credentials import masked, resolve_password
from workbench.storage.errors import (
    BundleConnectionError,
    BundleError,
    ServerSupportMissingError,
)
from workbench.storage.locations import (
    SERVER_SCHEMES,
    SQLITE_SCHEME,
    location_file,
    location_scheme,
    not_a_location_message,
)
from workbench.storage.read_only import read_only_uri

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
BUSY_TIMEOUT_MS = 10_000
#: bound parameters one statement may carry on every backend: SQLite before 3.32 refuses more
#: than 999 (32766 since), PostgreSQL 65535; ``IN`` lists are cut to this (storage.batching)
MAX_PARAMETERS = 900
#: how long a writer keeps retrying BEGIN IMMEDIATE on a busy SQLite file before giving up
BUSY_RETRY_DEADLINE_S = 60.0
CONNECT_TIMEOUT_S = 10
#: TLS settings a URL may carry as query parameters; libpq reads them as they are
TLS_PARAMETERS = ("sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword", "sslcrl")


@dataclass(frozen=True)
class BundleLocation:
    """A parsed bundle location: a file ``path`` (SQLite) or a server ``url`` (PostgreSQL).

    ``url`` keeps a password given in it, because it is needed to connect; show ``display``.
    """

    dialect: str
    path: Path | None = None
    url: URL | None = None
    shown_url: str | None = None

    @property
    def is_server(self) -> bool:
        return self.url is not None

    @property
    def display(self) -> str:
        """The path, or the URL with any password masked: what logs and messages show."""
        return self.shown_url if self.shown_url is not None else str(self.path)

    def same_bundle(self, other: BundleLocation) -> bool:
        """Whether both name the same bundle: files compared resolved, URLs without their
        passwords."""
        if self.path is not None and other.path is not None:
            return self.path.resolve() == other.path.resolve()
        return self.is_server and other.is_server and self.display == other.display


def parse_location(location: str | Path) -> BundleLocation:
    """A file path, ``sqlite:///path``, or a ``postgresql://`` URL (psycopg 3 is the driver
    whatever the URL names). Which of them a location is, is decided by
    :mod:`workbench.storage.locations`, as for every other reader."""
    path = location_file(location)
    if path is not None:  # a path, or sqlite:/// naming one
        return BundleLocation(SQLITE, path=path)
    scheme = location_scheme(location) or ""
    text = str(location).strip()
    try:
        url = make_url(text)
    except Exception as error:
        raise BundleError(f"cannot read the database URL: {error}") from None
    if scheme in SERVER_SCHEMES:
        if not url.database:
            raise BundleError(f"{masked(url)} names no database (add /DATABASE to the URL)")
        _refuse_control_characters(url)
        return BundleLocation(
            POSTGRESQL, url=url.set(drivername="postgresql+psycopg"), shown_url=masked(url)
        )
    if scheme == SQLITE_SCHEME:
        raise BundleError(f"{text} names no file on this machine: write sqlite:///PATH")
    raise BundleError(not_a_location_message(scheme))


def _refuse_control_characters(url: URL) -> None:
    """A ``%00`` decodes to NUL, which ends the C string libpq is given: the rest of the URL
    was dropped and the connection went to port 5432 as the operating-system user. Any
    control character in a part of the URL is refused before anything connects."""
    parts: list[tuple[str, object]] = [
        ("user name", url.username),
        ("password", url.password),
        ("host", url.host),
        ("database", url.database),
    ]
    for key, given in url.query.items():
        values = (given,) if isinstance(given, str) else given
        parts.extend((f"parameter '{key}'", item) for item in values)
        parts.append(("parameter name", key))
    for part, text in parts:
        if isinstance(text, str) and any(ord(char) < 32 or ord(char) == 127 for char in text):
            raise BundleError(
                f"{masked(url)}: the {part} holds a control character (such as %00); refused "
                "before connecting"
            )


def _sqlite_engine(path: Path, read_only: bool = False) -> Engine:
    if read_only:
        # SQLite itself refuses every write on this connection (mode=ro), whatever code runs
        engine = create_engine(f"sqlite:///{read_only_uri(path)}&uri=true")
    else:
        engine = create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        # Let SQLAlchemy decide where transactions begin (pysqlite's own guessing breaks
        # transactional DDL and savepoints), then set the durability and locking pragmas.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if read_only:
            cursor.execute("PRAGMA query_only = ON")
        else:  # switching to WAL writes to the file: a read-only open leaves it as it is
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @event.listens_for(engine, "handle_error")
    def _reconnect_after_a_disk_error(context: ExceptionContext) -> None:
        # A connection that met an I/O error can go on failing once the disk has recovered
        # (its file descriptor is dead after a removable or network disk came back, or its
        # pager stays in its error state) while a new connection works: the pool kept it, so
        # a long-running window reported the error on every write while `workbench check`
        # found the bundle sound. Counted as a lost connection, it and the connections opened
        # with it are dropped, and the next unit of work opens fresh ones.
        if is_disk_io_error(context.original_exception):
            context.is_disconnect = True
            context.invalidate_pool_on_disconnect = True

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        # Writers take the write lock at BEGIN, so two writers queue on busy_timeout instead of
        # deadlocking on a lock upgrade; readers begin deferred and never block each other.
        mode = connection.get_execution_options().get("begin", "IMMEDIATE")
        _begin_retrying_when_busy(connection, f"BEGIN {mode}")

    return engine


def is_disk_io_error(error: BaseException) -> bool:
    """Whether SQLite reported an input/output error of the disk (SQLITE_IOERR)."""
    return isinstance(error, sqlite3.OperationalError) and "disk i/o error" in str(error).lower()


def _is_busy(error: OperationalError) -> bool:
    return isinstance(error.orig, sqlite3.OperationalError) and "locked" in str(error.orig)


def _begin_retrying_when_busy(connection: Any, statement: str) -> None:
    """BEGIN, retried with jittered pauses while another process holds the write lock.

    SQLite's own busy handler sleeps in growing steps (up to 100 ms), so under many short
    writers from other processes one writer can lose every race until busy_timeout ends; the
    random pause between attempts breaks that lock-step. Once BEGIN IMMEDIATE succeeds the
    transaction holds the lock and nothing in it can be refused as busy.
    """
    deadline = time.monotonic() + BUSY_RETRY_DEADLINE_S
    while True:
        try:
            connection.exec_driver_sql(statement)
            return
        except OperationalError as error:
            if not _is_busy(error) or time.monotonic() > deadline:
                raise
        time.sleep(random.uniform(0.005, 0.05))


_writer_locks: dict[Path, threading.RLock] = {}
_writer_locks_guard = threading.Lock()


def writer_queue(location: BundleLocation) -> AbstractContextManager[Any]:
    """What a write transaction holds in this process before it begins.

    SQLite has one writer at a time per file anyway; queueing this process's writers on a
    lock (shared by every Bundle open on the same file) hands the write lock over in order
    instead of leaving threads to race SQLite's busy handler, where some starve. Re-entrant, so
    a nested write on another connection fails on busy_timeout as before rather than hanging.
    A server orders writers itself, with row locks.
    """
    if location.path is None:
        return nullcontext()
    key = location.path.resolve()
    with _writer_locks_guard:
        return _writer_locks.setdefault(key, threading.RLock())


SERVER_EXTRA_HINT = "pip install 'vlm-workbench[server]'"


def _postgresql_engine(url: URL) -> Engine:
    # psycopg is an optional extra: most people never use a server, and its wheel is large.
    # The engine would import it on first connect; importing it here turns its absence into
    # a line the user can act on.
    try:
        import psycopg  # noqa: F401
    except ImportError as error:
        raise ServerSupportMissingError(
            "bundles on a PostgreSQL server need the PostgreSQL driver, which is not installed: "
            + SERVER_EXTRA_HINT
        ) from error
    password = resolve_password(url).password
    connect_args: dict[str, Any] = {
        "connect_timeout": CONNECT_TIMEOUT_S,
        "application_name": "vlm-workbench",
    }
    if "options" not in url.query:
        # Timestamps come back in UTC, and naive ones written by the app are read as UTC.
        connect_args["options"] = "-c timezone=UTC"
    return create_engine(
        url.set(password=password),
        # Writers see what others committed before each statement, which the lease hand-out
        # relies on (it re-counts after taking a row lock).
        isolation_level="READ COMMITTED",
        pool_pre_ping=True,
        connect_args=connect_args,
    )


def make_engine(location: BundleLocation, read_only: bool = False) -> Engine:
    """The engine for a bundle; it connects lazily, on first use. ``read_only``: the database
    refuses every write (SQLite ``mode=ro``; PostgreSQL read-only transactions)."""
    if location.url is not None:
        engine = _postgresql_engine(location.url)
        return engine.execution_options(postgresql_readonly=True) if read_only else engine
    assert location.path is not None
    return _sqlite_engine(location.path, read_only)


def reading(engine: Engine) -> Engine:
    """The engine's reader: a consistent snapshot that takes no write lock (a deferred
    transaction on SQLite, REPEATABLE READ READ ONLY on PostgreSQL)."""
    if engine.dialect.name == POSTGRESQL:
        return engine.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    return engine.execution_options(begin="DEFERRED")


def connection_error(location: BundleLocation, error: BaseException) -> BundleConnectionError:
    """One line saying why the server could not be reached (no traceback, no password)."""
    detail = str(getattr(error, "orig", None) or error).strip().splitlines()
    reason = detail[0] if detail else type(error).__name__
    reason = re.sub(r"^connection failed:\s*", "", reason)
    if location.url is not None and location.url.password:
        reason = reason.replace(str(location.url.password), "***")
    hint = ""
    if "password authentication failed" in reason or "no password supplied" in reason:
        hint = " (give the password in $WORKBENCH_DB_PASSWORD, the system keyring or ~/.pgpass)"
    elif 'database "' in reason and "does not exist" in reason:
        hint = " (the lab's administrator creates the database first; see docs/team.md)"
    return BundleConnectionError(f"cannot connect to {location.display}: {reason}{hint}")


def insert_ignoring_conflicts(session: Session, table: Any) -> Insert:
    """``INSERT ... ON CONFLICT DO NOTHING`` into ``table`` in the session's dialect: rows whose
    key is already stored are left as they are."""
    dialect = postgresql if session.get_bind().dialect.name == POSTGRESQL else sqlite
    result: Insert = dialect.insert(table).on_conflict_do_nothing()
    return result
