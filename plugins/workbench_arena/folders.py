"""Finding a benchmark's release folder among the folders a user points an importer at."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path


def folders_below(top: Path, depth: int, skipped: Collection[str]) -> list[Path]:
    """``top`` and the folders below it, ``depth`` levels down, in name order level by level;
    hidden folders and those named in ``skipped`` (a release folder's own parts) are not
    entered."""
    found, level = [top], [top]
    for _ in range(depth):
        level = [
            child
            for folder in level
            for child in sorted(folder.iterdir())
            if child.is_dir() and not child.name.startswith(".") and child.name not in skipped
        ]
        found.extend(level)
    return found
