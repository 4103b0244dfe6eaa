"""Fallback fonts the app carries (the frozen app bundles Noto fonts in ``_resources/fonts``):
registered with Qt at start, so that Chinese, Arabic or emoji in a prompt or a response render
even on a desktop without such fonts, instead of as empty boxes."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtGui import QFontDatabase

from workbench.gui.resources import resource_folders

log = logging.getLogger(__name__)

FONT_SUFFIXES = (".ttf", ".otf", ".ttc")


def install_fallback_fonts(folders: list[Path] | None = None) -> list[str]:
    """Register every font file of the resource folders' ``fonts/`` with Qt; returns the
    families added (none in a source checkout, where the system's fonts are used)."""
    families: list[str] = []
    for folder in folders if folders is not None else [r / "fonts" for r in resource_folders()]:
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix.lower() not in FONT_SUFFIXES:
                continue
            font_id = QFontDatabase.addApplicationFont(str(path))
            if font_id < 0:
                log.warning("cannot load the fallback font %s", path)
                continue
            families += QFontDatabase.applicationFontFamilies(font_id)
    return families
