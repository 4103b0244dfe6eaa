"""Column widths for the panels' tables, computed from the header and a sample of rows.

Qt's ``QHeaderView.ResizeToContents`` measures every cell of every column on the GUI thread,
each time the model changes: a 433-row table cost 62,898 ``data()`` calls. Here the
widths come from the header and the first :data:`SAMPLE_ROWS` rows measured with the view's
font metrics, so the work is bounded whatever the table holds; the user can still drag a
column wider (the sections stay interactive)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtWidgets import QHeaderView, QTableView

#: rows measured for a column's width; the rest of a long table is assumed to look alike
SAMPLE_ROWS = 50
#: the widest a column is made automatically (a long text is elided, the column can be dragged)
MAX_WIDTH = 420
#: room for the cell's margins and the header's sort arrow
PADDING = 24


def sample_widths(view: QTableView, sample_rows: int = SAMPLE_ROWS) -> list[int]:
    """Each column's width: the widest of its header and its first ``sample_rows`` cells."""
    model = view.model()
    if model is None:
        return []
    metrics = view.fontMetrics()
    header_metrics = view.horizontalHeader().fontMetrics()
    rows = min(model.rowCount(), sample_rows)
    widths = []
    for column in range(model.columnCount()):
        title = model.headerData(column, Qt.Orientation.Horizontal)
        width = header_metrics.horizontalAdvance(str(title or ""))
        for row in range(rows):
            text = model.data(model.index(row, column))
            if text is not None:
                width = max(width, metrics.horizontalAdvance(str(text)))
        widths.append(min(width + PADDING, MAX_WIDTH))
    return widths


def fit_columns_to_sample(view: QTableView, sample_rows: int = SAMPLE_ROWS) -> None:
    """Size ``view``'s columns from a sample of rows now and whenever its model is reset or
    laid out again; the sections stay interactive. Call after the view has its model."""
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(False)

    def apply() -> None:
        for column, width in enumerate(sample_widths(view, sample_rows)):
            header.resizeSection(column, width)

    model: QAbstractItemModel | None = view.model()
    if model is not None:
        model.modelReset.connect(apply)
        model.layoutChanged.connect(apply)
    apply()
