"""Reading the JSON files arena-style benchmarks publish (JSON Lines or one JSON list, either
possibly gzip-compressed), and checking the fields of one row, so that a bad row is reported
with its file, row and field instead of stopping the import.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, overload

from workbench.domain import Origin
from workbench.importers.base import ImportReport
from workbench.importers.limits import (
    DEFAULT_LIMITS,
    ReadLimits,
    check_file_size,
    check_rows,
    inflate_gzip,
)


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
    that is not JSON is rejected and reading goes on; a file that cannot be read at all (not
    UTF-8, damaged gzip, a list that is not valid JSON) is rejected as a whole. A file past
    ``limits`` (size, inflated size, rows) raises :class:`LimitExceededError`.
    """
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
        if not line.strip():
            continue
        origin = Origin(name, number)
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            report.reject(origin, None, f"not valid JSON: {error.msg} at column {error.colno}")
            continue
        except RecursionError:
            report.reject(origin, None, "JSON nested too deeply")
            continue
        yield origin, value


def _list_rows(
    text: str, name: str, report: ImportReport, limits: ReadLimits
) -> Iterator[tuple[Origin, Any]]:
    try:
        values = json.loads(text)
    except json.JSONDecodeError as error:
        report.reject(
            Origin(name, error.lineno),
            None,
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
        )
        return
    except RecursionError:
        report.reject(Origin(name), None, "JSON nested too deeply")
        return
    if isinstance(values, list):
        check_rows(name, len(values), limits)
    for position, value in enumerate(values, start=1):
        yield Origin(name, position), value


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
    value = row.get(key)
    if value is None:
        if required:
            raise RowError(key, "is required")
        return None
    if not isinstance(value, str):
        raise RowError(key, f"must be a string, not {type(value).__name__}")
    if required and not value.strip():
        raise RowError(key, "must not be empty")
    return value


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
