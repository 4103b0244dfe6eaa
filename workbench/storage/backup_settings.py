"""Where backups of bundle files go and how much room the automatic ones may take: the user's
choice, kept as versioned JSON in the user's config folder. Every path that makes or looks for
backups (the app, ``workbench backup``/``backups``/``restore``, the copy before a schema
upgrade) reads it here, so they all agree on where backups are."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from workbench.paths import config_dir

log = logging.getLogger(__name__)

SETTINGS_FILE = "backups.json"
SETTINGS_VERSION = 1
#: automatic backups kept per bundle unless the user says otherwise
DEFAULT_KEEP = 3


@dataclass(frozen=True)
class BackupSettings:
    """``folder``: where new backups go (None: beside the bundle). ``size_limit_bytes``: the
    most the automatic backups of one bundle may take together, oldest removed first, the newest
    always kept (None: no limit). ``keep``: how many automatic backups of a bundle are kept.
    ``first_backup_shown``: whether the app has told the user where backups go."""

    folder: Path | None = None
    size_limit_bytes: int | None = None
    keep: int = DEFAULT_KEEP
    first_backup_shown: bool = False

    def with_changes(self, **changes: Any) -> BackupSettings:
        return replace(self, **changes)


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def load_backup_settings(path: Path | None = None) -> BackupSettings:
    """The stored settings; the defaults when there are none, or when the file is unreadable or
    from a newer app (logged, and left as it is)."""
    path = path or settings_path()
    if not path.is_file():
        return BackupSettings()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if int(data.get("version", 0)) > SETTINGS_VERSION:
            log.warning("%s is from a newer version of the app; using default settings", path)
            return BackupSettings()
        folder = data.get("folder")
        limit = data.get("size_limit_bytes")
        return BackupSettings(
            folder=Path(folder) if folder else None,
            size_limit_bytes=int(limit) if limit else None,
            keep=max(1, int(data.get("keep", DEFAULT_KEEP))),
            first_backup_shown=bool(data.get("first_backup_shown", False)),
        )
    except (OSError, ValueError, TypeError, AttributeError) as error:
        log.warning("cannot read the backup settings in %s (%s); using defaults", path, error)
        return BackupSettings()


def save_backup_settings(settings: BackupSettings, path: Path | None = None) -> None:
    """Write the settings (atomically: a crash leaves the old file or the new one)."""
    path = path or settings_path()
    data = {
        "version": SETTINGS_VERSION,
        "folder": str(settings.folder) if settings.folder else None,
        "size_limit_bytes": settings.size_limit_bytes,
        "keep": settings.keep,
        "first_backup_shown": settings.first_backup_shown,
    }
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)
