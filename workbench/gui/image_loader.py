"""Decode a bundle's images off the GUI thread and keep the recent ones in memory.

Images are decoded by Pillow with their EXIF orientation applied (``ImageOps.exif_transpose``),
together with a thumbnail, as unlisted jobs of the window's job manager; the GUI thread only
converts a finished image to a pixmap. A least-recently-used cache bounded by bytes keeps moving
back and forth between items free of decoding.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PIL import Image as PILImage
from PIL import ImageOps
from PySide6.QtCore import QObject, QSize, Signal
from PySide6.QtGui import QImage

from workbench.gui.background import BackgroundRunner
from workbench.importers.images import ImageProblemError, open_stored_image

log = logging.getLogger(__name__)

THUMBNAIL_SIZE = QSize(480, 360)
CACHE_BYTES = 384 * 1024 * 1024


@dataclass(frozen=True)
class DecodedImage:
    """An image as displayed (orientation applied) and its thumbnail; ``error`` is set instead
    when the stored bytes could not be decoded."""

    full: QImage
    thumbnail: QImage
    error: str | None = None

    @property
    def cost(self) -> int:
        return self.full.sizeInBytes() + self.thumbnail.sizeInBytes()


def _to_qimage(image: PILImage.Image) -> QImage:
    rgba = image.convert("RGBA")
    data = rgba.tobytes("raw", "RGBA")
    # copy() so the QImage owns its pixels once ``data`` is gone
    return QImage(
        data, rgba.width, rgba.height, 4 * rgba.width, QImage.Format.Format_RGBA8888
    ).copy()


def decode_image(data: bytes) -> DecodedImage:
    """Decode ``data`` with its EXIF orientation applied. Safe to call on any thread.

    Pillow decodes rather than Qt's image reader: the reader loads Qt's format plugins, and
    loading plugins on a worker thread while the GUI thread lays out a window can deadlock.
    """
    try:
        with open_stored_image(data) as opened:
            opened.load()
            image = ImageOps.exif_transpose(opened)
            thumbnail = image.copy()
            thumbnail.thumbnail(
                (THUMBNAIL_SIZE.width(), THUMBNAIL_SIZE.height()), PILImage.Resampling.LANCZOS
            )
            return DecodedImage(_to_qimage(image), _to_qimage(thumbnail))
    except ImageProblemError as refused:
        return DecodedImage(QImage(), QImage(), f"cannot show image: {refused}")
    except (OSError, ValueError, PILImage.DecompressionBombError) as error:
        return DecodedImage(QImage(), QImage(), f"cannot decode image: {error}")


class ImageLoader(QObject):
    """Gives decoded images by id, decoding them as jobs and caching the results.

    ``fetch_bytes(image_id)`` reads an image's stored bytes; it is called on worker threads.
    """

    imageReady = Signal(int)

    def __init__(
        self,
        fetch_bytes: Callable[[int], bytes | None],
        cache_bytes: int = CACHE_BYTES,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._fetch_bytes = fetch_bytes
        self._cache: OrderedDict[int, DecodedImage] = OrderedDict()
        self._cache_limit = cache_bytes
        self._cached_bytes = 0
        self._pending: set[int] = set()
        self.runner = BackgroundRunner(self, kind="Image load")

    def cached(self, image_id: int) -> DecodedImage | None:
        """The decoded image if it is in the cache (and mark it recently used)."""
        decoded = self._cache.get(image_id)
        if decoded is not None:
            self._cache.move_to_end(image_id)
        return decoded

    def request(self, image_id: int) -> DecodedImage | None:
        """The decoded image now if cached; otherwise start decoding it and emit
        ``imageReady(image_id)`` when it is."""
        decoded = self.cached(image_id)
        if decoded is None:
            self._start(image_id)
        return decoded

    def prefetch(self, image_ids: Iterable[int]) -> None:
        for image_id in image_ids:
            if image_id not in self._cache:
                self._start(image_id)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def wait(self, timeout_ms: int = 30_000) -> bool:
        return self.runner.wait(timeout_ms)

    def clear(self) -> None:
        """Empty the cache once the decodes under way have ended (another bundle is shown)."""
        self.runner.wait()
        self.forget()

    def forget(self) -> None:
        """Empty the cache without waiting for the decodes under way (the window is closing)."""
        self._cache.clear()
        self._cached_bytes = 0

    def _start(self, image_id: int) -> None:
        if image_id in self._pending:
            return
        self._pending.add(image_id)
        fetch = self._fetch_bytes

        def task() -> DecodedImage:
            try:
                data = fetch(image_id)
                return (
                    decode_image(data)
                    if data is not None
                    else DecodedImage(QImage(), QImage(), "image not in the bundle")
                )
            except Exception as error:  # a damaged image must not take the viewer down
                log.exception("decoding image %s failed", image_id)
                return DecodedImage(QImage(), QImage(), str(error))

        self.runner.run(
            task,
            lambda decoded: self._store(image_id, decoded),
            # cancelled: decoded again when next asked for
            lambda _cancelled: self._pending.discard(image_id),
            title=f"Image {image_id}",
        )

    def _store(self, image_id: int, decoded: DecodedImage) -> None:
        self._pending.discard(image_id)
        previous = self._cache.pop(image_id, None)
        if previous is not None:
            self._cached_bytes -= previous.cost
        self._cache[image_id] = decoded
        self._cached_bytes += decoded.cost
        while self._cached_bytes > self._cache_limit and len(self._cache) > 1:
            _, evicted = self._cache.popitem(last=False)
            self._cached_bytes -= evicted.cost
        self.imageReady.emit(image_id)
