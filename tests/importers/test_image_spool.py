"""The image spool: each embedded image is hashed, checked and stored once while its row is in
memory, and read back once by the writer; a refused image is remembered with its reason."""

from __future__ import annotations

import hashlib
import io

import pytest
from PIL import Image

from workbench.domain import ImageRecord
from workbench.importers.base import ImportReport
from workbench.importers.images import (
    ImageProblemError,
    ImageSpool,
    PreparedImage,
    check_image,
    image_key,
)
from workbench.importers.limits import ReadLimits


def image(colour: str, fmt: str = "PNG", size: tuple[int, int] = (6, 4)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, fmt)
    return buffer.getvalue()


def spool_size(spool: ImageSpool) -> int:
    assert spool._file is not None
    return spool._file.seek(0, io.SEEK_END)


def test_an_image_is_stored_once_and_read_back_by_its_offset() -> None:
    spool = ImageSpool(max_image_bytes=1 << 20)
    red, blue = image("red"), image("blue", "JPEG")
    first = spool.add(red)
    assert spool.add(blue) == hashlib.sha256(blue).hexdigest()
    assert spool.add(red) == first == hashlib.sha256(red).hexdigest()
    kept_red, kept_blue = spool.outcome(first), spool.outcome(hashlib.sha256(blue).hexdigest())
    assert spool_size(spool) == len(red) + len(blue)  # the repeat was not written again
    assert isinstance(kept_red, PreparedImage) and isinstance(kept_blue, PreparedImage)
    assert (kept_red.format, kept_red.width, kept_red.height, kept_red.data) == ("png", 6, 4, b"")
    assert kept_blue.format == "jpeg"
    assert kept_blue.content() == blue and kept_red.content() == red


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (image("red")[:60], "image is damaged"),
        (b"%PDF-1.7\n", "file is PDF, not an image"),
        (image("red", "JPEG")[:-40], "image is damaged"),
    ],
)
def test_a_refused_image_keeps_its_reason_and_is_not_stored(data: bytes, reason: str) -> None:
    spool = ImageSpool(max_image_bytes=1 << 20)
    sha = spool.add(data)
    outcome = spool.outcome(sha)
    assert isinstance(outcome, str) and reason in outcome
    assert spool._file is None or spool_size(spool) == 0  # nothing written


def test_a_png_with_a_changed_byte_is_refused_by_its_crc() -> None:
    data = bytearray(image("red", size=(40, 40)))
    data[60] ^= 0xFF  # inside the IDAT chunk
    with pytest.raises(ImageProblemError, match="damaged"):
        check_image(bytes(data))


def test_an_image_over_the_size_limit_is_refused_unchecked() -> None:
    data = image("red")
    spool = ImageSpool(max_image_bytes=len(data) - 1)
    outcome = spool.outcome(spool.add(data))
    assert isinstance(outcome, str) and "over the limit" in outcome


def test_the_report_makes_one_spool_with_the_importers_limit_and_closes_it_with_itself() -> None:
    report = ImportReport()
    spool = report.image_spool(ReadLimits(max_image_bytes=10))
    assert report.image_spool() is spool and spool.max_image_bytes == 10
    spool.max_image_bytes = 1 << 20
    kept = spool.outcome(spool.add(image("red")))
    assert isinstance(kept, PreparedImage)
    del report
    with pytest.raises(ImageProblemError, match="spool is closed"):
        kept.content()


def test_a_spooled_slot_is_keyed_by_its_hash() -> None:
    assert image_key(ImageRecord(0, "a.png", sha256="ab" * 32)) == "sha256:" + "ab" * 32
    assert not ImageRecord(0, "a.png", sha256="ab" * 32).is_missing


def test_a_full_disk_stops_the_import_with_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_args: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("workbench.importers.images.os.pwrite", full)
    spool = ImageSpool(max_image_bytes=1 << 20)
    sha = spool.add(image("red"))
    with pytest.raises(ImageProblemError, match=r"cannot set images aside.*No space left"):
        spool.outcome(sha)


def test_a_spool_abandoned_from_its_own_worker_neither_joins_nor_waits() -> None:
    # The collector may run the report's finalizer on a spool worker: closing there would join
    # the thread it runs on.
    report = ImportReport()
    spool = report.image_spool()
    spool.outcome(spool.add(image("red")))
    assert spool._workers is not None
    with pytest.raises(RuntimeError, match="join"):
        spool._workers.submit(spool.close).result()
    report = ImportReport()
    spool = report.image_spool()
    spool.outcome(spool.add(image("red")))
    assert spool._workers is not None
    spool._workers.submit(spool.abandon).result()
    with pytest.raises(ImageProblemError, match="spool is closed"):
        spool.read(0, 1)
