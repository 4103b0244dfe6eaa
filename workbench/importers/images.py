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
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

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


def open_raster(data: bytes) -> Image.Image:
    """Open ``data`` with the allowed raster decoders only (use as a context manager).

    Raises ``PIL.UnidentifiedImageError`` for anything else; no external program is started.
    """
    return Image.open(io.BytesIO(data), formats=RASTER_FORMATS)


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

    def content(self) -> bytes:
        """The image's bytes, read back from its file if they were not kept; a file changed
        since it was checked is refused rather than stored under the wrong hash."""
        if self.path is None:
            return self.data
        data = self.path.read_bytes()
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise ImageProblemError(f"image file {self.path} changed during the import")
        return data

    def kept_in_file(self, path: Path) -> PreparedImage:
        return PreparedImage(self.sha256, self.format, self.width, self.height, b"", path)


def prepare_image(data: bytes) -> PreparedImage:
    """Check that ``data`` is an image Pillow can decode and describe it."""
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    try:
        with open_raster(data) as probe:
            probe.verify()
        with open_raster(data) as image:
            width, height = image.size
            image_format = image.format or "unknown"
            if width * height > MAX_IMAGE_PIXELS:
                raise ImageProblemError(
                    f"image of {width}x{height} pixels is over the limit of {MAX_IMAGE_PIXELS}"
                )
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
    return PreparedImage(
        sha256=hashlib.sha256(data).hexdigest(),
        format=image_format.lower(),
        width=width,
        height=height,
        data=data,
    )


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
