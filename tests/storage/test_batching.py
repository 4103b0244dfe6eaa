"""The one helper that cuts value lists to the backend's parameter limit."""

from __future__ import annotations

import pytest

from workbench.storage.batching import chunked
from workbench.storage.dialects import MAX_PARAMETERS


def test_chunks_cover_the_values_in_order_with_a_shorter_last_one() -> None:
    assert list(chunked([1, 2, 3, 4, 5], 2)) == [[1, 2], [3, 4], [5]]
    assert list(chunked([], 3)) == []


def test_the_default_size_is_the_backends_parameter_limit() -> None:
    values = list(range(2 * MAX_PARAMETERS + 1))
    sizes = [len(chunk) for chunk in chunked(values)]
    assert sizes == [MAX_PARAMETERS, MAX_PARAMETERS, 1]
    assert MAX_PARAMETERS < 999  # the oldest SQLite still in use refuses more


def test_an_empty_chunk_size_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        list(chunked([1], 0))
