"""A layout that places its items left to right and wraps them onto further lines when the width
runs out, like words in a paragraph: the analysis panels' pickers use it, so a docked panel at
1366x768 shows all its pickers on a few lines instead of scrolling sideways."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QStyle, QWidget


class FlowLayout(QLayout):
    """Items in reading order, each line as tall as its tallest item; the layout's height
    follows its width (``heightForWidth``), so the widget above it gets the lines it needs."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6, fill: bool = False) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        #: whether the items of a line share its spare width (and take its height): boxes
        #: side by side that stack when the width runs out
        self.fill = fill
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        """As wide as the widest item (the lines wrap below that), as tall as one line."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _gap(self, item: QLayoutItem, orientation: Qt.Orientation) -> int:
        if self._spacing >= 0:
            return self._spacing
        widget = item.widget()
        style = widget.style() if widget is not None else None
        if style is None:
            return 6
        return style.layoutSpacing(
            QSizePolicy.ControlType.PushButton,
            QSizePolicy.ControlType.PushButton,
            orientation,
            None,
            widget,
        ) or style.pixelMetric(QStyle.PixelMetric.PM_LayoutHorizontalSpacing)

    def _place(self, rect: QRect, move: bool) -> int:
        """Lay the items out in ``rect`` (only measuring unless ``move``); the height used."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        lines: list[list[tuple[QLayoutItem, QSize]]] = [[]]
        x = area.x()
        for item in self._items:
            if item.isEmpty():
                continue
            hint = item.sizeHint().expandedTo(item.minimumSize())
            if lines[-1] and x + hint.width() > area.right() + 1:
                lines.append([])
                x = area.x()
            lines[-1].append((item, hint))
            x += hint.width() + self._gap(item, Qt.Orientation.Horizontal)
        y = area.y()
        for number, line in enumerate(line for line in lines if line):
            if number:
                y += self._gap(line[0][0], Qt.Orientation.Vertical)
            height = max(hint.height() for _, hint in line)
            gaps = sum(self._gap(item, Qt.Orientation.Horizontal) for item, _ in line[1:])
            spare = area.width() - gaps - sum(hint.width() for _, hint in line)
            share = max(spare, 0) // len(line) if self.fill else 0
            x = area.x()
            for item, hint in line:
                width = hint.width() + share
                if move:
                    size = QSize(width, height if self.fill else hint.height())
                    item.setGeometry(QRect(QPoint(x, y), size))
                x += width + self._gap(item, Qt.Orientation.Horizontal)
            y += height
        return y - rect.y() + margins.bottom()
