"""The panels' tables size their columns from a sample of rows, so filling a table with
10,000 rows costs the GUI thread a bounded number of ``data()`` calls (before, a 433-row
cycles table sized to its contents made 62,898)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableView
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from workbench.gui.panels.column_widths import SAMPLE_ROWS, fit_columns_to_sample, sample_widths
from workbench.gui.panels.rows_model import Index, RowsTableModel

pytestmark = pytest.mark.gui

ROWS = 10_000
#: header + sample for three columns, plus the cells of one screenful painted
CALL_BUDGET = 400


class CountingRowsModel(RowsTableModel):
    """The panels' row model, counting how often a view asks it for a cell's text (a painted
    cell is also asked for its font, colours and alignment; those calls follow the same
    cells)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls = 0

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            self.calls += 1
        return super().data(index, role)


def _rows(count: int) -> list[tuple[str, str, int]]:
    return [(f"source/item-{number}", "category", number % 7) for number in range(count)]


def test_a_shown_panel_filled_with_10000_rows_reads_a_sample(qtbot: QtBot) -> None:
    from workbench.gui.background import BackgroundRunner
    from workbench.gui.linked_selection import LinkedSelection
    from workbench.gui.panels.graph_panel import GraphPanel

    panel = GraphPanel(LinkedSelection(), BackgroundRunner())
    qtbot.addWidget(panel)
    model = CountingRowsModel(("item", "category", "cycles"), panel)
    # the panel's own view set-up, given the counting model
    panel.cycles_view.setModel(model)
    fit_columns_to_sample(panel.cycles_view)
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitExposed(panel, timeout=HANG_GUARD_MS)

    model.calls = 0
    model.set_rows(_rows(ROWS))
    qtbot.waitUntil(lambda: model.calls > 0, timeout=HANG_GUARD_MS)  # the visible rows painted
    assert model.calls <= CALL_BUDGET, f"{model.calls} data() calls for {ROWS} rows"
    header = panel.cycles_view.horizontalHeader()
    assert header.sectionSize(0) > header.fontMetrics().horizontalAdvance("item")


def test_resize_to_contents_reads_every_row(qtbot: QtBot) -> None:
    """The counter sees the cost that the sample avoids (the test above can fail)."""
    model = CountingRowsModel(("item", "category", "cycles"))
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.show()
    qtbot.waitExposed(view, timeout=HANG_GUARD_MS)
    model.calls = 0
    model.set_rows(_rows(2_000))
    qtbot.waitUntil(lambda: model.calls > 2_000, timeout=HANG_GUARD_MS)


def test_widths_follow_the_sample_and_the_header(qtbot: QtBot) -> None:
    model = RowsTableModel(("a long header name", "x"))
    model.set_rows([("short", "w" * 30)] + [("s", "t")] * (SAMPLE_ROWS + 10) + [("w" * 60, "t")])
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    first, second = sample_widths(view)
    metrics = view.fontMetrics()
    assert first >= view.horizontalHeader().fontMetrics().horizontalAdvance("a long header name")
    assert first < metrics.horizontalAdvance("w" * 60)  # the row past the sample is not measured
    assert second >= metrics.horizontalAdvance("w" * 30)


def test_no_panel_table_resizes_to_its_contents(qtbot: QtBot) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.analysis.show_all()
    tables = window.findChildren(QTableView)
    assert len(tables) > 5
    for table in tables:
        header = table.horizontalHeader()
        modes = {header.sectionResizeMode(column) for column in range(header.count())}
        assert QHeaderView.ResizeMode.ResizeToContents not in modes, table.objectName()
    window.close()
