"""Reading image files for import: verify they are images, measure them, hash them.

Pillow's decompression-bomb limit is enforced as an error for the row, and image names from
data files are resolved only inside the folder they are meant to be in. Every image the app
decodes, at import and in every viewer, is opened through :func:`open_raster`: only the raster
formats below are tried, so an EPS, PostScript or PDF file named ``.png`` never reaches
Pillow's Ghostscript bridge (which would run ``gs`` on untrusted PostScript).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tempfile
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from PIL import Image, UnidentifiedImageError

from workbench.domain import ImageRecord
from workbench.errors import WorkbenchError

#: Pillow's own default (about 89 million pixels); past twice this it raises instead of warning.
MAX_IMAGE_PIXELS = 89_478_485


#: the only decoders Pillow may use on data (names as in ``PIL.Image.registered_extensions``)
RASTER_FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "BMP", "TIFF")
ACCEPTED_FORMATS_TEXT = "PNG, JPEG, WebP, GIF, BMP or TIFF"

#: leading bytes of formats people send as images that are programs or documents
_REFUSED_SIGNATURES = (
    (b"%!PS", "PostScript/EPS"),
    (b"\xc5\xd0\xd3\xc6", "EPS"),
    (b"%PDF", "PDF"),
)


#: the leading bytes of each allowed format (WebP: ``RIFF`` then ``WEBP`` at offset 8)
_RASTER_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"II+\x00", "TIFF"),
    (b"MM\x00+", "TIFF"),
)

#: the values of the ``images.format`` column the app writes (Pillow's format names, lower
#: case; a JPEG holding several pictures is Pillow's ``mpo``): what export may put in a file name
STORED_FORMATS = frozenset({"png", "jpeg", "mpo", "webp", "gif", "bmp", "tiff"})

#: the largest image the app decodes from a bundle (the importers' per-image file limit)
MAX_STORED_IMAGE_BYTES = 100 * 1024 * 1024

_SHA256 = re.compile(r"[0-9a-f]{64}")


def raster_signature(data: bytes) -> str | None:
    """The allowed format ``data`` starts like (``"PNG"``...), or None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    for signature, name in _RASTER_SIGNATURES:
        if data.startswith(signature):
            return name
    return None


def open_raster(data: bytes) -> Image.Image:
    """Open ``data`` with the allowed raster decoders only (use as a context manager).

    Raises ``PIL.UnidentifiedImageError`` for anything else; no external program is started.
    """
    return Image.open(io.BytesIO(data), formats=RASTER_FORMATS)


def open_stored_image(
    data: bytes,
    *,
    max_bytes: int = MAX_STORED_IMAGE_BYTES,
    max_pixels: int = MAX_IMAGE_PIXELS,
) -> Image.Image:
    """The one gate for decoding image bytes read from a bundle (viewer, annotator, judge,
    report): the bytes must start with the signature of an allowed raster format, be at most
    ``max_bytes`` long, and declare at most ``max_pixels`` pixels, which is checked from the
    header before any pixel is decoded; only that format's decoder is tried. Use as a context
    manager; raises :class:`ImageProblemError` saying why an image is refused. A bundle is
    data from anyone (a colleague's file, a pull, a pack): its bytes were checked at import
    only if this app imported them."""
    if len(data) > max_bytes:
        raise ImageProblemError(f"image of {len(data):,} bytes is over the limit of {max_bytes:,}")
    kind = raster_signature(data)
    if kind is None:
        raise ImageProblemError(not_raster_reason(data))
    try:
        image = Image.open(io.BytesIO(data), formats=(kind,))
    except Image.DecompressionBombError as error:
        raise ImageProblemError(f"image refused as a decompression bomb: {error}") from error
    except UnidentifiedImageError as error:
        raise ImageProblemError(not_raster_reason(data)) from error
    except Exception as error:  # a damaged header, in whatever words the decoder has
        raise ImageProblemError(f"image is damaged: {_first_line(error)}") from error
    width, height = image.size
    if width * height > max_pixels:
        image.close()
        raise ImageProblemError(
            f"image of {width}x{height} pixels is over the limit of {max_pixels:,}"
        )
    return image


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def check_image_row(sha256: object, image_format: object, data: bytes | None = None) -> None:
    """Refuse an ``images`` row whose values cannot safely name a file or be decoded: the hash
    must be 64 lowercase hex digits (and the hash of ``data`` when given), the format one of
    :data:`STORED_FORMATS`, and ``data`` must start like an allowed raster format. Raises
    :class:`ImageProblemError` saying which value is wrong. Used by export (which names files
    after the row) and by every copy between bundles (push, pull, pack merge and export)."""
    shown = repr(sha256)[:80]
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise ImageProblemError(f"image row has an invalid sha256 {shown}: not 64 hex digits")
    # any case: bundles of the first schema stored Pillow's own names ("PNG")
    if not isinstance(image_format, str) or image_format.lower() not in STORED_FORMATS:
        raise ImageProblemError(
            f"image {sha256[:12]}… has format {repr(image_format)[:40]}, not one of "
            f"{', '.join(sorted(STORED_FORMATS))}"
        )
    if data is None:
        return
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ImageProblemError(f"image {sha256[:12]}…'s bytes do not have its sha256")
    if raster_signature(data) is None:
        raise ImageProblemError(f"image {sha256[:12]}…: {not_raster_reason(data)}")


def not_raster_reason(data: bytes) -> str:
    """Why ``data`` was refused as an image, naming what it looks like when known."""
    head = data[:1024].lstrip()
    for signature, kind in _REFUSED_SIGNATURES:
        if head.startswith(signature):
            return f"file is {kind}, not an image; only {ACCEPTED_FORMATS_TEXT} are accepted"
    return f"file is not an image; only {ACCEPTED_FORMATS_TEXT} are accepted"


class ImageProblemError(WorkbenchError):
    """A file given as an image cannot be stored as one; the message says why."""


@dataclass(frozen=True, slots=True)
class PreparedImage:
    sha256: str
    format: str
    width: int
    height: int
    data: bytes
    #: set (and ``data`` left empty) when the checked bytes stay in a file until they are
    #: written, so an import of many images holds one at a time instead of all of them
    path: Path | None = None
    #: set (and ``data`` left empty) when the bytes wait in an :class:`ImageSpool`
    spool: ImageSpool | None = None
    offset: int = 0
    size: int = 0

    def content(self) -> bytes:
        """The image's bytes, read back from its file if they were not kept; a file changed
        since it was checked is refused rather than stored under the wrong hash."""
        if self.spool is not None:
            # No second hash: the spool has no name, so nothing but this import can write it.
            return self.spool.read(self.offset, self.size)
        if self.path is None:
            return self.data
        data = self.path.read_bytes()
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise ImageProblemError(f"image file {self.path} changed during the import")
        return data

    def kept_in_file(self, path: Path) -> PreparedImage:
        return PreparedImage(self.sha256, self.format, self.width, self.height, b"", path)


def check_image(data: bytes) -> tuple[str, int, int]:
    """The format, width and height of ``data`` after checking it is an image that may be
    stored: an allowed raster format, under the pixel limit, and not damaged.

    A PNG is checked without decoding its pixels: ``verify`` reads every chunk to ``IEND`` and
    checks its CRC, which finds truncation and changed bytes, and the pixel limit comes from
    the header. Decoding it would cost more than hashing and storing it, and proves only that
    an intact, CRC-valid zlib stream also inflates, which the viewer reports if not. The
    other formats' ``verify`` checks nothing, so they are decoded.
    """
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    try:
        with open_raster(data) as image:
            width, height = image.size
            image_format = image.format or "unknown"
            if width * height > MAX_IMAGE_PIXELS:
                raise ImageProblemError(
                    f"image of {width}x{height} pixels is over the limit of {MAX_IMAGE_PIXELS}"
                )
            if image_format == "PNG":
                image.verify()
            else:
                image.load()
    except Image.DecompressionBombError as error:
        raise ImageProblemError(f"image refused as a decompression bomb: {error}") from error
    except UnidentifiedImageError as error:
        raise ImageProblemError(not_raster_reason(data)) from error
    except ImageProblemError:
        raise
    # Pillow's decoders report damaged data with many exception types (OSError, SyntaxError,
    # ValueError, EOFError, struct.error, IndexError...); all mean the same to the user.
    except Exception as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ImageProblemError(f"image is damaged: {detail}") from error
    return image_format.lower(), width, height


def prepare_image(data: bytes) -> PreparedImage:
    """Check that ``data`` is an image that may be stored (:func:`check_image`) and describe it."""
    image_format, width, height = check_image(data)
    return PreparedImage(
        sha256=hashlib.sha256(data).hexdigest(),
        format=image_format,
        width=width,
        height=height,
        data=data,
    )


#: images whose check and write may be under way at once: their bytes are held until done
SPOOL_PENDING = 16


class ImageSpool:
    """Images embedded in the rows an importer reads, each hashed, checked and set aside once.

    An import checks every row before it writes anything, so the images of 30,000 dataset rows
    would all be held at once if they stayed in the records. :meth:`add` hashes the bytes while
    the row holds them and hands a new image to two worker threads, which check it
    (:func:`check_image`) and write it at its place in one unnamed temporary file while the
    importer reads on (hashing, zlib's CRC and the write release the GIL); at most
    :data:`SPOOL_PENDING` images wait, so memory stays bounded. The record keeps only the hash,
    and the import writer reads the bytes back once from their offset. One file, rather than a
    file per image, because creating 30,000 files cost more than everything else done to an
    image. It has no name, so it disappears when the spool is closed or the process ends,
    whatever happens to the import.
    """

    def __init__(self, max_image_bytes: int) -> None:
        self.max_image_bytes = max_image_bytes
        self._file: IO[bytes] | None = None
        self._end = 0
        self._checked: dict[str, Future[PreparedImage | str] | PreparedImage | str] = {}
        self._pending: deque[Future[PreparedImage | str]] = deque()
        self._workers: ThreadPoolExecutor | None = None

    def add(self, data: bytes) -> str:
        """Set ``data`` aside and return its SHA-256; a repeated image is neither checked nor
        stored again. A refused image is remembered with its reason (see :meth:`outcome`)."""
        sha256 = hashlib.sha256(data).hexdigest()
        if sha256 in self._checked:
            return sha256
        if len(data) > self.max_image_bytes:
            self._checked[sha256] = (
                f"image of {len(data):,} bytes is over the limit of {self.max_image_bytes:,}"
            )
            return sha256
        if self._file is None or self._workers is None:
            # Unbuffered, so what :meth:`read` asks for is in the file, not in a buffer; open
            # for the spool's life, which no ``with`` block spans (closed by :meth:`close`).
            self._file = tempfile.TemporaryFile(  # noqa: SIM115
                prefix="workbench-import-images-", buffering=0
            )
            self._workers = ThreadPoolExecutor(2, thread_name_prefix="image-spool")
        # The place is taken now, so the workers never share an offset; a refused image leaves
        # its place unwritten (a hole in the file, which costs no disk).
        offset, self._end = self._end, self._end + len(data)
        future = self._workers.submit(self._check_and_write, sha256, data, offset)
        self._checked[sha256] = future
        self._pending.append(future)
        while len(self._pending) > SPOOL_PENDING:
            self._pending.popleft().result()
        return sha256

    def outcome(self, sha256: str) -> PreparedImage | str:
        """The checked image of that hash, or why it was refused (waiting for its check)."""
        found = self._checked.get(sha256, f"image sha256:{sha256} was not kept by the importer")
        if isinstance(found, Future):
            found = self._checked[sha256] = found.result()
        return found

    def read(self, offset: int, size: int) -> bytes:
        if self._file is None:
            raise ImageProblemError("the import's image spool is closed")
        data = os.pread(self._file.fileno(), size, offset)
        if len(data) != size:
            raise ImageProblemError("the import's image spool ends before an image")
        return data

    def close(self) -> None:
        """Wait for the workers, then give the file's disk space back."""
        if self._workers is not None:
            self._workers.shutdown(wait=True, cancel_futures=True)
            self._workers = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def abandon(self) -> None:
        """:meth:`close` without waiting, so it is safe from a finalizer on any thread: the
        workers get no more work, and the file is closed unless a worker may still be writing
        to it (then it closes when the spool is freed)."""
        if self._workers is not None:
            self._workers.shutdown(wait=False, cancel_futures=True)
            self._workers = None
        if self._file is not None and all(future.done() for future in self._pending):
            self._file.close()
            self._file = None

    def _check_and_write(self, sha256: str, data: bytes, offset: int) -> PreparedImage | str:
        try:
            image_format, width, height = check_image(data)
        except ImageProblemError as error:
            return str(error)
        assert self._file is not None  # opened before any image is handed to a worker
        view, written = memoryview(data), 0
        try:
            while written < len(view):
                written += os.pwrite(self._file.fileno(), view[written:], offset + written)
        except OSError as error:  # the disk is full: the import cannot go on, whatever the row
            raise ImageProblemError(
                f"cannot set images aside in a temporary file: {error.strerror or error}"
            ) from error
        return PreparedImage(
            sha256, image_format, width, height, b"", spool=self, offset=offset, size=len(data)
        )


def image_key(image: ImageRecord) -> str | None:
    """How the import service and the writer agree on which prepared image a slot uses."""
    if image.sha256 is not None:
        return f"sha256:{image.sha256}"
    if image.path is not None:
        return f"path:{image.path}"
    if image.data is not None:
        return f"data:{hashlib.sha256(image.data).hexdigest()}"
    return None


def resolve_inside(root: Path, name: str, *, source: Path | None = None) -> Path | None:
    """The file ``name`` inside ``root``, or None when it is absent.

    Raises :class:`ImageProblemError` when ``name`` tries to leave ``root`` (``..``, an absolute
    path, or a symlink pointing outside), so a data file cannot make the importer read
    arbitrary files. With ``source`` (the folder holding the data file, of which ``root`` is a
    subfolder such as ``images/``), the file must also lie inside ``source``: an ``images``
    folder that is itself a link out of the source is refused.
    """
    shown = name if len(name) <= 80 else name[:80] + "..."
    if "\x00" in name:
        raise ImageProblemError(f"image path {shown!r} holds a NUL character")
    candidate = Path(name)
    if candidate.is_absolute() or ".." in candidate.parts:
        raise ImageProblemError(f"image path '{shown}' points outside {root}")
    path = root / candidate
    try:
        if not path.exists():
            return None
        if not path.resolve().is_relative_to(root.resolve()):
            raise ImageProblemError(f"image path '{shown}' resolves outside {root}")
        if source is not None and not path.resolve().is_relative_to(source.resolve()):
            raise ImageProblemError(
                f"image path '{shown}' resolves outside {source}: {root.name}/ links elsewhere"
            )
        return path if path.is_file() else None
    except OSError as error:  # a name too long for the file system, a symlink loop...
        raise ImageProblemError(
            f"image path '{shown}' cannot be looked up: {error.strerror or error}"
        ) from error
