"""Detecting a damaged bundle file: a cheap header check for every open, SQLite's own
integrity check on request, and turning SQLite's corruption errors into a message that offers
the latest backup."""

from __future__ import annotations

import logging
import os
import sqlite3
import struct
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from workbench.progress import CancelRequested, WorkCancelledError, never_cancelled
from workbench.storage.backup_names import latest_backup, stamp_now
from workbench.storage.errors import BundleDamagedError, NotABundleError
from workbench.storage.files import sidecar_paths
from workbench.storage.read_only import read_only_uri

__all__ = [
    "BundleDamagedError",
    "ForeignWal",
    "check_file_header",
    "damage_from",
    "integrity_check",
    "set_aside_foreign_wal",
]

log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_SIZE = 100
# SQLite's primary result codes for "this is not a database" and "the image is malformed"
SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26
_DAMAGE_MESSAGES = ("file is not a database", "database disk image is malformed", "malformed")


def damaged(path: Path, problem: str) -> BundleDamagedError:
    """The error for a damaged ``path``, offering its latest backup."""
    return BundleDamagedError(path, problem, latest_backup(path))


def _wal_in_use(path: Path) -> bool:
    # Pages committed since the last checkpoint live in the -wal file, and a checkpoint cut
    # short writes page 1 (with the new page count) before the pages that extend the file;
    # SQLite finishes that from the WAL on the next open, so the length check cannot apply.
    wal, _ = sidecar_paths(path)
    return wal.is_file() and wal.stat().st_size > 0


def check_file_header(path: str | Path) -> None:
    """Check the 100-byte SQLite header of ``path`` against the file's length, reading nothing
    else: cheap enough for every open.

    Raises :class:`NotABundleError` for a file that never was an SQLite database and
    :class:`BundleDamagedError` for one that is truncated or whose header was overwritten.
    """
    path = Path(path)
    size = path.stat().st_size
    with path.open("rb") as handle:
        header = handle.read(HEADER_SIZE)
    if not header.startswith(SQLITE_MAGIC):
        # Zeroed or overwritten headers of a bundle we backed up are damage; any other file is
        # simply not a bundle (the user picked the wrong file).
        if header and header.count(0) == len(header):
            raise damaged(path, "its header is all zero bytes")
        if latest_backup(path) is not None:
            raise damaged(path, "its header is not an SQLite header any more")
        raise NotABundleError(f"{path} is not a VLM Workbench bundle (not an SQLite database)")
    if len(header) < HEADER_SIZE:
        raise damaged(path, f"it is cut short: {size} bytes, less than its own header")
    (raw_page_size,) = struct.unpack(">H", header[16:18])
    page_size = 65536 if raw_page_size == 1 else raw_page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise damaged(path, f"its header gives an impossible page size ({raw_page_size})")
    if header[18] not in (1, 2) or header[19] not in (1, 2) or header[21:24] != b"\x40\x20\x20":
        raise damaged(path, "its header holds values SQLite never writes")
    if _wal_in_use(path):
        return
    change_counter, page_count = struct.unpack(">II", header[24:32])
    (valid_for,) = struct.unpack(">I", header[92:96])
    if size % page_size:
        raise damaged(path, f"it is cut short: {size} bytes is not a whole number of pages")
    if page_count and valid_for == change_counter and size < page_count * page_size:
        raise damaged(
            path,
            f"it is cut short: {size} bytes where its header promises {page_count} pages "
            f"of {page_size} bytes ({page_count * page_size} bytes)",
        )


@dataclass(frozen=True)
class ForeignWal:
    """A ``-wal`` file that did not belong to its bundle file, and where it was put."""

    bundle: Path
    kept_at: Path
    problem: str

    def describe(self) -> str:
        return (
            f"set aside {self.bundle.name}-wal, which does not belong to this file (applied, it "
            f"would damage it: {self.problem}); it is kept at {self.kept_at}"
        )


def _read_only_uri(path: Path, *, with_wal: bool) -> str:
    # immutable: the file alone, its -wal and -shm not even looked at; mode=ro: the file as
    # its WAL makes it, read without writing to the file (a read-only connection never
    # checkpoints)
    return f"{path.resolve().as_uri()}?{'mode=ro' if with_wal else 'immutable=1'}"


def _problems_and_id(uri: str, *, check: bool = True) -> tuple[list[str], str | None]:
    """SQLite's quick check of the database at ``uri`` (opened read-only; skipped unless
    ``check``) and the bundle id it records; a database that cannot be read is one problem."""
    try:
        with closing(sqlite3.connect(uri, uri=True)) as connection:
            pragma = "PRAGMA quick_check" if check else "SELECT 'ok'"
            problems = [row[0] for row in connection.execute(pragma)]
            try:
                row = connection.execute(
                    "SELECT value FROM bundle_info WHERE key = 'bundle_id'"
                ).fetchone()
            except sqlite3.DatabaseError:
                row = None
    except sqlite3.DatabaseError as error:
        return [str(error)], None
    return ([] if problems == ["ok"] else problems), (str(row[0]) if row else None)


def set_aside_foreign_wal(path: str | Path) -> ForeignWal | None:
    """Move a ``-wal`` file that does not belong to the bundle file at ``path`` out of SQLite's
    way (with its ``-shm``), before anything opens the file the usual way and replays it.

    SQLite applies whatever WAL lies beside a database: one left by a crash beside a file the
    user then copied over (another copy, a backup) writes the old file's pages into the new
    one, and a byte-intact copy becomes permanently corrupt. A WAL's header says nothing about
    which database it was written for, so this asks the file itself, read-only both times: the
    WAL is foreign when the file read through it fails SQLite's quick check (or records another
    bundle id) while the file alone passes. A WAL the file needs, or one that leaves it sound,
    stays where it is; so does everything when the file alone is damaged too (then ``check``
    reports the damage and nothing is changed). Costs nothing without a WAL, and two read-only
    quick checks with one."""
    path = Path(path)
    wal, shm = sidecar_paths(path)
    if not wal.is_file() or wal.stat().st_size == 0:
        return None
    merged, merged_id = _problems_and_id(_read_only_uri(path, with_wal=True))
    # the file alone is checked only when the WAL looks wrong (a sound one costs one check)
    alone, alone_id = _problems_and_id(_read_only_uri(path, with_wal=False), check=bool(merged))
    other_bundle = merged_id is not None and alone_id is not None and merged_id != alone_id
    if alone or (not merged and not other_bundle):
        return None
    problem = merged[0] if merged else f"it records bundle id {merged_id}, the file {alone_id}"
    stamp = stamp_now()
    kept_at = wal.with_name(f"{wal.name}.stale-{stamp}")
    os.replace(wal, kept_at)
    if shm.exists():
        os.replace(shm, shm.with_name(f"{shm.name}.stale-{stamp}"))
    found = ForeignWal(path, kept_at, problem)
    log.warning("%s: %s", path, found.describe())
    return found


#: SQLite virtual-machine instructions between two looks at ``cancel_requested``
_VM_STEPS = 10_000


def integrity_check(
    path: str | Path, *, full: bool = False, cancel_requested: CancelRequested = never_cancelled
) -> list[str]:
    """The problems SQLite finds in ``path``; an empty list means the file is sound.

    ``full`` runs ``PRAGMA integrity_check`` (which also compares every index with its table)
    and the foreign-key check; otherwise ``PRAGMA quick_check`` (pages and records only, several
    times faster on large bundles). Once ``cancel_requested()`` is true SQLite is interrupted
    and :class:`~workbench.progress.WorkCancelledError` raised (the check only reads).
    """
    path = Path(path)
    try:
        check_file_header(path)
    except BundleDamagedError as error:
        return [error.problem]
    except NotABundleError as error:
        return [str(error)]
    try:
        # In a read-only folder or mount the usual connection cannot even open (SQLite wants a
        # -shm file beside the bundle), and "unable to open database file" read as damage.
        connect = (
            sqlite3.connect(read_only_uri(path), uri=True)
            if not os.access(path.absolute().parent, os.W_OK)
            else sqlite3.connect(path)
        )
        with closing(connect) as connection:
            connection.set_progress_handler(lambda: 1 if cancel_requested() else 0, _VM_STEPS)
            pragma = "integrity_check" if full else "quick_check"
            problems = [row[0] for row in connection.execute(f"PRAGMA {pragma}")]
            if problems == ["ok"]:
                problems = []
            if full:
                problems += [
                    f"row {rowid} of {table} points at a missing row of {parent}"
                    for table, rowid, parent, _ in connection.execute("PRAGMA foreign_key_check")
                ]
            return problems
    except sqlite3.DatabaseError as error:
        if cancel_requested():  # interrupted on request: no verdict on the file
            raise WorkCancelledError("integrity check cancelled") from None
        return [str(error)]


def _sqlite_error(error: BaseException) -> sqlite3.DatabaseError | None:
    # SQLAlchemy wraps driver errors; the driver's own is on .orig
    for candidate in (error, getattr(error, "orig", None), error.__cause__):
        if isinstance(candidate, sqlite3.DatabaseError):
            return candidate
    return None


def damage_from(path: str | Path, error: BaseException) -> BundleDamagedError | None:
    """A :class:`BundleDamagedError` for ``path`` when ``error`` (from sqlite3 or SQLAlchemy)
    says the database file is corrupt or not a database; None for any other error."""
    found = _sqlite_error(error)
    if found is None:
        return None
    code = getattr(found, "sqlite_errorcode", None)
    message = str(found)
    if code is not None and code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return damaged(Path(path), message)
    if code is None and any(text in message for text in _DAMAGE_MESSAGES):
        return damaged(Path(path), message)
    return None
