"""Battle counts per (model_a, model_b, outcome) kept up to date for one leaderboard filter: a
vote adds its counts without re-reading the judgments already counted, so the panel's
Bradley-Terry refresh after a vote costs what the new judgments cost, not what the bundle
holds."""

from __future__ import annotations

from workbench.storage import Bundle
from workbench.storage.judgments import (
    OutcomeFilter,
    catch_up,
    positioned_battle_counts,
)

#: a battle count as :func:`workbench.storage.judgments.battle_counts` returns it
CountRow = tuple[str, str, str, float, int]


class BattleTally:
    """The battle counts of ``filters`` (with ``decisive_weight``), as of :attr:`fingerprint`.

    :meth:`update` reads only the judgments stored since the last update when judgments were
    only added, and reads everything again when any was retracted (an undo) or on first use.
    Not thread-safe: one update at a time (the panel runs one computation at a time)."""

    def __init__(self, filters: OutcomeFilter, decisive_weight: float | None) -> None:
        self.filters = filters
        self.decisive_weight = decisive_weight
        #: the fingerprint of the judgments counted so far (None: nothing read yet)
        self.fingerprint: tuple[int, ...] | None = None
        #: (model_a, model_b, outcome) -> [weight, judgments, first position in stored order]
        self._cells: dict[tuple[str, str, str], list[float | int]] = {}
        #: :meth:`rows` as last built, and each cell's row in it: a vote that only adds to
        #: cells already counted (all of them, once 100 models have met) updates those rows
        #: in place instead of sorting 80,000 cells again
        self._rows: list[CountRow] | None = None
        self._row_of: dict[tuple[str, str, str], int] = {}
        #: how the counts were brought up to date (for tests and the bench)
        self.full_reads = 0
        self.incremental_reads = 0
        #: how often the rows were sorted again (a vote into counted cells does not)
        self.row_sorts = 0

    def matches(self, filters: OutcomeFilter, decisive_weight: float | None) -> bool:
        return filters == self.filters and decisive_weight == self.decisive_weight

    def update(self, bundle: Bundle) -> list[CountRow]:
        """Bring the counts up to date with ``bundle`` and return them, in the order of
        :func:`~workbench.storage.judgments.battle_counts` (each triple's first appearance)."""
        with bundle.read_session() as session:  # one snapshot: fingerprint and rows agree
            step = catch_up(session, self.fingerprint)
            now = step.now
            if step.full:
                rows = positioned_battle_counts(
                    session, self.filters, decisive_weight=self.decisive_weight
                )
                cells: dict[tuple[str, str, str], list[float | int]] = {}
                self.full_reads += 1
            elif step.after is not None:
                rows = positioned_battle_counts(
                    session, self.filters, decisive_weight=self.decisive_weight, after=step.after
                )
                cells = self._cells
                self.incremental_reads += 1
            else:
                rows, cells = [], self._cells
        if cells is not self._cells:  # read afresh: the rows are built again
            self._rows = None
        touched: list[tuple[str, str, str]] = []
        for a, b, outcome, weight, judgments, first in rows:
            key = (a, b, outcome)
            cell = cells.get(key)
            if cell is None:
                cells[key] = [weight, judgments, first]
                self._rows = None  # a new cell has its own place in the order
            else:
                cell[0] += weight
                cell[1] += judgments
                if first < cell[2]:
                    cell[2] = first
                    self._rows = None
            touched.append(key)
        self._cells, self.fingerprint = cells, now
        if self._rows is not None:
            for key in touched:
                total_weight, total_judgments, _first = self._cells[key]
                self._rows[self._row_of[key]] = (*key, float(total_weight), int(total_judgments))
        return self.rows()

    def rows(self) -> list[CountRow]:
        """The counts, each triple once, in the order of its first appearance (a new list; the
        tally keeps its own)."""
        if self._rows is None:
            self.row_sorts += 1
            ordered = sorted(self._cells.items(), key=lambda entry: entry[1][2])
            self._rows = [
                (a, b, outcome, float(weight), int(judgments))
                for (a, b, outcome), (weight, judgments, _) in ordered
            ]
            self._row_of = {row[:3]: position for position, row in enumerate(self._rows)}
        return list(self._rows)
