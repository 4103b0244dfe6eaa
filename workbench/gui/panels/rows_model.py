"""A read-only table model over a list of rows (tuples), for the panels' small tables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


def display_text(value: Any, digits: int = 1) -> str:
    """A cell's text: floats with ``digits`` decimals, NaN and None as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


class RowsTableModel(QAbstractTableModel):
    """Rows of values under ``headers``; ``formats`` maps a column to a function giving its
    text (default :func:`display_text`). The raw value is available under ``Qt.UserRole``."""

    def __init__(self, headers: Sequence[str], parent: Any = None) -> None:
        super().__init__(parent)
        self.headers = list(headers)
        self.rows: list[tuple[Any, ...]] = []
        self.formats: dict[int, Any] = {}
        #: columns whose cell shows its whole text as a tooltip (a column narrower than its
        #: longest text elides it)
        self.tooltip_columns: set[int] = set()

    def set_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole or (
            role == Qt.ItemDataRole.ToolTipRole and index.column() in self.tooltip_columns
        ):
            return self.formats.get(index.column(), display_text)(value)
        if role == Qt.ItemDataRole.UserRole:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(value, int | float):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return str(section + 1)
