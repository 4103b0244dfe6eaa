"""Temporary files a killed process leaves behind, and their removal on the next run.

A backup, a restore, an export and a new bundle are each written under a temporary name and
renamed into place; SIGKILL (or a power cut) in between leaves the temporary file, which can be
hundreds of MB. Each temporary name carries its writer's process id (``.pid<N>.``), so the next
run of the same step removes those whose writer is gone, never one still being written. A
name without a process id (from an older version) is removed once it is older than a day.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import time
from pathlib import Path

log = logging.getLogger(__name__)

#: how old a temporary file whose writer is unknown must be before it counts as abandoned
STALE_AFTER_SECONDS = 24 * 3600
_WRITER = re.compile(r"\.pid(\d+)\.")


def writer_tag() -> str:
    """The part of a temporary name that says which process writes it."""
    return f"pid{os.getpid()}"


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_abandoned(folder: Path, prefix: str, suffix: str = "") -> list[Path]:
    """Remove the files in ``folder`` named ``<prefix>*<suffix>*`` that their writer abandoned;
    return them. Files that cannot be removed are left (a read-only folder, a race)."""
    pattern = f"{glob.escape(prefix)}*" + (f"{glob.escape(suffix)}*" if suffix else "")
    removed = []
    try:
        candidates = list(folder.glob(pattern))
    except OSError:
        return []
    now = time.time()
    for path in candidates:
        writer = _WRITER.search(path.name[len(prefix) - 1 :])
        try:
            if writer is not None:
                if _running(int(writer[1])):
                    continue
            elif now - path.lstat().st_mtime < STALE_AFTER_SECONDS:
                continue
            path.unlink()
        except OSError:
            continue
        removed.append(path)
        log.info("removed %s, left by an interrupted run", path)
    return removed
