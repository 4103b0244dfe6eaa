"""A bundle is anyone's file (a colleague's, a pull, a pack), so nothing in its rows names a
path or runs a program: an export names image files only after a valid sha256 and an allowed
format, the report decodes stored images through the same raster-only gate as the viewer and
the judge, and push, pull and pack export copy only image rows an import would have stored.

Each hostile row is written into a real bundle with plain sqlite3, as a hand or another tool
could."""

from __future__ import annotations

import hashlib
import io
import sqlite3
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.reliability.test_hostile_images import WORKBENCH_COMMAND, eps_bytes, gs_watch
from workbench.cli import main
from workbench.importers.images import (
    MAX_IMAGE_PIXELS,
    ImageProblemError,
    check_image_row,
    open_stored_image,
)
from workbench.services.sync import copy_bundle_rows
from workbench.storage.transfer import TransferError

__all__ = ["gs_watch"]  # the fixture, imported to be used here


def png(width: int = 4, height: int = 3) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "blue").save(buffer, "PNG")
    return buffer.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A 1x1 PNG whose header claims ``width`` x ``height`` pixels: a decompression bomb as
    Pillow sees it from the header alone."""
    tiny = png(1, 1)
    header = b"IHDR" + width.to_bytes(4, "big") + height.to_bytes(4, "big") + tiny[24:29]
    return tiny[:12] + header + zlib.crc32(header).to_bytes(4, "big") + tiny[33:]


def cycle_item(item_id: str) -> dict[str, Any]:
    """An item whose human votes form a cycle over three models: the report's gallery shows
    it, with its image."""
    models = ("model-a", "model-b", "model-c")
    return item_line(
        item_id,
        outputs=[{"model": m, "text": f"{m} answers."} for m in models],
        judgments=[
            {"kind": "human", "model_a": a, "model_b": b, "outcome": "a", "rater": "r1"}
            for a, b in (("model-a", "model-b"), ("model-b", "model-c"), ("model-c", "model-a"))
        ],
    )


def make_bundle(folder: Path, name: str = "b.wbb") -> Path:
    from workbench.services.importing import import_files

    bundle = folder / name
    import_files(bundle, [write_jsonl(folder / f"src-{name}", [cycle_item("q1")])], "jsonl")
    return bundle


def set_image_row(bundle: Path, **values: object) -> None:
    with sqlite3.connect(bundle) as connection:
        assignments = ", ".join(f"{column} = ?" for column in values)
        connection.execute(f"UPDATE images SET {assignments}", tuple(values.values()))


# --- the row check and the decode gate ----------------------------------------------------------


@pytest.mark.parametrize(
    ("sha256", "image_format", "problem"),
    [
        ("../../../.config/autostart/x", "png", "invalid sha256"),
        ("A" * 64, "png", "invalid sha256"),
        ("a" * 63, "png", "invalid sha256"),
        ("a" * 64 + "\n", "png", "invalid sha256"),
        ("a" * 64, "png/../../x", "has format"),
        ("a" * 64, "eps", "has format"),
        ("a" * 64, "", "has format"),
        ("a" * 64, None, "has format"),
    ],
)
def test_an_image_row_that_could_name_a_path_is_refused(
    sha256: object, image_format: object, problem: str
) -> None:
    with pytest.raises(ImageProblemError, match=problem):
        check_image_row(sha256, image_format)


def test_an_image_row_whose_bytes_are_not_its_hash_or_not_an_image_is_refused() -> None:
    data = png()
    check_image_row(hashlib.sha256(data).hexdigest(), "png", data)
    with pytest.raises(ImageProblemError, match="do not have its sha256"):
        check_image_row("0" * 64, "png", data)
    eps = eps_bytes()
    with pytest.raises(ImageProblemError, match="PostScript/EPS"):
        check_image_row(hashlib.sha256(eps).hexdigest(), "png", eps)


def test_the_gate_refuses_documents_oversized_files_and_too_many_pixels() -> None:
    with open_stored_image(png()) as image:
        assert image.size == (4, 3)
    with pytest.raises(ImageProblemError, match="PostScript/EPS"):
        open_stored_image(eps_bytes())
    with pytest.raises(ImageProblemError, match="over the limit"):
        open_stored_image(png(), max_bytes=10)
    with pytest.raises(ImageProblemError, match="pixels is over the limit"):
        open_stored_image(png(40, 40), max_pixels=1_000)
    # a header claiming more pixels than the limit is refused before any pixel is decoded
    with pytest.raises(ImageProblemError, match=r"decompression bomb|over the limit"):
        open_stored_image(png_claiming(100_000, 100_000))
    assert MAX_IMAGE_PIXELS < 100_000 * 100_000


# --- export ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "row",
    [
        {"sha256": "../../escaped"},
        {"format": "png/../../../escaped"},
        {"sha256": "f" * 64},  # not the hash of the bytes
    ],
)
def test_export_with_image_paths_writes_nothing_from_a_hostile_image_row(
    row: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = make_bundle(tmp_path)
    set_image_row(bundle, **row)
    out = tmp_path / "export" / "items.jsonl"
    out.parent.mkdir()
    status = main(["export", str(bundle), "--out", str(out), "--with-images", "paths"])
    assert status == 1
    error = capsys.readouterr().err
    assert "cannot export image" in error and "nothing was written" in error
    assert not out.exists()
    assert list(out.parent.iterdir()) == []  # no images/ folder, no file
    assert not any(path.name.startswith("escaped") for path in tmp_path.rglob("*"))


def test_export_of_a_valid_row_still_names_its_file_by_hash(tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path)
    out = tmp_path / "export" / "items.jsonl"
    out.parent.mkdir()
    assert main(["export", str(bundle), "--out", str(out), "--with-images", "paths"]) == 0
    (written,) = (out.parent / "images").iterdir()
    assert written.read_bytes() == png() or written.suffix == ".png"
    assert len(written.stem) == 64


# --- report ------------------------------------------------------------------------------------


def test_report_never_starts_ghostscript_on_an_eps_stored_in_a_bundle(
    gs_watch: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    env, log = gs_watch
    bundle = make_bundle(tmp_path)
    eps = eps_bytes()
    # a row as an older version or another tool may have stored it: an EPS, called a PNG
    set_image_row(bundle, data=eps, sha256=hashlib.sha256(eps).hexdigest(), size_bytes=len(eps))
    out = tmp_path / "report.html"
    done = subprocess.run(
        [str(WORKBENCH_COMMAND), "report", str(bundle), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "q1" in out.read_text(encoding="utf-8")  # the gallery shows the case
    assert not log.exists(), "an external program was started"


def test_report_is_written_past_an_over_limit_image_stored_in_a_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = make_bundle(tmp_path)
    # Pillow's own limit refuses this header with DecompressionBombError: the report ended in
    # an internal error on it
    bomb = png_claiming(100_000, 100_000)
    set_image_row(bundle, data=bomb, sha256=hashlib.sha256(bomb).hexdigest(), size_bytes=len(bomb))
    out = tmp_path / "report.html"
    assert main(["report", str(bundle), "--out", str(out)]) == 0, capsys.readouterr().err
    assert "q1" in out.read_text(encoding="utf-8")  # the case is shown, without its picture


# --- copies between bundles --------------------------------------------------------------------


@pytest.mark.parametrize(
    "row",
    [{"sha256": "../../escaped"}, {"format": "exe"}, {"data": b"%!PS-Adobe-3.0 EPSF-3.0\n"}],
)
def test_push_and_pull_refuse_a_hostile_image_row_and_copy_nothing(
    row: dict[str, Any], tmp_path: Path
) -> None:
    source = make_bundle(tmp_path)
    set_image_row(source, **row)
    target = tmp_path / "copy.wbb"
    with pytest.raises(TransferError, match=r"images row .* cannot be copied"):
        copy_bundle_rows(source, target)
    assert not target.exists()
    # into an existing copy of the same bundle (a second pull): it stays as it was
    clean = make_bundle(tmp_path, "clean.wbb")
    before = clean.read_bytes()
    with pytest.raises(TransferError):
        copy_bundle_rows(source, clean)
    assert clean.read_bytes() == before
