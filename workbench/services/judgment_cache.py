"""Pairwise-judgment frames kept up to date per filter, and per-item results derived from them,
for the analysis panels' worker: a vote adds its rows to the frames without re-reading the
judgments already read, and per-item analyses (cycles, a model that loses to all) recompute only
the items the new judgments touch. The leaderboard's counterpart is
:class:`~workbench.services.battle_tally.BattleTally`; both decide what to read by one rule
(:func:`~workbench.storage.judgments.catch_up`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from workbench.services.outcomes import OutcomeFilter, judgments_frame
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import ORIGINS, catch_up

FilterKey = tuple[OutcomeFilter, ...]
#: a per-item analysis: the values of the items a frame holds (items without one left out)
PerItem = Callable[[pd.DataFrame], Mapping[int, Any]]
#: per-item tables: named tables of rows (with an ``item`` column) that depend on their item's
#: judgments only
PerItemTables = Callable[[pd.DataFrame], Mapping[str, pd.DataFrame]]

#: how many filter sets the cache keeps frames for, least recently used dropped first. The
#: panels ask for a few at a time (the agreement panel's two sides, the graph panel's source
#: and category, the failures panel's pooled judgments); each frame holds every pairwise
#: judgment its filters select, so more would cost memory for little.
MAX_KEPT = 4


class _Kept:
    """One filter set's frame, as of ``fingerprint``, with its per-item results."""

    def __init__(self) -> None:
        self.frame = pd.DataFrame()
        self.fingerprint: tuple[int, ...] | None = None
        #: rows of the frame per origin, in the order of ORIGINS (where new rows go)
        self.per_origin = [0] * len(ORIGINS)
        #: analysis name -> item -> value, and the items whose value is out of date
        self.per_item: dict[str, dict[int, Any]] = {}
        #: analysis name -> its tables of rows for every item (pairwise_with_tables)
        self.tables: dict[str, dict[str, pd.DataFrame]] = {}
        self.stale: dict[str, set[int]] = {}


class JudgmentCache:
    """Pairwise judgments per filter set, as :func:`~workbench.services.outcomes.judgments_frame`
    reads them (``pairwise=True``), kept between calls for one bundle.

    Each call brings the frame up to date: the first reads everything; when judgments were only
    added since, only the rows stored after the last fingerprint are read (in SQL) and put in
    their stored-order place; after a retraction (an undo) or an adjudication everything is read
    again. The frame returned is the kept one: callers must not modify it. Thread-safe (one
    update at a time)."""

    def __init__(self, max_kept: int = MAX_KEPT) -> None:
        if max_kept < 1:
            raise ValueError("the cache must keep at least one frame")
        self.max_kept = max_kept
        self._kept: OrderedDict[FilterKey, _Kept] = OrderedDict()
        self._lock = threading.RLock()
        #: how frames were brought up to date (for tests and the bench)
        self.full_reads = 0
        self.incremental_reads = 0
        #: items whose per-item values were computed (all of them after a full read)
        self.items_computed = 0

    def pairwise(self, bundle: Bundle, *filters: OutcomeFilter | None) -> pd.DataFrame:
        """The pairwise judgments every filter keeps, up to date with ``bundle``."""
        with self._lock:
            return self._update(bundle, _key(filters)).frame

    def per_item(
        self, bundle: Bundle, name: str, filters: tuple[OutcomeFilter | None, ...], compute: PerItem
    ) -> dict[int, Any]:
        """The per-item analysis ``name`` (``compute``) of the filters' judgments, up to date:
        computed on every item after a full read, on the items the new judgments touch after
        an incremental one, and kept for the others. ``compute`` of a frame must give each item
        the value it gives on all that item's rows, whatever other items the frame holds."""
        with self._lock:
            kept = self._update(bundle, _key(filters))
            values = kept.per_item.get(name)
            if values is None:
                values = kept.per_item[name] = dict(compute(kept.frame))
                self.items_computed += _items(kept.frame)
            elif kept.stale.get(name):
                touched = kept.stale[name]
                rows = kept.frame[kept.frame["item"].isin(touched)]
                for item in touched:
                    values.pop(item, None)
                values.update(compute(rows))
                self.items_computed += len(touched)
            kept.stale[name] = set()
            return values

    def pairwise_with_tables(
        self,
        bundle: Bundle,
        filters: tuple[OutcomeFilter | None, ...],
        name: str,
        compute: PerItemTables,
    ) -> tuple[pd.DataFrame, dict[str, pd.DataFrame] | None]:
        """The filters' pairwise judgments (as :meth:`pairwise`) and, from the same snapshot,
        the tables ``name`` (``compute``) of them, up to date (None when no judgment matches):
        ``compute`` of the whole frame after a full read; after an incremental one, each
        table's rows of the items the new judgments touch are dropped and ``compute`` of those
        items' judgments put in their place (at the end: callers must not rely on the row
        order). ``compute`` must give each item the rows it gives on all that item's
        judgments, whatever other items the frame holds (as a per-comparison majority does),
        in tables with an ``item`` column. Neither is to be modified."""
        with self._lock:
            kept = self._update(bundle, _key(filters))
            if kept.frame.empty:
                return kept.frame, None
            tables = kept.tables.get(name)
            if tables is None:
                tables = dict(compute(kept.frame))
                self.items_computed += _items(kept.frame)
            elif kept.stale.get(name):
                touched = kept.stale[name]
                fresh = compute(kept.frame[kept.frame["item"].isin(touched)])
                tables = {
                    key: _replaced(table, touched, fresh[key]) for key, table in tables.items()
                }
                self.items_computed += len(touched)
            kept.tables[name] = tables
            kept.stale[name] = set()
            return kept.frame, tables

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def _update(self, bundle: Bundle, key: FilterKey) -> _Kept:
        kept = self._kept.pop(key, None) or _Kept()
        self._kept[key] = kept  # the most recently used last
        while len(self._kept) > self.max_kept:
            self._kept.popitem(last=False)
        with bundle.read_session() as session:  # one snapshot: fingerprint and rows agree
            step = catch_up(session, kept.fingerprint)
            now = step.now
            if step.full:
                frame = judgments_frame(session, *key, pairwise=True)
                self.full_reads += 1
                kept.frame, kept.fingerprint = frame, now
                kept.per_origin = [int((frame["origin"] == name).sum()) for name in ORIGINS]
                kept.per_item.clear()
                kept.tables.clear()
                kept.stale.clear()
                return kept
            if step.after is None:
                return kept
            added = judgments_frame(session, *key, pairwise=True, after=step.after)
            self.incremental_reads += 1
        kept.fingerprint = now
        if not added.empty:
            _insert(kept, added)
        return kept


def _key(filters: tuple[OutcomeFilter | None, ...]) -> FilterKey:
    # the read model reads a missing filter as "keep everything"
    return tuple(one or OutcomeFilter() for one in filters) or (OutcomeFilter(),)


def _items(frame: pd.DataFrame) -> int:
    return int(frame["item"].nunique()) if "item" in frame.columns else 0


def _replaced(table: pd.DataFrame, touched: set[int], fresh: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the rows of the ``touched`` items replaced by ``fresh``."""
    rest = table[~table["item"].isin(touched)]
    # an empty piece adds no rows, and its column types (of an empty frame) do not count
    pieces = [piece for piece in (rest, fresh) if not piece.empty]
    return pd.concat(pieces, ignore_index=True) if pieces else fresh


def _insert(kept: _Kept, added: pd.DataFrame) -> None:
    """Put the rows ``added`` into the kept frame where a single read would have them: stored
    order is by origin, then by id within it, and a new row's id is above every kept row's of
    its origin, so each origin's new rows go right after that origin's kept rows."""
    pieces: list[pd.DataFrame] = []
    start = 0
    for rank, origin in enumerate(ORIGINS):
        end = start + kept.per_origin[rank]
        if end > start:
            pieces.append(kept.frame.iloc[start:end])
        new = added[added["origin"] == origin]
        if not new.empty:
            pieces.append(new)
            kept.per_origin[rank] += len(new)
        start = end
    # an empty kept frame adds no piece: its columns' types (of an empty read) do not count
    kept.frame = pd.concat(pieces, ignore_index=True)
    touched = {int(item) for item in added["item"].dropna()}
    for name in [*kept.per_item, *kept.tables]:
        kept.stale.setdefault(name, set()).update(touched)
