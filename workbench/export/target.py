"""Which paths an export may write: one check for every file an export writes.

An export replaces its target whole (written aside, then renamed over it), which would also
replace a bundle, the very bundle being exported, a symlink, a FIFO or a device node. So the
target must be a new path or an existing regular file that is not an SQLite database or WAL
file (a bundle, or part of one). Symlinks are refused rather than followed: the rename would
replace the link itself, and following it could reach a bundle by another name. The check runs
before anything is written; the short window between check and rename is accepted (an export
is started by the user who owns the folder).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from workbench.export.options import ExportError

#: first bytes of an SQLite database, and of its write-ahead log (both byte orders)
_DATABASE_MAGICS = (b"SQLite format 3\x00", b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")


def check_export_target(target: Path, source: Path | None = None) -> None:
    """Raise :class:`ExportError` unless an export may replace or create ``target``.

    ``source`` is the bundle file being exported, when there is one: the target may be
    neither it nor one of its sidecar files, whatever their content.
    """
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise ExportError(f"cannot use {target} as an export: {error.strerror}") from None
    if source is not None and _names_source(target, source):
        raise ExportError(f"{target} is the bundle being exported; choose another file")
    if info is None:
        return
    if stat.S_ISLNK(info.st_mode):
        raise ExportError(f"{target} is a symbolic link; give the real file's path")
    if stat.S_ISDIR(info.st_mode):
        raise ExportError(f"{target} is a folder: give the export file's name")
    if not stat.S_ISREG(info.st_mode):
        raise ExportError(f"{target} is not a regular file (a device, pipe or socket)")
    if _is_database(target):
        raise ExportError(
            f"{target} is a database (a bundle, or part of one); exports never replace one"
        )


def _names_source(target: Path, source: Path) -> bool:
    names = {source, source.with_name(source.name + "-wal"), source.with_name(source.name + "-shm")}
    for name in names:
        try:
            if os.path.samefile(target, name):
                return True
        except OSError:
            continue
    return target.absolute() in {name.absolute() for name in names}


def _is_database(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError:
        return False
    return head.startswith(_DATABASE_MAGICS)
