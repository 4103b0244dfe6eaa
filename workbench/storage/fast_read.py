"""Reading a bundle with the database's driver alone, for quick answers (``workbench
leaderboard``, whether ``workbench open`` was given an offline pack): the standard library's
sqlite3 for a file, psycopg for a server bundle; no SQLAlchemy, no Alembic, no migration check
beyond the schema revision.

Safe because it only ever reads: a file's connection is read-only (``mode=ro`` and
``query_only``), a server's transaction is ``READ ONLY``; and a bundle it is not sure of (not a
plain file, another schema revision, anything the driver refuses, a server that asks for a
password neither the URL nor ``$WORKBENCH_DB_PASSWORD`` gives) is not read here at all: the
caller then opens it the usual way (:meth:`workbench.storage.Bundle.open`), which upgrades,
refuses, reads the keyring or explains. The statements it runs are the read model's own
(:mod:`workbench.storage.judgments`), compiled to each dialect's text in
:mod:`workbench.storage.compiled_queries`, so the paths read the same judgments, and on a server
the aggregate runs there: the client receives one row per counted cell, never a judgment.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from workbench.storage.compiled_queries import (
    BATTLE_COUNTS_SQL,
    CAMPAIGN_BATTLE_COUNTS_SQL,
    CAMPAIGN_FLAGGED_COUNTS_SQL,
    FLAGGED_COUNTS_SQL,
    SERVER_BATTLE_COUNTS_SQL,
    SERVER_CAMPAIGN_BATTLE_COUNTS_SQL,
    SERVER_CAMPAIGN_FLAGGED_COUNTS_SQL,
    SERVER_FLAGGED_COUNTS_SQL,
)
from workbench.storage.locations import is_server_url, location_file
from workbench.storage.read_only import read_only_uri
from workbench.storage.revision import HEAD_REVISION

#: whether any flag stands (the read model's ``flagged_judgments`` answers 0 without one)
STANDING_FLAG_SQL = "SELECT 1 FROM flags WHERE retracted_at IS NULL LIMIT 1"
#: as long as a bundle opened the usual way waits for a writer (storage.dialects)
BUSY_TIMEOUT_MS = 10_000
#: as long as a server bundle opened the usual way waits to connect (storage.dialects)
CONNECT_TIMEOUT_S = 10
#: the password a server bundle opened the usual way takes when its URL gives none
#: (storage.credentials, which reads the keyring after it: this reader does not)
PASSWORD_ENV_VAR = "WORKBENCH_DB_PASSWORD"

T = TypeVar("T")

#: a battle count: model_a, model_b, outcome, battles (weighted), judgments
CountRow = tuple[str, str, str, float, int]
#: a battle count of one kind of evaluator: (kind, whether it counts the simulated judge's
#: verdicts, count)
KindCountRow = tuple[str, bool, CountRow]


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(read_only_uri(path.resolve()), uri=True)
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    connection.execute("PRAGMA query_only = ON")
    return connection


def _readable_file(location: str | Path) -> Path | None:
    """The file at ``location`` when this reader may try it (not a server URL, a plain file)."""
    path = location_file(location)
    return path if path is not None and path.is_file() else None


def _at_current_revision(connection: Any) -> bool:
    revisions: list[tuple[str, ...]] = connection.execute(
        "SELECT version_num FROM alembic_version"
    ).fetchall()
    return revisions == [(HEAD_REVISION,)]


@dataclass(frozen=True)
class InfoValue:
    """What the bundle's ``bundle_info`` holds under a key: its text, or None (no such key)."""

    value: str | None


def _snapshot_read(location: str | Path, read: Callable[[Any, bool], T]) -> T | None:
    """``read(connection, on_server)`` on the bundle at ``location``, in one snapshot with the
    schema revision it checked; None when this reader does not handle the location (no file,
    another schema, a bundle the driver will not read), for the caller to open it the usual
    way."""
    if is_server_url(location):
        return _server_snapshot_read(str(location), read)
    path = _readable_file(location)
    if path is None:
        return None
    try:
        with closing(_connect(path)) as connection:
            connection.execute("BEGIN")  # one snapshot for the revision and what is read
            if not _at_current_revision(connection):
                return None
            return read(connection, False)
    except sqlite3.Error:
        return None


def _server_conninfo(url: str) -> tuple[str, str | None] | None:
    """The URL as libpq reads it (the driver's name dropped from the scheme) and the password
    the usual open would take before the keyring; None for a URL this reader leaves to the
    usual open: no database, or a control character in it (refused there before connecting)."""
    parts = urlsplit(url.strip())
    if not parts.path.strip("/") or any(ord(c) < 32 or ord(c) == 127 for c in unquote(url)):
        return None
    conninfo = parts._replace(scheme="postgresql").geturl()
    password = unquote(parts.password) if parts.password else os.environ.get(PASSWORD_ENV_VAR)
    return conninfo, password or None


def _server_snapshot_read(url: str, read: Callable[[Any, bool], T]) -> T | None:
    """``read`` in one read-only REPEATABLE READ transaction of the server bundle at ``url``;
    None when psycopg is not installed, the URL is left to the usual open, or the server
    refuses the connection or the statement (a password only the keyring holds among them)."""
    found = _server_conninfo(url)
    if found is None:
        return None
    try:
        # optional: psycopg is an extra; without it the quick path leaves the URL to the usual open
        import psycopg
    except ImportError:
        return None
    conninfo, password = found
    arguments: dict[str, Any] = {
        "connect_timeout": CONNECT_TIMEOUT_S,
        "application_name": "vlm-workbench",
    }
    if password is not None:
        arguments["password"] = password
    try:
        with psycopg.connect(conninfo, **arguments) as connection:
            connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            connection.read_only = True
            if not _at_current_revision(connection):
                return None
            return read(connection, True)
    except psycopg.Error:
        return None


def info_value(location: str | Path, key: str) -> InfoValue | None:
    """The ``bundle_info`` entry ``key`` of the bundle file at ``location`` (what
    :meth:`workbench.storage.Bundle.info` gives); None for a server URL (its one caller asks
    whether a file is an offline pack, which a server bundle never is) and when this reader
    does not handle the location (see :func:`_snapshot_read`)."""

    def read(connection: sqlite3.Connection, _on_server: bool) -> InfoValue:
        found = connection.execute("SELECT value FROM bundle_info WHERE key = ?", (key,)).fetchone()
        return InfoValue(None if found is None else str(found[0]))

    return None if is_server_url(location) else _snapshot_read(location, read)


#: judgments on flagged comparisons of one kind of evaluator: (kind, whether they are the
#: simulated judge's verdicts, judgments)
FlaggedCount = tuple[str, bool, int]


def _battle_counts_read(
    decisive_weight: float, campaign: str | None
) -> Callable[[Any, bool], list[KindCountRow]]:
    parameters: dict[str, float | str] = {"decisive_weight": float(decisive_weight)}
    statements = (BATTLE_COUNTS_SQL, SERVER_BATTLE_COUNTS_SQL)
    if campaign is not None:
        statements = (CAMPAIGN_BATTLE_COUNTS_SQL, SERVER_CAMPAIGN_BATTLE_COUNTS_SQL)
        parameters["campaign"] = campaign

    def read(connection: Any, on_server: bool) -> list[KindCountRow]:
        found = connection.execute(statements[on_server], parameters).fetchall()
        return [
            (str(kind), bool(simulated), (a, b, outcome, float(total), int(judgments)))
            for a, b, outcome, total, judgments, _first, kind, simulated in found
        ]

    return read


def _flagged_counts_read(campaign: str | None) -> Callable[[Any, bool], list[FlaggedCount]]:
    parameters: dict[str, str] = {}
    statements = (FLAGGED_COUNTS_SQL, SERVER_FLAGGED_COUNTS_SQL)
    if campaign is not None:
        statements = (CAMPAIGN_FLAGGED_COUNTS_SQL, SERVER_CAMPAIGN_FLAGGED_COUNTS_SQL)
        parameters["campaign"] = campaign

    def read(connection: Any, on_server: bool) -> list[FlaggedCount]:
        if connection.execute(STANDING_FLAG_SQL).fetchone() is None:
            return []
        found = connection.execute(statements[on_server], parameters).fetchall()
        return [(str(kind), bool(simulated), int(count)) for kind, simulated, count in found]

    return read


def battle_counts(
    location: str | Path, decisive_weight: float, campaign: str | None = None
) -> list[KindCountRow] | None:
    """:func:`workbench.storage.judgments.battle_counts` of every judgment (no filter), or of
    one campaign's, per kind of evaluator (``human`` or ``judge``, the first field) and
    whether the rows are the simulated judge's verdicts (the second), in the bundle at
    ``location``, read in one snapshot; None when this reader does not handle the location
    (see :func:`_snapshot_read`)."""
    return _snapshot_read(location, _battle_counts_read(decisive_weight, campaign))


def flagged_counts(location: str | Path, campaign: str | None = None) -> list[FlaggedCount] | None:
    """:func:`workbench.storage.judgments.flagged_judgments` of every judgment, or of one
    campaign's, per kind of evaluator and whether they are the simulated judge's verdicts, in
    the bundle at ``location`` (nothing read past one index lookup when no flag stands);
    None when this reader does not handle the location (see :func:`_snapshot_read`)."""
    return _snapshot_read(location, _flagged_counts_read(campaign))


def board_counts(
    location: str | Path, decisive_weight: float, campaign: str | None = None
) -> tuple[list[KindCountRow], list[FlaggedCount]] | None:
    """:func:`battle_counts` and :func:`flagged_counts` in one snapshot (one connection): what a
    board reads, so its counts and what it says of flagged comparisons agree; None when this
    reader does not handle the location."""
    counts = _battle_counts_read(decisive_weight, campaign)
    flagged = _flagged_counts_read(campaign)
    return _snapshot_read(
        location,
        lambda connection, on_server: (
            counts(connection, on_server),
            flagged(connection, on_server),
        ),
    )
