"""The one row copier: copy every row of one bundle into another of the same schema, whatever
the two dialects (SQLite file or PostgreSQL server): rows are matched by natural key, new rows
get ids mapped through the foreign keys, images stream in bounded batches, and the target
changes in one transaction that either lands whole or not at all. :func:`copy_table` runs the
same engine over one table under another policy (an offline pack's votes).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table, and_, delete, func, insert, select, text, update
from sqlalchemy.exc import DBAPIError

from workbench.importers.images import ImageProblemError, check_image_row
from workbench.storage.batching import chunked
from workbench.storage.copier import (
    SYNC_POLICY,
    CopyPolicy,
    TableRule,
    digest,
    normal,
    portable,
)
from workbench.storage.counters import rebuild_counters
from workbench.storage.errors import BundleError
from workbench.storage.judgment_counts import recount
from workbench.storage.models import Base

log = logging.getLogger(__name__)

#: rows read and written per statement
BATCH_ROWS = 1000
#: image bytes held in memory at once (one batch of images)
IMAGE_BATCH_BYTES = 32 * 1024 * 1024

Progress = Callable[[str, int, int], None]
#: (the source row as mapped to the target, the target's mutable values, the updates the
#: policy chose): told about every row both sides hold, so a caller can report what changed
Observer = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], None]


class TransferError(BundleError):
    """Rows could not be copied; the target is unchanged."""


class TransferRefusedError(TransferError):
    """The target holds another bundle (or a different schema); nothing was copied."""


class TransferConflictError(TransferError):
    """A row exists on both sides under one natural key with different content."""


#: push/pull's rule per table (the policy lives with the normaliser, in storage/copier.py)
RULES: Mapping[str, TableRule] = SYNC_POLICY.rules

#: tables whose rows only mean something on the database they were written in (hand-out leases)
TRANSIENT_TABLES = frozenset({"pair_leases"})
#: tables derived from others, recounted in the target after a copy instead of copied
DERIVED_TABLES = frozenset(
    {"campaign_counts", "campaign_pair_counts", "campaign_annotator_counts", "judgment_counts"}
)

#: blob columns: never compared (their table's key is their hash) and read only in batches
BLOB_COLUMNS = {"images": "data"}


@dataclass
class TableCounts:
    copied: int = 0
    unchanged: int = 0
    updated: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"copied": self.copied, "unchanged": self.unchanged, "updated": self.updated}


@dataclass
class TransferReport:
    """What a transfer did, per table in copy order."""

    tables: dict[str, TableCounts] = field(default_factory=dict)
    target_was_empty: bool = False
    image_bytes: int = 0

    @property
    def copied(self) -> int:
        return sum(counts.copied for counts in self.tables.values())

    @property
    def updated(self) -> int:
        return sum(counts.updated for counts in self.tables.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "copied": self.copied,
            "updated": self.updated,
            "image_bytes": self.image_bytes,
            "target_was_empty": self.target_was_empty,
            "tables": {name: counts.as_dict() for name, counts in self.tables.items()},
        }


def copied_tables() -> list[Table]:
    """The tables a transfer copies, parents before children."""
    missing = [
        table.name
        for table in Base.metadata.sorted_tables
        if table.name not in RULES.keys() | TRANSIENT_TABLES | DERIVED_TABLES
    ]
    if missing:
        raise AssertionError(f"no transfer rule for table(s) {', '.join(missing)}")
    return [table for table in Base.metadata.sorted_tables if table.name in RULES]


# --- the copier --------------------------------------------------------------------------------


@dataclass
class _Existing:
    id: Any
    digest: str
    mutable: dict[str, Any]


class _Copier:
    def __init__(
        self,
        source: Connection,
        target: Connection,
        progress: Progress | None,
        policy: CopyPolicy = SYNC_POLICY,
        id_maps: Mapping[str, Mapping[Any, Any]] | None = None,
    ) -> None:
        self.source = source
        self.target = target
        self.progress = progress or (lambda _phase, _done, _total: None)
        self.policy = policy
        #: source id -> target id per table: filled as parents are copied, or given by a caller
        #: that matched the parents itself (a pack matches tasks by schedule sequence)
        self.id_maps: dict[str, dict[Any, Any]] = defaultdict(dict)
        for name, mapping in (id_maps or {}).items():
            self.id_maps[name].update(mapping)
        self.report = TransferReport()
        self.preserve_ids = False

    # target state

    def content_tables(self) -> list[Table]:
        return [table for table in copied_tables() if table.name != "bundle_info"]

    def target_is_empty(self) -> bool:
        return all(
            self.target.scalar(select(func.count()).select_from(table)) == 0
            for table in self.content_tables()
        )

    def check_identity(self) -> None:
        info = Base.metadata.tables["bundle_info"]
        ours = dict(self.source.execute(select(info.c.key, info.c.value)).all())
        theirs = dict(self.target.execute(select(info.c.key, info.c.value)).all())
        if self.target_is_empty():
            # a freshly created target takes on the identity of the bundle copied into it
            self.target.execute(delete(info))
            self.report.target_was_empty = True
            self.preserve_ids = True
            return
        if theirs.get("bundle_id") != ours.get("bundle_id"):
            raise TransferRefusedError(
                f"the target holds another bundle (id {theirs.get('bundle_id')}, this one is "
                f"{ours.get('bundle_id')}); copy into an empty database or file, or into the "
                "one this bundle was copied to before"
            )

    # one table

    def copy_table(
        self,
        table: Table,
        source_where: Any = None,
        target_where: Any = None,
        observe: Observer | None = None,
    ) -> TableCounts:
        rule = self.policy.rule(table.name)
        counts = self.report.tables.setdefault(table.name, TableCounts())
        blob = BLOB_COLUMNS.get(table.name)
        has_id = "id" in table.c and table.c.id.primary_key
        columns = [c.name for c in table.columns if c.name != blob]
        key_columns = rule.key or tuple(c for c in columns if c != "id")
        fixed = [c for c in columns if c != "id" and c not in key_columns + rule.mutable]
        foreign = {
            fk.parent.name: fk.column.table.name
            for fk in table.foreign_keys
            if fk.column.table.name in self.policy.rules or fk.column.table.name in self.id_maps
        }

        def key_of(row: Mapping[Any, Any]) -> tuple[Any, ...]:
            return tuple(normal(row[name]) for name in key_columns)

        # what the target holds, by natural key (a list: content keys may repeat)
        index: dict[tuple[Any, ...], list[_Existing]] = defaultdict(list)
        in_target = select(*[table.c[c] for c in columns])
        if target_where is not None:
            in_target = in_target.where(target_where)
        for stored in self.target.execute(in_target).mappings():
            index[key_of(stored)].append(
                _Existing(
                    stored["id"] if has_id else key_of(stored),
                    digest([stored[c] for c in fixed]),
                    {c: stored[c] for c in rule.mutable},
                )
            )
        matched: dict[tuple[Any, ...], int] = defaultdict(int)

        counting_rows = select(func.count()).select_from(table)
        in_source = select(*[table.c[c] for c in columns]).order_by(*table.primary_key.columns)
        if source_where is not None:
            counting_rows = counting_rows.where(source_where)
            in_source = in_source.where(source_where)
        total = self.source.scalar(counting_rows) or 0
        done = 0
        self.progress(table.name, 0, total)
        pending: list[dict[str, Any]] = []
        result = self.source.execution_options(yield_per=BATCH_ROWS).execute(in_source)
        for partition in result.mappings().partitions():
            for source_row in partition:
                row = self._mapped(table, dict(source_row), foreign)
                key = key_of(row)
                candidates = index.get(key, [])
                position = matched[key]
                matched[key] += 1
                if position >= len(candidates):
                    pending.append(row)
                    continue
                existing = candidates[position]
                if has_id:
                    self.id_maps[table.name][row["id"]] = existing.id
                if existing.digest != digest([row[c] for c in fixed]):
                    self._conflict(table, key_columns, fixed, row, existing)
                updates = rule.resolve(existing.mutable, {c: row[c] for c in rule.mutable})
                if observe is not None:
                    observe(row, existing.mutable, updates)
                if updates:
                    self._update(table, key_columns, existing, row, updates)
                    counts.updated += 1
                else:
                    counts.unchanged += 1
            done += len(partition)
            if blob is None:
                self._insert(table, pending, counts)
                pending = []
            self.progress(table.name, done, total)
        if blob is not None:
            self._insert_blobs(table, blob, pending, counts)
        log.debug("copied %s: %s", table.name, counts.as_dict())
        return counts

    def _mapped(
        self, table: Table, row: dict[str, Any], foreign: Mapping[str, str]
    ) -> dict[str, Any]:
        for column, parent in foreign.items():
            value = row[column]
            if value is not None:
                try:
                    row[column] = self.id_maps[parent][value]
                except KeyError:
                    raise TransferError(
                        f"{table.name} row {row.get('id')} names {parent} row {value}, which "
                        "the source bundle does not hold; run a check of the source bundle"
                    ) from None
        return {name: portable(value) for name, value in row.items()}

    def _conflict(
        self,
        table: Table,
        key_columns: Sequence[str],
        fixed: Sequence[str],
        row: Mapping[str, Any],
        existing: _Existing,
    ) -> None:
        where = (
            table.c.id == existing.id if "id" in table.c else _key_clause(table, key_columns, row)
        )
        theirs = self.target.execute(select(*[table.c[c] for c in fixed]).where(where)).mappings()
        target_row = theirs.one()
        differing = [c for c in fixed if normal(target_row[c]) != normal(row[c])]
        key = ", ".join(f"{c}={row[c]!r}" for c in key_columns)
        raise TransferConflictError(
            f"{table.name} ({key}) differs between the two bundles in "
            f"{', '.join(differing) or 'its content'}; nothing was copied. Decide which "
            "version is right, fix the other bundle, and copy again"
        )

    def _update(
        self,
        table: Table,
        key_columns: Sequence[str],
        existing: _Existing,
        row: Mapping[str, Any],
        updates: dict[str, Any],
    ) -> None:
        where = (
            table.c.id == existing.id if "id" in table.c else _key_clause(table, key_columns, row)
        )
        self.target.execute(update(table).where(where).values(**updates))

    def _insert(self, table: Table, rows: list[dict[str, Any]], counts: TableCounts) -> None:
        if not rows:
            return
        has_id = "id" in table.c and table.c.id.primary_key
        try:
            if not has_id:
                self.target.execute(insert(table), rows)
            elif self.preserve_ids:
                self.target.execute(insert(table), rows)
                self.id_maps[table.name].update((row["id"], row["id"]) for row in rows)
            else:
                source_ids = [row.pop("id") for row in rows]
                statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
                new_ids = self.target.execute(statement, rows).scalars().all()
                self.id_maps[table.name].update(zip(source_ids, new_ids, strict=True))
        except DBAPIError as error:
            raise TransferError(
                f"the target refused rows of {table.name}: {error.orig}; nothing was copied"
            ) from error
        counts.copied += len(rows)

    def _insert_blobs(
        self, table: Table, blob: str, rows: list[dict[str, Any]], counts: TableCounts
    ) -> None:
        """Insert rows whose blobs are fetched from the source a bounded batch at a time."""
        total, done = len(rows), 0
        batch: list[dict[str, Any]] = []
        batch_bytes = 0
        for row in rows:
            batch.append(row)
            batch_bytes += int(row.get("size_bytes") or 0)
            if batch_bytes >= IMAGE_BATCH_BYTES:
                self._insert_blob_batch(table, blob, batch, counts)
                done += len(batch)
                self.progress(f"{table.name} data", done, total)
                batch, batch_bytes = [], 0
        if batch:
            self._insert_blob_batch(table, blob, batch, counts)
            self.progress(f"{table.name} data", total, total)

    def _insert_blob_batch(
        self, table: Table, blob: str, batch: list[dict[str, Any]], counts: TableCounts
    ) -> None:
        data: dict[Any, bytes] = {}
        for ids in chunked([row["id"] for row in batch]):
            statement = select(table.c.id, table.c[blob]).where(table.c.id.in_(ids))
            data.update((row_id, value) for row_id, value in self.source.execute(statement))
        for row in batch:
            row[blob] = data[row["id"]]
            self.report.image_bytes += len(row[blob])
            # rows from another bundle are anyone's data: an export names files after them
            # and every viewer decodes them, so what is copied must be what an import stores
            try:
                check_image_row(row["sha256"], row["format"], row[blob])
            except ImageProblemError as refused:
                raise TransferError(
                    f"{table.name} row {row['id']} of the source cannot be copied: {refused}; "
                    "nothing was copied"
                ) from None
        self._insert(table, batch, counts)

    def advance_sequences(self) -> None:
        """After rows were written with explicit ids, make PostgreSQL's id sequences continue
        above them (SQLite derives the next id from the table itself)."""
        if self.target.dialect.name != "postgresql" or not self.preserve_ids:
            return
        quote = self.target.dialect.identifier_preparer.quote
        for table in self.content_tables():
            if "id" not in table.c or not self.report.tables[table.name].copied:
                continue
            name = quote(table.name)
            self.target.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence(:table, 'id'), "
                    f"(SELECT max(id) FROM {name}))"
                ),
                {"table": name},
            )


def _key_clause(table: Table, key_columns: Sequence[str], row: Mapping[str, Any]) -> Any:
    return and_(*(table.c[c] == row[c] for c in key_columns))


def copy_rows(
    source: Connection, target: Connection, progress: Progress | None = None
) -> TransferReport:
    """Copy every row of the bundle open on ``source`` into the one open on ``target``.

    Both connections must be inside a transaction (``source`` a consistent snapshot); the
    caller commits ``target``. The target must be empty or hold the same bundle; rows already
    there and identical are skipped, rows one side gained are added with fresh ids, and a row
    whose content differs under the same natural key raises :class:`TransferConflictError`.
    """
    copier = _Copier(source, target, progress)
    copier.check_identity()
    for table in copied_tables():
        copier.copy_table(table)
    copier.advance_sequences()
    rebuild_counters(target)
    recount(target)
    return copier.report


def copy_table(
    source: Connection,
    target: Connection,
    table_name: str,
    policy: CopyPolicy,
    id_maps: Mapping[str, Mapping[Any, Any]],
    *,
    source_where: Any = None,
    target_where: Any = None,
    observe: Observer | None = None,
) -> TableCounts:
    """Copy the rows of one table that ``source_where`` selects into ``target`` by the same
    engine as :func:`copy_rows`, settled by ``policy``'s rule for the table, for a copy that
    is not a whole bundle (an offline pack's votes).

    ``id_maps`` gives, per parent table, the source id -> target id of every parent row the
    copied rows may name (the caller matched them); a row naming a parent not in the map is a
    :class:`TransferError`. Only the target rows ``target_where`` selects are matched against.
    A row both sides hold is settled by the rule's resolver (and reported to ``observe``); a
    difference outside the rule's mutable columns is a :class:`TransferConflictError`. Nothing
    is committed: the caller's transaction on ``target`` is the unit of work.
    """
    copier = _Copier(source, target, None, policy, id_maps)
    table = Base.metadata.tables[table_name]
    return copier.copy_table(table, source_where, target_where, observe)
