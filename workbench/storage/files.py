"""The files a bundle is on disk: the SQLite database and the WAL and shared-memory files that
sit beside it while it is open or after a crash."""

from __future__ import annotations

from pathlib import Path


def sidecar_paths(path: Path) -> tuple[Path, Path]:
    """SQLite's WAL and shared-memory files that sit beside an open bundle."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")
