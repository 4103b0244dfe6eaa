"""Parquet batches are decoded on a thread a bounded number ahead of the importer: in order,
errors raised in the caller, and a caller that stops early leaves no thread or open file."""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from workbench.importers.base import ImportReport
from workbench.importers.tables import BATCH_ROWS, _batches, read_ahead, read_table_rows


def batch(number: int) -> pa.RecordBatch:
    return pa.record_batch({"n": [number]})


def test_batches_arrive_in_order_and_no_more_than_depth_ahead() -> None:
    made: list[int] = []

    def source() -> Iterator[pa.RecordBatch]:
        for number in range(20):
            made.append(number)
            yield batch(number)

    seen: list[int] = []
    for got in read_ahead(source(), depth=2):
        # one in the caller's hands, two in the queue, one waiting to be handed over
        assert len(made) - len(seen) <= 4
        seen.append(got.column(0)[0].as_py())
    assert seen == list(range(20))


def test_an_error_of_the_reader_is_raised_in_the_caller_after_the_batches_before_it() -> None:
    def source() -> Iterator[pa.RecordBatch]:
        yield batch(0)
        raise pa.ArrowInvalid("bad page")

    seen = []
    with pytest.raises(pa.ArrowInvalid, match="bad page"):
        for got in read_ahead(source()):
            seen.append(got.column(0)[0].as_py())
    assert seen == [0]


def test_a_caller_that_stops_early_stops_the_thread_and_closes_the_source() -> None:
    closed = threading.Event()

    def source() -> Iterator[pa.RecordBatch]:
        try:
            for number in range(1000):
                yield batch(number)
        finally:
            closed.set()

    reader = read_ahead(source(), depth=2)
    assert isinstance(reader, Generator)
    assert next(reader).column(0)[0].as_py() == 0
    reader.close()
    assert closed.is_set()
    assert not [t for t in threading.enumerate() if t.name == "table-read-ahead"]


def test_small_rows_are_read_in_large_batches_and_large_rows_in_small_ones(
    tmp_path: Path,
) -> None:
    """A battle log's rows (two names and a winner) come in batches of thousands (checking and
    handing over a batch of 64 cost as much as decoding its rows); rows carrying images still
    come 64 at a time."""
    small = tmp_path / "battles.parquet"
    rows = 50_000
    pq.write_table(
        pa.table(
            {
                "model_a": [f"model-{n % 7}" for n in range(rows)],
                "model_b": [f"model-{n % 5}" for n in range(rows)],
                "winner": ["model_a"] * rows,
            }
        ),
        small,
    )
    large = tmp_path / "images.parquet"
    pq.write_table(pa.table({"image": [bytes([n % 251]) * 200_000 for n in range(200)]}), large)
    sizes = [b.num_rows for b in _batches(small, small.name, None, BATCH_ROWS)]
    assert sum(sizes) == rows
    assert len(sizes) <= rows // 10_000 + 1
    image_sizes = [b.num_rows for b in _batches(large, large.name, None, BATCH_ROWS)]
    assert max(image_sizes) <= BATCH_ROWS and sum(image_sizes) == 200
    report = ImportReport()
    read = list(read_table_rows(small, small.name, report))
    assert not report.rejections
    assert [origin.row for origin, _ in read[:2]] == [1, 2] and len(read) == rows
    assert read[-1][1] == {"model_a": "model-5", "model_b": "model-4", "winner": "model_a"}
