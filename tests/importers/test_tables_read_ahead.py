"""Parquet batches are decoded on a thread a bounded number ahead of the importer: in order,
errors raised in the caller, and a caller that stops early leaves no thread or open file."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pyarrow as pa
import pytest

from workbench.importers.tables import read_ahead


def batch(number: int) -> pa.RecordBatch:
    return pa.record_batch({"n": [number]})


def test_batches_arrive_in_order_and_no_more_than_depth_ahead() -> None:
    made: list[int] = []

    def source() -> Iterator[pa.RecordBatch]:
        for number in range(20):
            made.append(number)
            yield batch(number)

    seen = []
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
    assert next(reader).column(0)[0].as_py() == 0
    reader.close()
    assert closed.is_set()
    assert not [t for t in threading.enumerate() if t.name == "table-read-ahead"]
