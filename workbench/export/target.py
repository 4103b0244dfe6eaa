"""Which paths an export may write: one check for every file an export writes.

An export replaces its target whole (written aside, then renamed over it), which would also
replace a bundle, the very bundle being exported, a symlink, a FIFO or a device node. So the
target must be a new path or an existing regular file that is not an SQLite database or WAL
file (a bundle, or part of one). Symlinks are refused rather than followed: the rename would
replace the link itself, and following it could reach a bundle by another name. The check runs
before anything is written; the short window between check and rename is accepted (an export
is started by the user who owns the folder).

``workbench export`` is stricter still: it replaces only an earlier export (a file that starts
as one of its formats does, or is empty), unless told to replace any file (``--force``), so a
mistyped ``--out notes.txt`` cannot wipe the user's notes.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from workbench.export.options import ExportError

#: first bytes of an SQLite database, and of its write-ahead log (both byte orders)
_DATABASE_MAGICS = (b"SQLite format 3\x00", b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")


#: how every export format begins: JSON Lines records tagged ``vlm-workbench/...``, the CSV
#: header, or the Arena JSON list (empty, or battles carrying their format version)
_JSON_LINES_EXPORT = re.compile(rb'\A\s*\{[^\n]*"format"\s*:\s*"vlm-workbench/')
_CSV_EXPORT = re.compile(rb"\A(?:\xef\xbb\xbf)?format,format_version,")
_ARENA_EXPORT = re.compile(rb'\A\s*\[\s*(?:\]|\{[^\n]*"format_version"\s*:)')
#: how much of a file is read to tell (the first record may hold base64 images)
_SNIFF_BYTES = 1 << 20


def check_export_target(
    target: Path, source: Path | None = None, *, only_exports: bool = False
) -> None:
    """Raise :class:`ExportError` unless an export may replace or create ``target``.

    ``source`` is the bundle file being exported, when there is one: the target may be
    neither it nor one of its sidecar files, whatever their content. With ``only_exports``
    an existing file must also look like an earlier export (see :func:`is_earlier_export`).
    """
    if str(target) == "-":
        # a command-line habit for standard output; an export is written whole or not at all,
        # which a stream cannot promise, and a file named "-" is not what was meant
        raise ExportError("--out -: exports are written to a file, not to standard output")
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
    if only_exports and not is_earlier_export(target):
        raise ExportError(
            f"{target} exists and is not an earlier export; choose another file, or give "
            "--force to replace it"
        )


def is_earlier_export(path: Path) -> bool:
    """Whether ``path`` starts as an export of ours does (or is empty, so nothing is lost)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    patterns = (_JSON_LINES_EXPORT, _CSV_EXPORT, _ARENA_EXPORT)
    return not head or any(pattern.match(head) for pattern in patterns)


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
