"""``workbench open --screenshot --page analysis`` renders the window with the panels shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from tests.gui.panel_bundle import build_panel_bundle
from workbench.gui.app import run_app

pytestmark = pytest.mark.gui


def test_analysis_page_screenshot(qapp: QApplication, tmp_path: Path, isolated_home: Path) -> None:
    target = tmp_path / "analysis.png"
    assert run_app(build_panel_bundle(tmp_path), screenshot=target, page="analysis") == 0
    assert QImage(str(target)).size().toTuple() == (1600, 1000)
