"""A word-wrapped label that can fold to one line, shortened with "…" (the whole text then in
its tooltip): an analysis panel in a short dock folds its request and status lines so that its
table and figure keep the height."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QWidget

#: the least width a folded label asks for: a few characters' worth, not its text's
FOLDED_MINIMUM_WIDTH = 60


class FoldingLabel(QLabel):
    """Wraps its text, or, folded, shows its first line elided at the right. ``text()`` is the
    whole text either way (the label is read, copied and tested by its text)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self._folded = False

    @property
    def folded(self) -> bool:
        return self._folded

    def set_folded(self, folded: bool) -> None:
        if folded == self._folded:
            return
        self._folded = folded
        # a folded line has no height-for-width: its height is one line whatever its width
        self.setWordWrap(not folded)
        self._show_whole_text_in_tooltip()
        self.updateGeometry()
        self.update()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._show_whole_text_in_tooltip()

    def _show_whole_text_in_tooltip(self) -> None:
        self.setToolTip(self.text() if self._folded else "")

    def _elided(self) -> str:
        line = self.text().replace("\n", " ")
        width = max(self.contentsRect().width(), 0)
        return self.fontMetrics().elidedText(line, Qt.TextElideMode.ElideRight, width)

    def sizeHint(self) -> QSize:
        if not self._folded:
            return super().sizeHint()
        return QSize(super().sizeHint().width(), self._line_height())

    def minimumSizeHint(self) -> QSize:
        if not self._folded:
            return super().minimumSizeHint()
        return QSize(FOLDED_MINIMUM_WIDTH, self._line_height())

    def _line_height(self) -> int:
        margins = self.contentsMargins()
        return self.fontMetrics().height() + margins.top() + margins.bottom()

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self._folded:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            self.palette(),
            self.isEnabled(),
            self._elided(),
            self.foregroundRole(),
        )
