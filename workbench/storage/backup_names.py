"""How backups of a bundle file are named, and finding them again, newest first.

A backup is ``<stem>.backup-<reason>-<UTC stamp><suffix>`` next to the bundle: ``auto`` and
``manual`` backups, and the copies made before a schema upgrade, whose reason is the revision
they were taken at (``<stem>.backup-0001-20260101T120000.wbb``). In a backup folder chosen in
the settings (shared by many bundles) the name also carries a digest of the bundle's absolute
path, ``<stem>.<digest>.backup-<reason>-<stamp><suffix>``, so two ``demo.wbb`` files in
different folders keep apart. Backups are looked for in both places, whoever made them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from workbench.storage.backup_settings import load_backup_settings

AUTOMATIC = "auto"
MANUAL = "manual"

# older pre-migration copies carry a stamp to the second; newer ones to the microsecond
_STAMP_FORMATS = ("%Y%m%dT%H%M%S%fZ", "%Y%m%dT%H%M%S")


@dataclass(frozen=True)
class Backup:
    """A backup file found beside a bundle."""

    path: Path
    reason: str
    taken_at: datetime

    @property
    def automatic(self) -> bool:
        return self.reason == AUTOMATIC


def stamp_now() -> str:
    return datetime.now(UTC).strftime(_STAMP_FORMATS[0])


def _prefix(bundle: Path, folder: Path | None) -> tuple[Path, str]:
    """The folder a backup of ``bundle`` goes in, and its name up to ``.backup-``."""
    if folder is None or _same_folder(folder, bundle.parent):
        return bundle.parent, bundle.stem
    digest = hashlib.sha256(str(bundle.resolve()).encode()).hexdigest()[:10]
    return folder, f"{bundle.stem}.{digest}"


def _same_folder(first: Path, second: Path) -> bool:
    try:
        return first.resolve() == second.resolve()
    except OSError:
        return False


def backup_name(bundle: Path, reason: str, stamp: str, folder: Path | None = None) -> Path:
    """Where a backup of ``bundle`` goes: beside it, or in ``folder`` when one is chosen."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", reason):
        raise ValueError(f"a backup reason is letters, digits and underscores: {reason!r}")
    where, prefix = _prefix(bundle, folder)
    return where / f"{prefix}.backup-{reason}-{stamp}{bundle.suffix}"


def _parse_stamp(stamp: str) -> datetime | None:
    for layout in _STAMP_FORMATS:
        try:
            return datetime.strptime(stamp, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def list_backups(bundle: str | Path, folders: Sequence[Path] | None = None) -> list[Backup]:
    """The backups of ``bundle``, newest first: those beside it and those in ``folders``
    (by default the backup folder of the settings, if one is chosen)."""
    bundle = Path(bundle)
    if folders is None:
        chosen = load_backup_settings().folder
        folders = [chosen] if chosen is not None else []
    beside = bundle.parent if str(bundle.parent) else Path(".")
    found: dict[Path, Backup] = {}
    for folder in (beside, *folders):
        _, prefix = _prefix(bundle, folder)
        for backup in _backups_in(folder, prefix, bundle.suffix):
            found.setdefault(backup.path.resolve(), backup)
    return sorted(
        found.values(), key=lambda backup: (backup.taken_at, backup.path.name), reverse=True
    )


def _backups_in(folder: Path, prefix: str, suffix: str) -> list[Backup]:
    pattern = re.compile(
        rf"{re.escape(prefix)}\.backup-(?P<reason>[A-Za-z0-9_]+)-(?P<stamp>\d{{8}}T\d+Z?)"
        rf"{re.escape(suffix)}"
    )
    if not folder.is_dir():
        return []
    found = []
    for candidate in folder.iterdir():
        match = pattern.fullmatch(candidate.name)
        if match is None or not candidate.is_file():
            continue
        taken_at = _parse_stamp(match["stamp"])
        if taken_at is not None:
            found.append(Backup(candidate, match["reason"], taken_at))
    return found


def latest_backup(bundle: str | Path) -> Path | None:
    """The newest backup of ``bundle``, of any kind, or None."""
    backups = list_backups(bundle)
    return backups[0].path if backups else None
