"""Reading the JSON files arena-style benchmarks publish (JSON Lines or one JSON list, either
possibly gzip-compressed), and checking the fields of one row, so that a bad row is reported
with its file, row and field instead of stopping the import.
"""

from __future__ import annotations

import codecs
import gzip
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from workbench.domain import Origin
from workbench.importers.base import ImportReport
from workbench.importers.limits import (
    DEFAULT_LIMITS,
    ReadLimits,
    check_file_size,
    check_rows,
    inflate_gzip,
    read_line,
)

_T = TypeVar("_T")
_U = TypeVar("_U")


class RowError(ValueError):
    """A problem with one row, naming the field it concerns."""

    def __init__(self, field: str | None, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def _open_text(path: Path, name: str, limits: ReadLimits) -> str:
    check_file_size(path, limits.max_file_bytes)
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":  # the gzip magic number: .gz files, whatever their name
        # named as in the report: answers and judgments of one model share a file name
        raw = inflate_gzip(raw, name, limits)
    elif path.name.endswith(".gz"):
        # a .gz file cut short, or not compressed at all: reading it as text would take
        # whatever its bytes happen to say for rows
        raise gzip.BadGzipFile("the file is named .gz but does not start like gzip data")
    return raw.decode("utf-8-sig")


def read_rows(
    path: Path, name: str, report: ImportReport, limits: ReadLimits = DEFAULT_LIMITS
) -> Iterator[tuple[Origin, Any]]:
    """The rows of a JSON Lines file or of a file holding one JSON list, each with its origin.

    A JSONL row is its line number; a list element is its 1-based position in the list. A line
    that is not JSON is rejected and reading goes on; a file that cannot be read on (not UTF-8,
    damaged gzip, a list that is not valid JSON) is rejected as a whole from there. A file past
    ``limits`` (size, inflated size, rows) raises :class:`LimitExceededError`.

    Rows are handed on as they are parsed: an uncompressed JSON Lines file is read a line at a
    time, and a list's elements are decoded one by one, so a large battle log is never held as
    Python objects all at once.
    """
    try:
        check_file_size(path, limits.max_file_bytes)
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError as error:
        report.reject(Origin(name), None, f"cannot read file: {error.strerror or error}")
        return
    plain_lines = (
        head[:2] != b"\x1f\x8b"
        and not path.name.endswith(".gz")
        and not head.removeprefix(codecs.BOM_UTF8).lstrip().startswith(b"[")
        and (head.strip() or len(head) < _SNIFF_BYTES)
    )
    if plain_lines:
        yield from _streamed_lines(path, name, report, limits)
        return
    try:
        text = _open_text(path, name, limits)
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:  # BadGzipFile is an OSError
        report.reject(Origin(name), None, f"damaged gzip data: {error}")
        return
    except OSError as error:
        report.reject(Origin(name), None, f"cannot read file: {error.strerror or error}")
        return
    except UnicodeDecodeError as error:
        report.reject(Origin(name), None, f"not UTF-8 text: {error.reason} at byte {error.start}")
        return
    if text.lstrip().startswith("["):
        yield from _list_rows(text, name, report, limits)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        check_rows(name, number, limits)
        parsed = _line_row(line, name, number, report)
        if parsed is not None:
            yield parsed


#: bytes read to tell JSON Lines from a JSON list or gzip data
_SNIFF_BYTES = 4096


_RAW_DECODE = json.JSONDecoder().raw_decode
_LINE_ENDS = frozenset({"\n", "\r\n"})


def _line_row(line: str, name: str, number: int, report: ImportReport) -> tuple[Origin, Any] | None:
    if not line.strip():
        return None
    origin = Origin(name, number)
    try:
        try:
            # json.loads without its two whitespace scans: a line read from a file is one value
            # and its line break; anything else is read by json.loads itself, for its message
            value, end = _RAW_DECODE(line)
        except json.JSONDecodeError:
            return origin, json.loads(line)
        if end != len(line) and line[end:] not in _LINE_ENDS:
            return origin, json.loads(line)
        return origin, value
    except json.JSONDecodeError as error:
        report.reject(origin, None, f"not valid JSON: {error.msg} at column {error.colno}")
    except RecursionError:
        report.reject(origin, None, "JSON nested too deeply")
    return None


def _streamed_lines(
    path: Path, name: str, report: ImportReport, limits: ReadLimits
) -> Iterator[tuple[Origin, Any]]:
    """An uncompressed JSON Lines file, one line at a time (each at most
    ``limits.max_line_bytes``)."""
    offset = 0
    number = 0
    try:
        with path.open("rb") as handle:
            while raw := read_line(handle, name, number + 1, limits):
                number += 1
                check_rows(name, number, limits)
                try:
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as error:
                    at = offset + error.start
                    reason = f"not UTF-8 text: {error.reason} at byte {at}"
                    report.reject(Origin(name), None, reason)
                    return
                offset += len(raw)
                parsed = _line_row(line, name, number, report)
                if parsed is not None:
                    yield parsed
    except OSError as error:
        report.reject(Origin(name), None, f"cannot read file: {error.strerror or error}")


_SPACE = re.compile(r"[ \t\n\r]*")


def _list_rows(
    text: str, name: str, report: ImportReport, limits: ReadLimits
) -> Iterator[tuple[Origin, Any]]:
    """The elements of the JSON list ``text``, decoded one at a time (as ``json.loads`` would
    read them, with its messages for what is not valid JSON)."""
    decoder = json.JSONDecoder()
    position = _SPACE.match(text, text.index("[") + 1).end()  # type: ignore[union-attr]
    count = 0
    try:
        if text.startswith("]", position):
            position += 1
        else:
            while True:
                value, position = decoder.raw_decode(text, position)
                count += 1
                check_rows(name, count, limits)
                yield Origin(name, count), value
                position = _SPACE.match(text, position).end()  # type: ignore[union-attr]
                if text.startswith(",", position):
                    position = _SPACE.match(text, position + 1).end()  # type: ignore[union-attr]
                    continue
                if text.startswith("]", position):
                    position += 1
                    break
                raise json.JSONDecodeError("Expecting ',' delimiter", text, position)
        position = _SPACE.match(text, position).end()  # type: ignore[union-attr]
        if position != len(text):
            raise json.JSONDecodeError("Extra data", text, position)
    except json.JSONDecodeError as error:
        report.reject(
            Origin(name, error.lineno),
            None,
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
        )
    except RecursionError:
        report.reject(Origin(name), None, "JSON nested too deeply")


def require_object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RowError(None, f"a row must be a JSON object, not {type(value).__name__}")
    return value


@overload
def text_field(row: dict[str, Any], key: str, *, required: Literal[True] = True) -> str: ...


@overload
def text_field(row: dict[str, Any], key: str, *, required: bool) -> str | None: ...


def text_field(row: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    """``row[key]`` as a non-empty string; absent or null is an error only when required."""
    value = optional_text(row.get(key), key)
    if value is None:
        if required:
            raise RowError(key, "is required")
        return None
    if required and not value.strip():
        raise RowError(key, "must not be empty")
    return value


def optional_text(value: Any, where: str) -> str | None:
    """``value`` if it is a string or None; anything else is an error of the field ``where``."""
    if value is not None and not isinstance(value, str):
        raise RowError(where, f"must be a string, not {type(value).__name__}")
    return value


@overload
def typed_field(row: dict[str, Any], key: str, kind: type[_T]) -> _T | None: ...
@overload
def typed_field(
    row: dict[str, Any], key: str, kind: tuple[type[_T], type[_U]]
) -> _T | _U | None: ...
@overload
def typed_field(row: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any: ...
def typed_field(row: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """``row[key]`` if it has the given type, None when absent or null."""
    value = row.get(key)
    if value is None:
        return None
    wrong_bool = isinstance(value, bool) and bool not in (
        kind if isinstance(kind, tuple) else (kind,)
    )
    if wrong_bool or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise RowError(key, f"must be {names}, not {type(value).__name__}")
    return value
