"""The one helper that cuts value lists to the backend's parameter limit."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import pytest
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    func,
    insert,
    select,
)
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler

from workbench.storage.batching import chunked, insert_rows
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


def _table_and_session() -> tuple[Table, Session]:
    metadata = MetaData()
    table = Table(
        "rows",
        metadata,
        Column("id", Integer, primary_key=True),
        Column("name", String(32)),
        Column("score", Float),
        Column("data", JSON),
        Column("flag", Boolean),
    )
    engine = create_engine("sqlite://")
    metadata.create_all(engine)
    return table, Session(engine)


ROWS: list[dict[str, Any]] = [
    {"name": "a", "score": 1.5, "data": {"turns": 2, "tags": ["x"]}, "flag": True},
    {"name": None, "score": None, "data": {}, "flag": False},
    {"name": "ü\u200b", "score": -0.0, "data": {"nested": {"k": None}}, "flag": None},
    # flat metadata, which the insert writes itself: each kind of value, texts to escape
    {"name": "q", "score": 0.0, "data": {"question_id": 12, "ok": True, "no": None}, "flag": True},
    {"name": "q", "score": 0.0, "data": {"who": 'é "x"\n\ud800', "n": -(2**70)}, "flag": False},
    {"name": "q", "score": 0.0, "data": {"tstamp": 1.5, "flag": False}, "flag": False},
    {"name": "q", "score": 0.0, "data": {1: "integer key"}, "flag": False},
]


def test_insert_rows_stores_what_a_core_insert_stores() -> None:
    table, session = _table_and_session()
    with session:
        session.execute(insert(table), [dict(row, id=index) for index, row in enumerate(ROWS)])
        insert_rows(session, table, [dict(row, id=100 + index) for index, row in enumerate(ROWS)])
        stored = session.execute(select(table).order_by(table.c.id)).all()
        raw = session.connection().exec_driver_sql("SELECT data, flag FROM rows ORDER BY id").all()
    count = len(ROWS)
    assert [tuple(row)[1:] for row in stored[:count]] == [tuple(row)[1:] for row in stored[count:]]
    # the same stored text for the JSON, the same integers for flags
    assert raw[:count] == raw[count:]


def test_insert_rows_leaves_each_rows_parameters_to_the_driver() -> None:
    """SQLAlchemy's per-row parameter handling cost as much as SQLite's work on a battle log:
    the rows are bound by the driver, not by the compiler one row at a time."""
    table, session = _table_and_session()
    rows = [dict(ROWS[0], id=index) for index in range(500)]
    calls = 0
    original = SQLCompiler.construct_params

    def construct_params(self: SQLCompiler, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(self, *args, **kwargs)

    with session:
        with patch.object(SQLCompiler, "construct_params", construct_params):
            insert_rows(session, table, rows)
        assert session.scalar(select(func.count()).select_from(table)) == 500
    assert calls < 10
