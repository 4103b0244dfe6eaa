"""How a bundle file is read without ever being written, in any folder (kept free of SQLAlchemy,
for the one-shot readers of ``storage.fast_read``)."""

from __future__ import annotations

import os
from pathlib import Path


def read_only_uri(path: Path) -> str:
    """The SQLite URI that reads ``path`` and never writes it.

    A bundle is in WAL mode, and SQLite reads one through its ``-shm`` file, which it creates
    beside the bundle: in a read-only folder or on a read-only mount even reading failed
    ("unable to open database file"). There, with no write-ahead log beside the file (nothing
    committed outside it, and nobody can write it), the file is read as immutable: no lock, no
    sidecar. A log beside it holds commits the file lacks, so it is never ignored."""
    uri = f"file:{path.absolute()}?mode=ro"
    folder = path.absolute().parent
    wal = path.with_name(path.name + "-wal")
    if not os.access(folder, os.W_OK) and not (wal.exists() and wal.stat().st_size > 0):
        uri += "&immutable=1"
    return uri
