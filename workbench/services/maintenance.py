"""Looking after bundle files and server logins: damage checks, backups (made, listed,
restored, and where they go) and stored server passwords. One home for these use cases, so the
CLI's `check`, `backup`, `backups`, `restore` and `server login/logout` and the app's restore
dialog, automatic backup and Settings > Backups do the same thing and say the same things."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from workbench.progress import CancelRequested, Progress, never_cancelled, no_progress
from workbench.storage.backup_names import Backup, latest_backup, list_backups
from workbench.storage.backup_settings import (
    BackupSettings,
    load_backup_settings,
    save_backup_settings,
)
from workbench.storage.backups import (
    auto_backup_if_due,
    backups_size,
    make_backup,
    restore_backup,
)
from workbench.storage.credentials import (
    PASSWORD_ENV_VAR,
    CredentialError,
    forget_password,
    masked,
    resolve_password,
    store_password,
)
from workbench.storage.errors import BackupError
from workbench.storage.integrity import ForeignWal, integrity_check, set_aside_foreign_wal
from workbench.storage.locations import (
    is_server_url,
    location_file,
    location_scheme,
    not_a_location_message,
)

__all__ = [
    "PASSWORD_ENV_VAR",
    "Backup",
    "BackupSettings",
    "CheckResult",
    "CredentialError",
    "RestoreResult",
    "automatic_backup",
    "back_up",
    "backup_settings",
    "backup_time",
    "backups",
    "bundle_file",
    "check",
    "forget_server_password",
    "masked",
    "password_source",
    "restore",
    "save_backup_settings",
    "set_aside_stale_wal",
    "store_server_password",
]


def bundle_file(location: str | Path) -> Path:
    """The bundle file at ``location`` (a path or ``sqlite:///PATH``); a clear error for a
    server URL, another URL or a missing file."""
    # a plain str: argparse's Path would fold a URL's "//" before this test sees it
    path = location_file(location)
    if path is None:
        if is_server_url(location):
            raise BackupError(
                "check, backup and restore work on bundle files; back up a PostgreSQL bundle "
                "with the server's own tools (pg_dump)"
            )
        raise BackupError(not_a_location_message(location_scheme(location) or ""))
    if not path.is_file():
        raise BackupError(f"no bundle at {path}")
    return path


@dataclass(frozen=True)
class CheckResult:
    bundle: Path
    full: bool
    problems: list[str]
    latest_backup: Path | None
    #: a -wal file beside the bundle that was not its own, moved aside before the check
    wal_set_aside: ForeignWal | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        aside = self.wal_set_aside
        return {
            "bundle": str(self.bundle),
            "ok": self.ok,
            "full": self.full,
            "problems": self.problems,
            "latest_backup": str(self.latest_backup) if self.latest_backup else None,
            "wal_set_aside": None
            if aside is None
            else {"kept_at": str(aside.kept_at), "problem": aside.problem},
        }


def check(location: str | Path, *, full: bool = False) -> CheckResult:
    """SQLite's quick (or full) check of a bundle file; with problems, the backup to restore.
    A -wal file that does not belong to the file is set aside first, never replayed into it."""
    path = bundle_file(location)
    aside = set_aside_foreign_wal(path)
    problems = integrity_check(path, full=full)
    return CheckResult(path, full, problems, latest_backup(path) if problems else None, aside)


def set_aside_stale_wal(location: str | Path) -> ForeignWal | None:
    """Move a -wal file that does not belong to the bundle file out of the way (see
    :func:`~workbench.storage.integrity.set_aside_foreign_wal`); what was set aside, or None."""
    return set_aside_foreign_wal(bundle_file(location))


def back_up(
    location: str | Path,
    *,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> Path:
    """A backup copy now (beside the bundle, or in the backup folder if one is set); a
    cancelled one leaves no backup file."""
    return make_backup(bundle_file(location), progress=progress, cancel_requested=cancel_requested)


def backups(bundle: str | Path) -> list[Backup]:
    """The backups of ``bundle``, newest first, wherever the settings put them; the bundle
    itself may be missing or damaged (listing them is how it comes back)."""
    return list_backups(Path(bundle))


def backup_time(bundle: str | Path, backup: Path) -> datetime:
    """When ``backup`` of ``bundle`` was taken: the stamp in its name, else the file's time."""
    for known in backups(bundle):
        if known.path == backup:
            return known.taken_at
    return datetime.fromtimestamp(backup.stat().st_mtime).astimezone()


@dataclass(frozen=True)
class RestoreResult:
    bundle: Path
    backup: Path
    #: where the file that was in place went (None when there was none)
    aside: Path | None


def restore(
    location: str | Path,
    backup: str | Path | None = None,
    *,
    force: bool = False,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> RestoreResult:
    """Put ``backup`` (by default the newest one) in place of the bundle, keeping the file that
    was there aside. Only this bundle's own backups, unless ``force``. A cancelled restore
    (:class:`~workbench.progress.WorkCancelledError`) leaves the bundle exactly as it was."""
    path = location_file(location)
    if path is None:  # the same one-line refusal as the other commands
        path = bundle_file(location)
    chosen = Path(backup) if backup is not None else latest_backup(path)
    if chosen is None:
        raise BackupError(
            f"no backup of {path} was found beside it or in the backup folder; name one with "
            "--from FILE"
        )
    aside = restore_backup(
        path, chosen, force=force, progress=progress, cancel_requested=cancel_requested
    )
    return RestoreResult(path, chosen, aside)


def automatic_backup(
    path: Path,
    *,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> tuple[Path | None, int]:
    """The day's automatic backup of ``path`` if one is due: (the copy or None, and then how
    many bytes all its backups take, for the note that says so). A cancelled one leaves no
    backup file and removes no old one."""
    made = auto_backup_if_due(path, progress=progress, cancel_requested=cancel_requested)
    return made, backups_size(path) if made is not None else 0


def backup_settings() -> BackupSettings:
    """Where backups go and how much space they may take (the user's config folder)."""
    return load_backup_settings()


def store_server_password(url: str, password: str) -> None:
    """Keep a server password in the system keyring (never in a bundle or a log)."""
    store_password(url, password)


def forget_server_password(url: str) -> bool:
    """Remove a stored server password; False when none was stored."""
    return forget_password(url)


def password_source(url: str) -> str:
    """Where the password for ``url`` would come from (keyring, environment, pgpass, none)."""
    return resolve_password(url).source
