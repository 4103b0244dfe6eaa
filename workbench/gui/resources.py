"""The one accessor for the app's resource files (icons): ``resources/`` in a source checkout,
``workbench/_resources`` in an installed wheel."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon

_PACKAGE_ROOT = Path(__file__).resolve().parents[1]
_CANDIDATES = (_PACKAGE_ROOT / "_resources", _PACKAGE_ROOT.parent / "resources")


def resource_folders() -> list[Path]:
    """The resource folders that exist, in the order they are searched."""
    return [root for root in _CANDIDATES if root.is_dir()]


def resource_path(relative: str) -> Path:
    """The path of a resource such as ``icons/workbench.svg``; raises FileNotFoundError if no
    resource folder holds it (a broken install)."""
    for root in _CANDIDATES:
        candidate = root / relative
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"resource {relative} not found in {', '.join(map(str, _CANDIDATES))}")


@cache
def app_icon() -> QIcon:
    return QIcon(str(resource_path("icons/workbench.svg")))
