"""Windows opened at a preferred size that never exceeds the screen they open on: a dialog
sized for a 1600x1000 desktop must still show its buttons on a 1024x700 laptop screen."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

#: the share of the screen's free area a window may take at most, leaving room for its frame
SCREEN_SHARE = 0.95


def resize_within_screen(window: QWidget, width: int, height: int) -> None:
    """Resize ``window`` to ``width`` x ``height``, or less where the screen it will open on (its
    parent's, else the primary) has less free room; never below the window's own minimum size
    hint, below which its layout would clip."""
    anchor = window.parentWidget() or window
    screen = anchor.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        width = min(width, int(room.width() * SCREEN_SHARE))
        height = min(height, int(room.height() * SCREEN_SHARE))
    minimum = window.minimumSizeHint()
    window.resize(max(width, minimum.width()), max(height, minimum.height()))
