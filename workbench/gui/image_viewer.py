"""The dialog that opens when an image is clicked: zoom, pan, fit and actual size, and, for an
item or task of several images, its previous and next image (Page Up / Page Down)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QDialog, QWidget

from workbench.gui.forms.ui_image_viewer import Ui_ImageViewer
from workbench.gui.screen_fit import resize_within_screen
from workbench.gui.zoomable_image_view import ZOOM_STEP


class ImageViewerDialog(QDialog):
    #: the previous (-1) or next (+1) image was asked for; the owner shows it with show_image
    stepped = Signal(int)

    def __init__(self, image: QImage, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = Ui_ImageViewer()
        self.ui.setupUi(self)
        resize_within_screen(self, self.width(), self.height())  # the form's 900x700
        self.ui.fitButton.clicked.connect(self.ui.imageView.fit)
        self.ui.actualSizeButton.clicked.connect(self.ui.imageView.actual_size)
        self.ui.zoomInButton.clicked.connect(lambda: self.ui.imageView.zoom(ZOOM_STEP))
        self.ui.zoomOutButton.clicked.connect(lambda: self.ui.imageView.zoom(1 / ZOOM_STEP))
        self.ui.previousButton.clicked.connect(self.previous)
        self.ui.nextButton.clicked.connect(self.next)
        QShortcut(QKeySequence(Qt.Key.Key_PageUp), self).activated.connect(self.previous)
        QShortcut(QKeySequence(Qt.Key.Key_PageDown), self).activated.connect(self.next)
        self.position = 0
        self.count = 1
        self.show_image(image, title)
        self.ui.imageView.setFocus()

    def show_image(self, image: QImage, title: str, position: int = 0, count: int = 1) -> None:
        """Show another image in the same window (the annotation page's zoom follows the
        task), fitted to the window: image ``position`` (from 0) of ``count``."""
        self.position, self.count = position, count
        self.setWindowTitle(title)
        where = f"image {position + 1} of {count}  ·  " if count > 1 else ""
        self.ui.infoLabel.setText(f"{where}{image.width()} × {image.height()} px")
        for button in (self.ui.previousButton, self.ui.nextButton):
            button.setVisible(count > 1)
        self.ui.previousButton.setEnabled(position > 0)
        self.ui.nextButton.setEnabled(position < count - 1)
        self.ui.imageView.set_image(image)
        if self.isVisible():
            self.ui.imageView.fit()

    def previous(self) -> None:
        self.step(-1)

    def next(self) -> None:
        self.step(1)

    def step(self, delta: int) -> None:
        """Ask for the previous (-1) or next (+1) image, when there is one."""
        if 0 <= self.position + delta < self.count:
            self.stepped.emit(delta)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.ui.imageView.fit()
