"""The contradiction graph dock: the preference graph of the selected item or of a whole
category (arrows loser -> winner, red on a cycle, green otherwise, opacity the consensus), its
edges in a list whose selection shows the judgments behind the edge, and the items ranked by
how many preference cycles their judgments hold, per evaluator or pooled per item (the scopes of
``workbench contradictions --scope``); clicking a row selects that item everywhere. The graph
drawn is always of the item's (or category's) pooled judgments."""

from __future__ import annotations

import logging
from functools import partial

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui import panel_computations
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.panel_computations import GraphOutcome, bundle_ref
from workbench.gui.panels.column_widths import fit_columns_to_sample
from workbench.gui.panels.computing import ComputingStatus
from workbench.gui.panels.empty_hint import CYCLES_HINT, install_empty_hint
from workbench.gui.panels.figure_view import FigureView
from workbench.gui.panels.latest_only import LatestOnly, Runner
from workbench.gui.panels.pair_focus import row_of_pair, select_row
from workbench.gui.panels.request_line import RequestLine
from workbench.gui.panels.rows_model import RowsTableModel
from workbench.services.analysis import (
    EDGE_JUDGMENT_COLUMNS,
    SOURCE_FILTERS,
    AnalysisChoices,
    CycleRow,
    cycles_request,
)
from workbench.stats.cycle_scopes import CYCLE_SCOPES, DEFAULT_CYCLE_SCOPE
from workbench.stats.graph_plots import CYCLE_COLOUR
from workbench.storage import Bundle

log = logging.getLogger(__name__)

SELECTED_ITEM = "Selected item"


def _rows_table(model: RowsTableModel, parent: QWidget) -> QTableView:
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    fit_columns_to_sample(view)
    return view


class GraphPanel(QWidget):
    """Follows the shared selection's item (or shows a chosen category); its cycle list sets
    the item."""

    def __init__(
        self, selection: LinkedSelection, runner: Runner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.selection = selection
        self.list_tasks = LatestOnly(runner, self)
        self.graph_tasks = LatestOnly(runner, self)
        self.edge_tasks = LatestOnly(runner, self)
        self.bundle: Bundle | None = None
        self.cycle_rows: list[CycleRow] = []
        self.colours: dict[tuple[str, str], str] = {}
        self._item_stale = False
        #: whether the panel can be seen (its dock is open and its tab current); set by the docks
        self.on_screen = True

        self.source = QComboBox(self)
        for key in SOURCE_FILTERS:
            self.source.addItem(key, key)
        #: where a cycle is looked for: the scopes of ``workbench contradictions --scope``
        self.cycle_scope = QComboBox(self)
        for key, label in CYCLE_SCOPES.items():
            self.cycle_scope.addItem(label, key)
        self.cycle_scope.setCurrentIndex(self.cycle_scope.findData(DEFAULT_CYCLE_SCOPE))
        self.cycle_scope.setToolTip(
            "Per evaluator: a cycle within one evaluator's judgments of an item (an "
            "inconsistent evaluator; the default, as workbench contradictions). Pooled per "
            "item: all judgments of the item together (evaluators who disagree can form one)."
        )
        self.scope = QComboBox(self)
        self.scope.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.scope.setMinimumContentsLength(14)
        self.scope.setToolTip("Draw the selected item's graph, or one pooled over a category")
        top = QHBoxLayout()
        top.addWidget(QLabel("Judgments", self))
        top.addWidget(self.source)
        top.addWidget(QLabel("Graph of", self))
        top.addWidget(self.scope)
        top.addWidget(QLabel("Cycles", self))
        top.addWidget(self.cycle_scope)
        top.addStretch(1)
        self.status = QLabel("", self)
        top.addWidget(self.status)

        self.model = RowsTableModel(("item", "category", "cycles"), self)
        self.cycles_view = _rows_table(self.model, self)
        self.empty_hint = install_empty_hint(self.cycles_view, CYCLES_HINT)
        self.computing = ComputingStatus((self.list_tasks,), (self.empty_hint,), self)
        top.addWidget(self.computing)
        self.figure = FigureView(runner, "Select an item to see its preferences.", self)
        #: the shown graph's edges (loser, winner) in list order
        self.edges: list[tuple[str, str]] = []
        self.edges_model = RowsTableModel(
            ("loser", "winner", "votes", "consensus", "on a cycle"), self
        )
        self.edges_model.formats = {3: lambda value: f"{100 * value:.0f}%"}
        self.edges_view = _rows_table(self.edges_model, self)
        self.edges_view.setToolTip("Select an edge to see the judgments behind it")
        self.judgments_model = RowsTableModel(EDGE_JUDGMENT_COLUMNS, self)
        self.judgments_view = _rows_table(self.judgments_model, self)
        self._edge_scope: tuple[int | None, str | None] = (None, None)

        graph_side = QSplitter(Qt.Orientation.Vertical, self)
        graph_side.addWidget(self.figure)
        graph_side.addWidget(self.edges_view)
        graph_side.addWidget(self.judgments_view)
        graph_side.setSizes([400, 150, 150])
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(graph_side)
        splitter.addWidget(self.cycles_view)
        splitter.setSizes([600, 300])
        #: the question of the cycle list shown, and the command that lists the same items
        #: with the same judgments (``workbench failures --kind cycles``)
        self.request_row = RequestLine("workbench failures", self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.request_row)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

        self.source.currentIndexChanged.connect(self._question_changed)
        self.cycle_scope.currentIndexChanged.connect(self._question_changed)
        self.scope.currentIndexChanged.connect(self._scope_changed)
        self.edges_view.selectionModel().selectionChanged.connect(self._edge_selected)
        self.cycles_view.clicked.connect(self._row_clicked)
        self.cycles_view.activated.connect(self._row_clicked)
        selection.itemChanged.connect(self._show_item)
        selection.modelPairChanged.connect(self._focus_pair)
        # after _show_edges has run to its end, which drops the previous edge's judgments
        # (the panel as the timer's context: a panel closed meanwhile is not called)
        self.edges_model.modelReset.connect(
            lambda: QTimer.singleShot(0, self, lambda: self._focus_pair(self.selection.model_pair))
        )

    def set_on_screen(self, visible: bool) -> None:
        """While out of sight the panel only notes the selected item; shown, it draws it."""
        self.on_screen = visible
        if visible:
            self.catch_up()

    def catch_up(self) -> None:
        """Draw the item selected while the panel was out of sight."""
        if self._item_stale:
            self._show_item(self.selection.item_id)

    @property
    def busy(self) -> bool:
        return (
            self.list_tasks.busy
            or self.graph_tasks.busy
            or self.edge_tasks.busy
            or self.figure.busy
        )

    def set_bundle(self, bundle: Bundle | None, choices: AnalysisChoices | None = None) -> None:
        self.list_tasks.forget()
        self.graph_tasks.forget()
        self.bundle = bundle
        self.cycle_rows = []
        self.model.set_rows([])
        self.request_row.set_request(None, None)
        self._show_edges(None)
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem(SELECTED_ITEM, None)
        for category in choices.categories if choices else ():
            self.scope.addItem(f"Category: {category}", category)
        self.scope.blockSignals(False)

    def refresh(self) -> None:
        """Recount the cycles and redraw the selected item's graph (in the background)."""
        bundle = self.bundle
        if bundle is None:
            return
        source, scope = self.source.currentData(), self.cycle_scope.currentData()
        self.status.setText("")
        self.list_tasks.submit(
            partial(panel_computations.cycles, bundle_ref(bundle), source, scope),
            lambda rows: self._show_cycles(rows, scope=scope, source=source),
            self._failed,
        )
        self._show_item(self.selection.item_id)

    def _question_changed(self) -> None:
        """Another source or scope asks another question: the rows of the last one go, so
        they are not read as its answer while the new one is computed."""
        self.cycle_rows = []
        self.model.set_rows([])
        self.request_row.set_request(None, None)
        self.refresh()

    def _show_cycles(self, rows: list[CycleRow], scope: str, source: str) -> None:
        self.request_row.set_request(*cycles_request(source, scope))
        self.cycle_rows = rows
        self.model.set_rows([(row.label, row.category, row.cycles) for row in rows])
        label = CYCLE_SCOPES[scope]
        self.status.setText(
            f"{len(rows)} item(s) with preference cycles {label}"
            if rows
            else f"no preference cycles {label}"
        )

    def _scope_changed(self) -> None:
        self._show_item(self.selection.item_id)

    def _show_item(self, item_id: int | None) -> None:
        bundle = self.bundle
        category = self.scope.currentData()
        if bundle is None or (item_id is None and category is None):
            return
        if not self.on_screen:
            self._item_stale = True  # drawn when the panel is shown
            return
        self._item_stale = False
        source = self.source.currentData()
        if category is None:
            title = "Selected item: arrow from loser to winner"
            scope: tuple[int | None, str | None] = (item_id, None)
        else:
            title = f"Category {category}: arrow from loser to winner"
            scope = (None, category)

        self.graph_tasks.submit(
            partial(panel_computations.preference_graph, bundle_ref(bundle), *scope, source, title),
            lambda outcome: self._show_graph(scope, outcome),
            self._failed,
        )

    def _show_graph(self, scope: tuple[int | None, str | None], outcome: GraphOutcome) -> None:
        self.colours = outcome.colours
        self._edge_scope = scope
        self._show_edges(outcome.edges)
        self.figure.show_figure(outcome.figure)

    def _show_edges(self, edges: list[tuple[str, str, float, float]] | None) -> None:
        self.edges = [(loser, winner) for loser, winner, _votes, _share in edges or ()]
        self.edges_model.set_rows(
            [
                (
                    loser,
                    winner,
                    int(votes),
                    consensus,
                    "yes" if self.colours.get((loser, winner)) == CYCLE_COLOUR else "no",
                )
                for loser, winner, votes, consensus in edges or ()
            ]
        )
        self.edge_tasks.forget()  # judgments of an edge of the previous graph
        self.judgments_model.set_rows([])

    def _edge_selected(self) -> None:
        rows = self.edges_view.selectionModel().selectedRows()
        bundle = self.bundle
        if not rows or bundle is None:
            self.judgments_model.set_rows([])
            return
        edge = self.edges[rows[0].row()]
        item_id, category = self._edge_scope
        source = self.source.currentData()
        self.edge_tasks.submit(
            partial(
                panel_computations.edge_judgments,
                bundle_ref(bundle),
                edge,
                source,
                item_id,
                category,
            ),
            self.judgments_model.set_rows,
            self._failed,
        )

    def _focus_pair(self, pair: tuple[str, str] | None) -> None:
        """Select the linked pair's edge, which lists the judgments behind it; or none."""
        select_row(self.edges_view, row_of_pair(self.edges, pair))

    def _failed(self, error: BaseException) -> None:
        if not isinstance(error, WorkbenchError):
            log.error("contradiction graph failed", exc_info=error)
        self.status.setText(f"Cannot compute: {error}")

    def _row_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.selection.set_item(self.cycle_rows[index.row()].item)
