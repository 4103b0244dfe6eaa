"""A widget showing one matplotlib Figure (built by the Qt-free functions in
:mod:`workbench.stats`) as an image built and rendered with the Agg backend in the panels'
worker process (or on a thread): the view holds the figure's recipe, a picklable function that
builds it, so the worker can draw it again at a new size."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QImage, QPixmap, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from workbench.gui import panel_computations
from workbench.gui.panel_computations import FigureRecipe, RenderedFigure, render_figure
from workbench.gui.panels.latest_only import LatestOnly, Runner

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["FigureView", "RenderedFigure", "render_figure"]

#: a resize is followed by a re-render only once the size has been still this long
RESIZE_DEBOUNCE_MS = 150
MINIMUM_SIZE = QSize(200, 160)


class FigureView(QWidget):
    """Shows the latest figure given to it, rendered in the background at the widget's size;
    shows a message when there is none. The GUI thread only turns finished pixels into a pixmap.
    A figure in a hidden tab is rendered when it is shown, and a resize re-renders after a pause.
    """

    def __init__(
        self, runner: Runner, placeholder: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.tasks = LatestOnly(runner, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.message = QLabel(placeholder, self)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        # a figure with more rows than fit legibly is drawn taller and scrolls (render_figure)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.image = QLabel()
        self.image.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        # the pixmap's size must not pin the widget's: the image follows the widget, not back
        self.image.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.image.setMinimumSize(MINIMUM_SIZE)
        self.scroll_area.setWidget(self.image)
        self.scroll_area.hide()
        layout.addWidget(self.message)
        layout.addWidget(self.scroll_area, 1)
        self._recipe: FigureRecipe | None = None
        self._figure: Figure | None = None
        self._rendered_size: QSize | None = None
        self._pixmap: QPixmap | None = None
        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(RESIZE_DEBOUNCE_MS)
        self._resize_timer.timeout.connect(self._render_if_needed)
        # the image area also changes without this widget resizing: the scroll area's vertical
        # bar comes or goes when a render's height changes, and the figure must follow it
        self.scroll_area.viewport().installEventFilter(self)

    @property
    def recipe(self) -> FigureRecipe | None:
        """The function that builds the shown figure."""
        return self._recipe

    @property
    def figure(self) -> Figure | None:
        """The shown figure, built here from its recipe on first access (tests, exports): the
        view itself only ever needs the worker's pixels."""
        if self._figure is None and self._recipe is not None:
            self._figure = self._recipe()
        return self._figure

    @property
    def busy(self) -> bool:
        return self.tasks.busy

    @property
    def pixmap(self) -> QPixmap | None:
        """The last rendered image, or None before the first render."""
        return self._pixmap

    def target_size(self) -> QSize:
        """Logical pixels the figure is rendered at: the image area, never below the minimum."""
        size = self.scroll_area.viewport().size() if self.scroll_area.isVisible() else self.size()
        return size.expandedTo(MINIMUM_SIZE)

    def show_figure(self, recipe: FigureRecipe, rendered: RenderedFigure | None = None) -> None:
        """Show the figure ``recipe`` builds; ``rendered`` is its image if already drawn in the
        background at :meth:`target_size` (otherwise it is drawn in the background when
        visible)."""
        self.tasks.forget()
        self._recipe = recipe
        self._figure = None
        self._rendered_size = None
        self.message.hide()
        self.scroll_area.show()
        if rendered is not None:
            self._show_pixels(recipe, self.target_size(), rendered)
        else:
            self._render_if_needed()

    def clear(self, text: str) -> None:
        """Remove the figure and show ``text`` instead."""
        self.tasks.forget()
        self._recipe = self._figure = None
        self._rendered_size = None
        self._pixmap = None
        self.image.clear()
        self.image.setMinimumHeight(MINIMUM_SIZE.height())
        self.scroll_area.hide()
        self.message.setText(text)
        self.message.show()

    def _render_if_needed(self) -> None:
        recipe = self._recipe
        if recipe is None or not self.isVisible():
            return
        size = self.target_size()
        if size == self._rendered_size:
            return
        ratio = self.devicePixelRatioF()
        width, height = size.width(), size.height()
        self.tasks.submit(
            partial(panel_computations.render, recipe, width, height, ratio),
            lambda rendered: self._show_pixels(recipe, size, rendered),
            lambda error: self._failed(recipe, error),
        )

    def _show_pixels(self, recipe: FigureRecipe, size: QSize, rendered: RenderedFigure) -> None:
        if recipe is not self._recipe:
            return  # a newer figure replaced this one while it was drawn
        image = QImage(
            rendered.rgba,
            rendered.width,
            rendered.height,
            rendered.width * 4,
            QImage.Format.Format_RGBA8888,
        )
        # QImage borrows the bytes: copy into a pixmap that owns its pixels
        pixmap = QPixmap.fromImage(image.copy())
        ratio = rendered.width / max(size.width(), 1)
        pixmap.setDevicePixelRatio(ratio)
        self._pixmap = pixmap
        self._rendered_size = size
        # taller than asked when the figure's rows need it: the scroll area then scrolls
        self.image.setMinimumHeight(max(MINIMUM_SIZE.height(), round(rendered.height / ratio)))
        self.image.setPixmap(pixmap)
        if self.isVisible() and self.target_size() != size:
            self._resize_timer.start()

    def _failed(self, recipe: FigureRecipe, error: BaseException) -> None:
        if recipe is self._recipe:
            self.clear(f"Cannot draw this figure: {error}")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._render_if_needed()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Resize
            and watched is self.scroll_area.viewport()
            and self._recipe is not None
        ):
            self._resize_timer.start()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._pixmap is not None:
            # until the new render arrives, the old one scaled keeps the space filled (to the
            # width: a figure taller than the view keeps scrolling, not squashed into it)
            self.image.setPixmap(
                self._pixmap.scaledToWidth(
                    round(self.target_size().width() * self._pixmap.devicePixelRatio()),
                    Qt.TransformationMode.FastTransformation,
                )
            )
        if self._recipe is not None:
            self._resize_timer.start()
