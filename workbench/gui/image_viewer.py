"""The dialog that opens when an image is clicked: zoom, pan, fit and actual size."""

from __future__ import annotations

from PySide6.QtGui import QImage, QShowEvent
from PySide6.QtWidgets import QDialog, QWidget

from workbench.gui.forms.ui_image_viewer import Ui_ImageViewer
from workbench.gui.screen_fit import resize_within_screen
from workbench.gui.zoomable_image_view import ZOOM_STEP


class ImageViewerDialog(QDialog):
    def __init__(self, image: QImage, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ui = Ui_ImageViewer()
        self.ui.setupUi(self)
        resize_within_screen(self, self.width(), self.height())  # the form's 900x700
        self.ui.fitButton.clicked.connect(self.ui.imageView.fit)
        self.ui.actualSizeButton.clicked.connect(self.ui.imageView.actual_size)
        self.ui.zoomInButton.clicked.connect(lambda: self.ui.imageView.zoom(ZOOM_STEP))
        self.ui.zoomOutButton.clicked.connect(lambda: self.ui.imageView.zoom(1 / ZOOM_STEP))
        self.show_image(image, title)
        self.ui.imageView.setFocus()

    def show_image(self, image: QImage, title: str) -> None:
        """Show another image in the same window (the annotation page's zoom follows the
        task), fitted to the window."""
        self.setWindowTitle(title)
        self.ui.infoLabel.setText(f"{image.width()} × {image.height()} px")
        self.ui.imageView.set_image(image)
        if self.isVisible():
            self.ui.imageView.fit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.ui.imageView.fit()
