"""Windows opened at a preferred size fit the screen they open on (the offscreen platform's
screen is 800x800, smaller than the judge dialog's or the full-text window's preferred size)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication, QImage
from pytestqt.qtbot import QtBot

pytestmark = pytest.mark.gui


def _room() -> tuple[int, int]:
    screen = QGuiApplication.primaryScreen()
    assert screen is not None
    room = screen.availableGeometry()
    return room.width(), room.height()


def test_the_full_text_window_fits_the_screen(qtbot: QtBot) -> None:
    from workbench.gui.safe_text import FullTextDialog

    dialog = FullTextDialog("x" * 1000, "answer")
    qtbot.addWidget(dialog)
    width, height = _room()
    assert width < 900  # the window prefers 900x700: this screen is narrower
    assert dialog.width() <= width and dialog.height() <= height
    assert dialog.height() == min(700, int(height * 0.95))


def test_the_image_viewer_fits_the_screen(qtbot: QtBot) -> None:
    from workbench.gui.image_viewer import ImageViewerDialog

    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(0)
    dialog = ImageViewerDialog(image, "image 1")
    qtbot.addWidget(dialog)
    width, height = _room()
    assert dialog.width() <= width and dialog.height() <= height


def test_the_judge_dialog_never_shrinks_below_its_layout(qtbot: QtBot, tmp_path: Path) -> None:
    from workbench.gui.judge_dialog import JudgeDialog

    dialog = JudgeDialog(tmp_path / "none.wbb")
    qtbot.addWidget(dialog)
    width, height = _room()
    minimum = dialog.minimumSizeHint()
    # as narrow as the screen allows, but not narrower than its own layout needs
    assert dialog.width() == max(int(width * 0.95), minimum.width())
    assert dialog.height() == max(min(760, int(height * 0.95)), minimum.height())
