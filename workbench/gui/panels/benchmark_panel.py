"""The Benchmark dock: the paper's tables of the open bundle's benchmark (VisIT-Bench's Elo,
win rate against the reference and majority agreement; ConvBench's S and R scores, ablation
deltas and per-task heatmap; CHIRP's bootstrapped Elo, kappa bands, cycles and dCor;
VisionArena's and WildVision-Bench's boards, categories, style control and rank correlation), from
the service ``workbench scores`` and the report's "Benchmark scores" section call, computed in
the panels' worker. A benchmark gets a page by registering a score provider in its plugin."""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui import panel_computations
from workbench.gui.panel_computations import BenchmarkPage, bundle_ref
from workbench.gui.panels.column_widths import fit_columns_to_sample
from workbench.gui.panels.computing import ComputingStatus
from workbench.gui.panels.figure_view import FigureView
from workbench.gui.panels.latest_only import LatestOnly, Runner
from workbench.gui.panels.rows_model import RowsTableModel, display_text
from workbench.services.analysis import AnalysisChoices
from workbench.services.analysis_request import DEFAULT_BOOTSTRAP_ROUNDS
from workbench.storage import Bundle

log = logging.getLogger(__name__)

NO_BENCHMARK = (
    "No benchmark with tables of its own (VisIT-Bench, ConvBench, CHIRP, WildVision-Bench, "
    "VisionArena) has judgments in this "
    "bundle. Import one (File > Import… or `workbench import`) or judge its items "
    "(`workbench judge`)."
)


def _delete_when_idle(view: QWidget, busy: bool) -> None:
    if not busy:
        view.deleteLater()


def _cell(value: Any) -> str:
    return display_text(value, digits=3)


class BenchmarkPanel(QWidget):
    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.tasks = LatestOnly(runner, self)
        self.bundle: Bundle | None = None
        #: the page shown (its tables are ``workbench scores --json``'s)
        self.page: BenchmarkPage | None = None
        #: the model attribute file (CSV) given for the tables that need one
        self.model_attributes: str | None = None
        #: why the last computation gave no page (None: it gave one, or none ran yet)
        self.failure: str | None = None

        self.benchmark = QComboBox(self)
        self.benchmark.setToolTip("The benchmark whose paper's tables to show")
        self.attributes_button = QPushButton("Model attributes…", self)
        self.attributes_button.setToolTip(
            "A CSV with a 'model' column and numeric ones (size...), for CHIRP's distance "
            "correlation of Elo and its larger-model preference"
        )
        self.rounds = QSpinBox(self)
        self.rounds.setRange(0, 2000)
        self.rounds.setSingleStep(100)
        self.rounds.setValue(DEFAULT_BOOTSTRAP_ROUNDS)
        self.rounds.setToolTip(
            "Bootstrap rounds of the boards read off the leaderboards (VisionArena, "
            "WildVision-Bench; 0 for none); CHIRP's and VisIT-Bench's Elo tables keep their "
            "paper's rounds"
        )
        self.refresh_button = QPushButton("Refresh", self)
        self.status = QLabel("No bundle open.", self)
        self.computing = ComputingStatus((self.tasks,), (), self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Benchmark", self))
        top.addWidget(self.benchmark)
        top.addWidget(self.attributes_button)
        top.addWidget(QLabel("Rounds", self))
        top.addWidget(self.rounds)
        top.addWidget(self.refresh_button)
        top.addStretch(1)
        top.addWidget(self.computing)
        top.addWidget(self.status)

        self.request_line = QLabel("Request: none yet", self)
        self.request_line.setWordWrap(True)
        self.request_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_command_button = QPushButton("Copy command", self)
        self.copy_command_button.setToolTip(
            "Copy the workbench scores command that prints these tables"
        )
        self.copy_command_button.setEnabled(False)
        request_row = QHBoxLayout()
        request_row.addWidget(self.request_line, 1)
        request_row.addWidget(self.copy_command_button)

        self.tabs = QTabWidget(self)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(request_row)
        layout.addWidget(self.message)
        layout.addWidget(self.tabs, 1)
        self.message.hide()

        #: the table models by table name, and the figure views by figure name
        self.tables: dict[str, RowsTableModel] = {}
        self.figures: dict[str, FigureView] = {}

        self.benchmark.currentIndexChanged.connect(self.refresh)
        self.refresh_button.clicked.connect(self.refresh)
        self.rounds.editingFinished.connect(self.refresh)
        self.attributes_button.clicked.connect(self._choose_attributes)
        self.copy_command_button.clicked.connect(self.copy_command)

    @property
    def busy(self) -> bool:
        return self.tasks.busy or any(view.busy for view in self.figures.values())

    def set_on_screen(self, visible: bool) -> None:
        """Nothing waits for the panel to be shown: the docks refresh it when it is stale."""

    def set_bundle(self, bundle: Bundle | None, choices: AnalysisChoices | None) -> None:
        self.tasks.forget()
        self.bundle = bundle
        self.page = None
        self._clear()
        self.benchmark.blockSignals(True)
        self.benchmark.clear()
        self.benchmark.blockSignals(False)
        self.status.setText("" if bundle is not None else "No bundle open.")

    def choose(self, benchmark: str) -> None:
        """Show ``benchmark``'s page, as picking it in the list does."""
        index = self.benchmark.findData(benchmark)
        if index < 0:
            self.benchmark.blockSignals(True)
            self.benchmark.addItem(benchmark, benchmark)
            self.benchmark.blockSignals(False)
            index = self.benchmark.count() - 1
        self.benchmark.setCurrentIndex(index)
        self.refresh()

    def set_model_attributes(self, path: str | Path | None) -> None:
        """Use the model attribute file ``path`` (None: none) and compute again."""
        self.model_attributes = None if path is None else str(path)
        self.attributes_button.setText(
            "Model attributes…" if path is None else f"Model attributes: {Path(path).name}"
        )
        self.refresh()

    def _choose_attributes(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Model attributes", "", "CSV files (*.csv);;All files (*)"
        )
        if path:
            self.set_model_attributes(path)

    def command(self) -> str | None:
        """The ``workbench scores`` command that prints the tables shown."""
        if self.page is None or self.page.result is None:
            return None
        return self.page.result.command

    def copy_command(self) -> None:
        command = self.command()
        if command is not None:
            QApplication.clipboard().setText(command)

    def refresh(self) -> None:
        bundle = self.bundle
        if bundle is None:
            return
        chosen = self.benchmark.currentData()
        self.status.setText("")
        self.tasks.submit(
            partial(
                panel_computations.benchmark_page,
                bundle_ref(bundle),
                chosen,
                self.model_attributes,
                self.rounds.value(),
            ),
            self._show,
            self._failed,
        )

    def table_frame(self, name: str) -> pd.DataFrame:
        """Table ``name`` as shown (the values under the cells, not their text)."""
        model = self.tables[name]
        return pd.DataFrame(model.rows, columns=model.headers)

    def _show(self, page: BenchmarkPage) -> None:
        self.page = page
        self.failure = None
        self.benchmark.blockSignals(True)
        self.benchmark.clear()
        for name in page.benchmarks:
            self.benchmark.addItem(name, name)
        if page.result is not None:
            self.benchmark.setCurrentIndex(self.benchmark.findData(page.result.benchmark))
        self.benchmark.blockSignals(False)
        self._clear()
        result = page.result
        if result is None:
            self.message.setText(NO_BENCHMARK)
            self.message.show()
            self.request_line.setText("Request: none yet")
            self.copy_command_button.setEnabled(False)
            return
        self.request_line.setText(f"Request: {result.benchmark} scores, {result.filters}")
        self.request_line.setToolTip(result.command)
        self.copy_command_button.setEnabled(True)
        empty = []
        for name, table in result.tables.items():
            if table.empty:
                empty.append(name)
                continue
            model = RowsTableModel([str(column) for column in table.columns], self)
            model.formats = dict.fromkeys(range(len(table.columns)), _cell)
            model.set_rows(list(table.itertuples(index=False, name=None)))
            view = QTableView(self)
            view.setModel(model)
            fit_columns_to_sample(view)
            self.tables[name] = model
            self.tabs.addTab(view, name.replace("_", " "))
        for name, recipe in page.figures.items():
            figure = FigureView(self.runner, "", self)
            self.figures[name] = figure
            self.tabs.addTab(figure, name)
            figure.show_figure(recipe)
        shown = len(result.tables) - len(empty)
        self.status.setText(f"{shown} table(s)" + (f"; empty: {', '.join(empty)}" if empty else ""))

    def _failed(self, error: BaseException) -> None:
        if not isinstance(error, WorkbenchError):
            log.error("the benchmark's tables failed", exc_info=error)
        self.page = None
        self.failure = str(error)
        self._clear()
        self.status.setText(str(error))
        self.copy_command_button.setEnabled(False)

    def _clear(self) -> None:
        self.message.hide()
        while self.tabs.count():
            widget = self.tabs.widget(0)
            self.tabs.removeTab(0)
            if isinstance(widget, FigureView) and widget.busy:
                # its drawing still runs: drop its answer, and delete the view once the job
                # is over (deleted now, the job's end would reach a deleted view)
                widget.tasks.forget()
                widget.hide()
                widget.tasks.busyChanged.connect(partial(_delete_when_idle, widget))
            elif widget is not None:
                widget.deleteLater()
        self.tables.clear()
        self.figures.clear()
