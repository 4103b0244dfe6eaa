"""Hostile and clumsy inputs found beyond the issue's list (held-out spirit): devices and pipes
where files are expected, a bundle under another name, a zip that inflates past the limit."""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest
from workbench_convbench.importer import SHEET_NAME
from workbench_convbench.workbook import read_sheet

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.importers.limits import LimitExceededError, ReadLimits
from workbench.services.importing import import_files


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_device_or_pipe_given_as_the_source_is_refused_not_read_forever(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`workbench import /dev/zero` used to hash and read zeros until killed."""
    pipe = tmp_path / "items.jsonl"
    os.mkfifo(pipe)
    for source in ("/dev/zero", str(pipe)):
        code = main(["import", source, "--format", "jsonl", "--into", str(tmp_path / "b.wbb")])
        err = capsys.readouterr().err
        assert code == 1 and "not a regular file or folder" in err, err
    assert not (tmp_path / "b.wbb").exists()


def test_an_image_that_is_a_pipe_is_kept_as_missing_without_blocking(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src", [item_line("q1", images=[{"path": "images/p.png"}])])
    os.mkfifo(source.parent / "images" / "p.png")  # opening it to read would block for ever
    result = import_files(tmp_path / "b.wbb", [source], "jsonl")
    assert result.counts["images_missing"] == 1


def test_an_export_onto_a_hard_link_of_the_bundle_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "src", [item_line("q1")])], "jsonl")
    alias = tmp_path / "innocent.jsonl"
    os.link(bundle, alias)
    before = digest(bundle)
    assert main(["export", str(bundle), "--out", str(alias)]) == 1
    assert "is the bundle being exported" in capsys.readouterr().err
    assert digest(bundle) == before and alias.exists()


def test_an_xlsx_whose_parts_inflate_past_the_limit_is_refused_before_parsing(
    tmp_path: Path,
) -> None:
    import openpyxl

    book = tmp_path / "zipbomb.xlsx"
    workbook = openpyxl.Workbook()
    assert workbook.active is not None
    workbook.active.title = SHEET_NAME
    workbook.save(book)
    with zipfile.ZipFile(book, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/media/padding.bin", bytes(5_000_000))  # 5 MB of zeros in ~5 KB
    assert book.stat().st_size < 100_000
    with pytest.raises(LimitExceededError, match=r"zipbomb\.xlsx: inflates to 5,0"):
        read_sheet(book, SHEET_NAME, ReadLimits(max_decompressed_bytes=1_000_000))


def test_a_data_file_whose_name_is_not_utf8_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It ended in an internal UnicodeEncodeError while the import's fingerprint was taken."""
    folder = tmp_path / "in"
    written = write_jsonl(folder, [item_line("q1")])
    os.rename(written, os.fsencode(folder) + b"/items-\xff.jsonl")
    bundle = tmp_path / "b.wbb"
    code = main(["import", str(folder), "--format", "jsonl", "--into", str(bundle)])
    err = capsys.readouterr().err
    assert code == 1
    assert "file names that are not valid UTF-8: " in err and "items-\\udcff.jsonl; rename" in err
    assert "internal error" not in err
    assert not bundle.exists()
