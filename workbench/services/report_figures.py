"""The report's pictures as data URIs: matplotlib figures as SVG, gallery images as small JPEG
thumbnails kept under a per-file byte budget. A data URI is base64 text, so the templates insert
it like any other value (escaping leaves it unchanged) and a picture shown as an image runs
nothing and loads nothing."""

from __future__ import annotations

import base64
import hashlib
import io
import logging
from dataclasses import dataclass, field

import pandas as pd
from matplotlib import rc_context
from matplotlib.figure import Figure
from PIL import Image

from workbench.importers.images import ImageProblemError, open_stored_image

log = logging.getLogger(__name__)

#: a thumbnail's longest side, and its largest encoded size (quality drops until it fits)
THUMBNAIL_SIDE = 320
MAX_IMAGE_BYTES = 40_000
#: all thumbnails together; past it, images are left out with a note (a 500-item report
#: stays far under 20 MB)
MAX_TOTAL_IMAGE_BYTES = 8_000_000


@dataclass(frozen=True)
class FigureImage:
    """A figure as the report shows it: its element id, its alternative text and its SVG."""

    id: str
    alt: str
    uri: str


@dataclass
class ImageBudget:
    """How many bytes of thumbnails are left for the whole file, and the thumbnails made so
    far by the SHA-256 of their image (an image shown by many items is scaled once)."""

    left: int
    left_out: int = 0
    made: dict[bytes, bytes | None] = field(default_factory=dict)


def plot_safe(names: pd.Series) -> pd.Series:
    """Model names as matplotlib shows them literally (a ``$`` would start mathtext)."""
    return names.astype(str).str.replace("$", r"\$", regex=False)


def figure_image(figure: Figure, alt: str, figure_id: str) -> FigureImage:
    """The figure as an SVG data URI: shown as an image it runs nothing and loads nothing."""
    buffer = io.BytesIO()
    # text as <text> rather than glyph outlines: a 22-model heatmap is drawn several times faster
    # and the file is smaller; the browser supplies the font
    with rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return FigureImage(figure_id, alt, f"data:image/svg+xml;base64,{data}")


def thumbnail_uri(data: bytes | None, budget: ImageBudget) -> str | None:
    """A JPEG data URI at most :data:`THUMBNAIL_SIDE` px and :data:`MAX_IMAGE_BYTES`, or None
    when the image is unreadable or the file's budget is spent."""
    if data is None:
        return None
    key = hashlib.sha256(data).digest()
    if key not in budget.made:
        budget.made[key] = _scaled(data)
    encoded = budget.made[key]
    if encoded is None:
        return None
    if len(encoded) > budget.left:
        budget.left_out += 1
        return None
    budget.left -= len(encoded)
    return "data:image/jpeg;base64," + base64.b64encode(encoded).decode("ascii")


def _scaled(data: bytes) -> bytes | None:
    # the gate every decode of stored bytes goes through: an EPS or PDF in a bundle never
    # reaches a decoder that starts a program, and an oversized image is refused unread
    try:
        with open_stored_image(data) as image:
            image.thumbnail((THUMBNAIL_SIDE, THUMBNAIL_SIDE))
            picture = image.convert("RGB")
    except ImageProblemError as refused:
        log.warning("a gallery image is left out of the report: %s", refused)
        return None
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError):
        return None  # damaged pixels: the case is shown without its picture
    encoded = b""
    for quality in (75, 60, 45, 30):
        buffer = io.BytesIO()
        picture.save(buffer, format="JPEG", quality=quality, optimize=True)
        encoded = buffer.getvalue()
        if len(encoded) <= MAX_IMAGE_BYTES:
            break
    if len(encoded) > MAX_IMAGE_BYTES:
        picture.thumbnail((THUMBNAIL_SIDE // 2, THUMBNAIL_SIDE // 2))
        buffer = io.BytesIO()
        picture.save(buffer, format="JPEG", quality=30)
        encoded = buffer.getvalue()
    return encoded
