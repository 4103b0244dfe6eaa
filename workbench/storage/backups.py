"""Backup copies of a bundle file, beside it or in the backup folder of the settings
(:mod:`workbench.storage.backup_settings`): made on request, automatically once a day, and
before a schema upgrade; restored in place of a damaged bundle, which is kept aside."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import BinaryIO

from workbench.progress import (
    CancelRequested,
    Progress,
    Steps,
    WorkCancelledError,
    never_cancelled,
    no_progress,
)
from workbench.storage.backup_names import (
    AUTOMATIC,
    MANUAL,
    Backup,
    backup_name,
    latest_backup,
    list_backups,
    stamp_now,
)
from workbench.storage.backup_settings import load_backup_settings
from workbench.storage.errors import BackupError
from workbench.storage.files import sidecar_paths
from workbench.storage.integrity import (
    check_file_header,
    damage_from,
    integrity_check,
    set_aside_foreign_wal,
)
from workbench.storage.leftovers import remove_abandoned, writer_tag

__all__ = [
    "AUTOMATIC",
    "MANUAL",
    "Backup",
    "auto_backup_if_due",
    "backups_size",
    "latest_backup",
    "list_backups",
    "make_backup",
    "restore_backup",
]

log = logging.getLogger(__name__)


def _fsync(path: Path) -> None:
    with path.open("rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _discard(partial: Path) -> None:
    """Remove a half-written file if there is one (on a read-only mount there is none, and
    asking to delete it would fail)."""
    if os.path.lexists(partial):
        partial.unlink(missing_ok=True)


#: SQLite virtual-machine instructions between two calls of a copy's progress handler, and
#: handler calls between two looks at the copy's size (a stat): a cancel is seen within a few
#: milliseconds, at no cost worth measuring (bench/cancel_steps.py)
_VM_STEPS = 10_000
_CALLS_PER_REPORT = 50
#: bytes read between two steps of a restore's copy
_COPY_BLOCK = 4 << 20


def _watch(
    connection: sqlite3.Connection, output: Path, total: int, steps: Steps
) -> list[BaseException]:
    """Feed ``steps``' callbacks from SQLite's progress handler while ``connection`` works:
    the size ``output`` has reached as progress, and an interrupt (the statement fails with
    "interrupted") once a cancel is asked. Returns where an error the progress callback raised
    is kept: raising inside the handler would be lost in SQLite's C code."""
    calls = 0
    raised: list[BaseException] = []

    def handler() -> int:
        nonlocal calls
        calls += 1
        try:
            if calls % _CALLS_PER_REPORT == 0:
                size = output.stat().st_size if output.exists() else 0
                steps.progress("copying", min(size, total), total)
            return 1 if steps.cancel_requested() else 0
        except BaseException as error:  # kept for the caller; stopping is all SQLite can do
            raised.append(error)
            return 1

    connection.set_progress_handler(handler, _VM_STEPS)
    return raised


def make_backup(
    path: str | Path,
    *,
    reason: str = MANUAL,
    folder: Path | None = None,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> Path:
    """Write a consistent copy of the bundle at ``path`` into ``folder`` (by default the backup
    folder of the settings, else beside the bundle) and return the copy's path.

    ``VACUUM INTO`` reads through the WAL, so the copy holds every committed transaction even
    while another process has the bundle open. The copy is written under a temporary name and
    renamed when complete, so a crash never leaves a half-written file that looks like a backup.
    ``progress("copying", bytes written, bundle size)`` follows the copy; once
    ``cancel_requested()`` is true, SQLite is interrupted, the temporary file is removed and
    :class:`~workbench.progress.WorkCancelledError` is raised: no backup file is left.
    """
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"no bundle at {path} to back up")
    check_file_header(path)
    set_aside_foreign_wal(path)  # a backup of what a stale WAL would make of it is no backup
    folder = folder or load_backup_settings().folder
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise BackupError(f"cannot use the backup folder {folder}: {error}") from error
    steps = Steps(progress, cancel_requested, "backup cancelled; no backup file was written")
    steps.check()
    target = backup_name(path, reason, stamp_now(), folder)
    remove_abandoned(target.parent, f".{path.stem}.", ".partial")
    partial = target.with_name(f".{target.name}.{writer_tag()}.partial")
    total = sum(p.stat().st_size for p in (path, *sidecar_paths(path)) if p.exists())
    raised: list[BaseException] = []
    try:
        with closing(sqlite3.connect(path, isolation_level=None)) as connection:
            connection.execute("PRAGMA busy_timeout = 10000")
            # not called while SQLite waits for another writer's lock: a cancel then takes
            # effect when the wait ends (10 s at most)
            raised = _watch(connection, partial, total, steps)
            connection.execute("VACUUM INTO ?", (str(partial),))
        _fsync(partial)
        # the last chance to stop: once renamed, the backup is whole and stays
        steps.check()
        os.replace(partial, target)
        _fsync_folder(target.parent)
    except WorkCancelledError:
        _discard(partial)
        raise
    except sqlite3.DatabaseError as error:
        _discard(partial)
        if raised:
            raise raised[0] from None
        steps.check()  # interrupted on request
        damage = damage_from(path, error)
        if damage is not None:
            raise damage from error
        raise BackupError(f"could not back up {path}: {error}") from error
    except OSError as error:
        _discard(partial)
        raise BackupError(
            f"could not write a backup of {path}: {error.strerror or error}"
        ) from error
    except BaseException:
        _discard(partial)
        raise
    steps.progress("copying", total, total)
    log.info("backed up %s to %s (%s)", path, target, reason)
    return target


def _last_changed(path: Path) -> datetime:
    times = [p.stat().st_mtime for p in (path, *sidecar_paths(path)) if p.exists()]
    return datetime.fromtimestamp(max(times), UTC)


def auto_backup_if_due(
    path: str | Path,
    *,
    max_age: timedelta = timedelta(hours=24),
    keep: int | None = None,
    size_limit_bytes: int | None = None,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> Path | None:
    """Make an automatic backup of ``path`` when its newest backup (of any kind) is older than
    ``max_age`` and the bundle changed since; then keep only the ``keep`` newest automatic
    backups, and remove the oldest of those while together they take more than
    ``size_limit_bytes`` (the newest is always kept). ``keep`` and the limit default to the
    settings. Manual and pre-upgrade copies are never pruned. Returns the new backup or None."""
    settings = load_backup_settings()
    keep = settings.keep if keep is None else keep
    limit = settings.size_limit_bytes if size_limit_bytes is None else size_limit_bytes
    if keep < 1:
        raise ValueError("keep at least one automatic backup")
    path = Path(path)
    backups = list_backups(path)
    now = datetime.now(UTC)
    newest = backups[0] if backups else None
    due = newest is None or (
        now - newest.taken_at >= max_age and _last_changed(path) > newest.taken_at
    )
    made = (
        make_backup(path, reason=AUTOMATIC, progress=progress, cancel_requested=cancel_requested)
        if due
        else None
    )
    automatic = [backup for backup in list_backups(path) if backup.automatic]
    total, full = 0, False
    for kept, backup in enumerate(automatic):
        size = backup.path.stat().st_size
        # newest first: once one does not fit, it and every older one go
        full = full or (kept > 0 and (kept >= keep or (limit is not None and total + size > limit)))
        if not full:
            total += size
            continue
        backup.path.unlink(missing_ok=True)
        log.info("removed old automatic backup %s", backup.path)
    return made


def backups_size(path: str | Path) -> int:
    """How many bytes the backups of ``path`` take, wherever they are."""
    return sum(backup.path.stat().st_size for backup in list_backups(path))


def _bundle_id(path: Path) -> str | None:
    """The id a bundle file records, read from the file alone; None when the file has none or
    cannot be read (damaged, not a bundle). ``immutable`` opens it without locks and without
    touching its -wal or -shm files, which a damaged bundle's restore keeps aside as they are;
    the id is in the file itself, checkpointed when the bundle was created."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    except sqlite3.Error:
        return None
    try:
        row = connection.execute("SELECT value FROM bundle_info WHERE key = 'bundle_id'").fetchone()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return str(row[0]) if row else None


def _check_backup_of(path: Path, backup: Path, *, force: bool) -> None:
    """Refuse a file that is not a backup of this bundle: not a bundle at all (always), or
    another bundle's (unless ``force``). When the bundle is too damaged to tell its id, its
    own backups (named after it, beside it) are accepted."""
    backup_id = _bundle_id(backup)
    if backup_id is None:
        raise BackupError(f"{backup} is not a backup of a VLM Workbench bundle")
    if force:
        return
    current_id = _bundle_id(path) if path.is_file() else None
    if current_id is not None:
        if current_id != backup_id:
            raise BackupError(
                f"{backup} is a backup of another bundle (id {backup_id}, not {current_id}); "
                "add --force to put it in place anyway"
            )
        return
    if backup.resolve() not in {listed.path.resolve() for listed in list_backups(path)}:
        raise BackupError(
            f"{path} cannot be read to check that {backup} is its backup; add --force to "
            "restore it anyway, or choose one of `workbench backups` lists"
        )


def _copy_stepped(source: Path, target: Path, steps: Steps) -> None:
    """Copy ``source`` to ``target`` a block at a time, with a step (and a chance to stop)
    after each; the caller removes ``target`` if this raises."""
    total = source.stat().st_size
    done = 0
    with source.open("rb") as reading, target.open("wb") as writing:
        while sent := _send(reading, writing, done):
            done += sent
            steps("copying", done, total)


def _send(reading: BinaryIO, writing: BinaryIO, offset: int) -> int:
    """Copy up to a block from ``offset``; 0 at the end. In the kernel (``sendfile``, as
    ``shutil.copyfile`` does) where the system copies file to file, else through Python."""
    if hasattr(os, "sendfile"):
        with contextlib.suppress(OSError):  # not between these files here: the plain way
            return os.sendfile(writing.fileno(), reading.fileno(), offset, _COPY_BLOCK)
    reading.seek(offset)
    block = reading.read(_COPY_BLOCK)
    writing.write(block)
    return len(block)


def restore_backup(
    path: str | Path,
    backup: str | Path,
    *,
    force: bool = False,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> Path | None:
    """Put ``backup`` in place of the bundle at ``path``; return where the bundle that was there
    went (``<stem>.damaged-<stamp><suffix>``, with its -wal and -shm files), or None when there
    was none. Nothing is deleted, and a backup that is itself damaged is refused, as is a file
    that is not a backup of this bundle (same bundle id) unless ``force``.

    ``progress`` follows the check of the backup ("checking") and its copy ("copying"); once
    ``cancel_requested()`` is true, the work stops before the bundle's files are moved, the
    copy is removed and :class:`~workbench.progress.WorkCancelledError` is raised: the bundle
    is exactly as it was.

    Through a symbolic link, the file the link points to is restored and the link is left in
    place: moving the link aside would leave the real file as it was and put a plain copy where
    the link was."""
    path, backup = Path(path), Path(backup)
    if path.is_symlink():
        path = path.resolve()
    steps = Steps(progress, cancel_requested, "restore cancelled; the bundle was not changed")
    if not backup.is_file():
        raise BackupError(f"no backup at {backup}")
    if backup.resolve() == path.resolve():
        raise BackupError(f"{backup} is the bundle itself, not a backup of it")
    steps("checking", 0, 0)
    set_aside_foreign_wal(backup)  # checking it must not replay a WAL that is not its own
    try:
        problems = integrity_check(backup, cancel_requested=cancel_requested)
    except WorkCancelledError:
        raise WorkCancelledError(steps.cancelled) from None
    if problems:
        raise BackupError(
            f"the backup {backup} is damaged too ({problems[0]}); choose another with "
            f"`workbench restore {path} --from FILE` (`workbench backups {path}` lists them)"
        )
    _check_backup_of(path, backup, force=force)
    remove_abandoned(path.parent, f".{path.name}.", ".restoring")
    incoming = path.with_name(f".{path.name}.{writer_tag()}.restoring")
    try:
        _copy_stepped(backup, incoming, steps)
        _fsync(incoming)
        # the last chance to stop: from here the bundle's files are moved
        steps.check()
    except BaseException:
        _discard(incoming)
        raise
    aside = path.with_name(f"{path.stem}.damaged-{stamp_now()}{path.suffix}")
    moved = False
    # the old WAL belongs to the old file: left beside the restored one, SQLite would replay it
    bundle_files = (path, *sidecar_paths(path))
    for current, kept in zip(bundle_files, (aside, *sidecar_paths(aside)), strict=True):
        if current.exists():
            os.replace(current, kept)
            moved = True
    os.replace(incoming, path)
    _fsync_folder(path.parent)
    log.warning("restored %s from %s; the previous file is at %s", path, backup, aside)
    return aside if moved else None
