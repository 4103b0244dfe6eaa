"""Images embedded in dataset rows (the Hugging Face ``Image`` feature: a struct of ``bytes`` and
``path``), moved out of memory as they are read.

An import checks every row before it writes anything, so the images of 30,000 battles would all
be held at once if they stayed in the records. Instead each distinct image is written once to a
private scratch folder, named by its SHA-256, and the record points at that file; the folder is
removed when the import's report is released (or at exit).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.domain import ImageRecord
from workbench.importers.base import ImportReport
from workbench_arena.jsonfiles import RowError


@dataclass(frozen=True, slots=True)
class EmbeddedImage:
    """An image taken from a row: where its bytes now are, and how the dataset named it."""

    path: Path
    name: str

    def record(self, position: int) -> ImageRecord:
        return ImageRecord(position, self.name, path=self.path)


class ImageScratch:
    """The scratch folder of one import. Created on the first image, so imports without
    embedded images leave no folder behind."""

    def __init__(self, report: ImportReport) -> None:
        self._report = report
        self._folder: Path | None = None

    def _ensure_folder(self) -> Path:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="workbench-import-images-"))
            # Tied to the report: the import service keeps it until the bundle is written.
            weakref.finalize(self._report, shutil.rmtree, self._folder, True)
        return self._folder

    def store(self, data: bytes, name: str | None) -> EmbeddedImage:
        digest = hashlib.sha256(data).hexdigest()
        path = self._ensure_folder() / digest
        if not path.exists():
            path.write_bytes(data)
        return EmbeddedImage(path, name or f"sha256:{digest}")


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


def embedded_images(row: dict[str, Any], scratch: ImageScratch) -> list[EmbeddedImage]:
    """The images a row carries, stored in ``scratch``; an image without bytes is an error of
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
        images.append(scratch.store(bytes(data), name or None))
    return images
