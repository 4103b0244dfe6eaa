"""How backups of a bundle file are named beside it, and finding them again, newest first.

A backup is ``<stem>.backup-<reason>-<UTC stamp><suffix>`` next to the bundle: ``auto`` and
``manual`` backups, and the copies made before a schema upgrade, whose reason is the revision
they were taken at (``<stem>.backup-0001-20260101T120000.wbb``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

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


def backup_name(bundle: Path, reason: str, stamp: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_]+", reason):
        raise ValueError(f"a backup reason is letters, digits and underscores: {reason!r}")
    return bundle.with_name(f"{bundle.stem}.backup-{reason}-{stamp}{bundle.suffix}")


def _parse_stamp(stamp: str) -> datetime | None:
    for layout in _STAMP_FORMATS:
        try:
            return datetime.strptime(stamp, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def list_backups(bundle: str | Path) -> list[Backup]:
    """The backups of ``bundle`` beside it, newest first."""
    bundle = Path(bundle)
    pattern = re.compile(
        rf"{re.escape(bundle.stem)}\.backup-(?P<reason>[A-Za-z0-9_]+)-(?P<stamp>\d{{8}}T\d+Z?)"
        rf"{re.escape(bundle.suffix)}"
    )
    found = []
    folder = bundle.parent if str(bundle.parent) else Path(".")
    if not folder.is_dir():
        return []
    for candidate in folder.iterdir():
        match = pattern.fullmatch(candidate.name)
        if match is None or not candidate.is_file():
            continue
        taken_at = _parse_stamp(match["stamp"])
        if taken_at is not None:
            found.append(Backup(candidate, match["reason"], taken_at))
    return sorted(found, key=lambda backup: (backup.taken_at, backup.path.name), reverse=True)


def latest_backup(bundle: str | Path) -> Path | None:
    """The newest backup of ``bundle``, of any kind, or None."""
    backups = list_backups(bundle)
    return backups[0].path if backups else None
