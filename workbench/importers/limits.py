"""How much an import may read, so that a small hostile file cannot exhaust memory or time.

A 5 KB xlsx that declares two billion rows, a 3 MB ``.jsonl.gz`` that inflates to 3 GB, or a
30 GB file named ``.png`` would otherwise be read whole. Every reader checks a file's size
before reading it, inflates compressed data in bounded chunks, and counts rows; past a limit
the file is refused with one message naming it. The defaults are far above any published
benchmark (the largest file in the shared data is a few MB); readers take a ``limits``
argument so tests can build bombs small.
"""

from __future__ import annotations

import gzip
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from workbench.errors import WorkbenchError

MB = 1 << 20


@dataclass(frozen=True, slots=True)
class ReadLimits:
    #: a data file read whole into memory (CSV, a JSON list, a compressed file)
    max_file_bytes: int = 512 * MB
    #: what a compressed file (gzip, an xlsx's parts) may inflate to
    max_decompressed_bytes: int = 512 * MB
    #: rows of one file or one sheet
    max_rows: int = 2_000_000
    #: one line of a JSON Lines file (a row with its base64 images)
    max_line_bytes: int = 128 * MB
    #: one image file
    max_image_bytes: int = 100 * MB
    #: what the rows of one parquet or Arrow file may decode to, each value counted as often as
    #: a row holds it (a dictionary-encoded value repeated over rows counts once per row)
    max_table_bytes: int = 2048 * MB
    #: turns of one item (published conversations have a few; 20,000 froze the inspector)
    max_turns_per_item: int = 1_000
    #: images of one item (a multi-image task shows a handful)
    max_images_per_item: int = 1_000


DEFAULT_LIMITS = ReadLimits()


class LimitExceededError(WorkbenchError):
    """A file is over one of the read limits; the message names the file and the limit."""


def _size(count: int) -> str:
    return f"{count / MB:.1f} MB" if count >= MB else f"{count} bytes"


def check_file_size(path: Path, limit: int, what: str = "file") -> int:
    """The size of ``path``, after checking it is at most ``limit`` bytes (read from the file
    system, not by reading the file)."""
    size = os.stat(path).st_size
    if size > limit:
        raise LimitExceededError(
            f"{path.name}: {what} of {_size(size)} is over the limit of {_size(limit)}"
        )
    return size


def check_rows(name: str, rows: int, limits: ReadLimits = DEFAULT_LIMITS) -> None:
    if rows > limits.max_rows:
        raise LimitExceededError(f"{name}: more than {limits.max_rows:,} rows; refused")


def size_text(count: int) -> str:
    """``count`` bytes as the limits' messages write them (``512.0 MB``, ``200 bytes``)."""
    return _size(count)


def inflate_gzip(data: bytes, name: str, limits: ReadLimits = DEFAULT_LIMITS) -> bytes:
    """``data`` (gzip, possibly several members) inflated in bounded steps; refused as soon as
    the output would pass ``limits.max_decompressed_bytes``."""
    out = bytearray()
    cap = limits.max_decompressed_bytes
    rest = data
    while rest:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while rest:
            out += inflater.decompress(rest, 1 * MB)
            rest = inflater.unconsumed_tail
            if len(out) > cap:
                raise LimitExceededError(
                    f"{name}: inflates to more than {_size(cap)}; refused as a decompression bomb"
                )
            if inflater.eof:
                break
        if not inflater.eof:
            raise gzip.BadGzipFile("compressed data ends before the end of the stream")
        rest = inflater.unused_data.lstrip(b"\x00")  # gzip allows zero padding between members
    return bytes(out)


def read_line(handle: IO[bytes], name: str, row: int, limits: ReadLimits = DEFAULT_LIMITS) -> bytes:
    """The next line of ``handle`` (b"" at the end), refused past ``limits.max_line_bytes``
    without reading the rest of it."""
    line = handle.readline(limits.max_line_bytes + 1)
    if len(line) > limits.max_line_bytes:
        raise LimitExceededError(
            f"{name}: row {row} is longer than {_size(limits.max_line_bytes)}; refused"
        )
    return line
