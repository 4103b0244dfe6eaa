"""Reading a bundle file with the standard library's sqlite3 alone, for quick answers
(``workbench leaderboard``, whether ``workbench open`` was given an offline pack): no
SQLAlchemy, no Alembic, no migration check beyond the schema revision.

Safe because it only ever reads: the connection is read-only (``mode=ro`` and ``query_only``),
and a file it is not sure of (not a plain file, another schema revision, anything SQLite
refuses) is not read here at all: the caller then opens it the usual way
(:meth:`workbench.storage.Bundle.open`), which upgrades, refuses or explains. The statements it
runs are the read model's own (:mod:`workbench.storage.judgments`), compiled to SQLite text in
:mod:`workbench.storage.compiled_queries`, so the two paths read the same judgments.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from workbench.storage.compiled_queries import (
    BATTLE_COUNTS_SQL,
    CAMPAIGN_BATTLE_COUNTS_SQL,
    CAMPAIGN_FLAGGED_COUNTS_SQL,
    FLAGGED_COUNTS_SQL,
)
from workbench.storage.locations import location_file
from workbench.storage.read_only import read_only_uri
from workbench.storage.revision import HEAD_REVISION

#: whether any flag stands (the read model's ``flagged_judgments`` answers 0 without one)
STANDING_FLAG_SQL = "SELECT 1 FROM flags WHERE retracted_at IS NULL LIMIT 1"
#: as long as a bundle opened the usual way waits for a writer (storage.dialects)
BUSY_TIMEOUT_MS = 10_000

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


def _at_current_revision(connection: sqlite3.Connection) -> bool:
    revisions = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    return revisions == [(HEAD_REVISION,)]


@dataclass(frozen=True)
class InfoValue:
    """What the bundle's ``bundle_info`` holds under a key: its text, or None (no such key)."""

    value: str | None


def _snapshot_read(location: str | Path, read: Callable[[sqlite3.Connection], T]) -> T | None:
    """``read(connection)`` on the bundle file at ``location``, in one snapshot with the schema
    revision it checked; None when this reader does not handle the location (a server URL, no
    file, another schema, a file SQLite will not read), for the caller to open it the usual
    way."""
    path = _readable_file(location)
    if path is None:
        return None
    try:
        with closing(_connect(path)) as connection:
            connection.execute("BEGIN")  # one snapshot for the revision and what is read
            if not _at_current_revision(connection):
                return None
            return read(connection)
    except sqlite3.Error:
        return None


def info_value(location: str | Path, key: str) -> InfoValue | None:
    """The ``bundle_info`` entry ``key`` of the bundle file at ``location`` (what
    :meth:`workbench.storage.Bundle.info` gives); None when this reader does not handle the
    location (see :func:`_snapshot_read`)."""

    def read(connection: sqlite3.Connection) -> InfoValue:
        found = connection.execute("SELECT value FROM bundle_info WHERE key = ?", (key,)).fetchone()
        return InfoValue(None if found is None else str(found[0]))

    return _snapshot_read(location, read)


def battle_counts(
    location: str | Path, decisive_weight: float, campaign: str | None = None
) -> list[KindCountRow] | None:
    """:func:`workbench.storage.judgments.battle_counts` of every judgment (no filter), or of
    one campaign's, per kind of evaluator (``human`` or ``judge``, the first field) and
    whether the rows are the simulated judge's verdicts (the second), in the
    bundle file at ``location``, read in one snapshot; None when this reader does not handle
    the location (see :func:`_snapshot_read`)."""
    parameters: dict[str, float | str] = {"decisive_weight": float(decisive_weight)}
    statement = BATTLE_COUNTS_SQL
    if campaign is not None:
        statement, parameters["campaign"] = CAMPAIGN_BATTLE_COUNTS_SQL, campaign

    def read(connection: sqlite3.Connection) -> list[KindCountRow]:
        found = connection.execute(statement, parameters).fetchall()
        return [
            (str(kind), bool(simulated), (a, b, outcome, float(total), int(judgments)))
            for a, b, outcome, total, judgments, _first, kind, simulated in found
        ]

    return _snapshot_read(location, read)


#: judgments on flagged comparisons of one kind of evaluator: (kind, whether they are the
#: simulated judge's verdicts, judgments)
FlaggedCount = tuple[str, bool, int]


def flagged_counts(location: str | Path, campaign: str | None = None) -> list[FlaggedCount] | None:
    """:func:`workbench.storage.judgments.flagged_judgments` of every judgment, or of one
    campaign's, per kind of evaluator and whether they are the simulated judge's verdicts, in
    the bundle file at ``location`` (nothing read past one index lookup when no flag stands);
    None when this reader does not handle the location (see :func:`_snapshot_read`)."""
    parameters: dict[str, str] = {}
    statement = FLAGGED_COUNTS_SQL
    if campaign is not None:
        statement, parameters["campaign"] = CAMPAIGN_FLAGGED_COUNTS_SQL, campaign

    def read(connection: sqlite3.Connection) -> list[FlaggedCount]:
        if connection.execute(STANDING_FLAG_SQL).fetchone() is None:
            return []
        found = connection.execute(statement, parameters).fetchall()
        return [(str(kind), bool(simulated), int(count)) for kind, simulated, count in found]

    return _snapshot_read(location, read)
