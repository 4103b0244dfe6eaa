"""Shows one blind task: its images, captions, the conversation (prompt, reference when the
protocol shows it) and the responses side by side as "Response 1" / "Response 2".

It is given a ``BlindTask`` and nothing else, so it cannot show what the task does not hold.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QMouseEvent, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.image_loader import DecodedImage, decode_image
from workbench.gui.safe_text import SafeTextView
from workbench.services.blind_tasks import BlindTask, TaskImage, TaskTurn

IMAGE_BOX = {1: QSize(520, 340), 2: QSize(400, 280)}
SMALL_IMAGE_BOX = QSize(260, 190)


def _heading(text: str, parent: QWidget, size: str = "") -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(f"font-weight: bold; {size}")
    return label


def _text_view(text: str, name: str, parent: QWidget) -> SafeTextView:
    view = SafeTextView(parent)
    view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    view.setAccessibleName(name)
    view.show_text(text)
    return view


class TaskImageTile(QFrame):
    """One image of the task, or a placeholder when it was missing; click to zoom."""

    clicked = Signal(int)  # position

    def __init__(self, image: TaskImage, box: QSize, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.position = image.position
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.decoded: DecodedImage | None = None
        self.picture = QLabel(self)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setFixedSize(box)
        name = f"Image {image.position + 1}"
        self.picture.setAccessibleName(name)
        caption = QLabel(name, self)
        caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picture)
        layout.addWidget(caption)
        if image.data is None:
            self._placeholder("Missing image")
            return
        self.decoded = decode_image(image.data)
        if self.decoded.error:
            self._placeholder("Cannot show this image")
            return
        pixmap = QPixmap.fromImage(self.decoded.thumbnail)
        if pixmap.width() > box.width() or pixmap.height() > box.height():
            pixmap = pixmap.scaled(
                box, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
            )
        self.picture.setPixmap(pixmap)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def _placeholder(self, text: str) -> None:
        self.picture.setText(text)
        self.picture.setStyleSheet(
            "background: #eeeeee; color: #b00020; border: 1px dashed #999; padding: 8px;"
        )

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.decoded and not self.decoded.error:
            self.clicked.emit(self.position)
        super().mouseReleaseEvent(event)


class TurnPanel(QFrame):
    """One turn: the prompt, the reference (when shown) and the responses in their columns."""

    def __init__(
        self, turn: TaskTurn, labels: tuple[str, ...], note: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.addWidget(_heading(f"Turn {turn.index}{note}", self))
        layout.addWidget(_heading("Instruction", self))
        self.prompt = _text_view(turn.prompt, f"Instruction, turn {turn.index}", self)
        layout.addWidget(self.prompt)
        self.reference: SafeTextView | None = None
        if turn.reference is not None:
            layout.addWidget(_heading("Reference answer", self))
            self.reference = _text_view(turn.reference, f"Reference, turn {turn.index}", self)
            self.reference.setStyleSheet("background: #f3f6fa;")
            layout.addWidget(self.reference)
        self.responses: list[SafeTextView] = []
        if turn.responses:
            row = QHBoxLayout()
            for label, text in zip(labels, turn.responses, strict=False):
                column = QFrame(self)
                column.setFrameShape(QFrame.Shape.StyledPanel)
                column.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
                column_layout = QVBoxLayout(column)
                column_layout.addWidget(_heading(label, column, "font-size: 13pt;"))
                view = _text_view(text, f"{label}, turn {turn.index}", column)
                column_layout.addWidget(view)
                column_layout.addStretch(1)
                self.responses.append(view)
                row.addWidget(column, 1)
            layout.addLayout(row)


class TaskDisplay(QScrollArea):
    """The scrolling page of the current task (rebuilt for each task)."""

    imageClicked = Signal(object)  # DecodedImage, position

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.tiles: list[TaskImageTile] = []
        self.turn_panels: list[TurnPanel] = []
        self._content: QWidget | None = None
        self._scroll_timer = QTimer(self)
        self._scroll_timer.setSingleShot(True)
        self._scroll_timer.setInterval(0)
        self._scroll_timer.timeout.connect(self._scroll_to_last_turn)
        self.show_task(None)

    def show_task(self, task: BlindTask | None) -> None:
        previous = self.takeWidget()
        if previous is not None:
            previous.deleteLater()
        content = QWidget(self)
        layout = QVBoxLayout(content)
        self.tiles, self.turn_panels = [], []
        if task is not None:
            self._fill(task, content, layout)
        layout.addStretch(1)
        self.setWidget(content)
        self._content = content

    def _fill(self, task: BlindTask, content: QWidget, layout: QVBoxLayout) -> None:
        if task.images:
            box = IMAGE_BOX.get(len(task.images), SMALL_IMAGE_BOX)
            row = QHBoxLayout()
            for image in task.images:
                tile = TaskImageTile(image, box, content)
                tile.clicked.connect(self._tile_clicked)
                self.tiles.append(tile)
                row.addWidget(tile)
            row.addStretch(1)
            layout.addLayout(row)
        if task.captions:
            layout.addWidget(_heading("Caption", content))
            for caption in task.captions:
                where = caption.image_position
                prefix = "" if where is None else f"Image {where + 1}: "
                layout.addWidget(_text_view(prefix + caption.text, "Caption", content))
        for turn in task.turns:
            note = ""
            if task.judged_turn is not None and len(task.turns) > 1:
                note = (
                    " (the turn to judge)"
                    if turn.index == task.judged_turn
                    else " (the conversation so far)"
                )
            panel = TurnPanel(turn, task.response_labels, note, content)
            if turn.index == task.judged_turn and len(task.turns) > 1:
                panel.setStyleSheet("TurnPanel { border: 2px solid #2b6cb0; }")
            self.turn_panels.append(panel)
            layout.addWidget(panel)

    def first_image(self) -> tuple[DecodedImage, int] | None:
        """The first image of the task that could be decoded, with its position."""
        for tile in self.tiles:
            if tile.decoded is not None and not tile.decoded.error:
                return tile.decoded, tile.position
        return None

    def _tile_clicked(self, position: int) -> None:
        for tile in self.tiles:
            if tile.position == position and tile.decoded is not None:
                self.imageClicked.emit((tile.decoded, position))

    def scroll_to_judged_turn(self, task: BlindTask) -> None:
        """Start at the top, or at the turn to judge when earlier turns come before it (once
        the new page is laid out)."""
        self.verticalScrollBar().setValue(0)
        if task.judged_turn is not None and len(self.turn_panels) > 1:
            self._scroll_timer.start()

    def _scroll_to_last_turn(self) -> None:
        if self.turn_panels:
            self.ensureWidgetVisible(self.turn_panels[-1], 0, 0)
