"""Reading typed values out of VisIT-Bench CSV cells: text, booleans and JSON columns.

An empty cell, or one holding ``NaN`` (how pandas writes a missing value), is a missing value.
Every failure names the column, so the user sees which field of which row is wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


class RowError(ValueError):
    """A problem with one row, naming the column it concerns."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def is_missing_text(text: str | None) -> bool:
    if text is None:
        return True
    stripped = text.strip()
    return not stripped or stripped.lower() == "nan"


def is_missing_value(value: Any) -> bool:
    """A missing entry inside a parsed JSON list: null, NaN, or blank text."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, str) and is_missing_text(value)


def optional_text(row: Mapping[str, str], column: str) -> str | None:
    value = row.get(column)
    return None if is_missing_text(value) else value


def required_text(row: Mapping[str, str], column: str) -> str:
    value = optional_text(row, column)
    if value is None:
        raise RowError(column, "is required but empty")
    return value


def parse_flag_text(text: str) -> bool | None:
    """``True``/``False`` in any letter case (spreadsheets write ``TRUE``), else None."""
    lowered = text.strip().lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    return None


def optional_flag(row: Mapping[str, str], column: str) -> bool | None:
    text = optional_text(row, column)
    if text is None:
        return None
    flag = parse_flag_text(text)
    if flag is None:
        raise RowError(column, f"must be True or False, not {text.strip()[:60]!r}")
    return flag


def optional_json(row: Mapping[str, str], column: str) -> Any:
    text = optional_text(row, column)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RowError(
            column, f"is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from error


def required_json(row: Mapping[str, str], column: str) -> Any:
    value = optional_json(row, column)
    if value is None:
        raise RowError(column, "is required but empty")
    return value


def text_list(value: Any, column: str) -> list[Any]:
    """A JSON list whose entries are text or missing (null/NaN); the entries are kept as they
    are so positions stay meaningful."""
    if not isinstance(value, list):
        raise RowError(column, f"must be a JSON list, not {type(value).__name__}")
    for index, entry in enumerate(value):
        if not (isinstance(entry, str) or is_missing_value(entry)):
            raise RowError(
                column, f"entry {index + 1} must be text or NaN, not {type(entry).__name__}"
            )
    return value
