"""Reading tables of rows from parquet and Arrow files, as Hugging Face datasets leave them on disk.

A dataset arrives as one parquet file, a folder of parquet shards (a ``huggingface_hub``
snapshot, a ``local_dir`` download or the hub cache, whose files are symlinks into ``blobs/``), or
a folder written by ``datasets.save_to_disk`` (Arrow IPC stream files beside ``state.json`` and
``dataset_info.json``). Rows are read in record batches so a file of images never has to fit in
memory, and converted to plain Python values as the JSON importers see them.

A table file is data, not a program: its footer and buffers may say anything. Before a value is
decoded, the parquet footer's row count and column sizes are checked against the read limits;
text and binary columns stored with a dictionary are read as dictionaries (pyarrow would
otherwise copy a value once per row that refers to it, so 8 KB can ask for 128 GB); and every
batch is validated in full (offsets inside their buffers, dictionary indices in range, UTF-8)
and measured as decoded before it becomes Python values. Reading an Arrow file's damaged string
offset from the memory map ended the process with SIGBUS; validated, it is a file-level error.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from workbench.domain import Origin
from workbench.importers.base import ImportReport
from workbench.importers.limits import (
    DEFAULT_LIMITS,
    LimitExceededError,
    ReadLimits,
    check_rows,
    size_text,
)

PARQUET_SUFFIX = ".parquet"
ARROW_SUFFIX = ".arrow"
TABLE_SUFFIXES = (PARQUET_SUFFIX, ARROW_SUFFIX)

#: Rows per batch: small, because one row of an arena dataset may carry several images.
BATCH_ROWS = 64

#: A parquet row group of small rows (a battle log: two names and a winner, about 40 bytes a
#: row) is read in batches of about this many bytes, as its footer declares them, instead: the
#: checks and hand-over of a batch cost as much as decoding 64 such rows.
BATCH_BYTES = 4 * 1024 * 1024

#: ... and of at most this many rows.
MAX_BATCH_ROWS = 20_000

#: Batches decoded ahead of the importer (each up to BATCH_ROWS rows, a few MB with images, or
#: about BATCH_BYTES of small rows).
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
    limits: ReadLimits = DEFAULT_LIMITS,
) -> Iterator[tuple[Origin, dict[str, Any]]]:
    """The rows of a parquet or Arrow file as dicts, each with its origin (the 1-based row in
    the file). A file that cannot be read as a table, or whose buffers do not hold together, is
    rejected as a whole; a file past ``limits`` (rows, a column's inflated size, the decoded
    size of a row or of the whole file) raises :class:`LimitExceededError`."""
    try:
        batches = _batches(path, name, columns, batch_rows, limits)
        row = 0
        decoded = 0
        for batch in batches:
            check_rows(name, row + batch.num_rows, limits)
            # Full validation reads every offset and index before a value is touched: a
            # damaged offset otherwise reads past the memory map (SIGBUS) or asks Python for a
            # string of negative length (SystemError).
            batch.validate(full=True)
            size = decoded_bytes(batch)
            if decoded + size > limits.max_table_bytes:
                raise LimitExceededError(
                    f"{name}: rows decode to more than {size_text(limits.max_table_bytes)}; refused"
                )
            decoded += size
            pieces = [batch] if size <= limits.max_line_bytes else _slices(batch, 1)
            for piece in pieces:
                if piece is not batch and decoded_bytes(piece) > limits.max_line_bytes:
                    raise LimitExceededError(
                        f"{name}: row {row + 1} decodes to more than "
                        f"{size_text(limits.max_line_bytes)}; refused"
                    )
                for values in piece.to_pylist():
                    row += 1
                    yield Origin(name, row), values
    except (pa.ArrowException, OSError, UnicodeDecodeError) as error:
        # pyarrow decodes names and metadata of the schema as UTF-8 without checking first
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        kind = "parquet" if path.name.endswith(PARQUET_SUFFIX) else "Arrow"
        report.reject(Origin(name), None, f"not a readable {kind} file: {detail}")


def decoded_bytes(values: pa.RecordBatch | pa.Array[Any]) -> int:
    """About what ``values.to_pylist()`` will hold: the bytes of every text and binary value,
    each counted as often as a row refers to it (a dictionary's entry once per index), and 8
    bytes for every other value or list slot. Slices count only their own rows."""
    if isinstance(values, pa.RecordBatch):
        return sum(decoded_bytes(column) for column in values.columns)
    array: Any = values  # pyarrow's stubs type compute functions by array class
    kind = array.type
    slots = 8 * len(array)
    if isinstance(array, pa.DictionaryArray):
        entries: Any = array.dictionary
        if _is_binary(entries.type):
            lengths = pc.fill_null(pc.binary_length(entries), 0)
            taken = pc.take(lengths, array.indices)
            return slots + int(pc.sum(taken).as_py() or 0)
        per_entry = decoded_bytes(entries) / max(len(entries), 1)
        return slots + int(per_entry * len(array))
    if _is_binary(kind):
        return slots + int(pc.sum(pc.binary_length(array)).as_py() or 0)
    if pa.types.is_struct(kind):
        return slots + sum(decoded_bytes(field) for field in array.flatten())
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return slots + decoded_bytes(array.flatten())
    if pa.types.is_map(kind):
        return slots + decoded_bytes(array.keys) + decoded_bytes(array.items)
    return slots


def _is_binary(kind: pa.DataType) -> bool:
    return bool(
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    )


def table_columns(path: Path) -> list[str]:
    """The column names of a table file (its schema only; no rows are read)."""
    if path.name.endswith(PARQUET_SUFFIX):
        return list(pq.read_schema(path).names)
    with pa.memory_map(str(path)) as source:
        return list(_arrow_reader(source).schema.names)


def check_parquet_footer(
    metadata: pq.FileMetaData, name: str, limits: ReadLimits = DEFAULT_LIMITS
) -> list[str]:
    """Check what the footer declares before any page is read, and return the text and binary
    columns stored with a dictionary (to be read as dictionaries, not copied per row).

    A 277 KB file declaring 30 million rows took 18 minutes to decode; the row count is in the
    footer. A column chunk inflating past ``max_decompressed_bytes`` is refused like a gzip
    file inflating past it: a page is inflated whole."""
    check_rows(name, metadata.num_rows, limits)
    dictionary_columns: set[str] = set()
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        check_rows(name, row_group.num_rows, limits)
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            if chunk.total_uncompressed_size > limits.max_decompressed_bytes:
                raise LimitExceededError(
                    f"{name}: column '{chunk.path_in_schema}' of row group {group + 1} inflates "
                    f"to {size_text(chunk.total_uncompressed_size)}, over the limit of "
                    f"{size_text(limits.max_decompressed_bytes)}; refused"
                )
            if chunk.physical_type == "BYTE_ARRAY" and chunk.has_dictionary_page:
                dictionary_columns.add(chunk.path_in_schema)
    return sorted(dictionary_columns)


def group_batch_rows(row_group: pq.RowGroupMetaData, batch_rows: int = BATCH_ROWS) -> int:
    """Rows per batch for one parquet row group: ``batch_rows``, or more where its rows are
    small, up to :data:`BATCH_BYTES` of them as the footer declares them inflated (each column
    chunk already held to ``max_decompressed_bytes`` by :func:`check_parquet_footer`) and at
    most :data:`MAX_BATCH_ROWS`."""
    rows = row_group.num_rows
    if rows <= batch_rows:
        return batch_rows
    declared = sum(
        row_group.column(index).total_uncompressed_size for index in range(row_group.num_columns)
    )
    per_row = max(1, declared // rows)
    return max(batch_rows, min(MAX_BATCH_ROWS, BATCH_BYTES // per_row))


def _batches(
    path: Path,
    name: str,
    columns: Sequence[str] | None,
    batch_rows: int,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> Iterator[pa.RecordBatch]:
    if path.name.endswith(PARQUET_SUFFIX):
        footer = pq.read_metadata(path)
        dictionary_columns = check_parquet_footer(footer, name, limits)
        parquet = pq.ParquetFile(path, read_dictionary=dictionary_columns or None)
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
                        batch_size=group_batch_rows(footer.row_group(group), batch_rows),
                        row_groups=[group],
                        columns=wanted,
                        use_threads=False,
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
