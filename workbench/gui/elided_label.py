"""A one-line label that shortens its text with "…" when it has less room than the text needs,
instead of making its window wider; the whole text is its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

#: the least width the label asks for: a few characters' worth, not its text's
MINIMUM_WIDTH = 60


class ElidedLabel(QLabel):
    """Plain text on one line, elided at the right to fit. Unlike a word-wrapped label it has no
    height-for-width, so a layout asks nothing more of it when the page around it changes (the
    annotation page lays out on every task)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._full = ""

    def full_text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def clear(self) -> None:
        self.setText("")

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + 4, hint.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(MINIMUM_WIDTH, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self._full, Qt.TextElideMode.ElideRight, max(self.width(), 0)
        )
        super().setText(shown)
