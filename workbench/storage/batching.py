"""Cutting long value lists into statements the backend accepts (``IN (...)`` lists, batches of
rows): one helper, sized by the dialects' parameter limit unless a caller says otherwise."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

from workbench.storage.dialects import MAX_PARAMETERS

T = TypeVar("T")


def chunked(values: Sequence[T], size: int = MAX_PARAMETERS) -> Iterator[Sequence[T]]:
    """Consecutive slices of ``values`` of at most ``size`` (the last may be shorter)."""
    if size < 1:
        raise ValueError(f"a chunk holds at least one value, not {size}")
    for start in range(0, len(values), size):
        yield values[start : start + size]
