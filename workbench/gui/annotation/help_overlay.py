"""The key help drawn over the annotation view (F1 or ?): every key of the current protocol and
the view's own keys, beside the campaign's guidelines (also shown when a session starts)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from workbench.domain.protocols import AnnotationProtocol
from workbench.gui.safe_text import SafeTextView

VIEW_KEYS = (
    ("Ctrl+Z", "Take back your last answer (its task shows again)"),
    ("Ctrl+S", "Skip this task, giving a reason"),
    ("Ctrl+Shift+F", "Flag this task (broken image, a response names its model...); it stays"),
    ("Enter", "Save the answer (grade, or after typing a rationale)"),
    ("Tab", "Go to the rationale field, then to each image; Esc comes back"),
    ("Page Up / Page Down", "Scroll the task (in the zoom window: previous / next image)"),
    ("Z", "Zoom into the image with the focus, else the first (the zoom follows the task)"),
    ("Enter or Space on an image", "Zoom into that image"),
    ("F1 or ?", "Show or hide this help"),
)


def key_rows(protocol: AnnotationProtocol) -> list[tuple[str, str]]:
    """(keys, what they do) for ``protocol`` and the view."""
    rows: list[tuple[str, str]] = []
    if protocol.grade_scale is not None:
        scale = protocol.grade_scale
        rows.append(
            (f"{scale.minimum:g} … {scale.maximum:g}, Enter", "Type the grade, then press Enter")
        )
    for choice in protocol.choices:
        rows.append((choice.key, choice.description or choice.label))
    if len(protocol.criteria) > 1:
        rows.append(("Up / Down", "Move between the criteria before the last one is answered"))
    return rows + list(VIEW_KEYS)


#: the guidelines' least width beside the keys
GUIDELINES_LEAST_WIDTH = 320


class HelpOverlay(QFrame):
    """A panel over the parent widget listing the keys, beside the campaign's guidelines when
    it has some; any key or a click outside the guidelines hides it."""

    def __init__(
        self, protocol: AnnotationProtocol, parent: QWidget, guidelines: str | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("helpOverlay")
        self.setStyleSheet(
            "#helpOverlay { background: rgba(20, 20, 30, 215); }"
            " QLabel { color: white; font-size: 12pt; }"
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Keyboard help")
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        title = QLabel("Keys", self)
        title.setStyleSheet("font-size: 16pt; font-weight: bold;")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(title)
        grid = QGridLayout()
        for row, (keys, meaning) in enumerate(key_rows(protocol)):
            key_label = QLabel(keys, self)
            key_label.setStyleSheet("font-weight: bold; font-family: monospace;")
            key_label.setTextFormat(Qt.TextFormat.PlainText)
            key_label.setAlignment(Qt.AlignmentFlag.AlignRight)
            key_label.setWordWrap(guidelines is not None)
            meaning_label = QLabel(meaning, self)
            meaning_label.setTextFormat(Qt.TextFormat.PlainText)
            # beside the guidelines the longest meaning was cut at their edge: it wraps
            meaning_label.setWordWrap(guidelines is not None)
            grid.addWidget(key_label, row, 0)
            grid.addWidget(meaning_label, row, 1)
        grid.setHorizontalSpacing(24)
        grid.setColumnStretch(1, 1)
        wrapper = QHBoxLayout()
        # alone the keys sit in the middle; beside the guidelines they share the width with
        # them, with no margin left empty (centred, the keys were squeezed to a column so
        # narrow that their meanings wrapped to more lines than 1024x700 has room for)
        side = 0 if guidelines is not None else 1
        wrapper.addStretch(side)
        wrapper.addLayout(grid, 3 * (1 - side))
        self.guidelines: SafeTextView | None = None
        self.guidelines_area: QScrollArea | None = None
        if guidelines is not None:
            self.guidelines = SafeTextView()
            self.guidelines.setAccessibleName("Guidelines")
            self.guidelines.setStyleSheet("background: white; color: black; padding: 8px;")
            self.guidelines.show_text(guidelines)
            scroll = self.guidelines_area = QScrollArea(self)
            scroll.setWidgetResizable(True)
            scroll.setWidget(self.guidelines)
            scroll.setMinimumWidth(GUIDELINES_LEAST_WIDTH)
            # its width by the stretch factors, shared with the keys (not all the room left)
            scroll.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
            column = QVBoxLayout()
            heading = QLabel("Guidelines", self)
            heading.setStyleSheet("font-size: 14pt; font-weight: bold;")
            column.addWidget(heading)
            column.addWidget(scroll, 1)
            wrapper.addSpacing(32)
            wrapper.addLayout(column, 2)  # they scroll; the keys are read whole
        wrapper.addStretch(side)
        outer.addLayout(wrapper, 6 if guidelines is not None else 0)
        close_hint = QLabel("Press any key or click to close.", self)
        close_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(close_hint)
        outer.addStretch(2)
        self.hide()

    @property
    def is_open(self) -> bool:
        """Whether the overlay is up (shown over its parent, even while the parent is hidden:
        ``isVisible`` is False then)."""
        return not self.isHidden()

    def _cover_parent(self) -> None:
        parent = self.parentWidget()
        if parent is not None and self.geometry() != parent.rect():
            self.setGeometry(parent.rect())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.parentWidget()
            and event.type() in (QEvent.Type.Resize, QEvent.Type.Show)
            and self.is_open
        ):
            self._cover_parent()
            if event.type() == QEvent.Type.Show:
                # opened before its window was shown, it asked for the keyboard in vain: the
                # page had it, so Esc left the guidelines up and a vote key chose under them
                self.setFocus()
        return False

    def toggle(self) -> None:
        if self.is_open:
            self.hide()
            return
        self._cover_parent()
        parent = self.parentWidget()
        if parent is not None:
            # While open, the overlay covers its parent whenever the parent is resized or shown:
            # shown at the start of a session, it opens before the page is laid out (the parent
            # then still has a hidden widget's 100x30). Watched only while open, so the page's
            # events between votes pass no Python filter.
            parent.installEventFilter(self)
        self.raise_()
        self.show()
        self.setFocus()

    def hide(self) -> None:
        was_open = self.is_open
        super().hide()
        parent = self.parentWidget()
        if parent is not None:
            parent.removeEventFilter(self)
        if was_open and parent is not None:
            parent.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self.hide()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.hide()
