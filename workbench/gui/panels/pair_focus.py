"""How a panel shows the linked selection's model pair in one of its tables: the row that
compares the two models (in either order) is selected and scrolled into sight, or none."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QAbstractItemView, QTableView


def row_of_pair(pairs: Iterable[tuple[str, str]], pair: tuple[str, str] | None) -> int | None:
    """The first row whose two models are ``pair``'s, either way round; None without one."""
    if pair is None:
        return None
    wanted = {pair[0], pair[1]}
    return next((row for row, (a, b) in enumerate(pairs) if {a, b} == wanted), None)


def select_row(view: QTableView, row: int | None) -> None:
    """Select ``row`` of ``view`` alone (None: clear the selection)."""
    selection = view.selectionModel()
    model = view.model()
    if row is None or not 0 <= row < model.rowCount():
        selection.clearSelection()
        return
    index = model.index(row, 0)
    selection.select(
        index,
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    view.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
