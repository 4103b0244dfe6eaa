"""Cutting long value lists into statements the backend accepts (``IN (...)`` lists, batches of
rows): one helper, sized by the dialects' parameter limit unless a caller says otherwise."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from json.encoder import encode_basestring_ascii as _quoted
from operator import itemgetter
from typing import Any, TypeVar

from sqlalchemy import JSON, Table, insert
from sqlalchemy.orm import Session

from workbench.storage.dialects import MAX_PARAMETERS

T = TypeVar("T")


def chunked(values: Sequence[T], size: int = MAX_PARAMETERS) -> Iterator[Sequence[T]]:
    """Consecutive slices of ``values`` of at most ``size`` (the last may be shorter)."""
    if size < 1:
        raise ValueError(f"a chunk holds at least one value, not {size}")
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _flat_json(value: dict[Any, Any]) -> str | None:
    """``json.dumps(value)`` of a flat dict of texts, integers, booleans and nulls under text
    keys, written out (a battle log's ``{"question_id": ...}``, millions of times: json.dumps
    builds its encoder anew on every call); None for any other dict."""
    parts = []
    for key, item in value.items():
        if type(key) is not str:
            return None
        kind = type(item)
        if kind is str:
            shown = _quoted(item)
        elif kind is int:
            shown = int.__repr__(item)
        elif kind is bool:
            shown = "true" if item else "false"
        elif item is None:
            shown = "null"
        else:
            return None
        parts.append(f"{_quoted(key)}: {shown}")
    return "{" + ", ".join(parts) + "}"


#: what the flat writer is checked against: every kind of value it writes, texts that need
#: escaping
_FLAT_PROBE = {"question_id": 7, "text": 'a "quoted"\n\u00e9\ud800', "flag": True, "none": None}


def _json_processor(processor: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A JSON column's bind processor that serializes the empty object once and writes a flat
    dict itself (:func:`_flat_json`), when that gives the processor's own text (checked once
    here; a backend or serializer that writes differently keeps its processor for all)."""
    empty = processor({})
    flat_same = processor(_FLAT_PROBE) == _flat_json(_FLAT_PROBE)

    def process(value: Any) -> Any:
        if type(value) is dict:
            if not value:
                return empty
            if flat_same and (written := _flat_json(value)) is not None:
                return written
        return processor(value)

    return process


def insert_rows(session: Session, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert ``rows`` (dicts with the same keys, every column they fill named) into ``table``
    in the session's transaction.

    On SQLite the statement is compiled once and the rows go to the driver's ``executemany`` as
    tuples, each value through its column type's own bind processor (JSON's serializer, say):
    the same values SQLAlchemy would send, without its per-row parameter handling, which costs as
    much as SQLite's own work on a battle log of millions of rows. Other backends take the rows
    through SQLAlchemy (PostgreSQL's driver batches them into multi-row statements there)."""
    if not rows:
        return
    session.flush()  # rows the ORM still holds go first, as session.execute would send them
    connection = session.connection()
    dialect = connection.dialect
    if dialect.name != "sqlite":
        for chunk in chunked(rows, 5000):
            session.execute(insert(table), list(chunk))
        return
    keys = list(rows[0])
    compiled = insert(table).compile(dialect=dialect, column_keys=keys)
    order = compiled.positiontup or keys
    processors: list[tuple[int, Callable[[Any], Any]]] = [
        (position, _json_processor(found) if isinstance(table.c[key].type, JSON) else found)
        for position, key in enumerate(order)
        if (found := table.c[key].type.dialect_impl(dialect).bind_processor(dialect)) is not None
    ]
    pick = itemgetter(*order)
    sql = str(compiled)
    for chunk in chunked(rows, 5000):
        if len(order) == 1:
            values: list[tuple[Any, ...]] = [(pick(row),) for row in chunk]
        else:
            values = [pick(row) for row in chunk]
        if processors:
            processed = []
            for value in values:
                fields = list(value)
                for position, processor in processors:
                    fields[position] = processor(fields[position])
                processed.append(tuple(fields))
            values = processed
        connection.exec_driver_sql(sql, values)
