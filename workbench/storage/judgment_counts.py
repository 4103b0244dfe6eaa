"""Pairwise judgments counted per cell (:class:`~workbench.storage.models.JudgmentCount`), kept
in the same transaction as every write of judgments, so that a leaderboard reads a few
thousand cells instead of scanning millions of judgments (:func:`workbench.storage.judgments.
battle_counts` reads them whenever its filters are expressible in the cells' keys).

What a cell holds is computed from the read model's own declaration of each store
(:data:`workbench.storage.judgments.STORES`), so the kept counts and a scan cannot disagree on
what a judgment is. Writers report what they change, not how it counts:

- :func:`changing` wraps any change of one store's rows that a condition selects (a vote and
  its undo, a pack merge, an adjudication recorded again, a judge run's verdicts written or
  replaced): the cells of those rows are read before and after, and the kept counts move by
  the difference. The vote path reaches it through the campaign counters' ``counting`` block.
- :func:`counting_imported` wraps an import's batch of inserts: the rows added are counted in
  one ``INSERT ... SELECT ... GROUP BY`` upsert.
- :func:`recount` rebuilds every cell (the schema upgrade that adds them, a push or pull that
  copies rows wholesale, a bundle built by bulk insert).

:func:`kept_cells` and :func:`recounted_cells` give both sides as dictionaries for the checks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Connection,
    Table,
    and_,
    bindparam,
    case,
    delete,
    func,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from workbench.domain import JudgmentOrigin
from workbench.storage import judgments
from workbench.storage.judgments import JudgmentStore
from workbench.storage.models import JudgeRun, JudgeVerdict, JudgmentCount, PriorJudgment, Vote

Executor = Session | Connection

IMPORTED = JudgmentOrigin.IMPORTED.value
CAMPAIGN = JudgmentOrigin.CAMPAIGN.value
JUDGE_RUN = JudgmentOrigin.JUDGE_RUN.value
ADJUDICATION = JudgmentOrigin.ADJUDICATION.value

#: the key of a cell, in the order of the table's primary key
KEY = tuple(column.name for column in JudgmentCount.__table__.primary_key)
#: what a cell holds: the judgments, the strong decisive ones and the first one's position
VALUES = tuple(column.name for column in JudgmentCount.__table__.columns if not column.primary_key)
#: what an absent id or turn is stored as (both backends treat NULLs in a key as distinct)
NO_ID, NO_TURN = 0, -1
#: a position in stored order: the store's rank in the declaration times this, plus the
#: row's id
#: (the read model's ``_origin_order``)
STORE_SPAN = 1 << 40

#: the read-model columns a cell's key and values are computed from: its ids are the read
#: model's own (:data:`workbench.storage.judgments.CELL_COLUMNS`)
_READ = (
    "origin",
    "kind",
    "turn",
    "criterion",
    "context",
    "derived",
    "outcome",
    "strength",
    "row_id",
    *judgments.CELL_COLUMNS,
)
#: the ids of who judged and of the item's source (the two sides' ids are keyed apart)
_IDS = tuple(name for name in judgments.CELL_COLUMNS if name not in ("model_a_id", "model_b_id"))

Cell = tuple[Any, ...]
Counts = tuple[int, int, int]


def _table() -> Table:
    return cast(Table, JudgmentCount.__table__)  # a declarative model's table is a Table


def _connection(executor: Executor) -> Connection:
    return executor.connection() if isinstance(executor, Session) else executor


def _store(origin: str) -> tuple[int, JudgmentStore]:
    for rank, store in enumerate(judgments.STORES):
        if store.origin == origin:
            return rank, store
    raise ValueError(f"no judgment store of origin {origin!r}")


def _cells_of(origin: str, condition: Any = None) -> Any:
    """The pairwise judgments of one store (those ``condition`` selects) per cell: the key,
    then the judgments, the strong decisive ones and the first position."""
    rank, store = _store(origin)
    statement = store.select(_READ)
    if condition is not None:
        statement = statement.where(condition)
    rows = statement.subquery("judgments")
    key = {
        "model_a_id": func.coalesce(rows.c.model_a_id, NO_ID),
        "model_b_id": func.coalesce(rows.c.model_b_id, NO_ID),
        "outcome": rows.c.outcome,
        "origin": rows.c.origin,
        "kind": rows.c.kind,
        **{name: func.coalesce(rows.c[name], NO_ID) for name in _IDS},
        "turn": func.coalesce(rows.c.turn, NO_TURN),
        "criterion": rows.c.criterion,
        "context": rows.c.context,
        "derived": rows.c.derived,
    }
    # a decisive outcome, written as two comparisons: a list given to IN is spliced into the SQL
    # at every execution, and a vote runs this statement twice
    decisive = or_(rows.c.outcome == "a", rows.c.outcome == "b")
    strong = case((and_(decisive, rows.c.strength >= 2), 1), else_=0)
    position = literal(rank * STORE_SPAN, BigInteger) + rows.c.row_id
    # a pairwise judgment: an outcome between two sides, one of which may be the reference
    pairwise = and_(
        rows.c.outcome.is_not(None),
        or_(rows.c.model_a_id.is_not(None), rows.c.model_b_id.is_not(None)),
    )
    columns = [expression.label(name) for name, expression in key.items()]
    return (
        select(
            *columns,
            func.count().label("judgments"),
            func.sum(strong).label("strong"),
            func.min(position).label("first_position"),
        )
        .where(pairwise)
        .group_by(*key.values())
    )


def _read_cells(
    executor: Executor, statement: Any, parameters: dict[str, Any] | None = None
) -> dict[Cell, Counts]:
    found: dict[Cell, Counts] = {}
    for row in _connection(executor).execute(statement, parameters or {}):
        key = tuple(row[: len(KEY)])
        found[_normal(key)] = (int(row[-3]), int(row[-2]), int(row[-1]))
    return found


def _normal(key: Cell) -> Cell:
    # booleans come back as 0/1 from SQLite's expressions and as bools from the table
    return tuple(
        bool(value) if name == "derived" else value for name, value in zip(KEY, key, strict=True)
    )


def _upsert_statement(dialect_name: str, source: Any) -> Any:
    """Add cells to the kept ones: those ``source`` selects (columns :data:`KEY` +
    :data:`VALUES`), or with ``source`` None the rows the statement is executed with. A new
    cell is inserted; a kept one grows and keeps the earlier first position."""
    table = _table()
    dialect = postgresql if dialect_name == "postgresql" else sqlite
    inserting = (
        dialect.insert(table)
        if source is None
        else dialect.insert(table).from_select([*KEY, *VALUES], source)
    )
    excluded = inserting.excluded
    return inserting.on_conflict_do_update(
        index_elements=list(KEY),
        set_={
            "judgments": table.c.judgments + excluded.judgments,
            "strong": table.c.strong + excluded.strong,
            "first_position": case(
                (excluded.first_position < table.c.first_position, excluded.first_position),
                else_=table.c.first_position,
            ),
        },
    )


# --- statements built once: a vote runs them with new values (building one costs more CPU than
# running it) ----------------------------------------------------------------------------------


@cache
def _rows_upsert(dialect_name: str) -> Any:
    return _upsert_statement(dialect_name, None)


@cache
def _votes_of_pairs() -> Any:
    return _cells_of(CAMPAIGN, Vote.pair_id.in_(bindparam("pair_ids", expanding=True)))


@cache
def _votes_of_pair() -> Any:
    """:func:`_votes_of_pairs` of one task (a vote's), with a plain parameter: a list of ids
    is spliced into the SQL at every execution."""
    return _cells_of(CAMPAIGN, Vote.pair_id == bindparam("pair_id"))


def _key_match() -> list[Any]:
    table = _table()
    return [table.c[name] == bindparam(f"k_{name}") for name in KEY]


@cache
def _move() -> Any:
    table = _table()
    return (
        update(table)
        .where(*_key_match())
        .values(
            judgments=table.c.judgments + bindparam("d_judgments"),
            strong=table.c.strong + bindparam("d_strong"),
        )
    )


@cache
def _drop_empty() -> Any:
    return delete(_table()).where(_table().c.judgments <= 0)


@cache
def _kept_first() -> Any:
    return select(_table().c.first_position).where(*_key_match())


@cache
def _set_first() -> Any:
    return update(_table()).where(*_key_match()).values(first_position=bindparam("first"))


@cache
def _cells_of_pair(origin: str, a_missing: bool, b_missing: bool) -> Any:
    """The cells of store ``origin``'s judgments between the sides ``side_a`` and ``side_b``
    (parameters; a missing side is the reference answer), read on the store's index of the
    two models."""
    store = _store(origin)[1]

    def side(name: str, missing: bool) -> Any:
        expression = store.columns[f"{name}_id"].expression
        return expression.is_(None) if missing else expression == bindparam(name)

    return _cells_of(origin, and_(side("model_a", a_missing), side("model_b", b_missing)))


# --- counting ------------------------------------------------------------------------------


def recount(executor: Executor) -> None:
    """Count every cell again from the judgments (each store in one aggregate insert)."""
    connection = _connection(executor)
    connection.execute(delete(_table()))
    for store in judgments.STORES:
        connection.execute(_table().insert().from_select([*KEY, *VALUES], _cells_of(store.origin)))


def count_added(executor: Executor, origin: str, condition: Any) -> None:
    """Count the rows of store ``origin`` that ``condition`` selects, which were just added
    and not counted yet, in one statement."""
    connection = _connection(executor)
    connection.execute(_upsert_statement(connection.dialect.name, _cells_of(origin, condition)))


@contextmanager
def counting_imported(executor: Executor, import_id: int) -> Iterator[None]:
    """Count the imported judgments of import ``import_id`` the block inserts: those with an id
    above the largest stored when it began (no other writer adds rows of this import)."""
    connection = _connection(executor)
    largest = connection.execute(select(func.max(PriorJudgment.id))).scalar() or 0
    yield
    condition = and_(PriorJudgment.import_id == import_id, PriorJudgment.id > largest)
    count_added(connection, IMPORTED, condition)


@contextmanager
def changing(executor: Executor, origin: str, condition: Any) -> Iterator[None]:
    """Keep the counts right through a change of the rows of store ``origin`` that
    ``condition`` selects (before and after the change: inserts, updates, retractions and
    deletes alike): their cells are read before and after, and the kept counts move by the
    difference."""
    statement = _cells_of(origin, condition)
    before = _read_cells(executor, statement)
    yield
    apply_difference(executor, before, _read_cells(executor, statement))


@contextmanager
def changing_votes(executor: Executor, pair_ids: Sequence[int]) -> Iterator[None]:
    """:func:`changing` for the votes on the campaign tasks ``pair_ids`` (a vote, an undo, a
    skip, a pack merged), with statements built once."""
    ids = list(pair_ids)
    one = len(ids) == 1
    statement = _votes_of_pair() if one else _votes_of_pairs()
    parameters = {"pair_id": ids[0]} if one else {"pair_ids": ids}
    before = _read_cells(executor, statement, parameters)
    yield
    apply_difference(executor, before, _read_cells(executor, statement, parameters))


def apply_difference(
    executor: Executor, before: dict[Cell, Counts], after: dict[Cell, Counts]
) -> None:
    """Move the kept counts from the cells ``before`` to the cells ``after`` (both of the same
    rows). A cell whose first judgment was among the rows that left it has its first position
    read again from the judgments of its model pair."""
    connection = _connection(executor)
    grown: list[dict[str, Any]] = []
    moved: list[dict[str, Any]] = []
    left: list[tuple[dict[str, Any], int]] = []
    for key in before.keys() | after.keys():
        old = before.get(key, (0, 0, 0))
        new = after.get(key, (0, 0, 0))
        if old == new:
            continue
        values = dict(zip(KEY, key, strict=True))
        if key not in before:  # a new cell, or rows new to a kept one
            grown.append({**values, **dict(zip(VALUES, new, strict=True))})
            continue
        if key in after:  # the counts move below; the first is at most that of the rows
            grown.append({**values, "judgments": 0, "strong": 0, "first_position": new[2]})
        named = {f"k_{name}": value for name, value in values.items()}
        moved.append({**named, "d_judgments": new[0] - old[0], "d_strong": new[1] - old[1]})
        if key not in after or new[2] > old[2]:
            left.append((named, old[2]))
    # the firsts the leaving rows held, read before the counts move
    lost = [
        named for named, first in left if connection.execute(_kept_first(), named).scalar() == first
    ]
    if moved:
        connection.execute(_move(), moved)
        connection.execute(_drop_empty())
    if grown:
        connection.execute(_rows_upsert(connection.dialect.name), grown)
    for named in lost:
        _refresh_first_position(connection, named)


def _refresh_first_position(connection: Connection, named: dict[str, Any]) -> None:
    """Read the first position of the kept cell ``named`` (its key as ``k_`` parameters) again
    from the judgments of its model pair, each store on its index of the two models."""
    model_a, model_b = named["k_model_a_id"], named["k_model_b_id"]
    key = _normal(tuple(named[f"k_{name}"] for name in KEY))
    parameters = {"model_a": model_a, "model_b": model_b}
    firsts = [
        cells[key][2]
        for store in judgments.STORES
        if key
        in (
            cells := _read_cells(
                connection,
                _cells_of_pair(store.origin, model_a == NO_ID, model_b == NO_ID),
                parameters,
            )
        )
    ]
    if firsts:  # else the cell is gone
        connection.execute(_set_first(), {**named, "first": min(firsts)})


def kept_cells(executor: Executor) -> dict[Cell, Counts]:
    """Every kept cell with its judgments, strong decisive judgments and first position."""
    table = _table()
    statement = select(*(table.c[name] for name in (*KEY, *VALUES)))
    return _read_cells(executor, statement)


def recounted_cells(executor: Executor) -> dict[Cell, Counts]:
    """The cells a recount from the judgments gives, as :func:`kept_cells` gives them."""
    found: dict[Cell, Counts] = {}
    for store in judgments.STORES:
        found.update(_read_cells(executor, _cells_of(store.origin)))
    return found


@contextmanager
def counting_verdicts(executor: Executor, rows: Sequence[Mapping[str, Any]]) -> Iterator[None]:
    """Keep the counts right through a block that writes (or replaces) the judge verdicts
    ``rows`` describe: those of their runs with their request hashes."""
    if not rows:
        yield
        return
    runs = sorted({row["run_id"] for row in rows})
    hashes = sorted({row["request_hash"] for row in rows})
    condition = and_(JudgeVerdict.run_id.in_(runs), JudgeVerdict.request_hash.in_(hashes))
    with changing(executor, JUDGE_RUN, condition):
        yield


@contextmanager
def changing_run_context(
    executor: Executor, run: JudgeRun, parameters: Mapping[str, Any]
) -> Iterator[None]:
    """Keep the counts right through a block that gives a stored judge run ``parameters``: a
    run resumed under another output context moves its verdicts to other cells."""
    if run.id is None or (run.parameters or {}).get("context") == parameters.get("context"):
        yield
        return
    with changing(executor, JUDGE_RUN, JudgeVerdict.run_id == run.id):
        yield
        if isinstance(executor, Session):
            executor.flush()
