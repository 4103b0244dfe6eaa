"""The images of an item as a grid of thumbnails: click one to zoom and pan; a missing image is
a labelled placeholder that keeps its place and names what the source referred to."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent, QPixmap
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from workbench.gui.image_loader import DecodedImage, ImageLoader
from workbench.gui.plain_text import plain_tooltip
from workbench.services.browse import ImageSlot

MAX_COLUMNS = 4
#: a tile is not shrunk below this picture width: fewer columns instead
MIN_PICTURE_WIDTH = 150
#: a tile's frame and margins around its picture, and the grid's spacing between tiles
TILE_CHROME = 12
GRID_SPACING = 6


def tile_size(count: int) -> QSize:
    """Larger tiles when an item has few images."""
    if count <= 1:
        return QSize(440, 300)
    if count <= 2:
        return QSize(380, 260)
    return QSize(240, 170)


def fitted_tiles(count: int, available_width: int | None) -> tuple[QSize, int]:
    """The picture size and the number of columns for ``count`` images in
    ``available_width`` pixels (None: unbounded): the preferred size of :func:`tile_size`,
    in fewer columns and then scaled down (aspect kept) so the grid never needs more width
    than the pane has, which would scroll the whole item sideways on a narrow window."""
    preferred = tile_size(count)
    columns = max(1, min(count, MAX_COLUMNS))
    if available_width is None:
        return preferred, columns

    def picture_width(columns: int) -> int:
        return (available_width - GRID_SPACING * (columns - 1)) // columns - TILE_CHROME

    while columns > 1 and picture_width(columns) < MIN_PICTURE_WIDTH:
        columns -= 1
    width = max(1, min(preferred.width(), picture_width(columns)))
    height = max(1, round(preferred.height() * width / preferred.width()))
    return QSize(width, height), columns


class ImageTile(QFrame):
    """One image slot: the thumbnail, or a placeholder saying why there is none."""

    clicked = Signal(object)  # ImageSlot

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.picture = QLabel(self)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setWordWrap(True)
        self.picture.setTextFormat(Qt.TextFormat.PlainText)
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.picture, 1)
        layout.addWidget(self.label)
        self.slot: ImageSlot | None = None
        self.state = "empty"

    def show_slot(self, slot: ImageSlot, size: QSize, decoded: DecodedImage | None) -> None:
        self.slot = slot
        self.picture.setFixedSize(size)
        details = f"Image {slot.position + 1}"
        if slot.width and slot.height:
            details += f" · {slot.width}×{slot.height} {slot.format or ''}".rstrip()
        self.label.setText(details)
        self.setToolTip(plain_tooltip(slot.original_ref))
        if slot.is_missing:
            name = slot.original_ref.rstrip("/").rsplit("/", 1)[-1] or slot.original_ref
            elided = self.picture.fontMetrics().elidedText(
                name, Qt.TextElideMode.ElideMiddle, size.width() - 24
            )
            self._placeholder("missing", f"Missing image\n{elided}")
        elif decoded is None:
            self._placeholder("loading", "Loading…")
        else:
            self.show_decoded(decoded)

    def show_decoded(self, decoded: DecodedImage) -> None:
        if decoded.error:
            self._placeholder("error", f"Cannot show this image\n{decoded.error}")
            return
        pixmap = QPixmap.fromImage(decoded.thumbnail)
        box = self.picture.size()
        if pixmap.width() > box.width() or pixmap.height() > box.height():
            pixmap = pixmap.scaled(
                box, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
            )
        self.picture.setStyleSheet("")
        self.picture.setPixmap(pixmap)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.state = "shown"

    def _placeholder(self, state: str, text: str) -> None:
        self.state = state
        self.picture.clear()
        self.picture.setText(text)
        colour = "#b00020" if state in ("missing", "error") else "#666"
        self.picture.setStyleSheet(
            f"background: #eeeeee; color: {colour}; border: 1px dashed #999; padding: 8px;"
        )
        self.unsetCursor()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.state == "shown":
            self.clicked.emit(self.slot)
        super().mouseReleaseEvent(event)


class ImageGrid(QWidget):
    """The tiles of the current item's images, updated as the loader finishes decoding."""

    imageClicked = Signal(object)  # ImageSlot

    def __init__(self, loader: ImageLoader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loader = loader
        self._layout = QGridLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._layout.setSpacing(GRID_SPACING)
        self.tiles: list[ImageTile] = []
        self._slots: tuple[ImageSlot, ...] = ()
        #: the width the grid may take (the pane's), None until its owner says
        self._available_width: int | None = None
        loader.imageReady.connect(self._image_ready)

    def set_available_width(self, width: int) -> None:
        """Fit the tiles to ``width`` pixels from now on (the shown ones are laid out again
        when the fitted size changes)."""
        before = fitted_tiles(len(self._slots), self._available_width)
        self._available_width = max(1, width)
        if self._slots and fitted_tiles(len(self._slots), self._available_width) != before:
            self.show_images(self._slots)

    def show_images(self, slots: Sequence[ImageSlot]) -> None:
        self._slots = tuple(slots)
        while len(self.tiles) < len(slots):
            tile = ImageTile(self)
            tile.clicked.connect(self.imageClicked)
            self.tiles.append(tile)
        size, columns = fitted_tiles(len(slots), self._available_width)
        for tile in self.tiles:  # a narrower grid has fewer columns: lay every tile out again
            self._layout.removeWidget(tile)
        for index, tile in enumerate(self.tiles):
            if index < len(slots):
                slot = slots[index]
                decoded = None if slot.image_id is None else self._loader.request(slot.image_id)
                tile.show_slot(slot, size, decoded)
                self._layout.addWidget(tile, index // columns, index % columns)
                tile.show()
            else:
                tile.hide()
        self.setVisible(bool(slots))

    def visible_tiles(self) -> list[ImageTile]:
        return self.tiles[: len(self._slots)]

    def loading(self) -> bool:
        return any(tile.state == "loading" for tile in self.visible_tiles())

    def _image_ready(self, image_id: int) -> None:
        for tile in self.visible_tiles():
            if tile.slot is not None and tile.slot.image_id == image_id:
                decoded = self._loader.cached(image_id)
                if decoded is not None:
                    tile.show_decoded(decoded)
