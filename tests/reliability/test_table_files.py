"""Hostile parquet and Arrow files: a damaged shard is a file-level error, never a crash, and
what a file declares (rows, inflated sizes, values repeated through a dictionary) is checked
against the read limits before it is decoded. Dataset folders holding one split twice, and a
question whose rows carry different pictures, are handled rather than imported silently."""

from __future__ import annotations

import os
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from tests.plugins.arena.hf_tables import (
    VISION_ARENA_BATTLE,
    WILDVISION_BATTLE,
    png_bytes,
    vision_arena_battles,
    wildvision_battles,
    write_parquet,
    write_save_to_disk,
)
from tests.reliability.fuzz_cases import _dictionary_bomb
from workbench.importers.base import ImportRejectedError, ImportReport
from workbench.importers.limits import LimitExceededError, ReadLimits
from workbench.importers.tables import decoded_bytes, read_table_rows
from workbench.services.importing import import_files

SHARD = "data-00000-of-00001.arrow"


def damaged_offset_folder(folder: Path, value: int) -> Path:
    """A save_to_disk folder whose first string column's second offset is ``value``."""
    write_save_to_disk(folder, wildvision_battles(), WILDVISION_BATTLE)
    path = folder / SHARD
    data = bytearray(path.read_bytes())
    at = data.find(struct.pack("<iii", 0, 2, 4))  # question ids "w1", "w2"
    assert at > 0
    data[at + 8 : at + 12] = struct.pack("<i", value)
    path.write_bytes(bytes(data))
    return folder


@pytest.mark.parametrize("value", [0x7FFFFFF0, -100_000], ids=["past-the-file", "negative"])
def test_a_damaged_arrow_offset_is_one_file_level_error_not_a_crash(
    tmp_path: Path, value: int
) -> None:
    """Past the file it was SIGBUS (exit 135, no message); negative it was SystemError. Run in
    a child process, since the old failure ends the process."""
    folder = damaged_offset_folder(tmp_path / "dataset", value)
    bundle = tmp_path / "b.wbb"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    code = "import sys; from workbench.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "import",
            str(folder),
            *["--format", "arena-battles"],
            "--into",
            str(bundle),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert f"{SHARD}: not a readable Arrow file" in done.stderr
    assert "internal error" not in done.stderr
    assert not bundle.exists()


def test_parquet_rows_are_counted_from_the_footer_before_decoding(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "b.parquet", vision_arena_battles(), VISION_ARENA_BATTLE)
    decoded: list[object] = []
    with pytest.raises(LimitExceededError, match=r"b.parquet: more than 2 rows"):
        for row in read_table_rows(
            path, "b.parquet", ImportReport(), limits=ReadLimits(max_rows=2)
        ):
            decoded.append(row)
    assert decoded == []  # refused from the footer: not one row was read first


def test_arrow_rows_are_counted_before_a_batch_is_decoded(tmp_path: Path) -> None:
    folder = write_save_to_disk(tmp_path / "d", vision_arena_battles(), VISION_ARENA_BATTLE)
    with pytest.raises(LimitExceededError, match="more than 2 rows"):
        list(read_table_rows(folder / SHARD, SHARD, ImportReport(), limits=ReadLimits(max_rows=2)))


def test_a_parquet_column_inflating_past_the_cap_is_refused_from_the_footer(
    tmp_path: Path,
) -> None:
    path = write_parquet(tmp_path / "b.parquet", vision_arena_battles(), VISION_ARENA_BATTLE)
    limits = ReadLimits(max_decompressed_bytes=100)
    with pytest.raises(
        LimitExceededError, match=r"b\.parquet: column '\w+' of row group 1 inflates"
    ):
        list(read_table_rows(path, "b.parquet", ImportReport(), limits=limits))


def test_a_value_repeated_through_a_dictionary_is_counted_per_row_and_refused(
    tmp_path: Path,
) -> None:
    """The 8 KB file of one 64 MB answer referred to by 2,000 rows, built small: 400 rows of one
    20,000-character answer (8 MB decoded, a few KB on disk) against a 1 MB cap."""
    path = _dictionary_bomb(tmp_path, 20_000, 400)
    assert path.stat().st_size < 20_000
    limits = ReadLimits(max_table_bytes=1_000_000)
    read: list[object] = []
    with pytest.raises(LimitExceededError, match="rows decode to more than"):
        for row in read_table_rows(path, "bomb.parquet", ImportReport(), limits=limits):
            read.append(row)
    assert len(read) < 64  # refused within the first batch of rows


def test_decoded_bytes_counts_dictionary_entries_per_row_and_slices_alone() -> None:
    entries = pa.array(["", "x" * 1000])
    column = pa.DictionaryArray.from_arrays(pa.array([1, 1, 1, 0], pa.int32()), entries)
    batch = pa.RecordBatch.from_arrays([column], names=["text"])
    assert decoded_bytes(batch) == 3 * 1000 + 4 * 8
    assert decoded_bytes(batch.slice(3, 1)) == 8


def test_a_row_decoding_past_the_row_limit_is_refused_naming_it(tmp_path: Path) -> None:
    path = _dictionary_bomb(tmp_path, 20_000, 4)
    limits = ReadLimits(max_line_bytes=10_000)
    with pytest.raises(LimitExceededError, match=r"bomb\.parquet: row 1 decodes to more than"):
        list(read_table_rows(path, "bomb.parquet", ImportReport(), limits=limits))


def prior_judgments(bundle: Path) -> int:
    with sqlite3.connect(bundle) as connection:
        return int(connection.execute("SELECT count(*) FROM prior_judgments").fetchone()[0])


def test_one_split_stored_as_parquet_and_as_an_arrow_copy_imports_each_battle_once(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "dataset"
    write_parquet(folder / "data" / "test-00000-of-00001.parquet", *_battles())
    write_save_to_disk(folder / "saved", *_battles())
    result = import_files(tmp_path / "b.wbb", [folder], "arena-battles")
    assert prior_judgments(tmp_path / "b.wbb") == 3
    said = " ".join(str(warning) for warning in result.warnings)
    assert "3 rows repeat rows of data/test-00000-of-00001.parquet" in said


def test_shards_of_one_split_keep_a_battle_they_repeat_and_keep_no_row_digests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Shards sit side by side in one folder and format: they never hold one battle twice, so
    # a row met again in another shard is another vote, and no digest of any row is kept.
    import workbench_arena.battles as battles

    def no_digest(row: object) -> bytes:
        raise AssertionError("a row was digested although the folder holds one copy")

    monkeypatch.setattr(battles, "row_fingerprint", no_digest)
    rows, schema = _battles()
    folder = tmp_path / "dataset" / "data"
    write_parquet(folder / "test-00000-of-00002.parquet", rows, schema)
    write_parquet(folder / "test-00001-of-00002.parquet", rows[:1], schema)
    result = import_files(tmp_path / "b.wbb", [tmp_path / "dataset"], "arena-battles")
    assert prior_judgments(tmp_path / "b.wbb") == 4
    assert not any("repeat rows" in str(warning) for warning in result.warnings)


def test_repeats_inside_one_file_stay_as_published(tmp_path: Path) -> None:
    rows, schema = _battles()
    path = write_parquet(tmp_path / "b.parquet", rows + rows[:1], schema)
    import_files(tmp_path / "b.wbb", [path], "arena-battles")
    assert prior_judgments(tmp_path / "b.wbb") == 4


def _battles() -> tuple[list[dict[str, object]], pa.Schema]:
    return vision_arena_battles(), VISION_ARENA_BATTLE


def test_a_repeated_question_id_with_a_different_image_is_rejected_naming_both_rows(
    tmp_path: Path,
) -> None:
    """The second vote was cast on a blue picture; kept under the first row's red one, it would
    count for an image its voter never saw."""
    rows = vision_arena_battles()
    rows[1]["images"] = [{"bytes": png_bytes("blue"), "path": "q1.png"}]
    path = write_parquet(tmp_path / "b.parquet", rows, VISION_ARENA_BATTLE)
    with pytest.raises(ImportRejectedError) as caught:
        import_files(tmp_path / "b.wbb", [path], "arena-battles")
    problems = [str(problem) for problem in caught.value.problems]
    assert any(
        "b.parquet" in problem and "row 2" in problem and "different images" in problem
        for problem in problems
    ), problems
    assert not (tmp_path / "b.wbb").exists()
