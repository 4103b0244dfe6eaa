"""Where backups of bundle files go and how much room the automatic ones may take: the user's
choice, kept in the ``backups`` part of the app's settings file
(:mod:`workbench.storage.app_settings`). Every path that makes or looks for backups (the app,
``workbench backup``/``backups``/``restore``, the copy before a schema upgrade) reads it here,
so they all agree on where backups are."""

from __future__ import annotations

from pathlib import Path

from workbench.domain.settings import DEFAULT_KEEP, BackupSettings
from workbench.storage.app_settings import load_settings, settings_path, update_settings

__all__ = [
    "DEFAULT_KEEP",
    "BackupSettings",
    "load_backup_settings",
    "save_backup_settings",
    "settings_path",
]


def load_backup_settings(path: Path | None = None) -> BackupSettings:
    """The stored settings; the defaults when there are none, or when the file is unreadable or
    from a newer app (logged, and left as it is)."""
    return load_settings(path).backups


def save_backup_settings(settings: BackupSettings, path: Path | None = None) -> None:
    """Write the settings (atomically: a crash leaves the old file or the new one)."""
    update_settings(lambda current: current.with_changes(backups=settings), path)
