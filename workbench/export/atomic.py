"""Writing a file so that readers see either the old file, or the whole new one: the content
goes to a temporary file in the target's folder (same file system) and is renamed over it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from workbench.export.target import check_export_target
from workbench.storage.leftovers import remove_abandoned, writer_tag


def _umask() -> int:
    # mkstemp makes the file private (0600); an export is an ordinary file, so give it the
    # permissions open() would have given it
    current = os.umask(0)
    os.umask(current)
    return current


@contextlib.contextmanager
def atomic_text_file(target: Path) -> Iterator[IO[str]]:
    """A text handle whose content replaces ``target`` when the block ends normally; on any
    error the temporary file is removed and ``target`` is left as it was."""
    check_export_target(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned(target.parent, f".{target.name}.", ".partial")
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.{writer_tag()}.", suffix=".partial", dir=target.parent
    )
    try:
        # newline="" so that "\n" is written as is on every platform (byte-stable exports)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_bytes_atomically(target: Path, data: bytes) -> None:
    check_export_target(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".partial", dir=target.parent
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
