"""The leaderboard dock: ratings with intervals, win rate against the anchor and battle counts in
a table, a forest plot and a pairwise win-rate heatmap, under switches for method, style
control, source, campaign, category, language and criterion; recomputed, and its plots drawn,
off the GUI thread when asked or when judgments arrive, the last result staying on screen until
the new one is ready."""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui import panel_computations
from workbench.gui.flow_layout import FlowLayout
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.panel_computations import (
    FigureRecipe,
    LeaderboardOutcome,
    RenderedFigure,
    bundle_ref,
)
from workbench.gui.panels.column_widths import fit_columns_to_sample
from workbench.gui.panels.compare_dialog import CompareDialog
from workbench.gui.panels.computing import ComputingStatus
from workbench.gui.panels.docks import wrap_picker_rows
from workbench.gui.panels.empty_hint import LEADERBOARD_HINT, install_empty_hint
from workbench.gui.panels.figure_view import FigureView
from workbench.gui.panels.folding_label import FoldingLabel
from workbench.gui.panels.latest_only import LatestOnly, Runner
from workbench.gui.panels.request_line import RequestLine
from workbench.gui.panels.rows_model import RowsTableModel
from workbench.services.analysis import AnalysisChoices, LeaderboardResult
from workbench.services.analysis_request import (
    AUTO,
    DEFAULT_BOOTSTRAP_ROUNDS,
    DEFAULT_MIN_BATTLES,
    KIND_LABELS,
    PREDICTION_POWERED,
    STYLE_ESTIMATOR_NAMES,
    AnalysisRequest,
    RequestError,
    flagged_note,
    simulated_note,
)
from workbench.storage import Bundle

log = logging.getLogger(__name__)

HEADERS = ("model", "rating", "95% CI", "vs anchor", "n")
METHOD_LABELS = {
    "bt": "Bradley-Terry",
    "elo": "Online Elo",
    PREDICTION_POWERED: "Prediction-powered (human + judge)",
}
ANY = "(any)"
NONE = "(none)"
#: the style-control estimators as the picker names them (``--style-control NAME``)
ESTIMATOR_LABELS = {
    "fastchat-2024": "FastChat 2024",
    "lmarena": "LMArena",
}


def _interval(value: tuple[float, float]) -> str:
    lower, upper = value
    if lower != lower or upper != upper:  # NaN: no bootstrap
        return "–"
    return f"{lower:.1f} .. {upper:.1f}"


def _percent(value: float) -> str:
    return "–" if value != value else f"{100 * value:.1f}%"


def _points_first(request: AnalysisRequest) -> bool:
    """Whether the point ratings can be shown before the bootstrap: Bradley-Terry's ratings are
    the fit on all battles whatever the rounds (online Elo with a bootstrap shows the rounds'
    median, which only the bootstrap gives)."""
    return request.method == "bt" and request.bootstrap > 0


#: a panel shorter than this (a dock at 1.5x scaling on a 1366x768 screen) folds its request
#: and status lines to one line each, and its margins, so the table and figure keep the height
FOLD_BELOW_HEIGHT = 380
FOLDED_MARGIN = 3
#: a panel narrower than this shows its table as a tab beside the figures
TABS_BELOW_WIDTH = 640


class YieldingSplitter(QSplitter):
    """A splitter that asks for no more height than its least: the panel's wrapping labels make
    its scroll area lay it out at its preferred height for the width, and a table's preferred
    height (about ten rows) then pushed the table itself below a short dock's edge. The layout
    still gives it all the height left (its stretch)."""

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.minimumSizeHint().height())


class LeaderboardPanel(QWidget):
    """Shows :func:`workbench.services.analysis.leaderboard` for the chosen switches."""

    #: the result with its bootstrap intervals (the whole refresh done)
    computed = Signal(object)  # LeaderboardResult
    #: new ratings on screen: Bradley-Terry's point ratings come before their intervals
    ratingsShown = Signal(object)  # LeaderboardResult
    failed = Signal(str)

    def __init__(
        self, selection: LinkedSelection, runner: Runner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.selection = selection
        #: computes in the panels' worker process (docks.py), or wherever ``runner`` runs
        self.tasks = LatestOnly(runner, self)
        #: the plots of the latest result, drawn after its table is shown
        self.drawings = LatestOnly(runner, self)
        self.bundle: Bundle | None = None
        self.result: LeaderboardResult | None = None
        #: the worker keeps Bradley-Terry's battle counts for the current switches between
        #: refreshes, so a vote adds its own counts rather than every judgment being read again
        #: (off: every refresh reads every count, the path bench/panel_after_vote.py compares)
        self.keep_counts = True
        #: how the kept counts were last brought up to date: (full reads, incremental reads)
        self.count_reads = (0, 0)

        self.method = QComboBox(self)
        for key, label in METHOD_LABELS.items():
            self.method.addItem(label, key)
        self.style_control = QCheckBox("Style control", self)
        self.style_control.setToolTip(
            "Rate models apart from their answers' length and markdown (Bradley-Terry only)"
        )
        self.style_estimator = QComboBox(self)
        for key in STYLE_ESTIMATOR_NAMES:
            self.style_estimator.addItem(ESTIMATOR_LABELS[key], key)
        self.style_estimator.setToolTip(
            "Style control's estimator: FastChat's 2024 logistic regression, or LMArena's "
            "current contextual Bradley-Terry with its penalty (--style-control NAME)"
        )
        self.style_estimator.setEnabled(False)
        self.rounds = QSpinBox(self)
        self.rounds.setRange(0, 2000)
        self.rounds.setSingleStep(100)
        self.rounds.setValue(DEFAULT_BOOTSTRAP_ROUNDS)
        self.rounds.setToolTip(
            "Bootstrap rounds for the 95% intervals (CHIRP used 500; 0 for none)"
        )
        self.min_battles = QSpinBox(self)
        self.min_battles.setRange(0, 1_000_000)
        self.min_battles.setValue(DEFAULT_MIN_BATTLES)
        self.min_battles.setToolTip(
            "Leave out, with the reason, models in fewer battles than this (0 keeps every model)"
        )
        #: which kind of judgments count: the default rule, one kind, or both pooled
        self.source = QComboBox(self)
        for key, label in KIND_LABELS.items():
            self.source.addItem(label, key)
        self.source.setToolTip(
            "Human judgments when the selection has any, else judge verdicts; or one kind; "
            "or both pooled in one board (labelled as pooled)"
        )
        self.category = QComboBox(self)
        self.criterion = QComboBox(self)
        self.campaign = QComboBox(self)
        self.language = QComboBox(self)
        self.rater = QComboBox(self)
        self.rater.setToolTip("Only the imported judgments of this rater (workbench --rater)")
        self.origin = QComboBox(self)
        self.origin.setToolTip(
            "Only judgments imported with a benchmark, cast in campaigns, or from judge runs"
        )
        self.include_derived = QCheckBox("Include derived", self)
        self.include_derived.setToolTip(
            "Also count judgments an importer derived from others it stored (WildVision-Bench's "
            "battles, derived from GPT-4o's verdicts): they count the same evidence twice"
        )
        # VisionArena's boards, as filters of this one
        self.multi_turn = QCheckBox("Multi-turn", self)
        self.multi_turn.setToolTip("Only conversations of more than one user turn")
        self.exclude_ties = QCheckBox("Exclude ties", self)
        self.exclude_ties.setToolTip("Leave out tie and both-bad outcomes")
        self.exclude_refusal = QCheckBox("Exclude refusal", self)
        self.exclude_refusal.setToolTip(
            "Leave out battles in which either answer refuses (an apology or 'I cannot ...' in "
            "its opening)"
        )
        self.exclude_category = QComboBox(self)
        self.exclude_category.setToolTip(
            "Leave out items in this category (--exclude-category; VisionArena's Exclude "
            "Refusal board where the source tags refusals as a category)"
        )
        self.exclude_flagged = QCheckBox("Exclude flagged", self)
        self.exclude_flagged.setToolTip(
            "Leave out judgments on flagged comparisons: an item, or either answer on it, "
            "flagged by an annotator, the import's model-name check or a judge run"
        )
        self.refresh_button = QPushButton("Recompute", self)
        self.export_button = QPushButton("Export", self)
        export_menu = QMenu(self.export_button)
        export_menu.addAction("Ratings plot…", lambda: self._ask_export("forest"))
        export_menu.addAction("Win-rate heatmap…", lambda: self._ask_export("heatmap"))
        export_menu.addAction("Table as CSV…", lambda: self._ask_export("csv"))
        self.export_button.setMenu(export_menu)
        self.compare_button = QPushButton("Compare with…", self)
        self.compare_button.setToolTip(
            "Rank correlation of the board shown with another: the other kind of judgments, a "
            "judge run, a category or another bundle (workbench compare-rankings)"
        )
        self.compare_button.clicked.connect(self.open_compare)
        #: the runner the comparison computes in (the panel's worker)
        self.runner = runner
        self.choices: AnalysisChoices | None = None
        self.compare_dialog: CompareDialog | None = None

        for combo in (
            self.category,
            self.criterion,
            self.campaign,
            self.language,
            self.rater,
            self.origin,
            self.exclude_category,
        ):
            # long category names must not widen the dock
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(12)
        first_row, second_row, third_row = QHBoxLayout(), QHBoxLayout(), QHBoxLayout()
        placed: tuple[tuple[QHBoxLayout, str | None, QWidget], ...] = (
            (first_row, "Method", self.method),
            (first_row, None, self.style_control),
            (first_row, None, self.style_estimator),
            (first_row, "Rounds", self.rounds),
            (first_row, "Judgments", self.source),
            (first_row, "Campaign", self.campaign),
            (second_row, "Category", self.category),
            (second_row, "Language", self.language),
            (second_row, "Criterion", self.criterion),
            (third_row, "Rater", self.rater),
            (third_row, "Origin", self.origin),
            (third_row, None, self.include_derived),
            (third_row, None, self.exclude_flagged),
            (second_row, None, self.multi_turn),
            (second_row, None, self.exclude_ties),
            (second_row, None, self.exclude_refusal),
            (second_row, "Exclude category", self.exclude_category),
            (third_row, "Min battles", self.min_battles),
        )
        for row, caption, widget in placed:
            if caption:
                row.addWidget(QLabel(caption, self))
            row.addWidget(widget)
        first_row.addStretch(1)
        second_row.addStretch(1)
        third_row.addStretch(1)
        # The pickers fold away (folded at first): they took a docked panel's first screen at
        # 1024x700 and all of it at 1.5x scaling, and the request line above the table already
        # says what is chosen. The buttons stay on screen, wrapping at the dock's width.
        self.filters = QWidget(self)
        self.filters.setObjectName("leaderboardFilters")
        filter_rows = QVBoxLayout(self.filters)
        filter_rows.setContentsMargins(0, 0, 0, 0)
        for row in (first_row, second_row, third_row):
            filter_rows.addLayout(row)
        wrap_picker_rows(self.filters)
        self.filters.setVisible(False)
        self.filters_button = QToolButton(self)
        self.filters_button.setObjectName("leaderboardFiltersButton")
        self.filters_button.setCheckable(True)
        self.filters_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.filters_button.setToolTip("Show or hide the method and the filters")
        self.filters_button.toggled.connect(self.show_filters)
        self.show_filters(False)
        buttons = FlowLayout()
        for button in (
            self.filters_button,
            self.refresh_button,
            self.compare_button,
            self.export_button,
        ):
            buttons.addWidget(button)

        #: the request of the board shown (or about to be), in one line, and its command
        self.request_row = RequestLine("workbench leaderboard", self)
        self.request_line = self.request_row.label
        self.copy_command_button = self.request_row.copy_button
        self._request_shown: AnalysisRequest | None = None
        #: the status line, folded to one line in a short dock
        self.status_line = FoldingLabel("No bundle open.", self)
        self.status: QLabel = self.status_line
        self.model = RowsTableModel(HEADERS, self)
        self.model.formats = {2: _interval, 3: _percent}
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        fit_columns_to_sample(self.table)
        self.empty_hint = install_empty_hint(self.table, LEADERBOARD_HINT)
        self.computing = ComputingStatus((self.tasks,), (self.empty_hint,), self)
        self.forest = FigureView(runner, "Ratings appear here once computed.", self)
        self.heatmap = FigureView(runner, "Win rates appear here once computed.", self)
        self.plots = QTabWidget(self)
        self.plots.addTab(self.forest, "Ratings")
        self.plots.addTab(self.heatmap, "Win rates")
        # no taller at least than the table beside it: in a short dock (1366x768 at 1.5x) the
        # figure scrolls inside its tab rather than the panel below the dock's edge
        self.plots.setMinimumHeight(self.table.minimumSizeHint().height())
        self.splitter = YieldingSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.plots)
        self.splitter.setSizes([480, 520])

        layout = QVBoxLayout(self)
        self._margins = layout.contentsMargins()
        layout.addWidget(self.request_row)
        layout.addLayout(buttons)
        layout.addWidget(self.filters)
        layout.addWidget(self.status)
        layout.addWidget(self.computing)
        layout.addWidget(self.splitter, 1)

        self.method.currentIndexChanged.connect(self._method_changed)
        for combo in (
            self.source,
            self.category,
            self.criterion,
            self.campaign,
            self.language,
            self.rater,
            self.origin,
            self.exclude_category,
            self.style_estimator,
        ):
            combo.currentIndexChanged.connect(self.refresh)
        self.style_control.toggled.connect(self._style_changed)
        self.include_derived.toggled.connect(self.refresh)
        for box in (self.multi_turn, self.exclude_ties, self.exclude_refusal, self.exclude_flagged):
            box.toggled.connect(self.refresh)
        self.rounds.editingFinished.connect(self.refresh)
        self.min_battles.editingFinished.connect(self.refresh)
        self.refresh_button.clicked.connect(self.refresh)
        #: set while the table and the linked selection bring each other up to date
        self._syncing = False
        # selection, not clicks: keyboard selection (Shift+arrows) sets the pair too
        self.table.selectionModel().selectionChanged.connect(self._rows_selected)
        selection.modelPairChanged.connect(lambda _pair: self._show_chosen())
        selection.modelChanged.connect(lambda _model: self._show_chosen())
        self.model.modelReset.connect(self._show_chosen)
        self._set_choices(None)
        self._show_request(None)

    @property
    def folded(self) -> bool:
        """Whether the request and status lines are folded to one line each (a short dock)."""
        return self.status_line.folded

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # Folding depends on the height the dock gives, which a fold does not change (the
        # panel fills its scroll area), so it cannot flip back and forth.
        self._fold(event.size().height() < FOLD_BELOW_HEIGHT)
        self._table_in_a_tab(event.size().width() < TABS_BELOW_WIDTH)

    @property
    def table_tabbed(self) -> bool:
        """Whether the table is a tab beside the figures (a narrow dock) rather than beside
        them in the splitter."""
        return self.plots.indexOf(self.table) >= 0

    def _table_in_a_tab(self, tabbed: bool) -> None:
        """In a narrow dock the table and the figures take turns at the whole width: side by
        side at 1366x768 with 1.5x scaling, the table showed its model column alone and the
        ratings figure its names alone."""
        if tabbed == self.table_tabbed:
            return
        if tabbed:
            self.plots.insertTab(0, self.table, "Table")
            self.plots.setCurrentIndex(0)
        else:
            # taken back by the splitter, the table leaves the tabs by itself
            self.splitter.insertWidget(0, self.table)
            self.splitter.setSizes([480, 520])

    def _fold(self, folded: bool) -> None:
        if folded == self.folded:
            return
        self.request_row.label.set_folded(folded)
        self.status_line.set_folded(folded)
        layout = self.layout()
        assert layout is not None
        margins = self._margins
        if folded:
            layout.setContentsMargins(FOLDED_MARGIN, FOLDED_MARGIN, FOLDED_MARGIN, FOLDED_MARGIN)
        else:
            layout.setContentsMargins(margins)

    def show_filters(self, shown: bool) -> None:
        """Unfold (or fold away) the method's and the filters' pickers."""
        self.filters.setVisible(shown)
        self.filters_button.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )
        self.filters_button.setText("Hide filters" if shown else "Method and filters")
        if self.filters_button.isChecked() != shown:
            self.filters_button.setChecked(shown)

    # --- state ----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        comparing = self.compare_dialog is not None and self.compare_dialog.busy
        return (
            self.tasks.busy
            or self.drawings.busy
            or self.forest.busy
            or self.heatmap.busy
            or comparing
        )

    def set_bundle(self, bundle: Bundle | None, choices: AnalysisChoices | None) -> None:
        if self.compare_dialog is not None:  # it compared the other bundle's board
            self.compare_dialog.tasks.forget()
            self.compare_dialog.close()
            self.compare_dialog.deleteLater()
            self.compare_dialog = None
        self.tasks.forget()
        self.drawings.forget()
        self.bundle = bundle
        self.result = None
        self._show_request(None)
        self.model.set_rows([])
        self._set_choices(choices)
        self.status.setText("No bundle open." if bundle is None else "")

    def _set_choices(self, choices: AnalysisChoices | None) -> None:
        self.choices = choices
        for combo, values in (
            (self.category, choices.categories if choices else ()),
            (self.criterion, choices.criteria if choices else ()),
            (self.campaign, choices.campaigns if choices else ()),
            (self.language, choices.languages if choices else ()),
            (self.rater, choices.raters if choices else ()),
            (self.origin, choices.origins if choices else ()),
            (self.exclude_category, choices.categories if choices else ()),
        ):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(NONE if combo is self.exclude_category else ANY, None)
            for value in values:
                combo.addItem(value, value)
            combo.blockSignals(False)

    def request(self) -> AnalysisRequest:
        """The request of the pickers (:meth:`AnalysisRequest.from_pickers`): every other
        setting is the default of every door."""
        method = self.method.currentData()
        powered = method == PREDICTION_POWERED
        return AnalysisRequest.from_pickers(
            {
                "method": method,
                "style_control": self.style_control.isChecked() and method == "bt",
                "style_estimator": self.style_estimator.currentData(),
                # a prediction-powered board reads the human votes and the judge verdicts
                "kind": AUTO if powered else self.source.currentData(),
                "category": self.category.currentData(),
                "criterion": self.criterion.currentData(),
                "campaign": self.campaign.currentData(),
                "language": self.language.currentData(),
                "rater": self.rater.currentData(),
                "origin": self.origin.currentData(),
                "include_derived": self.include_derived.isChecked(),
                "multi_turn": self.multi_turn.isChecked(),
                "exclude_ties": self.exclude_ties.isChecked(),
                "exclude_refusal": self.exclude_refusal.isChecked(),
                "exclude_categories": (
                    (self.exclude_category.currentData(),)
                    if self.exclude_category.currentData()
                    else ()
                ),
                "exclude_flagged": self.exclude_flagged.isChecked(),
                "bootstrap": self.rounds.value(),
                "min_battles": self.min_battles.value(),
            }
        )

    def shown_request(self) -> AnalysisRequest | None:
        """The request of the board on screen, resolved (its kind and anchor named)."""
        return self._request_shown

    def command(self) -> str | None:
        """The command that prints the board on screen."""
        request = self.shown_request()
        return None if request is None else request.to_command()

    def copy_command(self) -> None:
        self.request_row.copy_command()

    def open_compare(self) -> CompareDialog | None:
        """Show "Compare with..." for the board on screen (None: no board to compare)."""
        shown = self.shown_request()
        if self.bundle is None or shown is None:
            self.status.setText("Nothing to compare yet: compute a board first.")
            return None
        if self.compare_dialog is not None:
            self.compare_dialog.close()
            self.compare_dialog.deleteLater()
        self.compare_dialog = CompareDialog(self.runner, self.bundle, shown, self.choices, self)
        self.compare_dialog.show()
        return self.compare_dialog

    def _show_request(self, request: AnalysisRequest | None) -> None:
        self._request_shown = request
        self.request_row.set_request(
            None if request is None else request.describe(),
            None if request is None else request.to_command(),
        )

    # --- computing ------------------------------------------------------------------------------

    def _style_changed(self) -> None:
        self._enable_estimator()
        self.refresh()

    def _enable_estimator(self) -> None:
        self.style_estimator.setEnabled(
            self.style_control.isEnabled() and self.style_control.isChecked()
        )

    def _method_changed(self) -> None:
        is_bt = self.method.currentData() == "bt"
        powered = self.method.currentData() == PREDICTION_POWERED
        self.style_control.setEnabled(is_bt)
        self._enable_estimator()
        self.source.setEnabled(not powered)
        self.rounds.setEnabled(not powered)
        self.refresh()

    def set_on_screen(self, visible: bool) -> None:
        """Nothing waits for the panel to be shown: the docks refresh it when it is stale."""

    def refresh(self) -> None:
        """Recompute in the background; the current result stays shown meanwhile."""
        bundle = self.bundle
        if bundle is None:
            return
        try:
            request = self.request()
        except RequestError as error:
            self._failed(error)
            return
        # the computing line says how long; this line says what the table shows meanwhile
        self.status.setText("Showing the previous result." if self.result else "")
        compute = partial(
            panel_computations.leaderboard, bundle_ref(bundle), keep_counts=self.keep_counts
        )
        if _points_first(request):
            # the fit alone takes a fraction of the bootstrap's time at 100 models: the new
            # ratings are shown first, the intervals when the rounds are done (same ratings)
            self.tasks.submit(
                partial(compute, replace(request, bootstrap=0)),
                lambda outcome: self._show_points(outcome, request, compute),
                self._failed,
            )
        else:
            self.tasks.submit(partial(compute, request), self._show_outcome, self._failed)

    def _show_points(
        self, outcome: LeaderboardOutcome, request: AnalysisRequest, compute: partial[Any]
    ) -> None:
        self.count_reads = (outcome.full_reads, outcome.incremental_reads)
        self._show(outcome.result, intervals_pending=request.bootstrap)
        self.tasks.submit(partial(compute, request), self._show_outcome, self._failed)

    def _show_outcome(self, outcome: LeaderboardOutcome) -> None:
        self.count_reads = (outcome.full_reads, outcome.incremental_reads)
        self._show(outcome.result)

    def _draw(self, result: LeaderboardResult) -> None:
        """Build and draw the plots of ``result`` in the background, in one job; the table is
        shown first, so the numbers after a vote do not wait for matplotlib."""
        # drawing the heatmap of 20 models takes about half a second, which the GUI thread must
        # never spend; only the plot on screen is drawn now, the other when its tab is shown
        drawings: dict[str, tuple[FigureRecipe, tuple[int, int, float] | None]] = {}
        for name, view, figure in (
            ("forest", self.forest, panel_computations.forest_figure),
            ("heatmap", self.heatmap, panel_computations.heatmap_figure),
        ):
            size = view.target_size()
            drawings[name] = (
                partial(figure, result),
                (size.width(), size.height(), view.devicePixelRatioF())
                if view.isVisible()
                else None,
            )
        self.drawings.submit(
            partial(panel_computations.render_each, drawings),
            lambda rendered: self._show_figures(drawings, rendered),
            self._drawing_failed,
        )

    def _show_figures(
        self,
        drawings: dict[str, tuple[FigureRecipe, tuple[int, int, float] | None]],
        rendered: dict[str, RenderedFigure | None],
    ) -> None:
        self.forest.show_figure(drawings["forest"][0], rendered["forest"])
        self.heatmap.show_figure(drawings["heatmap"][0], rendered["heatmap"])

    def _drawing_failed(self, error: BaseException) -> None:
        # the table stays: its numbers are right even when a plot cannot be drawn
        log.error("drawing the leaderboard plots failed", exc_info=error)
        self.forest.clear("Cannot draw the ratings.")
        self.heatmap.clear("Cannot draw the win rates.")

    def _show(self, result: LeaderboardResult, intervals_pending: int = 0) -> None:
        """Show ``result``; ``intervals_pending`` rounds of bootstrap are still computing (the
        intervals shown are the previous result's for the models it had, until they come)."""
        previous = (
            {row.model: (row.ci_lower, row.ci_upper) for row in self.result.table.itertuples()}
            if intervals_pending and self.result is not None
            else {}
        )
        self.result = result
        table = result.table
        nan = float("nan")
        self.model.set_rows(
            [
                (
                    row.model,
                    row.rating,
                    previous.get(row.model, (nan, nan))
                    if intervals_pending
                    else (row.ci_lower, row.ci_upper),
                    row.win_rate_vs_anchor,
                    row.n,
                )
                for row in table.itertuples(index=False)
            ]
        )
        anchor = result.board.anchor
        note = f", anchor {anchor.model} = {anchor.rating:g}" if anchor else ""
        dropped = (
            f", {result.battles_without_answers} without answers left out"
            if result.battles_without_answers
            else ""
        )
        rounds = (
            f"intervals of {intervals_pending} bootstrap rounds computing…"
            if intervals_pending
            else f"{result.board.bootstrap} bootstrap rounds"
        )
        left_out = (
            ", left out (too few battles): "
            + ", ".join(f"{model} ({count})" for model, count in sorted(result.left_out.items()))
            if result.left_out
            else ""
        )
        simulated = simulated_note(result.simulated_left_out)
        flagged = flagged_note(result.flagged_judgments, result.request.exclude_flagged)
        if flagged:
            simulated = f"{simulated}, {flagged}" if simulated else flagged
        if result.powered is not None:
            rank_sets = ", ".join(
                f"{row.model} {row.rank_lower}-{row.rank_upper}"
                for row in table.itertuples(index=False)
            )
            self.status.setText(
                f"{result.powered.describe()}{note}{left_out}. "
                f"{100 * result.powered.coverage:g}% rank-sets: {rank_sets}"
                + (f"; {simulated}" if simulated else "")
            )
        else:
            self.status.setText(
                f"{METHOD_LABELS[result.board.method]}: {result.battles} battles of "
                f"{result.request.kind_label} judgments, {rounds}{note}{dropped}{left_out}"
                + (f", {simulated}" if simulated else "")
            )
        # the points come first: the request named is the one whose intervals are coming
        self._show_request(
            replace(result.request, bootstrap=intervals_pending)
            if intervals_pending
            else result.request
        )
        self.ratingsShown.emit(result)
        if intervals_pending:
            return  # the plots wait for the intervals: drawn once, with them
        self.computed.emit(result)
        self._draw(result)

    def _failed(self, error: BaseException) -> None:
        message = str(error) or type(error).__name__
        if not isinstance(error, WorkbenchError):
            log.error("leaderboard failed", exc_info=error)
        # a stale table under an error would read as the answer to the new switches
        self.drawings.forget()
        self.result = None
        self._show_request(None)
        self.model.set_rows([])
        self.forest.clear("No ratings for this selection.")
        self.heatmap.clear("No win rates for this selection.")
        self.status.setText(f"Cannot compute: {message}")
        self.failed.emit(message)

    def _rows_selected(self) -> None:
        """Two selected rows are the linked selection's pair, one its model; more or none
        choose nothing."""
        if self._syncing:
            return
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        models = tuple(self.model.rows[row][0] for row in rows)
        if self.selection.model_pair is not None and set(models) == set(self.selection.model_pair):
            return  # the pair shown again (after a refresh): keep its order
        # the selection's signals come back here (_show_chosen): the table already shows it
        self._syncing = True
        try:
            self.selection.choose_models(models)
        finally:
            self._syncing = False

    def _show_chosen(self) -> None:
        """Select the chosen pair's two rows or the chosen model's row (set elsewhere, or kept
        over a refresh)."""
        if self._syncing:
            return
        pair, model = self.selection.model_pair, self.selection.model
        chosen_models = pair or ((model,) if model else ())
        rows = [n for n, row in enumerate(self.model.rows) if row[0] in chosen_models]
        selection = self.table.selectionModel()
        if not chosen_models:
            self._syncing = True
            try:
                selection.clearSelection()
            finally:
                self._syncing = False
            return
        if len(rows) != len(chosen_models):
            return  # not all of them in this table (a filter left one out): leave it be
        chosen = QItemSelection()
        for row in rows:
            chosen.select(self.model.index(row, 0), self.model.index(row, 0))
        self._syncing = True
        try:
            selection.select(
                chosen,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
        finally:
            self._syncing = False

    # --- export ---------------------------------------------------------------------------------

    def export(self, kind: str, path: Path) -> None:
        """Write the shown result: ``forest`` or ``heatmap`` (PNG/SVG/PDF from the suffix, drawn
        by the same figure functions as the CLI) or ``csv`` (the table)."""
        if self.result is None:
            raise RuntimeError("nothing computed yet")
        if kind == "csv":
            self.result.write_csv(path)
        elif kind == "forest":
            self.result.forest_figure().savefig(path)
        elif kind == "heatmap":
            self.result.heatmap_figure().savefig(path)
        else:
            raise ValueError(f"unknown export {kind!r}")

    def _ask_export(self, kind: str) -> None:
        if self.result is None:
            self.status.setText("Nothing to export yet.")
            return
        filters = "CSV (*.csv)" if kind == "csv" else "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        name, chosen = QFileDialog.getSaveFileName(self, "Export", "", filters)
        if not name:
            return
        path = Path(name)
        if not path.suffix:
            path = path.with_suffix("." + chosen.split("*.")[1].rstrip(")"))
        try:
            self.export(kind, path)
        except (OSError, ValueError) as error:
            self.status.setText(f"Cannot export: {error}")
        else:
            self.status.setText(f"Written to {path}")
