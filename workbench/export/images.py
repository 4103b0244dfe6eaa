"""How an item's image slot appears in an export: embedded as base64, as a path to a file
written beside the export (named by its SHA-256, so each picture is written once), or only
as the original reference alone. A picture the bundle holds but the export was asked to leave
out is written as ``{"not_exported": ref}``; ``{"missing": ref}`` is kept for a picture the
bundle never had, so a record never reports a present image as lost."""

from __future__ import annotations

import base64
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.export.atomic import write_bytes_atomically
from workbench.export.options import ImageMode
from workbench.importers.images import ImageProblemError, check_image_row
from workbench.storage.models import ItemImage

IMAGE_FOLDER = "images"


@dataclass
class ImageWriter:
    """Turns image slots into export entries; in ``paths`` mode writes the files under
    ``folder/images/`` (each file atomically, and only once per content)."""

    mode: ImageMode
    folder: Path
    written: set[str] = field(default_factory=set)
    #: images whose row was checked (:func:`check_image_row`), by database id
    checked: set[int] = field(default_factory=set)
    #: slots whose stored picture this export left out (``none``): the summary states them
    not_exported: int = 0
    #: files (and folders) this export made that were not there before: what
    #: :meth:`remove_created` takes back when the export fails or is cancelled
    created: list[Path] = field(default_factory=list)

    def entry(self, slot: ItemImage) -> dict[str, Any]:
        # the slot's own column first: loading the image (its bytes) only to leave it out
        # costs a query per slot
        if slot.image_id is None:
            return {"missing": slot.original_ref}
        if self.mode is ImageMode.NONE:
            self.not_exported += 1
            return {"not_exported": slot.original_ref}
        image = slot.image
        if image is None:
            return {"missing": slot.original_ref}
        if image.id not in self.checked:
            # A bundle is anyone's file: its row names the file written below, and its bytes
            # go out as an image, so both must be what the app itself would have stored.
            try:
                check_image_row(image.sha256, image.format, image.data)
            except ImageProblemError as refused:
                raise ImageProblemError(
                    f"cannot export image {image.id} (slot {slot.position} of item "
                    f"{slot.item_id}): {refused}; nothing was written"
                ) from None
            self.checked.add(image.id)
        if self.mode is ImageMode.EMBED:
            return {
                "base64": base64.b64encode(image.data).decode("ascii"),
                "ref": slot.original_ref,
            }
        name = f"{IMAGE_FOLDER}/{image.sha256}.{image.format.lower()}"
        if image.sha256 not in self.written:
            target = self.folder / name
            if not (target.exists() and target.stat().st_size == image.size_bytes):
                if not target.parent.exists():
                    self.created.append(target.parent)
                existed = target.exists()
                write_bytes_atomically(target, image.data)
                if not existed:
                    self.created.append(target)
            self.written.add(image.sha256)
        return {"path": name, "ref": slot.original_ref}

    def remove_created(self) -> None:
        """Remove the files and folders this export made (an image file that was already there,
        perhaps from an earlier export, is kept, as is a folder that is not empty)."""
        for path in reversed(self.created):
            with contextlib.suppress(OSError):
                if path.is_dir():
                    path.rmdir()
                else:
                    path.unlink()
        self.created.clear()
