"""The failure-case browser dock: items that answer a PI's question (judge and human majority
disagree, preference cycles, a chosen model loses to all others, a flagged reference); a row
opens the item in the inspector through the shared selection."""

from __future__ import annotations

import logging
from functools import partial

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui import panel_computations
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.panel_computations import bundle_ref
from workbench.gui.panels.column_widths import fit_columns_to_sample
from workbench.gui.panels.computing import ComputingStatus
from workbench.gui.panels.empty_hint import FAILURES_HINT, install_empty_hint
from workbench.gui.panels.latest_only import LatestOnly, Runner
from workbench.gui.panels.request_line import RequestLine
from workbench.gui.panels.rows_model import RowsTableModel
from workbench.services.analysis import (
    FAILURE_KINDS,
    LOSES_TO_ALL,
    AnalysisChoices,
    FailureCases,
    FailureRow,
)
from workbench.storage import Bundle

log = logging.getLogger(__name__)


class FailuresPanel(QWidget):
    def __init__(
        self, selection: LinkedSelection, runner: Runner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.selection = selection
        self.tasks = LatestOnly(runner, self)
        self.bundle: Bundle | None = None
        self.failure_rows: list[FailureRow] = []

        self.kind = QComboBox(self)
        for key, label in FAILURE_KINDS.items():
            self.kind.addItem(label, key)
        self.model_choice = QComboBox(self)
        self.model_choice.setToolTip("The model that loses to all others")
        top = QHBoxLayout()
        top.addWidget(QLabel("Show items where", self))
        top.addWidget(self.kind)
        top.addWidget(self.model_choice)
        top.addStretch(1)
        self.status = QLabel("", self)
        top.addWidget(self.status)

        self.model = RowsTableModel(("item", "category", "why"), self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        fit_columns_to_sample(self.view)
        self.empty_hint = install_empty_hint(self.view, FAILURES_HINT)
        self.computing = ComputingStatus((self.tasks,), (self.empty_hint,), self)
        top.insertWidget(top.count() - 1, self.computing)
        #: the question of the items shown, and the command that prints them
        self.request_row = RequestLine("workbench failures", self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.request_row)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)

        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.model_choice.currentIndexChanged.connect(self.refresh)
        self.view.clicked.connect(self.open_row)
        self.view.activated.connect(self.open_row)
        self._kind_changed()

    @property
    def busy(self) -> bool:
        return self.tasks.busy

    def set_bundle(self, bundle: Bundle | None, choices: AnalysisChoices | None) -> None:
        self.tasks.forget()
        self.bundle = bundle
        self.failure_rows = []
        self.model.set_rows([])
        self.request_row.set_request(None, None)
        self.model_choice.blockSignals(True)
        self.model_choice.clear()
        for model in choices.models if choices else ():
            self.model_choice.addItem(model, model)
        self.model_choice.blockSignals(False)

    def choose(self, kind: str, model: str | None = None) -> None:
        """Pick a failure case (and the model of "loses to all"), as the user would."""
        for combo, value in ((self.model_choice, model), (self.kind, kind)):
            if value is not None:
                combo.blockSignals(True)
                combo.setCurrentIndex(combo.findData(value))
                combo.blockSignals(False)
        self._kind_changed()

    def _kind_changed(self) -> None:
        self.model_choice.setVisible(self.kind.currentData() == LOSES_TO_ALL)
        self.refresh()

    def set_on_screen(self, visible: bool) -> None:
        """Nothing waits for the panel to be shown: the docks refresh it when it is stale."""

    def refresh(self) -> None:
        bundle = self.bundle
        if bundle is None:
            return
        kind = self.kind.currentData()
        model = self.model_choice.currentData() if kind == LOSES_TO_ALL else None
        self.status.setText("")
        self.failure_rows = []
        self.model.set_rows([])  # the rows of another question are not this one's answer
        self.request_row.set_request(None, None)
        self.tasks.submit(
            partial(panel_computations.failures, bundle_ref(bundle), kind, model),
            self._show,
            self._failed,
        )

    def _show(self, rows: FailureCases) -> None:
        self.request_row.set_request(rows.describe(), rows.command())
        self.failure_rows = rows
        self.model.set_rows([(row.label, row.category, row.detail) for row in rows])
        self.status.setText(f"{len(rows)} item(s)")

    def _failed(self, error: BaseException) -> None:
        if not isinstance(error, WorkbenchError):
            log.error("failure cases failed", exc_info=error)
        self.failure_rows = []
        self.model.set_rows([])
        self.request_row.set_request(None, None)
        self.status.setText(str(error))

    def open_row(self, index: QModelIndex) -> None:
        if index.isValid():
            self.selection.set_item(self.failure_rows[index.row()].item)
