"""The agreement dock: how often one side's majority (by default the humans') matches the
other's (the judges', a judge run's, an annotator's) on the comparisons both judged (with and
without ties, Cohen's and CHIRP's kappa), the confusion matrix of their verdicts, agreement by
the strength of side a's majority, by category and by model pair, each evaluator's share of
first-position wins, and the rank correlation of the two sides' leaderboards with a scatter of
their ratings."""

from __future__ import annotations

import logging
from functools import partial

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui import panel_computations
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.panel_computations import AgreementOutcome, bundle_ref
from workbench.gui.panels.column_widths import fit_columns_to_sample
from workbench.gui.panels.computing import ComputingStatus
from workbench.gui.panels.empty_hint import AGREEMENT_HINT, install_empty_hint
from workbench.gui.panels.figure_view import FigureView
from workbench.gui.panels.latest_only import LatestOnly, Runner
from workbench.gui.panels.pair_focus import row_of_pair, select_row
from workbench.gui.panels.request_line import RequestLine
from workbench.gui.panels.rows_model import RowsTableModel, display_text
from workbench.services.analysis import (
    HUMAN_SIDE,
    JUDGE_SIDE,
    AgreementResult,
    AnalysisChoices,
)
from workbench.stats.agreement import DEFAULT_AGREEMENT_CONVENTION
from workbench.storage import Bundle

log = logging.getLogger(__name__)

SIDE_HELP = (
    "Whose judgments form this side: human, judge, imported, campaign:NAME, run:NAME, "
    "annotator:NAME, rater:NAME, category:NAME…; terms joined by commas must all hold "
    "(as workbench agreement --a/--b)"
)
HEADLINES = (
    ("comparisons", "Comparisons judged by both"),
    ("agreement_with_ties", "Agreement (ties as a label)"),
    ("agreement_without_ties", "Agreement (without ties)"),
    ("cohen_kappa", "Cohen's kappa"),
    ("chirp_kappa", "CHIRP kappa (per matchup)"),
    ("spearman", "Spearman (leaderboards)"),
    ("kendall", "Kendall's tau (leaderboards)"),
)
#: the conventions' labels, by their ``workbench agreement --convention`` names
CONVENTION_LABELS = {
    "majority": "Majority vs majority",
    "mt-bench": "MT-Bench: each vote of a vs b's majority",
}
PERCENT_HEADLINES = {"agreement_with_ties", "agreement_without_ties"}


def _percent(value: float) -> str:
    return "–" if value != value else f"{100 * value:.1f}%"


def _table(model: RowsTableModel, parent: QWidget) -> QTableView:
    view = QTableView(parent)
    view.setModel(model)
    fit_columns_to_sample(view)
    return view


class AgreementPanel(QWidget):
    def __init__(self, runner: Runner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tasks = LatestOnly(runner, self)
        self.bundle: Bundle | None = None
        self.result: AgreementResult | None = None

        self.side_a = QComboBox(self)
        self.side_b = QComboBox(self)
        for combo in (self.side_a, self.side_b):
            combo.setEditable(True)
            combo.setToolTip(SIDE_HELP)
            combo.setMinimumContentsLength(14)
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
        #: how the two sides are compared: ``workbench agreement --convention``
        self.convention = QComboBox(self)
        for key, label in CONVENTION_LABELS.items():
            self.convention.addItem(label, key)
        self.convention.setCurrentIndex(self.convention.findData(DEFAULT_AGREEMENT_CONVENTION))
        self.convention.setToolTip(
            "Majority: each side's majority per comparison, one count per comparison (the "
            "default). MT-Bench: side b's majority against each vote of side a, one count per "
            "vote, as MT-Bench reports human-vs-judge agreement."
        )
        self.compare_button = QPushButton("Compare", self)
        sides = QHBoxLayout()
        for caption, widget in (("Side a", self.side_a), ("Side b", self.side_b)):
            sides.addWidget(QLabel(caption, self))
            sides.addWidget(widget)
        sides.addWidget(QLabel("Convention", self))
        sides.addWidget(self.convention)
        sides.addWidget(self.compare_button)
        sides.addStretch(1)

        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.numbers = QGroupBox("Side a majority vs side b majority (majority convention)", self)
        form = QFormLayout(self.numbers)
        self.values: dict[str, QLabel] = {}
        #: the first row's caption names what is counted: comparisons, or votes (MT-Bench)
        self.unit_label = QLabel(HEADLINES[0][1], self.numbers)
        for key, text in HEADLINES:
            self.values[key] = QLabel("–", self.numbers)
            row_label = self.unit_label if key == "comparisons" else QLabel(text, self.numbers)
            form.addRow(row_label, self.values[key])

        self.confusion = RowsTableModel(("a \\ b", "first", "second", "tie"), self)
        self.by_majority = RowsTableModel(("side a majority", "comparisons", "agreement"), self)
        self.by_majority.formats = {2: _percent}
        self.by_category = RowsTableModel(("category", "comparisons", "agreement", "kappa"), self)
        self.by_category.formats = {2: _percent, 3: lambda value: display_text(value, 3)}
        self.by_model_pair = RowsTableModel(
            ("first", "second", "comparisons", "agreement", "kappa"), self
        )
        self.by_model_pair.formats = {3: _percent, 4: lambda value: display_text(value, 3)}
        self.position = RowsTableModel(
            ("evaluator", "decisive", "first wins", "share", "p", "positions"), self
        )
        self.position.formats = {3: _percent, 4: lambda value: display_text(value, 3)}
        self.ratings = RowsTableModel(("model", "rating a", "rating b"), self)

        self.confusion_box = QGroupBox("Confusion matrix (comparisons)", self)
        confusion_view = _table(self.confusion, self.confusion_box)
        self.empty_hint = install_empty_hint(confusion_view, AGREEMENT_HINT)
        self.computing = ComputingStatus((self.tasks,), (self.empty_hint,), self)
        sides.insertWidget(sides.count() - 1, self.computing)
        QVBoxLayout(self.confusion_box).addWidget(confusion_view)
        top = QGridLayout()
        top.addWidget(self.numbers, 0, 0)
        top.addWidget(self.confusion_box, 0, 1)

        self.position_bars = FigureView(runner, "No decisive judgments.", self)
        self.scatter = FigureView(runner, "No model is rated by both sides.", self)
        position_tabs = QTabWidget(self)
        position_tabs.addTab(self.position_bars, "Bars")
        position_tabs.addTab(_table(self.position, self), "Table")
        rating_tabs = QTabWidget(self)
        rating_tabs.addTab(self.scatter, "Scatter")
        rating_tabs.addTab(_table(self.ratings, self), "Table")
        self.breakdowns = QTabWidget(self)
        self.breakdowns.addTab(_table(self.by_majority, self), "By majority strength")
        self.breakdowns.addTab(_table(self.by_category, self), "By category")
        self.by_model_pair_view = _table(self.by_model_pair, self)
        self.breakdowns.addTab(self.by_model_pair_view, "By model pair")
        self.breakdowns.addTab(position_tabs, "Position bias")
        self.breakdowns.addTab(rating_tabs, "Ratings a vs b")

        #: the request of the numbers shown, and the command that prints them
        self.request_row = RequestLine("workbench agreement", self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.request_row)
        layout.addLayout(sides)
        layout.addWidget(self.status)
        layout.addLayout(top)
        layout.addWidget(self.breakdowns, 1)

        self.compare_button.clicked.connect(self.refresh)
        self.convention.currentIndexChanged.connect(self.refresh)
        for combo in (self.side_a, self.side_b):
            combo.activated.connect(self.refresh)
            line = combo.lineEdit()
            assert line is not None
            line.returnPressed.connect(self.refresh)
        self._set_sides(None)

    def follow(self, selection: LinkedSelection) -> None:
        """Show the linked selection's model pair in the "By model pair" breakdown; clearing
        the pair goes back to the breakdown shown before."""
        self._pair_tab_before: int | None = None
        selection.modelPairChanged.connect(self._focus_pair)
        self.by_model_pair.modelReset.connect(lambda: self._focus_pair(selection.model_pair))

    def _focus_pair(self, pair: tuple[str, str] | None) -> None:
        view = self.by_model_pair_view
        if pair is None:
            select_row(view, None)
            if self._pair_tab_before is not None:
                self.breakdowns.setCurrentIndex(self._pair_tab_before)
                self._pair_tab_before = None
            return
        if self._pair_tab_before is None:
            self._pair_tab_before = self.breakdowns.currentIndex()
        self.breakdowns.setCurrentWidget(view)
        rows = [(row[0], row[1]) for row in self.by_model_pair.rows]
        select_row(view, row_of_pair(rows, pair))

    @property
    def busy(self) -> bool:
        return self.tasks.busy or self.position_bars.busy or self.scatter.busy

    def set_bundle(self, bundle: Bundle | None, choices: AnalysisChoices | None = None) -> None:
        self.tasks.forget()
        self.bundle = bundle
        self.request_row.set_request(None, None)
        self._set_sides(choices)

    def _set_sides(self, choices: AnalysisChoices | None) -> None:
        presets = choices.sides if choices and choices.sides else (HUMAN_SIDE, JUDGE_SIDE)
        for combo, default in ((self.side_a, HUMAN_SIDE), (self.side_b, JUDGE_SIDE)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(list(presets))
            combo.setCurrentText(default)
            combo.blockSignals(False)

    def sides(self) -> tuple[str, str]:
        """The two selectors as typed or chosen."""
        return self.side_a.currentText().strip(), self.side_b.currentText().strip()

    def set_on_screen(self, visible: bool) -> None:
        """Nothing waits for the panel to be shown: the docks refresh it when it is stale."""

    def refresh(self) -> None:
        bundle = self.bundle
        if bundle is None:
            return
        side_a, side_b = self.sides()
        convention = self.convention.currentData()
        self.tasks.submit(
            partial(panel_computations.agreement, bundle_ref(bundle), side_a, side_b, convention),
            self._show,
            self._failed,
        )

    def _show(self, outcome: AgreementOutcome) -> None:
        result, bars, scatter = outcome.result, outcome.bars, outcome.scatter
        self.result = result
        self.request_row.set_request(result.describe(), result.command())
        self.position_bars.show_figure(bars)
        if scatter is None:
            self.scatter.clear("No model is rated by both sides.")
        else:
            self.scatter.show_figure(scatter)
        if result.unit == "votes":
            self.numbers.setTitle(
                f"Each {result.side_a} vote vs {result.side_b} majority (MT-Bench convention)"
            )
        else:
            self.numbers.setTitle(
                f"{result.side_a} majority vs {result.side_b} majority (majority convention)"
            )
        self.unit_label.setText(
            "Votes of side a on comparisons both judged"
            if result.unit == "votes"
            else "Comparisons judged by both"
        )
        summary = result.summary
        values = {
            "comparisons": f"{summary.comparisons} ({summary.comparisons_without_ties} decisive)",
            "agreement_with_ties": _percent(summary.agreement_with_ties),
            "agreement_without_ties": _percent(summary.agreement_without_ties),
            "cohen_kappa": display_text(summary.cohen_kappa, 3),
            "chirp_kappa": display_text(summary.chirp_kappa, 3),
            "spearman": display_text(result.spearman, 3),
            "kendall": display_text(result.kendall, 3),
        }
        for key, text in values.items():
            self.values[key].setText(text)
        self.confusion.set_rows(
            [(label, *map(int, row)) for label, row in result.confusion.iterrows()]
        )
        self.by_majority.set_rows(
            [
                (row.majority, int(row.comparisons), float(row.agreement))
                for row in result.by_majority.itertuples(index=False)
            ]
        )
        self.by_category.set_rows(
            [
                (row.category, int(row.comparisons), row.agreement, row.cohen_kappa)
                for row in result.by_category.itertuples(index=False)
            ]
        )
        self.by_model_pair.set_rows(
            [
                (row.first, row.second, int(row.comparisons), row.agreement, row.cohen_kappa)
                for row in result.by_model_pair.itertuples(index=False)
            ]
        )
        self.ratings.set_rows(
            [
                (row.model, row.rating_a, row.rating_b)
                for row in result.ratings.itertuples(index=False)
            ]
        )
        self.position.set_rows(
            [
                (
                    row.evaluator,
                    int(row.decisive),
                    int(row.first_wins),
                    row.first_win_share,
                    row.p_value,
                    row.positions,
                )
                for row in result.position_bias.itertuples(index=False)
            ]
        )
        overlap = (
            f" {result.overlap} judgments selected by both sides count on side "
            f"{result.overlap_kept_on} only."
            if result.overlap
            else ""
        )
        self.status.setText(
            f"Models in both leaderboards: {result.rank_models}. Preferences are named by model "
            f"order: 'first' is the alphabetically first model of the pair.{overlap}"
        )

    def _failed(self, error: BaseException) -> None:
        if not isinstance(error, WorkbenchError):
            log.error("agreement failed", exc_info=error)
        self.result = None
        self.request_row.set_request(None, None)
        for label in self.values.values():
            label.setText("–")
        for model in (
            self.confusion,
            self.by_majority,
            self.by_category,
            self.by_model_pair,
            self.position,
            self.ratings,
        ):
            model.set_rows([])
        self.position_bars.clear("No decisive judgments.")
        self.scatter.clear("No model is rated by both sides.")
        self.status.setText(str(error))
