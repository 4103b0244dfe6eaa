"""Images checked from a file and read again when written: the bytes are not held between the
two steps, and a file that changes in between is refused."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from workbench.importers.images import ImageProblemError, prepare_image


def png(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(buffer, "PNG")
    return buffer.getvalue()


def test_an_image_kept_in_its_file_holds_no_bytes_and_reads_them_back(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    path.write_bytes(png("red"))
    kept = prepare_image(path.read_bytes()).kept_in_file(path)
    assert kept.data == b""
    assert kept.content() == png("red")


def test_an_image_file_changed_after_its_check_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    path.write_bytes(png("red"))
    kept = prepare_image(path.read_bytes()).kept_in_file(path)
    path.write_bytes(png("blue"))
    with pytest.raises(ImageProblemError, match="changed during the import"):
        kept.content()
