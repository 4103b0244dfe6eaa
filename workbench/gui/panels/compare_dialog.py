"""The Leaderboard panel's "Compare with...": the board on screen against a second request (the
other kind of judgments, one judge run, one category, or another bundle), compared by rank
through the service ``workbench compare-rankings`` calls (Spearman, Kendall, Pearson and
confidence agreement), with the request line and the command that prints the same figures."""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui import panel_computations
from workbench.gui.panel_computations import bundle_ref
from workbench.gui.panels.latest_only import LatestOnly, Runner
from workbench.gui.panels.request_line import RequestLine
from workbench.gui.panels.rows_model import RowsTableModel
from workbench.services.analysis_request import (
    HUMAN,
    JUDGE,
    KIND_LABELS,
    POOLED,
    AnalysisRequest,
)

if TYPE_CHECKING:
    from workbench.services.analysis import AnalysisChoices
    from workbench.services.rank_comparison import RankingComparisonResult
    from workbench.storage import Bundle

log = logging.getLogger(__name__)

RANK_HEADERS = ("model", "rating A", "rating B", "rank A", "rank B")
ANY = "(as shown)"
THIS_BUNDLE = "This bundle"
#: the kinds a second board can count (the default rule resolves to one of them)
SECOND_KINDS = (HUMAN, JUDGE, POOLED)


def _figure(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None or value != value else f"{value:.{digits}f}"


def second_request(
    shown: AnalysisRequest,
    kind: str | None = None,
    judge_run: str | None = None,
    category: str | None = None,
) -> AnalysisRequest:
    """The request compared with the board ``shown``: its counting and fitting, with the
    judgments and items the dialog names (None keeps the shown board's), its anchor left to
    the default (an anchor moves ratings, not ranks)."""
    changes: dict[str, object] = {"anchor": None}
    if kind is not None:
        changes["kind"] = kind
    if judge_run is not None:
        changes["judge_runs"] = (judge_run,)
        changes["kind"] = JUDGE
    if category is not None:
        changes["categories"] = (category,)
    return replace(shown, **changes)  # type: ignore[arg-type]


class CompareDialog(QDialog):
    """Compares the Leaderboard panel's shown board with a second request."""

    def __init__(
        self,
        runner: Runner,
        bundle: Bundle,
        shown: AnalysisRequest,
        choices: AnalysisChoices | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare with…")
        self.bundle = bundle
        self.shown = shown
        self.tasks = LatestOnly(runner, self)
        self.comparison: RankingComparisonResult | None = None
        #: the other bundle's location, or None for this one
        self.other: str | None = None

        self.first = QLabel(f"A (the board shown): {shown.describe()}", self)
        self.first.setWordWrap(True)
        self.where = QComboBox(self)
        self.where.addItem(THIS_BUNDLE, None)
        self.where.addItem("Other bundle…", "choose")
        self.kind = QComboBox(self)
        self.kind.addItem(ANY, None)
        for key in SECOND_KINDS:
            self.kind.addItem(KIND_LABELS[key], key)
        self.judge_run = QComboBox(self)
        self.judge_run.addItem(ANY, None)
        self.judge_run.setToolTip("Only this judge run's verdicts (judge kind)")
        self.category = QComboBox(self)
        self.category.addItem(ANY, None)
        if choices is not None:
            for side in choices.sides:
                if side.startswith("run:"):
                    name = side.removeprefix("run:")
                    self.judge_run.addItem(name, name)
            for name in choices.categories:
                self.category.addItem(name, name)
        self.compare_button = QPushButton("Compare", self)
        self.compare_button.setDefault(True)
        self.status = QLabel("Choose the second board and press Compare.", self)
        self.status.setWordWrap(True)
        self.figures = QLabel("", self)
        self.figures.setWordWrap(True)
        self.request_row = RequestLine("workbench compare-rankings", self)
        self.model = RowsTableModel(RANK_HEADERS, self)
        self.table = QTableView(self)
        self.table.setModel(self.model)

        form = QFormLayout()
        form.addRow("Bundle", self.where)
        form.addRow("Judgments", self.kind)
        form.addRow("Judge run", self.judge_run)
        form.addRow("Category", self.category)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.compare_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.request_row)
        layout.addWidget(self.first)
        layout.addWidget(QLabel("B: the shown board's settings, with", self))
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.figures)
        layout.addWidget(self.table, 1)
        self.where.activated.connect(self._where_chosen)
        self.compare_button.clicked.connect(self.compare)
        self.resize(640, 520)

    def choose_other_bundle(self, location: str | None) -> None:
        """Compare with the bundle at ``location`` (None: this bundle)."""
        self.other = location
        self.where.blockSignals(True)
        if location is None:
            self.where.setCurrentIndex(0)
        else:
            index = self.where.findData(location)
            if index < 0:
                self.where.insertItem(1, Path(location).name, location)
                index = 1
            self.where.setCurrentIndex(index)
        self.where.blockSignals(False)

    def _where_chosen(self) -> None:
        data = self.where.currentData()
        if data != "choose":
            self.other = data
            return
        name, _ = QFileDialog.getOpenFileName(
            self, "Compare with a bundle", "", "Bundles (*.wbb);;All files (*)"
        )
        self.choose_other_bundle(name or None)

    def request_b(self) -> AnalysisRequest:
        """The second request of the pickers."""
        return second_request(
            self.shown,
            kind=self.kind.currentData(),
            judge_run=self.judge_run.currentData(),
            category=self.category.currentData(),
        )

    def compare(self) -> None:
        """Compute the comparison in the panels' worker; the figures come when it is done."""
        try:
            request = self.request_b()
        except WorkbenchError as error:
            self._failed(error)
            return
        self.status.setText("Computing both boards…")
        self.tasks.submit(
            partial(
                panel_computations.compare_rankings,
                bundle_ref(self.bundle),
                self.shown,
                self.other,
                request,
            ),
            self._show,
            self._failed,
        )

    @property
    def busy(self) -> bool:
        return self.tasks.busy

    def _show(self, result: RankingComparisonResult) -> None:
        self.comparison = result
        found = result.comparison
        order = found.ci_order
        agreement = (
            "n/a (a board has no confidence intervals)"
            if order is None
            else f"{_figure(order.share)} ({order.agree} of {order.pairs} model pairs ordered "
            f"the same way by both boards' 95% intervals, {order.contradict} oppositely)"
        )
        only = "; ".join(
            f"only in {name} (left out): {', '.join(models)}"
            for name, models in (("A", found.only_a), ("B", found.only_b))
            if models
        )
        self.figures.setText(
            f"Shared models: {len(found.models)}\n"
            f"Spearman: {_figure(found.spearman)}\n"
            f"Kendall tau-b: {_figure(found.kendall_tau)}\n"
            f"Pearson (ratings): {_figure(found.pearson)}\n"
            f"Confidence agreement: {agreement}" + (f"\n{only}" if only else "")
        )
        self.model.set_rows(
            [
                (row.model, row.rating_a, row.rating_b, row.rank_a, row.rank_b)
                for row in result.ranks().itertuples(index=False)
            ]
        )
        self.request_row.set_request(result.describe(), result.command())
        self.status.setText(f"B: {result.b.source} ({result.b.kind})")

    def _failed(self, error: BaseException) -> None:
        if not isinstance(error, WorkbenchError):
            log.error("comparing rankings failed", exc_info=error)
        self.comparison = None
        self.model.set_rows([])
        self.figures.setText("")
        self.request_row.set_request(None, None)
        self.status.setText(f"Cannot compare: {error}")
