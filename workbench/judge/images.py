"""Images for multimodal judge requests: stored image bytes as base64 data URLs, scaled down so
the long side is at most a given number of pixels."""

from __future__ import annotations

import base64
import io

from PIL import Image

from workbench.importers.images import open_stored_image

#: formats sent as they are when no resize is needed; anything else is re-encoded
_SENDABLE = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}


def fitted_size(width: int, height: int, max_side: int) -> tuple[int, int]:
    """The size after scaling down (never up) so that the long side is at most ``max_side``."""
    longest = max(width, height)
    if longest <= max_side:
        return width, height
    scale = max_side / longest
    return max(1, round(width * scale)), max(1, round(height * scale))


def data_url(data: bytes, max_side: int) -> str:
    """``data:<mime>;base64,...`` for an image, resized to fit ``max_side``.

    An image that already fits and is in a format every vision endpoint accepts is sent byte
    for byte; otherwise it is re-encoded (PNG when it has transparency, JPEG at quality 90
    otherwise), which is deterministic for a given Pillow version.
    """
    with open_stored_image(data) as image:  # the one gate: no program runs, bounded pixels
        fitted = fitted_size(image.width, image.height, max_side)
        if fitted == image.size and image.format in _SENDABLE:
            return _encode(data, _SENDABLE[image.format])
        image.load()
        converted = (
            image if fitted == image.size else image.resize(fitted, Image.Resampling.LANCZOS)
        )
        has_alpha = converted.mode in ("RGBA", "LA", "PA") or "transparency" in converted.info
        buffer = io.BytesIO()
        if has_alpha:
            converted.convert("RGBA").save(buffer, format="PNG", optimize=False)
            return _encode(buffer.getvalue(), "image/png")
        converted.convert("RGB").save(buffer, format="JPEG", quality=90)
        return _encode(buffer.getvalue(), "image/jpeg")


def _encode(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
