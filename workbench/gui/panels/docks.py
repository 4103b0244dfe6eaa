"""Creates the analysis docks in the main window, lists them in the View menu, and hands them
the open bundle; one watcher tells them all when judgments arrive.

A panel is built the first time its dock is shown (or the panel is asked for): the panels
bring the statistics, plotting and graph stacks (pandas, scipy, matplotlib, networkx), which
the window and its item list must not wait for (a fast first paint).

The panels compute in the app's panel worker process (:mod:`workbench.gui.panel_process`), not
on threads of this one: their work holds the interpreter lock for long stretches, which stalled
the event loop. The worker starts when the first panel is built, after the
window's first paint."""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QMainWindow,
    QMenu,
    QScrollArea,
    QTableView,
    QWidget,
)

from workbench.gui import panel_computations
from workbench.gui.flow_layout import FlowLayout
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.panel_process import ProcessRunner, shared_panel_process
from workbench.gui.panels.panel import Panel
from workbench.gui.panels.watcher import JudgmentWatcher
from workbench.storage import Bundle

if TYPE_CHECKING:
    from workbench.gui.panels.agreement_panel import AgreementPanel
    from workbench.gui.panels.benchmark_panel import BenchmarkPanel
    from workbench.gui.panels.failures_panel import FailuresPanel
    from workbench.gui.panels.graph_panel import GraphPanel
    from workbench.gui.panels.leaderboard_panel import LeaderboardPanel
    from workbench.services.analysis import AnalysisChoices

#: dock name -> title, in View-menu order
PANEL_TITLES = {
    "leaderboard": "Leaderboard",
    "graph": "Contradiction graph",
    "failures": "Failure cases",
    "agreement": "Agreement",
    "benchmark": "Benchmark",
}

log = logging.getLogger(__name__)

#: the analysis docks' share of the window's height on the analysis page; on a short window
#: (1366x768) more of it, so that a table shows ten rows and its figure is legible (the item
#: list above yields down to a strip at 1.5x scaling: it scrolls in its dock)
DOCK_SHARE = 0.55
DOCK_SHARE_SHORT = 0.66
SHORT_WINDOW = 900
#: and on a very short one (1366x768 at 1.5x scaling) more again
DOCK_SHARE_VERY_SHORT = 0.76
VERY_SHORT_WINDOW = 600
#: the leaderboard's share of the width beside the other panels (its table and figure share it)
BOARD_SHARE = 0.6
BOARD_SHARE_SHORT = 0.64
#: pixels added to a line of text for a table row's height
ROW_PADDING = 6


class AnalysisDocks(QObject):
    """The analysis panels, each in a dock (hidden until chosen in the View menu)."""

    def __init__(
        self,
        window: QMainWindow,
        selection: LinkedSelection,
        view_menu: QMenu,
        before: QAction | None = None,
    ) -> None:
        super().__init__(window)
        self.window = window
        # Two worker processes: the leaderboard's (with the choices read on open) and the other
        # panels'. One would queue the leaderboard after a vote behind a count of cycles that
        # takes seconds on a big bundle, and use one core of two.
        self.process = shared_panel_process("leaderboard")
        self.other_process = shared_panel_process("analyses")
        #: the panels' doors to the processes: results are dropped once the window is gone
        self.runner = ProcessRunner(self.process, self)
        self.other_runner = ProcessRunner(self.other_process, self)
        self.watcher = JudgmentWatcher(self)
        self.selection = selection
        #: the panels built so far, by dock name (see :meth:`panel`)
        self.built: dict[str, QWidget] = {}
        #: each built panel as the docks use it (the same object, typed by its interface)
        self.api: dict[QWidget, Panel] = {}
        self.docks: dict[str, QDockWidget] = {}
        for name, title in PANEL_TITLES.items():
            dock = QDockWidget(title, window)
            dock.setObjectName(f"{name}Dock")
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            dock.hide()
            if before is not None:
                view_menu.insertAction(before, dock.toggleViewAction())
            else:
                view_menu.addAction(dock.toggleViewAction())
            self.docks[name] = dock
            dock.visibilityChanged.connect(
                lambda visible, name=name: self._visibility_changed(name, visible)
            )
        first = self.docks["leaderboard"]
        for name in ("graph", "failures", "agreement", "benchmark"):
            window.tabifyDockWidget(first, self.docks[name])
        self._stale: set[QWidget] = set()
        self._on_screen: dict[QWidget, bool] = {}
        #: the open bundle and its choices, handed to each panel when it is built
        self._bundle: Bundle | None = None
        self._choices: AnalysisChoices | None = None
        #: the bundle last opened (a later open wins over a slower earlier one)
        self._opening: Bundle | None = None
        #: the bundle whose choices were last asked of the worker
        self._reading: Bundle | None = None
        self.watcher.judgmentsChanged.connect(self.judgments_changed)

    @property
    def panels(self) -> tuple[QWidget, ...]:
        """The panels built so far."""
        return tuple(self.built.values())

    @property
    def leaderboard(self) -> LeaderboardPanel:
        # start-up: a panel loads when its dock is first shown (some bring matplotlib)
        from workbench.gui.panels.leaderboard_panel import LeaderboardPanel

        panel = self.panel("leaderboard")
        assert isinstance(panel, LeaderboardPanel)
        return panel

    @property
    def graph(self) -> GraphPanel:
        # start-up: a panel loads when its dock is first shown (some bring matplotlib)
        from workbench.gui.panels.graph_panel import GraphPanel

        panel = self.panel("graph")
        assert isinstance(panel, GraphPanel)
        return panel

    @property
    def failures(self) -> FailuresPanel:
        # start-up: a panel loads when its dock is first shown (some bring matplotlib)
        from workbench.gui.panels.failures_panel import FailuresPanel

        panel = self.panel("failures")
        assert isinstance(panel, FailuresPanel)
        return panel

    @property
    def agreement(self) -> AgreementPanel:
        # start-up: a panel loads when its dock is first shown (some bring matplotlib)
        from workbench.gui.panels.agreement_panel import AgreementPanel

        panel = self.panel("agreement")
        assert isinstance(panel, AgreementPanel)
        return panel

    @property
    def benchmark(self) -> BenchmarkPanel:
        # start-up: a panel loads when its dock is first shown (some bring matplotlib)
        from workbench.gui.panels.benchmark_panel import BenchmarkPanel

        panel = self.panel("benchmark")
        assert isinstance(panel, BenchmarkPanel)
        return panel

    def panel(self, name: str) -> QWidget:
        """The panel of dock ``name``, built (with the open bundle) on first use."""
        if name not in self.built:
            panel, api = self._build(name)
            self.built[name] = panel
            self.api[panel] = api
            for process in (self.process, self.other_process):
                if not process.running:
                    # the stacks load in the worker while this panel is laid out and painted
                    QTimer.singleShot(0, process.start)
            self._on_screen[panel] = False
            api.set_on_screen(False)
            wrap_picker_rows(panel)
            compact_rows(panel)
            self.docks[name].setWidget(in_scroll_area(panel))
            if self._bundle is not None:
                api.set_bundle(self._bundle, self._choices)
                self._stale.add(panel)  # computed when first on screen
            elif self._opening is not None:
                self._reading_state(api, True)
                # the first panel of this bundle (after the watcher's baseline: see set_bundle)
                if self._reading is not self._opening and not self.watcher.reading_baseline:
                    self._read_choices(self._opening)
        return self.built[name]

    def _build(self, name: str) -> tuple[QWidget, Panel]:
        """The panel of dock ``name``, as a widget and as a :class:`Panel` (one object)."""
        if name == "leaderboard":
            # start-up: a panel loads when its dock is first shown (some bring matplotlib)
            from workbench.gui.panels.leaderboard_panel import LeaderboardPanel

            board = LeaderboardPanel(self.selection, self.runner)
            return board, board
        if name == "graph":
            # start-up: a panel loads when its dock is first shown (some bring matplotlib)
            from workbench.gui.panels.graph_panel import GraphPanel

            graph = GraphPanel(self.selection, self.other_runner)
            return graph, graph
        if name == "failures":
            # start-up: a panel loads when its dock is first shown (some bring matplotlib)
            from workbench.gui.panels.failures_panel import FailuresPanel

            failures = FailuresPanel(self.selection, self.other_runner)
            return failures, failures
        if name == "benchmark":
            # start-up: a panel loads when its dock is first shown (some bring matplotlib)
            from workbench.gui.panels.benchmark_panel import BenchmarkPanel

            benchmark = BenchmarkPanel(self.other_runner)
            return benchmark, benchmark
        # start-up: a panel loads when its dock is first shown (some bring matplotlib)
        from workbench.gui.panels.agreement_panel import AgreementPanel

        agreement = AgreementPanel(self.other_runner)
        agreement.follow(self.selection)
        return agreement, agreement

    @property
    def busy(self) -> bool:
        working = (api.busy for api in self.api.values())
        return self.runner.busy or self.other_runner.busy or any(working)

    def stop_panel_computations(self) -> None:
        """Stop the workers' running computations with their processes (a computation only
        reads): the window is closing, and a count of cycles on a large bundle would hold its
        close for tens of seconds. The next computation starts a new worker."""
        for process in (self.process, self.other_process):
            if process.busy:
                process.shutdown(finish_running=False)

    def set_bundle(self, bundle: Bundle | None) -> None:
        """Show ``bundle`` (None: the bundle is closing; waits for running computations).

        The panels' choices (models, categories, sides) are read from the judgments on a
        worker, so opening a bundle never blocks the event loop however many votes it holds;
        the panels get the bundle, and refresh, once they are known. With no panel built yet
        nothing is read until one is."""
        self._opening = bundle
        self._bundle, self._choices = None, None
        for api in self.api.values():  # none computes on the previous bundle meanwhile
            api.set_bundle(None, None)
            # until its choices are read, a panel says the bundle is being read, not that none
            # is open or that it holds nothing
            self._reading_state(api, bundle is not None)
        if bundle is None:
            self.watcher.set_bundle(None)
            # the caller closes the bundle next: the workers let go of it first
            self.process.release_bundle()
            self.other_process.release_bundle()
            return
        # the choices (and then the panels) are read once the watcher has the fingerprint it
        # compares with, so a judgment stored before their read is never taken for the baseline
        self.watcher.set_bundle(bundle, then=partial(self._choices_after_baseline, bundle))

    def _choices_after_baseline(self, bundle: Bundle) -> None:
        if bundle is self._opening and self.built:
            self._read_choices(bundle)

    def _read_choices(self, bundle: Bundle) -> None:
        self._reading = bundle

        def read(choices: AnalysisChoices) -> None:
            self._show_choices(bundle, choices)

        def failed(error: BaseException) -> None:
            log.error("cannot read the analysis choices", exc_info=error)
            self._show_choices(bundle, None)

        self.runner.run(
            partial(panel_computations.read_choices, panel_computations.bundle_ref(bundle)),
            read,
            failed,
        )

    def _show_choices(self, bundle: Bundle, choices: AnalysisChoices | None) -> None:
        if bundle is not self._opening:
            return  # another bundle was opened meanwhile
        self._bundle, self._choices = bundle, choices
        for api in self.api.values():
            api.set_bundle(bundle, choices)
            self._reading_state(api, False)
        self.judgments_changed()

    @staticmethod
    def _reading_state(panel: Panel, reading: bool) -> None:
        if reading:
            panel.status.setText("")
        panel.computing.reading(reading)

    def judgments_written(self) -> None:
        """Judgments were written in this process (a vote cast, or taken back): look now rather
        than at the next poll; the panels on screen refresh once the change is read."""
        self.watcher.poll_now()

    def judgments_changed(self) -> None:
        """Refresh the panels on screen; the others when they are next shown (a hidden panel
        costs nothing, however many votes arrive)."""
        for panel, api in self.api.items():
            if self._on_screen[panel]:
                self._stale.discard(panel)
                api.refresh()
            else:
                self._stale.add(panel)

    def _visibility_changed(self, name: str, visible: bool) -> None:
        # a dock's visibility changes when it is opened or closed and when its tab is chosen
        if not visible and name not in self.built:
            return
        panel = self.panel(name)
        if visible:
            # opened from the View menu after a dock elsewhere took the height, it came back
            # as a strip with no row showing: give it its share again
            QTimer.singleShot(0, lambda: self._give_room(self.docks[name]))
        self._on_screen[panel] = visible
        self.api[panel].set_on_screen(visible)
        if visible and panel in self._stale:
            self._stale.discard(panel)
            self.api[panel].refresh()

    def _give_room(self, dock: QDockWidget) -> None:
        window = self.window
        if dock.isFloating() or not dock.isVisible():
            return
        wanted = int(window.height() * _dock_share(window.height()))
        if dock.height() < wanted * 0.9:
            window.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)

    def show_all(self) -> None:
        """Show every panel: leaderboard and graph side by side, failures, agreement and
        benchmark tabbed with the graph."""
        window = self.window
        for dock in self.docks.values():
            window.removeDockWidget(dock)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.docks["leaderboard"])
        window.splitDockWidget(
            self.docks["leaderboard"], self.docks["graph"], Qt.Orientation.Horizontal
        )
        window.tabifyDockWidget(self.docks["graph"], self.docks["failures"])
        window.tabifyDockWidget(self.docks["graph"], self.docks["agreement"])
        window.tabifyDockWidget(self.docks["graph"], self.docks["benchmark"])
        for name, dock in self.docks.items():
            self.panel(name)  # laid out with its content
            dock.show()
        self._settle()
        # dock sizes and the current tab only take once the window is laid out
        QTimer.singleShot(0, self._settle)

    def show_panel(self, name: str) -> None:
        """Show one panel across the window's lower part, the others closed (the screenshot
        pages ``leaderboard``, ``graph``, ``agreement``, ``failures`` and ``benchmark``)."""
        self.panel(name)
        chosen = self.docks[name]
        for key, dock in self.docks.items():
            if key != name:
                dock.hide()
        chosen.show()
        chosen.raise_()

        def enlarge() -> None:
            self.window.resizeDocks(
                [chosen], [int(self.window.height() * 0.6)], Qt.Orientation.Vertical
            )

        enlarge()
        QTimer.singleShot(0, enlarge)

    def _settle(self) -> None:
        window = self.window
        self.docks["graph"].raise_()
        leaderboard, graph = self.docks["leaderboard"], self.docks["graph"]
        share = _dock_share(window.height())
        window.resizeDocks([leaderboard], [int(window.height() * share)], Qt.Orientation.Vertical)
        board = BOARD_SHARE_SHORT if window.height() < SHORT_WINDOW else BOARD_SHARE
        window.resizeDocks(
            [leaderboard, graph],
            [int(window.width() * board), int(window.width() * (1 - board))],
            Qt.Orientation.Horizontal,
        )


def _dock_share(height: int) -> float:
    """The analysis docks' share of a window ``height`` px tall."""
    if height < VERY_SHORT_WINDOW:
        return DOCK_SHARE_VERY_SHORT
    return DOCK_SHARE_SHORT if height < SHORT_WINDOW else DOCK_SHARE


def in_scroll_area(panel: QWidget) -> QScrollArea:
    """The panel in a scroll area that follows its size: a docked panel never widens the
    window past the screen (at 1366x768 the analysis docks share the width). Its pickers wrap
    onto further lines (see :func:`wrap_picker_rows`), so it fits its dock's width and scrolls
    only down, when a dock is shorter than the panel's least height."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(panel)
    return area


#: what makes a row of a panel's layout a row of pickers
_PICKERS = (QComboBox, QAbstractSpinBox, QCheckBox)


def _child_widget(layout: QLayout, index: int) -> QWidget | None:
    item = layout.itemAt(index)
    return item.widget() if item is not None else None


def _child_layout(layout: QLayout, index: int) -> QLayout | None:
    item = layout.itemAt(index)
    return item.layout() if item is not None else None


def _taken_layout(layout: QLayout, index: int) -> QLayout | None:
    item = layout.takeAt(index)
    return item.layout() if item is not None else None


def _picker_row(layout: QLayout | None) -> bool:
    """Whether ``layout`` is a box row with a picker and no text that wraps (a request line
    is a paragraph, not a row of pickers)."""
    if not isinstance(layout, QHBoxLayout) or layout.count() == 0:
        return False
    widgets = [_child_widget(layout, i) for i in range(layout.count())]
    shown = [widget for widget in widgets if widget is not None]
    wraps = any(isinstance(widget, QLabel) and widget.wordWrap() for widget in shown)
    return not wraps and any(isinstance(widget, _PICKERS) for widget in shown)


def _box_row(layout: QLayout | None) -> bool:
    """Whether ``layout`` is a grid of one row of widgets (boxes side by side)."""
    if not isinstance(layout, QGridLayout) or layout.rowCount() != 1 or layout.count() < 2:
        return False
    return all(_child_widget(layout, i) is not None for i in range(layout.count()))


def wrap_picker_rows(panel: QWidget) -> None:
    """Gather the panel's consecutive rows of pickers (its top layout's box rows of captions,
    combo boxes, check boxes, spin boxes and buttons) into one flow that wraps at the dock's
    width, a caption staying with the picker after it; and boxes side by side in a grid row
    into a flow that stacks them when they do not fit. The panels lay their pickers out in rows
    for a wide window; docked beside another panel at 1366x768 those rows were wider than the
    dock and the whole panel scrolled sideways."""
    top = panel.layout()
    if not isinstance(top, QBoxLayout):
        return
    index = 0
    while index < top.count():
        if _box_row(_child_layout(top, index)):
            # boxes side by side stay side by side while they fit, and stack when not
            grid = _taken_layout(top, index)
            assert isinstance(grid, QGridLayout)  # as _box_row checked
            boxes = FlowLayout(fill=True)
            while grid.count():
                box = _child_widget(grid, 0)
                grid.takeAt(0)
                if box is not None:
                    boxes.addWidget(box)
            grid.deleteLater()
            top.insertLayout(index, boxes)
            index += 1
            continue
        if not _picker_row(_child_layout(top, index)):
            index += 1
            continue
        flow = FlowLayout()
        first = index
        while index < top.count() and _picker_row(_child_layout(top, index)):
            row = _taken_layout(top, index)
            assert isinstance(row, QHBoxLayout)  # as _picker_row checked
            _move_into_flow(panel, row, flow)
            row.deleteLater()
        top.insertLayout(first, flow)
        index = first + 1


def _move_into_flow(panel: QWidget, row: QHBoxLayout, flow: FlowLayout) -> None:
    caption: QLabel | None = None
    while row.count():
        item = row.takeAt(0)
        widget = item.widget() if item is not None else None
        if widget is None:
            continue  # a stretch: the flow fills its lines by itself
        if isinstance(widget, QLabel):
            if caption is not None:
                flow.addWidget(caption)
            caption = widget
            continue
        if caption is None:
            flow.addWidget(widget)
            continue
        pair = QWidget(panel)  # a caption and its picker wrap together
        pair_row = QHBoxLayout(pair)
        pair_row.setContentsMargins(0, 0, 0, 0)
        pair_row.addWidget(caption)
        pair_row.addWidget(widget)
        pair.setVisible(not widget.isHidden())
        flow.addWidget(pair)
        caption = None
    if caption is not None:
        flow.addWidget(caption)


def compact_rows(panel: QWidget) -> None:
    """Table rows one text line high (plus a little), not the style's taller default: a
    docked table at 1366x768 then shows ten rows."""
    for table in panel.findChildren(QTableView):
        header = table.verticalHeader()
        header.setMinimumSectionSize(1)
        header.setDefaultSectionSize(table.fontMetrics().height() + ROW_PADDING)
