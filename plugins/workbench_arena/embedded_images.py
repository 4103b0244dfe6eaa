"""Images embedded in dataset rows (the Hugging Face ``Image`` feature: a struct of ``bytes`` and
``path``), set aside as they are read.

An import checks every row before it writes anything, so the images of 30,000 battles would all
be held at once if they stayed in the records. Instead each image goes to the import's image
spool (``workbench.importers.images.ImageSpool``) while the row holds its bytes: hashed and
checked once, stored once, and the record keeps only its hash.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.domain import ImageRecord
from workbench.importers.images import ImageSpool
from workbench_arena.jsonfiles import RowError


@dataclass(frozen=True, slots=True)
class EmbeddedImage:
    """An image taken from a row: its hash in the spool, and how the dataset named it."""

    sha256: str
    name: str

    def record(self, position: int) -> ImageRecord:
        return ImageRecord(position, self.name, sha256=self.sha256)


def read_image_values(row: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """The field and the image structs of a row: ``image`` (one, or null) or ``images`` (a
    list). None when the row has neither."""
    if "images" in row and row["images"] is not None:
        value = row["images"]
        if not isinstance(value, list):
            raise RowError("images", f"must be a list of images, not {type(value).__name__}")
        return "images", value
    if "image" in row and row["image"] is not None:
        return "image", [row["image"]]
    return None


def embedded_images(row: dict[str, Any], spool: ImageSpool) -> list[EmbeddedImage]:
    """The images a row carries, set aside in ``spool``; an image without bytes is an error of
    the row (a dataset saved without its images cannot be shown blind)."""
    found = read_image_values(row)
    if found is None:
        return []
    field, values = found
    images: list[EmbeddedImage] = []
    for index, value in enumerate(values):
        where = f"{field}[{index}]" if field == "images" else field
        data: object  # checked below: a struct may hold anything under "bytes"
        if isinstance(value, (bytes, bytearray)):
            data, name = bytes(value), None
        elif isinstance(value, dict):
            data, name = value.get("bytes"), value.get("path")
            if name is not None and not isinstance(name, str):
                raise RowError(f"{where}.path", f"must be a string, not {type(name).__name__}")
        else:
            raise RowError(where, "must be an image: a struct of 'bytes' and 'path'")
        if not isinstance(data, (bytes, bytearray)) or not data:
            raise RowError(
                f"{where}.bytes",
                "holds no image bytes (only a path); load the dataset with its images embedded",
            )
        sha256 = spool.add(bytes(data) if isinstance(data, bytearray) else data)
        images.append(EmbeddedImage(sha256, name or f"sha256:{sha256}"))
    return images
