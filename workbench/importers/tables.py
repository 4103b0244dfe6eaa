"""Reading tables of rows from parquet and Arrow files, as Hugging Face datasets leave them on disk.

A dataset arrives as one parquet file, a folder of parquet shards (a ``huggingface_hub``
snapshot, a ``local_dir`` download or the hub cache, whose files are symlinks into ``blobs/``), or
a folder written by ``datasets.save_to_disk`` (Arrow IPC stream files beside ``state.json`` and
``dataset_info.json``). Rows are read in record batches so a file of images never has to fit in
memory, and converted to plain Python values as the JSON importers see them.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from workbench.domain import Origin
from workbench.importers.base import ImportReport

PARQUET_SUFFIX = ".parquet"
ARROW_SUFFIX = ".arrow"
TABLE_SUFFIXES = (PARQUET_SUFFIX, ARROW_SUFFIX)

#: Rows per batch: small, because one row of an arena dataset may carry several images.
BATCH_ROWS = 64

#: Batches decoded ahead of the importer (each up to BATCH_ROWS rows, a few MB with images).
READ_AHEAD = 2

#: Folders a Hugging Face download keeps beside the data that never hold rows of the dataset:
#: the hub cache's content store (reached through ``snapshots/``) and its bookkeeping.
_SKIPPED_FOLDERS = frozenset({"blobs", "refs", ".cache", ".git", ".huggingface"})


def is_table_file(path: Path) -> bool:
    return path.name.endswith(TABLE_SUFFIXES)


def table_files(folder: Path) -> list[Path]:
    """The parquet and Arrow files anywhere under ``folder``, in a stable order (shards sort by
    their ``-00000-of-00004`` numbers). Symlinked files count, so the hub cache works."""
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).parts
        if any(part in _SKIPPED_FOLDERS for part in relative[:-1]):
            continue
        if is_table_file(path) and path.is_file():
            found.append(path)
    return found


def read_table_rows(
    path: Path,
    name: str,
    report: ImportReport,
    columns: Sequence[str] | None = None,
    batch_rows: int = BATCH_ROWS,
) -> Iterator[tuple[Origin, dict[str, Any]]]:
    """The rows of a parquet or Arrow file as dicts, each with its origin (the 1-based row in
    the file). A file that cannot be read as a table is rejected as a whole."""
    try:
        batches = _batches(path, columns, batch_rows)
        row = 0
        for batch in batches:
            for values in batch.to_pylist():
                row += 1
                yield Origin(name, row), values
    except (pa.ArrowException, OSError) as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        kind = "parquet" if path.name.endswith(PARQUET_SUFFIX) else "Arrow"
        report.reject(Origin(name), None, f"not a readable {kind} file: {detail}")


def table_columns(path: Path) -> list[str]:
    """The column names of a table file (its schema only; no rows are read)."""
    if path.name.endswith(PARQUET_SUFFIX):
        return list(pq.read_schema(path).names)
    with pa.memory_map(str(path)) as source:
        return list(_arrow_reader(source).schema.names)


def _batches(
    path: Path, columns: Sequence[str] | None, batch_rows: int
) -> Iterator[pa.RecordBatch]:
    if path.name.endswith(PARQUET_SUFFIX):
        parquet = pq.ParquetFile(path)
        wanted = None
        if columns is not None:
            present = set(parquet.schema_arrow.names)
            wanted = [column for column in columns if column in present]

        def decoded() -> Iterator[pa.RecordBatch]:
            try:
                # One row group at a time, without pyarrow's read-ahead threads: iter_batches
                # over the whole file keeps every row group it has read allocated until the
                # file is done.
                for group in range(parquet.metadata.num_row_groups):
                    yield from parquet.iter_batches(
                        batch_size=batch_rows, row_groups=[group], columns=wanted, use_threads=False
                    )
            finally:
                parquet.close()

        yield from read_ahead(decoded())
        return
    # Memory-mapped, so a batch's buffers are pages of the file rather than copies.
    with pa.memory_map(str(path)) as source:
        reader = _arrow_reader(source)
        if isinstance(reader, pa.ipc.RecordBatchFileReader):
            stream: Iterator[pa.RecordBatch] = (
                reader.get_batch(index) for index in range(reader.num_record_batches)
            )
        else:
            stream = iter(reader)
        for batch in stream:
            if columns is not None:
                batch = batch.select([c for c in columns if c in batch.schema.names])
            yield from _slices(batch, batch_rows)


def read_ahead(
    batches: Iterator[pa.RecordBatch], depth: int = READ_AHEAD
) -> Iterator[pa.RecordBatch]:
    """``batches``, decoded on a thread at most ``depth`` ahead of the caller.

    pyarrow decodes without the GIL, so the next batches are read while the importer turns this
    one into records; ``depth`` bounds what is held. An error of the reader is raised here, in
    the caller's thread; a caller that stops early stops the thread and closes ``batches``.
    """
    ready: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def hand_over(kind: str, value: Any) -> bool:
        while not stop.is_set():
            try:
                ready.put((kind, value), timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for batch in batches:
                if not hand_over("batch", batch):
                    return
            hand_over("end", None)
        except BaseException as error:  # handed to the caller, who decides what it means
            hand_over("error", error)
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name="table-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            kind, value = ready.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()
        thread.join()


def _arrow_reader(source: pa.NativeFile) -> pa.ipc.RecordBatchStreamReader | Any:
    """``datasets`` writes the IPC stream format; other tools write the file format."""
    try:
        return pa.ipc.open_stream(source)
    except pa.ArrowInvalid:
        source.seek(0)
        return pa.ipc.open_file(source)


def _slices(batch: pa.RecordBatch, rows: int) -> Iterator[pa.RecordBatch]:
    for start in range(0, batch.num_rows, rows):
        yield batch.slice(start, rows)
