"""Shows one blind task: its images, captions, the conversation (prompt, reference when the
protocol shows it) and the responses side by side as "Response 1" / "Response 2".

Laid out for reading down to 1024x700 and at 1.5x scaling: the images are a strip of
thumbnails no taller than a share of the page (Z, a click, or Enter on a thumbnail reached by
Tab zooms), captions and instructions take a bounded share of the height, and each response
has its own scroll area filling the rest, so both responses start on screen side by side.

It is given a ``BlindTask`` and nothing else, so it cannot show what the task does not hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QImage, QKeyEvent, QMouseEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QScrollBar,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.image_loader import DecodedImage, decode_image
from workbench.gui.safe_text import SafeTextView
from workbench.services.blind_tasks import BlindTask, TaskCaption, TaskImage, TaskTurn

#: thumbnail boxes by number of images: small enough to leave the responses on screen
IMAGE_BOX = {1: QSize(300, 170), 2: QSize(240, 150)}
SMALL_IMAGE_BOX = QSize(150, 110)
JUDGED_STYLE = "TurnPanel { border: 2px solid #2b6cb0; }"
#: turn panels kept hidden for later tasks (a few turns of each shape a campaign has)
MAX_SPARE_PANELS = 8


@dataclass(frozen=True)
class PreparedImage:
    """A task image decoded and scaled to its tile, ready to be shown."""

    decoded: DecodedImage
    tile: QImage


#: the image strip's share of the page's height, and the least height of a thumbnail: on a
#: short window (1366x768 at 1.5x scaling) the thumbnails shrink and the responses keep the room
TILE_SHARE = 0.14
MIN_TILE_HEIGHT = 48
UNLIMITED = 10_000


def image_box(count: int, max_height: int = UNLIMITED) -> QSize:
    """The thumbnail box for a task of ``count`` images, no taller than ``max_height``."""
    box = IMAGE_BOX.get(count, SMALL_IMAGE_BOX)
    if box.height() <= max_height:
        return box
    height = max(max_height, 1)
    return QSize(max(1, box.width() * height // box.height()), height)


def prepare_images(task: BlindTask | None, max_height: int = UNLIMITED) -> dict[int, PreparedImage]:
    """The task's images by position, decoded and scaled to their tiles (no taller than
    ``max_height``: see :attr:`TaskDisplay.max_tile_height`). Safe to call on any thread
    (QImage, not QPixmap): the annotation view calls it on its worker with the next task, so
    that decoding (tens of milliseconds a picture) is not done by the GUI thread between the
    vote and the next page."""
    if task is None:
        return {}
    box = image_box(len(task.images), max_height)
    prepared = {}
    for image in task.images:
        if image.data is None:
            continue
        decoded = decode_image(image.data)
        prepared[image.position] = PreparedImage(decoded, _fitted(decoded.thumbnail, box))
    return prepared


def _fitted(image: QImage, box: QSize) -> QImage:
    if image.isNull() or (image.width() <= box.width() and image.height() <= box.height()):
        return image
    return image.scaled(
        box, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
    )


def _heading(text: str, parent: QWidget, size: str = "") -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(f"font-weight: bold; {size}")
    return label


def _set_text(label: QLabel, text: str) -> None:
    # an unchanged text is not set again: setText lays the label out anew
    if label.text() != text:
        label.setText(text)


def _set_name(widget: QWidget, name: str) -> None:
    if widget.accessibleName() != name:
        widget.setAccessibleName(name)


def _text_view(text: str, name: str, parent: QWidget) -> SafeTextView:
    view = SafeTextView(parent)
    view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    view.setAccessibleName(name)
    view.show_text(text)
    return view


class TaskImageTile(QFrame):
    """One image of the task, or a placeholder when it was missing; click to zoom. It is in the
    tab order (after the rationale field), so every image of the strip is reached by keyboard:
    Enter or Space zooms it, and the page's other keys pass through to the page."""

    clicked = Signal(int)  # position
    focused = Signal(object)  # the tile itself, once it has the keyboard focus

    def __init__(
        self,
        image: TaskImage,
        box: QSize,
        parent: QWidget | None = None,
        prepared: PreparedImage | None = None,
    ) -> None:
        super().__init__(parent)
        self.position = image.position
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.decoded: DecodedImage | None = None
        self.picture = QLabel(self)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption = QLabel(self)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picture)
        layout.addWidget(self.caption)
        self.show_image(image, box, prepared)

    def show_image(
        self, image: TaskImage, box: QSize, prepared: PreparedImage | None = None
    ) -> None:
        """Show ``image`` in ``box`` in place of the current one: the next task's tile reuses
        this one instead of building a new widget."""
        self.position = image.position
        if self.picture.minimumSize() != box or self.picture.maximumSize() != box:
            self.picture.setFixedSize(box)
        name = f"Image {image.position + 1}"
        _set_name(self.picture, name)
        _set_text(self.caption, name)
        self.decoded = None
        if self.picture.styleSheet():  # a placeholder's; restyling costs a polish
            self.picture.setStyleSheet("")
        self.picture.clear()
        self.unsetCursor()
        if image.data is None:
            self._placeholder("Missing image")
            return
        if prepared is None:
            decoded = decode_image(image.data)
            prepared = PreparedImage(decoded, _fitted(decoded.thumbnail, box))
        self.decoded = prepared.decoded
        if self.decoded.error:
            self._placeholder("Cannot show this image")
            return
        tile = prepared.tile
        if tile.width() > box.width() or tile.height() > box.height():
            tile = _fitted(tile, box)  # prepared before the window was made smaller
        self.picture.setPixmap(QPixmap.fromImage(tile))
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def refit(self, box: QSize) -> None:
        """Show the image shown in another box (the page was resized), from its decoded
        thumbnail: nothing is decoded again."""
        if self.picture.minimumSize() == box and self.picture.maximumSize() == box:
            return
        self.picture.setFixedSize(box)
        if self.decoded is not None and not self.decoded.error:
            self.picture.setPixmap(QPixmap.fromImage(_fitted(self.decoded.thumbnail, box)))

    def forget(self) -> None:
        """Keep nothing of the image shown (a hidden tile waits for a later task's)."""
        self.decoded = None
        self.picture.clear()

    def _placeholder(self, text: str) -> None:
        self.picture.setText(text)
        self.picture.setStyleSheet(
            "background: #eeeeee; color: #b00020; border: 1px dashed #999; padding: 8px;"
        )

    @property
    def viewable(self) -> bool:
        return self.decoded is not None and not self.decoded.error

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.viewable:
            self.clicked.emit(self.position)
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        zoom_keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        if event.key() in zoom_keys and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            if self.viewable:
                self.clicked.emit(self.position)
            return
        event.ignore()  # vote keys and the page's other keys reach the page

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.focused.emit(self)


class CappedScroll(QScrollArea):
    """A scroll area around one text: as tall as the text up to ``cap`` pixels, then the text
    scrolls inside it (long code and tables scroll within their own response), and when
    ``expanding`` it takes whatever height the page has left."""

    def __init__(self, view: SafeTextView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text_view = view
        self.cap = 10_000
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(view)
        # the view's new height, once per text (not every change of its document's size)
        view.fitted.connect(self.updateGeometry)

    def set_expanding(self, expanding: bool) -> None:
        vertical = QSizePolicy.Policy.Expanding if expanding else QSizePolicy.Policy.Preferred
        self.setSizePolicy(QSizePolicy.Policy.Ignored, vertical)

    def set_cap(self, cap: int) -> None:
        if cap != self.cap:
            self.cap = cap
            self.updateGeometry()

    def sizeHint(self) -> QSize:
        return QSize(200, min(self.text_view.height() + 2, self.cap))

    def minimumSizeHint(self) -> QSize:
        return QSize(100, min(self.text_view.height() + 2, 4 * self.fontMetrics().height()))


def turn_shape(turn: TaskTurn, labels: tuple[str, ...]) -> tuple[object, ...]:
    """What a turn's panel is built from besides its texts and headings: a panel built for a
    turn can show any turn of the same shape (the next task's, in the current task's widgets)."""
    return (turn.reference is not None, labels[: len(turn.responses)])


def _turn_heading(turn: TaskTurn, note: str) -> str:
    return f"Turn {turn.index}{note}  ·  Instruction"


class TurnPanel(QFrame):
    """One turn: the prompt, the reference (when shown) and the responses side by side, each
    in its own scroll area; one panel per turn keeps a conversation aligned turn by turn."""

    def __init__(
        self, turn: TaskTurn, labels: tuple[str, ...], note: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.shape = turn_shape(turn, labels)
        self.labels = labels[: len(turn.responses)]
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        self.heading = _heading(_turn_heading(turn, note), self)
        layout.addWidget(self.heading)
        self.prompt = _text_view(turn.prompt, f"Instruction, turn {turn.index}", self)
        self.scrolls: list[CappedScroll] = [CappedScroll(self.prompt, self)]
        layout.addWidget(self.scrolls[0])
        self.reference: SafeTextView | None = None
        if turn.reference is not None:
            layout.addWidget(_heading("Reference answer", self))
            self.reference = _text_view(turn.reference, f"Reference, turn {turn.index}", self)
            self.reference.setStyleSheet("background: #f3f6fa;")
            self.scrolls.append(CappedScroll(self.reference, self))
            layout.addWidget(self.scrolls[-1])
        self.responses: list[SafeTextView] = []
        self.response_scrolls: list[CappedScroll] = []
        if turn.responses:
            row = QHBoxLayout()
            for label, text in zip(labels, turn.responses, strict=False):
                column = QFrame(self)
                column.setFrameShape(QFrame.Shape.StyledPanel)
                column.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
                column_layout = QVBoxLayout(column)
                column_layout.setContentsMargins(4, 2, 4, 2)
                column_layout.addWidget(_heading(label, column, "font-size: 11pt;"))
                view = _text_view(text, f"{label}, turn {turn.index}", column)
                scroll = CappedScroll(view, column)
                column_layout.addWidget(scroll, 1)
                self.responses.append(view)
                self.response_scrolls.append(scroll)
                row.addWidget(column, 1)
            layout.addLayout(row, 1)

    def show_turn(self, turn: TaskTurn, note: str) -> None:
        """Show ``turn`` in this panel, built for a turn of the same shape (see
        :func:`turn_shape`), as a new panel would show it: its heading and accessible names
        name this turn, and each text area starts at its top again."""
        _set_text(self.heading, _turn_heading(turn, note))
        _set_name(self.prompt, f"Instruction, turn {turn.index}")
        self.prompt.show_text(turn.prompt)
        if self.reference is not None and turn.reference is not None:
            _set_name(self.reference, f"Reference, turn {turn.index}")
            self.reference.show_text(turn.reference)
        for view, label, text in zip(self.responses, self.labels, turn.responses, strict=False):
            _set_name(view, f"{label}, turn {turn.index}")
            view.show_text(text)
        for scroll in self.scrolls + self.response_scrolls:
            scroll.verticalScrollBar().setValue(0)

    def empty(self) -> None:
        """Show no text (a spare panel keeps nothing of the task it showed); not laid out,
        since the panel is hidden until it shows a turn again."""
        for view in [self.prompt, *([self.reference] if self.reference else []), *self.responses]:
            view.clear_text()

    def set_judged(self, judged: bool) -> None:
        """Frame the panel as the turn to judge (or not); restyling only when it changes,
        since a style sheet repolishes the whole panel."""
        style = JUDGED_STYLE if judged else ""
        if self.styleSheet() != style:
            self.setStyleSheet(style)

    def fit(self, height: int, last: bool) -> None:
        """Share ``height`` (the page's visible height): instruction and reference take at most
        a fifth each, so the responses start on screen; the last turn's responses fill the
        rest, earlier turns' responses at most a third."""
        for scroll in self.scrolls:
            scroll.set_cap(max(60, height // 5))
            scroll.set_expanding(False)
        for scroll in self.response_scrolls:  # earlier turns: the context, a third at most
            scroll.set_cap(10_000 if last else max(80, height // 3))
            scroll.set_expanding(last)
        policy = QSizePolicy.Policy.Expanding if last else QSizePolicy.Policy.Preferred
        self.setSizePolicy(QSizePolicy.Policy.Preferred, policy)


def _turn_note(task: BlindTask, index: int) -> str:
    if task.judged_turn is None or len(task.turns) < 2:
        return ""
    return " (the turn to judge)" if index == task.judged_turn else " (the conversation so far)"


def _caption_text(caption: TaskCaption) -> str:
    where = caption.image_position
    return ("" if where is None else f"Image {where + 1}: ") + caption.text


class ImageStrip(QScrollArea):
    """The task's images as a strip of thumbnails of fixed height that scrolls sideways, so
    that however many images a task has, they never push the text off the screen."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        # set once here, so a new tile costs no restyle: the tile with the keyboard focus, or
        # the one the zoom window shows, is framed
        self.setStyleSheet(
            'TaskImageTile:focus, TaskImageTile[zoomed="true"] { border: 2px solid #2b6cb0; }'
        )

    def reveal(self, tile: QWidget) -> None:
        """Scroll the strip to show ``tile`` whole (an image reached by Tab or in the zoom)."""
        self.ensureWidgetVisible(tile, 8, 0)


class TaskDisplay(QWidget):
    """The page of the current task: the image strip, the captions and the turns; only the
    turns scroll as a page, and each text scrolls inside its own area. The next task is shown
    in the same widgets where it has the same shape (see :meth:`show_task`)."""

    imageClicked = Signal(object)  # DecodedImage, position

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        #: False builds every page anew (the step before reuse; bench/vote_to_paint.py times both)
        self.reuse_widgets = True
        #: the thumbnails' greatest height: a share of the page's (see :data:`TILE_SHARE`)
        self.max_tile_height = UNLIMITED
        self._strip_box = QSize()
        #: a tile's size hint by thumbnail box (see _tile_size)
        self._tile_sizes: dict[tuple[int, int], QSize] = {}
        self.tiles: list[TaskImageTile] = []
        #: the strip's tiles, the hidden ones included (see _show_images)
        self._strip_tiles: list[TaskImageTile] = []
        self.turn_panels: list[TurnPanel] = []
        self._spare_panels: list[TurnPanel] = []
        self.caption_views: list[SafeTextView] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.strip = ImageStrip(self)
        layout.addWidget(self.strip)
        self.captions = QScrollArea(self)
        self.captions.setWidgetResizable(True)
        self.captions.setFrameShape(QFrame.Shape.NoFrame)
        self.captions.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.captions.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        layout.addWidget(self.captions)
        self.page = QScrollArea(self)
        self.page.setWidgetResizable(True)
        self.page.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.page.setFrameShape(QFrame.Shape.NoFrame)
        layout.addWidget(self.page, 1)
        self._scroll_timer = QTimer(self)
        self._scroll_timer.setSingleShot(True)
        self._scroll_timer.setInterval(0)
        self._scroll_timer.timeout.connect(self._scroll_to_last_turn)
        self.show_task(None)

    def scroll_bar(self) -> QScrollBar:
        """The page's scroll bar (Page Up / Page Down move it)."""
        return self.page.verticalScrollBar()

    def show_task(
        self, task: BlindTask | None, prepared: Mapping[int, PreparedImage] | None = None
    ) -> None:
        """Show ``task``; ``prepared`` holds its images already decoded (see
        :func:`prepare_images`), else they are decoded here.

        The current widgets show the task where they fit it: the image tiles (more are built
        when it has more images, and those it does not need are hidden and kept), the captions
        when as many captions, and each turn panel when the turn at its
        place has the same shape (reference or not, response columns); only the rest is built.
        Building the whole page anew (about forty widgets, their polish and first layout, and
        deleting the old ones) was most of the GUI thread's work between a vote and the next
        page. The page shown is the same either way (tests/gui/test_annotation_task_display.py
        compares it with a fresh display's)."""
        prepared = prepared or {}
        if task is None or not self.reuse_widgets or self.page.widget() is None:
            self._show_images(task, prepared, rebuild=True)
            self._show_captions(task, rebuild=True)
            self._show_turns(task, rebuild=True)
        else:
            self._show_images(task, prepared, rebuild=False)
            self._show_captions(task, rebuild=len(self.caption_views) != len(task.captions))
            self._show_turns(task, rebuild=False)
            # a new page starts at its top and left
            self.strip.horizontalScrollBar().setValue(0)
            self.captions.verticalScrollBar().setValue(0)
            self.page.verticalScrollBar().setValue(0)
        self.strip.setVisible(bool(self.tiles))
        self.captions.setVisible(bool(self.caption_views))
        self._fit()

    @staticmethod
    def _replace(area: QScrollArea, widget: QWidget) -> None:
        previous = area.takeWidget()
        if previous is not None:
            previous.deleteLater()
        area.setWidget(widget)

    def _show_images(
        self, task: BlindTask | None, prepared: Mapping[int, PreparedImage], rebuild: bool
    ) -> None:
        images = () if task is None else task.images
        box = image_box(len(images), self.max_tile_height)
        strip = self.strip.widget()
        if rebuild or strip is None:
            strip = QWidget(self.strip)
            QHBoxLayout(strip).setContentsMargins(0, 0, 0, 0)
            cast(QHBoxLayout, strip.layout()).addStretch(1)
            self._strip_tiles = []
            self._replace(self.strip, strip)
        # the box layout given to the strip above (layout() is typed as QLayout)
        row = cast(QHBoxLayout, strip.layout())
        # The strip's tiles show the new images, in their boxes for this many images; tiles
        # beyond them are hidden and kept, since tasks of one and of two images alternate.
        self.tiles = []
        for place, image in enumerate(images):
            if place < len(self._strip_tiles):
                tile = self._strip_tiles[place]
                tile.show_image(image, box, prepared.get(image.position))
                if tile.isHidden():
                    tile.show()
            else:
                tile = TaskImageTile(image, box, strip, prepared.get(image.position))
                tile.clicked.connect(self._tile_clicked)
                tile.focused.connect(self.strip.reveal)
                self._strip_tiles.append(tile)
                row.insertWidget(place, tile)
            self.tiles.append(tile)
        for tile in self._strip_tiles[len(images) :]:
            if not tile.isHidden():
                tile.hide()
            tile.forget()
        self._strip_box = box  # the strip's height follows in _fit, which show_task calls next

    def _tile_size(self) -> QSize:
        """A tile's size for the current box, computed once per box: a tile's size hint lays
        its picture and caption out, and asking it at every task cost more than the rest of
        the strip."""
        box = self._strip_box
        size = self._tile_sizes.get((box.width(), box.height()))
        if size is None:
            size = self._tile_sizes[(box.width(), box.height())] = self.tiles[0].sizeHint()
        return size

    def _fit_strip(self) -> None:
        """The strip as tall as a tile, and its scroll bar's height more when the tiles do not
        fit its width (the bar then shows, and must not cover the tiles' captions)."""
        height = 0
        if self.tiles:
            hint = self._tile_size()
            height = hint.height()
            # from the tiles (all of one box), not the strip's own hint: a tile just added is
            # shown only once the event loop runs, and its width would be left out
            row = self.strip.widget()
            row_layout = row.layout() if row is not None else None
            spacing = row_layout.spacing() if row_layout is not None else 0
            if len(self.tiles) * (hint.width() + spacing) > self.strip.width():
                height += self.strip.horizontalScrollBar().sizeHint().height()
        if self.strip.minimumHeight() != height or self.strip.maximumHeight() != height:
            self.strip.setFixedHeight(height)

    def _show_captions(self, task: BlindTask | None, rebuild: bool) -> None:
        captions = () if task is None else task.captions
        if not rebuild:
            for view, caption in zip(self.caption_views, captions, strict=True):
                view.show_text(_caption_text(caption))
            return
        widget = QWidget(self.captions)
        column = QVBoxLayout(widget)
        column.setContentsMargins(0, 0, 0, 0)
        self.caption_views = []
        if captions:
            column.addWidget(_heading("Caption", widget))
            for caption in captions:
                view = _text_view(_caption_text(caption), "Caption", widget)
                self.caption_views.append(view)
                column.addWidget(view)
            column.addStretch(1)
        self._replace(self.captions, widget)

    def _show_turns(self, task: BlindTask | None, rebuild: bool) -> None:
        """One panel per turn. Unless ``rebuild``, a panel already at the turn's place with the
        turn's shape shows it, else a spare panel of that shape; only the others are built.
        Panels left over are kept as spares (hidden, emptied): campaigns mix one-turn and
        multi-turn tasks, and building a turn's panel is most of the cost of a page."""
        turns = () if task is None else task.turns
        content = self.page.widget()
        if rebuild or content is None:
            content = QWidget(self.page)
            QVBoxLayout(content).setContentsMargins(0, 0, 0, 0)
            self.turn_panels, self._spare_panels = [], []
            self._replace(self.page, content)
        # the box layout given to the content widget above (layout() is typed as QLayout)
        layout = cast(QVBoxLayout, content.layout())
        old = self.turn_panels
        panels: list[TurnPanel] = []
        for place, turn in enumerate(turns):
            assert task is not None
            note = _turn_note(task, turn.index)
            shape = turn_shape(turn, task.response_labels)
            current = old[place] if place < len(old) else None
            if current is not None and current.shape == shape:
                current.show_turn(turn, note)
                panel = current
            else:
                if current is not None:
                    self._park(layout, current)
                spare = next((p for p in self._spare_panels if p.shape == shape), None)
                if spare is not None:
                    self._spare_panels.remove(spare)
                    spare.show_turn(turn, note)
                    panel = spare
                else:
                    panel = TurnPanel(turn, task.response_labels, note, content)
                layout.insertWidget(place, panel)
                panel.show()
            panel.set_judged(turn.index == task.judged_turn and len(turns) > 1)
            panels.append(panel)
        for extra in old[len(turns) :]:
            self._park(layout, extra)
        self.turn_panels = panels

    def _park(self, layout: QVBoxLayout, panel: TurnPanel) -> None:
        """Take ``panel`` off the page: kept hidden and emptied as a spare, or deleted when
        there are spares enough."""
        layout.removeWidget(panel)
        panel.hide()
        if len(self._spare_panels) < MAX_SPARE_PANELS:
            panel.empty()
            self._spare_panels.append(panel)
        else:
            panel.deleteLater()

    def _fit(self) -> None:
        """Size the parts to the visible height: captions at most a sixth, the turns' texts
        as :meth:`TurnPanel.fit` says."""
        height = max(self.height(), 200)
        limit = max(MIN_TILE_HEIGHT, int(height * TILE_SHARE))
        if limit != self.max_tile_height:
            self.max_tile_height = limit
            if self.tiles:
                box = self._strip_box = image_box(len(self.tiles), limit)
                for tile in self.tiles:
                    tile.refit(box)
        self._fit_strip()
        if self.caption_views:
            wanted = sum(view.height() for view in self.caption_views) + 30
            self.captions.setFixedHeight(min(wanted, max(50, height // 6)))
        visible = self.page.viewport().height() or height
        for index, panel in enumerate(self.turn_panels):
            panel.fit(visible, index == len(self.turn_panels) - 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def first_image(self) -> tuple[DecodedImage, int] | None:
        """The first image of the task that could be decoded, with its position."""
        for tile in self.tiles:
            if tile.decoded is not None and not tile.decoded.error:
                return tile.decoded, tile.position
        return None

    def viewable_tiles(self) -> list[TaskImageTile]:
        """The tiles of the task whose image can be zoomed, in display order."""
        return [tile for tile in self.tiles if tile.viewable]

    def mark_zoomed(self, zoomed: TaskImageTile | None) -> None:
        """Frame the tile the zoom window shows (none: ``None``) and scroll the strip to it."""
        for tile in self._strip_tiles:  # a hidden tile keeps no mark for a later task
            wanted = tile is zoomed
            if bool(tile.property("zoomed")) != wanted:
                tile.setProperty("zoomed", wanted)
                tile.style().unpolish(tile)
                tile.style().polish(tile)
        if zoomed is not None:
            self.strip.reveal(zoomed)

    def _tile_clicked(self, position: int) -> None:
        for tile in self.tiles:
            if tile.position == position and tile.decoded is not None:
                self.imageClicked.emit((tile.decoded, position))

    def scroll_to_judged_turn(self, task: BlindTask) -> None:
        """Start at the top, or at the turn to judge when earlier turns come before it (once
        the new page is laid out)."""
        self.page.verticalScrollBar().setValue(0)
        if task.judged_turn is not None and len(self.turn_panels) > 1:
            self._scroll_timer.start()

    def _scroll_to_last_turn(self) -> None:
        if self.turn_panels:
            self.page.ensureWidgetVisible(self.turn_panels[-1], 0, 0)
