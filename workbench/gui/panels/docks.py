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
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget

from workbench.gui import panel_jobs
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.panel_process import ProcessRunner, shared_panel_process
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


class AnalysisDocks(QObject):
    """The analysis panels, each in a dock (hidden until chosen in the View menu)."""

    def __init__(
        self,
        window: QMainWindow,
        selection: LinkedSelection,
        view_menu: QMenu,
        before: object = None,
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
        self.docks: dict[str, QDockWidget] = {}
        for name, title in PANEL_TITLES.items():
            dock = QDockWidget(title, window)
            dock.setObjectName(f"{name}Dock")
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            dock.hide()
            if before is not None:
                view_menu.insertAction(before, dock.toggleViewAction())  # type: ignore[arg-type]
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
        return self.panel("leaderboard")  # type: ignore[return-value]

    @property
    def graph(self) -> GraphPanel:
        return self.panel("graph")  # type: ignore[return-value]

    @property
    def failures(self) -> FailuresPanel:
        return self.panel("failures")  # type: ignore[return-value]

    @property
    def agreement(self) -> AgreementPanel:
        return self.panel("agreement")  # type: ignore[return-value]

    @property
    def benchmark(self) -> BenchmarkPanel:
        return self.panel("benchmark")  # type: ignore[return-value]

    def panel(self, name: str) -> QWidget:
        """The panel of dock ``name``, built (with the open bundle) on first use."""
        if name not in self.built:
            panel = self._build(name)
            self.built[name] = panel
            for process in (self.process, self.other_process):
                if not process.running:
                    # the stacks load in the worker while this panel is laid out and painted
                    QTimer.singleShot(0, process.start)
            self._on_screen[panel] = False
            if name == "graph":
                panel.on_screen = False  # type: ignore[attr-defined]
            self.docks[name].setWidget(_scrolling(panel))
            if self._bundle is not None:
                panel.set_bundle(self._bundle, self._choices)  # type: ignore[attr-defined]
                self._stale.add(panel)  # computed when first on screen
            elif self._opening is not None:
                self._reading_state(panel, True)
                if self._reading is not self._opening:
                    self._read_choices(self._opening)  # the first panel of this bundle
        return self.built[name]

    def _build(self, name: str) -> QWidget:
        if name == "leaderboard":
            from workbench.gui.panels.leaderboard_panel import LeaderboardPanel

            return LeaderboardPanel(self.selection, self.runner)
        if name == "graph":
            from workbench.gui.panels.graph_panel import GraphPanel

            return GraphPanel(self.selection, self.other_runner)
        if name == "failures":
            from workbench.gui.panels.failures_panel import FailuresPanel

            return FailuresPanel(self.selection, self.other_runner)
        if name == "benchmark":
            from workbench.gui.panels.benchmark_panel import BenchmarkPanel

            return BenchmarkPanel(self.other_runner)
        from workbench.gui.panels.agreement_panel import AgreementPanel

        agreement = AgreementPanel(self.other_runner)
        agreement.follow(self.selection)
        return agreement

    @property
    def busy(self) -> bool:
        working = (panel.busy for panel in self.panels)  # type: ignore[attr-defined]
        return self.runner.busy or self.other_runner.busy or any(working)

    def stop_running_jobs(self) -> None:
        """Stop the workers' running jobs with their processes (a panel job only reads): the
        window is closing, and a count of cycles on a large bundle would hold its close for
        tens of seconds. The next job starts a new worker."""
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
        for panel in self.panels:  # none computes on the previous bundle meanwhile
            panel.set_bundle(None, None)  # type: ignore[attr-defined]
            # until its choices are read, a panel says the bundle is being read, not that none
            # is open or that it holds nothing
            self._reading_state(panel, bundle is not None)
        self.watcher.set_bundle(bundle)
        if bundle is None:
            # the caller closes the bundle next: the workers let go of it first
            self.process.release_bundle()
            self.other_process.release_bundle()
        elif self.built:
            self._read_choices(bundle)

    def _read_choices(self, bundle: Bundle) -> None:
        self._reading = bundle

        def read(choices: AnalysisChoices) -> None:
            self._show_choices(bundle, choices)

        def failed(error: BaseException) -> None:
            log.error("cannot read the analysis choices", exc_info=error)
            self._show_choices(bundle, None)

        self.runner.run(
            partial(panel_jobs.read_choices, panel_jobs.bundle_ref(bundle)), read, failed
        )

    def _show_choices(self, bundle: Bundle, choices: AnalysisChoices | None) -> None:
        if bundle is not self._opening:
            return  # another bundle was opened meanwhile
        self._bundle, self._choices = bundle, choices
        for panel in self.panels:
            panel.set_bundle(bundle, choices)  # type: ignore[attr-defined]
            self._reading_state(panel, False)
        self.judgments_changed()

    @staticmethod
    def _reading_state(panel: QWidget, reading: bool) -> None:
        if reading:
            panel.status.setText("")  # type: ignore[attr-defined]
        panel.computing.reading(reading)  # type: ignore[attr-defined]

    def judgments_written(self) -> None:
        """Judgments were written in this process (a vote cast, or taken back): look now rather
        than at the next poll; the panels on screen refresh once the change is read."""
        self.watcher.poll_now()

    def judgments_changed(self) -> None:
        """Refresh the panels on screen; the others when they are next shown (a hidden panel
        costs nothing, however many votes arrive)."""
        for panel in self.panels:
            if self._on_screen[panel]:
                self._stale.discard(panel)
                panel.refresh()  # type: ignore[attr-defined]
            else:
                self._stale.add(panel)

    def _visibility_changed(self, name: str, visible: bool) -> None:
        # a dock's visibility changes when it is opened or closed and when its tab is chosen
        if not visible and name not in self.built:
            return
        panel = self.panel(name)
        self._on_screen[panel] = visible
        if name == "graph":
            panel.on_screen = visible  # type: ignore[attr-defined]
        if not visible:
            return
        if panel in self._stale:
            self._stale.discard(panel)
            panel.refresh()  # type: ignore[attr-defined]
        elif name == "graph":
            panel.catch_up()  # type: ignore[attr-defined]

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
        window.resizeDocks([leaderboard], [int(window.height() * 0.55)], Qt.Orientation.Vertical)
        window.resizeDocks(
            [leaderboard, graph],
            [int(window.width() * 0.6), int(window.width() * 0.4)],
            Qt.Orientation.Horizontal,
        )


def _scrolling(panel: QWidget) -> QWidget:
    """The panel in a scroll area that follows its size: a docked panel whose pickers and
    request line need more width than its dock has scrolls sideways instead of widening the
    window past the screen (at 1366x768 the analysis docks share the width)."""
    from PySide6.QtWidgets import QFrame, QScrollArea

    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(panel)
    return area
