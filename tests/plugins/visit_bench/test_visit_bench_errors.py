"""The ``visit-bench`` importer on damaged copies of the published CSV (written to tmp_path):
each problem is reported naming the file, the row as a spreadsheet shows it (header = row 1)
and the field, and an existing bundle stays byte-identical."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from tests.plugins.visit_bench.visit_bench_helpers import (
    MULTI_IMAGE_CSV,
    sha256,
    source_counts,
    write_csv,
)
from workbench.importers.base import ImportRejectedError
from workbench.services.importing import import_files

pytestmark = pytest.mark.shared_data

#: a row after the gpt4_prediction texts that span several lines, so its spreadsheet row number
#: differs from its line number in the file
LATE_ROW = 90
LATE_ROW_NUMBER = LATE_ROW + 2


def rejected(bundle: Path, source: Path) -> str:
    """Import ``source`` into ``bundle``, expect a rejection, check nothing changed, and return
    the message shown to the user."""
    before = sha256(bundle) if bundle.exists() else None
    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle, [source], "visit-bench")
    assert (sha256(bundle) if bundle.exists() else None) == before
    return str(caught.value)


@pytest.mark.parametrize(
    ("column", "value", "reason"),
    [
        ("images_dense_captions", '["a caption", NaN', "is not valid JSON"),
        ("public_images_metadata", "{'licence': 'cc'}", "is not valid JSON"),
        ("images", "[]", "non-empty JSON list"),
        ("human_ratings_gpt4_correct", "maybe", "must be True or False, not 'maybe'"),
        ("is_multiple_images", "yes", "must be True or False"),
        ("instruction", "", "is required"),
        ("instruction_category", "NaN", "is required"),
        ("images_blip2_captions", '["a", "b", "c", "d", "e", "f", "g", "h"]', "for image 3"),
        ("images", '["https://example.org/..%2F..%2Fsecret.png"]', "points outside"),
    ],
)
def test_a_bad_cell_rejects_its_row_naming_file_row_and_field(
    bundle_copy: Path,
    multi_image_rows: pd.DataFrame,
    write_multi_image_csv: Callable[[pd.DataFrame], Path],
    column: str,
    value: str,
    reason: str,
) -> None:
    multi_image_rows.loc[LATE_ROW, column] = value
    message = rejected(bundle_copy, write_multi_image_csv(multi_image_rows))
    assert f"{MULTI_IMAGE_CSV}, row {LATE_ROW_NUMBER}, field '{column}'" in message
    assert reason in message
    assert message.count("\n  ") == 1  # only that row


def test_a_missing_column_is_one_rejection_naming_file_and_column(
    bundle_copy: Path,
    multi_image_rows: pd.DataFrame,
    write_multi_image_csv: Callable[[pd.DataFrame], Path],
) -> None:
    source = write_multi_image_csv(multi_image_rows.drop(columns=["human_ratings_gpt4_correct"]))
    message = rejected(bundle_copy, source)
    assert f"{MULTI_IMAGE_CSV}, field 'human_ratings_gpt4_correct'" in message
    assert "lacks column(s): human_ratings_gpt4_correct" in message
    assert message.count("\n  ") == 1


def test_empty_optional_cells_are_accepted(
    tmp_path: Path,
    multi_image_rows: pd.DataFrame,
    write_multi_image_csv: Callable[[pd.DataFrame], Path],
) -> None:
    rows = multi_image_rows.iloc[:3].copy()
    optional = [
        "gpt4_prediction",
        "images_dense_captions",
        "reference_output",
        "human_ratings_problem_in_caption",
        "public_images_metadata",
    ]
    rows.loc[1, optional] = ""
    rows.loc[2, optional] = "NaN"
    result = import_files(tmp_path / "b.wbb", [write_multi_image_csv(rows)], "visit-bench")
    assert result.counts["items_added"] == 3
    assert result.rejections == []


def test_a_repeated_row_is_rejected_naming_the_first(
    bundle_copy: Path,
    multi_image_rows: pd.DataFrame,
    write_multi_image_csv: Callable[[pd.DataFrame], Path],
) -> None:
    rows = pd.concat([multi_image_rows, multi_image_rows.iloc[[LATE_ROW]]], ignore_index=True)
    message = rejected(bundle_copy, write_multi_image_csv(rows))
    assert f"row {len(rows) + 1}, field 'images': same item as" in message
    assert f"{MULTI_IMAGE_CSV}, row {LATE_ROW_NUMBER} (id '" in message


def test_a_file_that_is_not_an_image_rejects_its_row(
    tmp_path: Path, multi_image_rows: pd.DataFrame
) -> None:
    rows = multi_image_rows.iloc[:2]
    folder = tmp_path / "garbage"
    source = write_csv(rows, folder, MULTI_IMAGE_CSV)
    (folder / "images").mkdir()
    second_row_image = rows.iloc[1]["images"].split('"')[1].rsplit("/", 1)[-1]
    (folder / "images" / second_row_image).write_bytes(b"this is not a picture\x00\x01\x02")
    message = rejected(tmp_path / "new.wbb", source)
    assert f"{MULTI_IMAGE_CSV}, row 3, field 'images'" in message
    assert second_row_image in message and "not an image" in message
    assert not (tmp_path / "new.wbb").exists()


def test_an_empty_file_is_reported(tmp_path: Path) -> None:
    source = tmp_path / MULTI_IMAGE_CSV
    source.write_bytes(b"")
    assert f"{MULTI_IMAGE_CSV}: file is empty" in rejected(tmp_path / "b.wbb", source)


@pytest.mark.parametrize(
    "cut_before",
    [
        pytest.param(b"NaN", id="inside-a-quoted-field"),
        pytest.param(b",False,", id="between-fields"),
    ],
)
def test_a_truncated_file_is_reported(
    visit_bench_folder: Path, tmp_path: Path, cut_before: bytes
) -> None:
    data = (visit_bench_folder / MULTI_IMAGE_CSV).read_bytes()
    source = tmp_path / MULTI_IMAGE_CSV
    source.write_bytes(data[: data.index(cut_before, len(data) // 2)])
    message = rejected(tmp_path / "b.wbb", source)
    assert f"{MULTI_IMAGE_CSV}, row " in message and "truncated" in message
    assert message.count("\n  ") == 1


def test_a_file_that_is_not_utf8_is_reported(visit_bench_folder: Path, tmp_path: Path) -> None:
    data = (visit_bench_folder / MULTI_IMAGE_CSV).read_bytes()
    source = tmp_path / MULTI_IMAGE_CSV
    source.write_bytes(data.replace(b"BEFORE", "BEFORE caf\u00e9".encode("latin-1"), 1))
    message = rejected(tmp_path / "b.wbb", source)
    assert f"{MULTI_IMAGE_CSV}: not UTF-8 text" in message and "line 2" in message


def test_a_byte_order_mark_is_accepted(
    visit_bench_folder: Path, tmp_path: Path, multi_image_rows: pd.DataFrame
) -> None:
    rows = multi_image_rows.iloc[:10]
    plain = write_csv(rows, tmp_path / "plain", MULTI_IMAGE_CSV, with_images_of=visit_bench_folder)
    marked = write_csv(rows, tmp_path / "bom", MULTI_IMAGE_CSV, with_images_of=visit_bench_folder)
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    without = import_files(tmp_path / "plain.wbb", [plain], "visit-bench")
    with_bom = import_files(tmp_path / "bom.wbb", [marked], "visit-bench")
    assert with_bom.counts == without.counts
    assert with_bom.counts["items_added"] == len(rows)
    assert source_counts(tmp_path / "bom.wbb") == source_counts(tmp_path / "plain.wbb")


def test_a_folder_ignores_other_csvs_but_a_named_one_is_rejected(
    tmp_path: Path,
    multi_image_rows: pd.DataFrame,
    write_multi_image_csv: Callable[[pd.DataFrame], Path],
) -> None:
    source = write_multi_image_csv(multi_image_rows.iloc[:2])
    other = source.parent / "notes.csv"
    other.write_text("when,what\n2023-08-11,downloaded\n", encoding="utf-8")
    result = import_files(tmp_path / "b.wbb", [source.parent], "visit-bench")
    assert result.counts["items_added"] == 2
    message = rejected(tmp_path / "c.wbb", other)
    assert "notes.csv: columns do not match" in message


def test_a_header_without_rows_imports_nothing_with_a_warning(
    tmp_path: Path, multi_image_rows: pd.DataFrame
) -> None:
    source = write_csv(multi_image_rows.iloc[:0], tmp_path / "header", MULTI_IMAGE_CSV)
    result = import_files(tmp_path / "b.wbb", [source], "visit-bench")
    assert "items_added" not in result.counts
    assert [str(w) for w in result.warnings] == [
        f"{MULTI_IMAGE_CSV}: has a header but no data rows"
    ]


def test_a_preference_file_named_for_the_benchmark_format_says_which_format_to_use(
    tmp_path: Path,
) -> None:
    source = tmp_path / "prefs.csv"
    source.write_text(
        "image_url,instruction,A,B,A_model,B_model,model_selection.A,model_selection.B,w1\n",
        encoding="utf-8",
    )
    assert "--format visit-bench-preferences" in rejected(tmp_path / "b.wbb", source)


def test_an_images_folder_linking_out_of_the_source_is_refused(
    tmp_path: Path, multi_image_rows: pd.DataFrame
) -> None:
    """images/ beside the CSV is a symlink to a folder elsewhere: its files are not read."""
    from tests.importers.canonical_helpers import png_bytes

    rows = multi_image_rows.iloc[:1]
    folder = tmp_path / "src"
    source = write_csv(rows, folder, MULTI_IMAGE_CSV)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for url in rows.iloc[0]["images"].split('"')[1::2]:
        (elsewhere / url.rsplit("/", 1)[-1]).write_bytes(png_bytes())
    (folder / "images").symlink_to(elsewhere, target_is_directory=True)
    message = rejected(tmp_path / "new.wbb", source)
    assert f"{MULTI_IMAGE_CSV}, row 2, field 'images'" in message
    assert "images/ links elsewhere" in message
