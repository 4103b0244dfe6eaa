"""Helpers shared by the VisIT-Bench importer tests: reading the published CSVs cell by cell,
writing modified copies into tmp_path, and reading counts back from a bundle."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path
from typing import cast

import pandas as pd

from workbench.storage import Bundle
from workbench.storage.queries import bundle_counts

MULTI_IMAGE_CSV = "visit_bench_multi_images.csv"
SINGLE_IMAGE_CSV = "visit_fully_annotated_example.csv"
#: an image file name inside a URL or a cell
IMAGE_NAME = re.compile(r"[\w.-]+\.(?:png|jpe?g|gif|webp|bmp|tiff?)", re.IGNORECASE)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_counts(bundle: Path, source: str = "visit-bench") -> dict[str, int]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return cast("dict[str, int]", bundle_counts(session)["sources"][source])


def raw_cells(path: Path) -> pd.DataFrame:
    """A published CSV with every cell as its exact text (no NaN or boolean conversion), so a
    file written back from it differs only where a test changes it."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def write_csv(
    frame: pd.DataFrame, folder: Path, name: str, *, with_images_of: Path | None = None
) -> Path:
    """Write ``frame`` as ``folder/name``; with ``with_images_of``, ``folder/images`` holds the
    images of that folder that the written rows name, copied into tmp_path at test time (a
    symlinked images/ would be refused: it leads out of the source)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    frame.to_csv(path, index=False)
    if with_images_of is not None:
        images = folder / "images"
        images.mkdir(exist_ok=True)
        for image_name in set(IMAGE_NAME.findall(path.read_text("utf-8"))):
            published = with_images_of / "images" / image_name
            if published.is_file() and not (images / image_name).exists():
                shutil.copyfile(published, images / image_name)
    return path
