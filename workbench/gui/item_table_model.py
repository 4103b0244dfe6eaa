"""The item list's Qt model: the ids of the matching items in order, with their columns fetched
a page at a time as the view scrolls (``canFetchMore``/``fetchMore``), so a bundle of 100,000
items opens without reading 100,000 rows.

Sorting asks the owner for a new id list (:attr:`sortRequested`); the model itself runs no
query but the page fetch it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor

from workbench.gui.plain_text import plain_tooltip
from workbench.services.browse import ItemFlag, ItemRow, SortKey

PAGE_SIZE = 200

COLUMNS: tuple[tuple[str, SortKey], ...] = (
    ("ID", SortKey.ID),
    ("Source", SortKey.SOURCE),
    ("Category", SortKey.CATEGORY),
    ("Language", SortKey.LANGUAGE),
    ("Outputs", SortKey.OUTPUTS),
    ("Judgments", SortKey.JUDGMENTS),
    ("Flags", SortKey.FLAGS),
)
FLAG_SHORT = {
    ItemFlag.MISSING_IMAGE: "image",
    ItemFlag.REFERENCE_PROBLEM: "reference",
    ItemFlag.DISAGREEMENT: "disagreement",
}
ItemRowId = Qt.ItemDataRole.UserRole

Index = QModelIndex | QPersistentModelIndex


class ItemTableModel(QAbstractTableModel):
    """Rows are items; ``fetch_rows(ids)`` returns the :class:`ItemRow` of a page of ids."""

    sortRequested = Signal(object, bool)  # SortKey, descending

    def __init__(self, fetch_rows: Callable[[Sequence[int]], list[ItemRow]]) -> None:
        super().__init__()
        self._fetch_rows = fetch_rows
        self._ids: list[int] = []
        self._positions: dict[int, int] | None = None
        self._rows: list[ItemRow] = []
        #: the ids are the first page of a list still being read (see set_first_page)
        self._first_page_only = False

    # --- contents -------------------------------------------------------------------------------

    def set_ids(self, ids: Sequence[int]) -> None:
        """Show these items, in this order; the first page is fetched at once. After
        :meth:`set_first_page`, the rows it loaded are kept when ``ids`` begins with them."""
        first_page, self._first_page_only = self._first_page_only, False
        loaded = len(self._rows)
        if first_page and 0 < loaded <= len(ids) and self._ids[:loaded] == list(ids[:loaded]):
            self._ids = list(ids)
            self._positions = None
            return
        self.beginResetModel()
        self._ids = list(ids)
        self._positions = None
        self._rows = []
        self.endResetModel()
        if self._ids:
            self.fetchMore(QModelIndex())

    def set_first_page(self, ids: Sequence[int]) -> None:
        """Show the first ``ids`` of a list still being read; :meth:`set_ids` with the whole
        list then keeps these rows when it begins with them (no reset, no second read)."""
        self.set_ids(ids)
        self._first_page_only = True

    @property
    def ids(self) -> list[int]:
        return self._ids

    def total(self) -> int:
        """How many items match, loaded or not."""
        return len(self._ids)

    def position_of(self, item_id: int) -> int | None:
        """The row ``item_id`` has (or will have once loaded), or None if it is not listed."""
        if self._positions is None:
            self._positions = {item_id: row for row, item_id in enumerate(self._ids)}
        return self._positions.get(item_id)

    def ensure_loaded(self, row: int) -> None:
        """Fetch pages until ``row`` is loaded."""
        if row >= len(self._ids):
            return
        wanted = row + 1
        if wanted > len(self._rows):
            self._load(wanted - len(self._rows) + PAGE_SIZE)

    def add_flag(self, flag: ItemFlag, among: Sequence[int], flagged: set[int]) -> None:
        """Give ``flag`` to the loaded rows of ``among`` that are in ``flagged`` (a flag read
        after its page was shown, see :data:`~workbench.services.browse.SQL_FLAGS`)."""
        wanted = set(among) & flagged
        changed = [
            row
            for row, item in enumerate(self._rows)
            if item.id in wanted and flag not in item.flags
        ]
        for row in changed:
            item = self._rows[row]
            self._rows[row] = replace(item, flags=item.flags | {flag})
        if changed:
            column = len(COLUMNS) - 1
            self.dataChanged.emit(
                self.index(min(changed), column), self.index(max(changed), column)
            )

    def row_data(self, row: int) -> ItemRow | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def id_at(self, row: int) -> int | None:
        return self._ids[row] if 0 <= row < len(self._ids) else None

    # --- Qt model -------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and len(self._rows) < len(self._ids)

    def fetchMore(self, parent: Index) -> None:
        if not parent.isValid():
            self._load(PAGE_SIZE)

    def _load(self, count: int) -> None:
        start = len(self._rows)
        ids = self._ids[start : start + count]
        if not ids:
            return
        rows = self._fetch_rows(ids)
        self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        row = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 6 and row.flags:
                return plain_tooltip("\n".join(sorted(row.flags)))
            if column == 0:
                return plain_tooltip(f"{row.source}/{row.external_id} (row {row.id})")
            return plain_tooltip(self._display(row, column)) or None
        if role == Qt.ItemDataRole.ForegroundRole and column == 6 and row.flags:
            return QColor("#b00020")
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (4, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ItemRowId:
            return row.id
        return None

    @staticmethod
    def _display(row: ItemRow, column: int) -> str | int:
        if column == 0:
            return row.external_id
        if column == 1:
            return row.source
        if column == 2:
            return row.category_label
        if column == 3:
            return row.language or ""
        if column == 4:
            return row.outputs
        if column == 5:
            return row.judgments
        return ", ".join(FLAG_SHORT[flag] for flag in sorted(row.flags))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sortRequested.emit(COLUMNS[column][1], order == Qt.SortOrder.DescendingOrder)
