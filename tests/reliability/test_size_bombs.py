"""Size and decompression bombs: every reader refuses a file past its limits from its size, its
declared dimensions or a bounded read, with one message naming the file, before memory grows.

The bombs are built small against lowered limits (``ReadLimits``), except the xlsx with a
forged dimension, which is refused at the default limits without reading a row.
"""

from __future__ import annotations

import gzip
import io
import re
import zipfile
from pathlib import Path

import pytest
from workbench_arena.jsonfiles import read_rows
from workbench_convbench.importer import SHEET_NAME
from workbench_convbench.workbook import read_sheet
from workbench_visit_bench.csv_files import open_table

from tests.importers.canonical_helpers import item_line, png_bytes, write_jsonl
from workbench.cli import main
from workbench.importers.base import ImportRejectedError, ImportReport
from workbench.importers.canonical import CanonicalJsonlImporter
from workbench.importers.limits import LimitExceededError, ReadLimits, inflate_gzip
from workbench.plugins import Plugin, Registry
from workbench.services.importing import import_files

SMALL = ReadLimits(
    max_file_bytes=10_000,
    max_decompressed_bytes=10_000,
    max_rows=100,
    max_line_bytes=1_000,
    max_image_bytes=1_000,
)


def workbook(
    path: Path, last_row: int, declared_rows: int | None = None, renumbered: int | None = None
) -> Path:
    """A real ConvBench-shaped xlsx whose last row is numbered ``last_row``; with
    ``declared_rows`` its <dimension> is forged to claim that many rows, and with
    ``renumbered`` its last row is forged to carry that number (past Excel's own limit)."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = SHEET_NAME
    sheet.append(["ID", "first_turn_instruction"])
    sheet.append([1, "What is shown?"])
    sheet.cell(row=last_row, column=1, value=2)
    book.save(path)
    if declared_rows is not None or renumbered is not None:
        with zipfile.ZipFile(path) as archive:
            parts = {info.filename: archive.read(info) for info in archive.infolist()}
        name = "xl/worksheets/sheet1.xml"
        if renumbered is not None:
            parts[name] = (
                parts[name]
                .replace(f'<row r="{last_row}"'.encode(), f'<row r="{renumbered}"'.encode())
                .replace(f'r="A{last_row}"'.encode(), f'r="A{renumbered}"'.encode())
            )
            assert str(renumbered).encode() in parts[name]
        parts[name] = re.sub(
            rb'<dimension ref="[^"]*"\s*/>',
            f'<dimension ref="A1:B{declared_rows or 2}"/>'.encode(),
            parts[name],
        )
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for filename, data in parts.items():
                archive.writestr(filename, data)
    return path


def test_an_xlsx_declaring_two_billion_rows_is_refused_before_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = workbook(tmp_path / "ConvBench.xlsx", last_row=5, declared_rows=2_000_000_000)
    assert book.stat().st_size < 10_000
    code = main(["import", str(book), "--format", "convbench", "--into", str(tmp_path / "b.wbb")])
    err = capsys.readouterr().err
    assert code == 1
    assert "ConvBench.xlsx: sheet 'multi_turn_benchmark' declares 2,000,000,000 rows" in err
    assert not (tmp_path / "b.wbb").exists()


def test_an_xlsx_whose_last_row_is_far_away_is_refused_by_the_row_cap(tmp_path: Path) -> None:
    # the dimension claims two rows (as some writers wrongly store), the last row is 5,000
    book = workbook(tmp_path / "far.xlsx", last_row=5_000, declared_rows=2)
    with pytest.raises(LimitExceededError, match=r"far\.xlsx: more than 100 rows"):
        read_sheet(book, SHEET_NAME, ReadLimits(max_rows=100))
    # under the cap the same reader still reads it, trailing blanks dropped
    near = workbook(tmp_path / "near.xlsx", last_row=50)
    sheet = read_sheet(near, SHEET_NAME, ReadLimits(max_rows=100))
    assert [row.number for row in sheet.rows] == [2, *range(3, 51)]


def test_a_row_numbered_two_billion_under_a_small_dimension_stops_at_the_row_cap(
    tmp_path: Path,
) -> None:
    """The default limits, for real: about 1.4 s and 130 MB on the reference machine, where
    reading it whole took 23 GB."""
    book = workbook(tmp_path / "bomb.xlsx", last_row=5, declared_rows=2, renumbered=2_000_000_000)
    assert book.stat().st_size < 10_000
    with pytest.raises(LimitExceededError, match=r"bomb\.xlsx: more than 2,000,000 rows"):
        read_sheet(book, SHEET_NAME)


def test_a_gzip_that_inflates_past_the_cap_is_refused(tmp_path: Path) -> None:
    line = b'{"question_id": "q", "model": "m", "text": "' + b"a" * 200 + b'"}\n'
    bomb = tmp_path / "judgements.jsonl.gz"
    bomb.write_bytes(gzip.compress(line * 1_000))  # 200 KB of text in about 1 KB
    assert bomb.stat().st_size < SMALL.max_file_bytes
    with pytest.raises(LimitExceededError, match=r"judgements\.jsonl\.gz: inflates to more than"):
        list(read_rows(bomb, bomb.name, ImportReport(), SMALL))
    # inflating stops at the cap: a stream far larger than memory is refused just as fast
    huge = gzip.compress(bytes(50_000_000), compresslevel=1)
    with pytest.raises(LimitExceededError):
        inflate_gzip(huge, "huge.gz", SMALL)


def test_a_gzip_within_the_caps_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "ok.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n{"a": 2}\n') + gzip.compress(b'{"a": 3}\n'))
    assert [value for _origin, value in read_rows(path, path.name, ImportReport(), SMALL)] == [
        {"a": 1},
        {"a": 2},
        {"a": 3},
    ]


def test_data_files_are_refused_by_size_and_rows(tmp_path: Path) -> None:
    big_csv = tmp_path / "big.csv"
    big_csv.write_text("a,b\n" + "1,2\n" * 5_000)
    with pytest.raises(LimitExceededError, match=r"big\.csv: file of .* is over the limit"):
        open_table(big_csv, SMALL)
    many = tmp_path / "many.jsonl"
    many.write_text('{"a": 1}\n' * 101)
    with pytest.raises(LimitExceededError, match=r"many\.jsonl: more than 100 rows"):
        list(read_rows(many, many.name, ImportReport(), SMALL))


def small_registry(limits: ReadLimits = SMALL) -> Registry:
    """The canonical importer with lowered limits, as the only plugin."""
    importer = CanonicalJsonlImporter()
    importer.limits = limits
    registry = Registry()
    registry.add(Plugin("small", "1", "lowered limits", importers=(importer,)))
    return registry


def test_a_huge_image_is_refused_from_its_size_without_reading_it(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src", [item_line("q1")])
    image = source.parent / "images" / "a.png"
    with image.open("r+b") as handle:  # a sparse file: big on paper, nothing to read
        handle.truncate(SMALL.max_image_bytes + 1)
    with pytest.raises(ImportRejectedError, match=r"a\.png: image of .* is over the") as raised:
        import_files(tmp_path / "b.wbb", [source], "jsonl", plugins=small_registry())
    assert "row 1" in str(raised.value)
    assert not (tmp_path / "b.wbb").exists()


def test_a_jsonl_line_past_the_cap_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src", [item_line("q1", id="x" * 2_000)])
    with pytest.raises(LimitExceededError, match=r"items\.jsonl: row 1 is longer than"):
        import_files(tmp_path / "b.wbb", [source], "jsonl", plugins=small_registry())
    assert png_bytes()  # the helpers' images stay small; only the line was too long


def test_base64_images_are_capped_too(tmp_path: Path) -> None:
    import base64

    big = io.BytesIO()
    from PIL import Image

    Image.effect_noise((64, 64), 50).save(big, "PNG")
    assert len(big.getvalue()) > SMALL.max_image_bytes
    line = item_line("q1", images=[{"base64": base64.b64encode(big.getvalue()).decode()}])
    registry = small_registry(ReadLimits(max_image_bytes=SMALL.max_image_bytes))
    source = write_jsonl(tmp_path / "s", [line])
    with pytest.raises(ImportRejectedError, match="over the limit"):
        import_files(tmp_path / "b.wbb", [source], "jsonl", plugins=registry)
