"""How a VisIT-Bench item is named and where its images are found, shared by the benchmark and
the human-preference importers so both arrive at the same item.

VisIT-Bench publishes no item ids. An item is named from its content: the file stem of its
first image and a short hash of its instruction, e.g. ``450_rcc_clevr_default_006594-91cafe29``.
Images are looked up as ``images/<last path segment of the URL>`` beside the CSV.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from workbench.domain import ImageRecord, Origin
from workbench.importers.base import ImportReport
from workbench.importers.images import ImageProblemError, resolve_inside
from workbench_visit_bench.cells import RowError

SOURCE = "visit-bench"
IMAGES_FOLDER = "images"


def image_file_name(url: str) -> str:
    """The last path segment of an image URL (percent-escapes decoded); a bare file name is
    returned as it is. Raises ValueError when the URL names no file."""
    try:
        path = urlsplit(url.strip()).path
    except ValueError as error:  # such as "Invalid IPv6 URL" for an unclosed "["
        raise ValueError(f"image URL {url[:100]!r} cannot be read: {error}") from error
    name = unquote(PurePosixPath(path).name) if path else ""
    if not name:
        raise ValueError(f"image URL {url[:100]!r} does not end in a file name")
    return name


def normalized_instruction(instruction: str) -> str:
    """The instruction as hashed: line endings unified and outer whitespace dropped, so a file
    re-saved by a spreadsheet still names the same item."""
    return instruction.replace("\r\n", "\n").replace("\r", "\n").strip()


def item_external_id(image_urls: Sequence[str], instruction: str) -> str:
    """The item id of an (images, instruction) tuple: ``<first image stem>-<sha1[:8]>``."""
    if not image_urls:
        raise ValueError("an item needs at least one image")
    stem = PurePosixPath(image_file_name(image_urls[0])).stem
    digest = hashlib.sha1(normalized_instruction(instruction).encode("utf-8")).hexdigest()
    return f"{stem}-{digest[:8]}"


def image_urls_of(value: object, column: str) -> list[str]:
    """Check a parsed ``images`` value: a non-empty list of URLs."""
    if not isinstance(value, list) or not value:
        raise RowError(column, "must be a non-empty JSON list of image URLs")
    for index, url in enumerate(value):
        if not isinstance(url, str) or not url.strip():
            raise RowError(column, f"entry {index + 1} must be an image URL")
    return [url.strip() for url in value]


def locate_images(csv_path: Path, urls: Sequence[str], column: str) -> tuple[ImageRecord, ...]:
    """ImageRecords for ``urls``, resolved inside ``images/`` beside ``csv_path``; an absent
    file becomes a missing image (path None). A name that leaves the folder rejects the row."""
    folder = csv_path.parent / IMAGES_FOLDER
    records = []
    for position, url in enumerate(urls):
        try:
            path = resolve_inside(folder, image_file_name(url), source=csv_path.parent)
        except (ValueError, ImageProblemError) as error:
            raise RowError(column, str(error)) from error
        records.append(ImageRecord(position=position, original_ref=url, path=path))
    return tuple(records)


def warn_missing_images(
    images: Sequence[ImageRecord], column: str, origin: Origin, report: ImportReport
) -> None:
    for image in images:
        if image.is_missing:
            name = image_file_name(image.original_ref)
            report.warn(origin, column, f"image {name} is not in {IMAGES_FOLDER}/; kept as missing")
