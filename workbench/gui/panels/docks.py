"""Creates the analysis docks in the main window, lists them in the View menu, and hands them
the open bundle; one watcher tells them all when judgments arrive."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget

from workbench.gui.background import BackgroundRunner
from workbench.gui.panels.agreement_panel import AgreementPanel
from workbench.gui.panels.failures_panel import FailuresPanel
from workbench.gui.panels.graph_panel import GraphPanel
from workbench.gui.panels.leaderboard_panel import LeaderboardPanel
from workbench.gui.panels.watcher import JudgmentWatcher
from workbench.gui.selection import SelectionModel
from workbench.services.analysis import AnalysisChoices, analysis_choices
from workbench.storage import Bundle

log = logging.getLogger(__name__)


class AnalysisDocks(QObject):
    """The four panels, each in a dock (hidden until chosen in the View menu)."""

    def __init__(
        self,
        window: QMainWindow,
        selection: SelectionModel,
        view_menu: QMenu,
        before: object = None,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.bundle: Bundle | None = None
        # their own threads, so a long bootstrap never delays the item list's searches
        self.runner = BackgroundRunner(max_threads=2, parent=self)
        self.watcher = JudgmentWatcher(self)
        self.leaderboard = LeaderboardPanel(selection, self.runner)
        self.graph = GraphPanel(selection, self.runner)
        self.failures = FailuresPanel(selection, self.runner)
        self.agreement = AgreementPanel(self.runner)
        self.docks: dict[str, QDockWidget] = {}
        for name, title, panel in (
            ("leaderboard", "Leaderboard", self.leaderboard),
            ("graph", "Contradiction graph", self.graph),
            ("failures", "Failure cases", self.failures),
            ("agreement", "Agreement", self.agreement),
        ):
            dock = QDockWidget(title, window)
            dock.setObjectName(f"{name}Dock")
            dock.setWidget(panel)
            window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            dock.hide()
            if before is not None:
                view_menu.insertAction(before, dock.toggleViewAction())  # type: ignore[arg-type]
            else:
                view_menu.addAction(dock.toggleViewAction())
            self.docks[name] = dock
        first = self.docks["leaderboard"]
        for name in ("graph", "failures", "agreement"):
            window.tabifyDockWidget(first, self.docks[name])
        self.panels = (self.leaderboard, self.graph, self.failures, self.agreement)
        self._stale: set[QWidget] = set()
        self._on_screen: dict[QWidget, bool] = {panel: False for panel in self.panels}
        self.graph.on_screen = False
        for panel in self.panels:
            dock = panel.parentWidget()
            assert isinstance(dock, QDockWidget)
            dock.visibilityChanged.connect(
                lambda visible, panel=panel: self._visibility_changed(panel, visible)
            )
        self.watcher.judgmentsChanged.connect(self.judgments_changed)

    @property
    def busy(self) -> bool:
        return self.runner.busy or any(panel.busy for panel in self.panels)

    def set_bundle(self, bundle: Bundle | None) -> None:
        """Show ``bundle`` (None: the bundle is closing; waits for running computations).

        The pickers' choices are read on a worker (one SELECT DISTINCT each, still seconds on
        a large bundle), so opening a bundle never waits for them; the panels get them, and
        compute, when they arrive."""
        self.bundle = bundle
        self.watcher.set_bundle(bundle)
        self._give_choices(bundle, None)
        if bundle is None:
            self.runner.wait()
            return
        self.runner.run(
            lambda: analysis_choices(bundle),
            lambda choices: self._choices_read(bundle, choices),
            lambda error: log.error("reading the analysis choices failed", exc_info=error),
        )

    def _give_choices(self, bundle: Bundle | None, choices: AnalysisChoices | None) -> None:
        self.leaderboard.set_bundle(bundle, choices)
        self.graph.set_bundle(bundle, choices)
        self.failures.set_bundle(bundle, choices)
        self.agreement.set_bundle(bundle, choices)

    def _choices_read(self, bundle: Bundle, choices: AnalysisChoices) -> None:
        if bundle is not self.bundle:  # another bundle was opened meanwhile
            return
        self._give_choices(bundle, choices)
        self.judgments_changed()

    def judgments_changed(self) -> None:
        """Refresh the panels on screen; the others when they are next shown (a hidden panel
        costs nothing, however many votes arrive)."""
        for panel in self.panels:
            if self._on_screen[panel]:
                self._stale.discard(panel)
                panel.refresh()
            else:
                self._stale.add(panel)

    def _visibility_changed(self, panel: QWidget, visible: bool) -> None:
        # a dock's visibility changes when it is opened or closed and when its tab is chosen
        self._on_screen[panel] = visible
        if panel is self.graph:
            self.graph.on_screen = visible
        if not visible:
            return
        if panel in self._stale:
            self._stale.discard(panel)
            panel.refresh()  # type: ignore[attr-defined]
        elif panel is self.graph:
            self.graph.catch_up()

    def show_all(self) -> None:
        """Show every panel: leaderboard and graph side by side, failures and agreement tabbed."""
        window = self.window
        for dock in self.docks.values():
            window.removeDockWidget(dock)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.docks["leaderboard"])
        window.splitDockWidget(
            self.docks["leaderboard"], self.docks["graph"], Qt.Orientation.Horizontal
        )
        window.tabifyDockWidget(self.docks["graph"], self.docks["failures"])
        window.tabifyDockWidget(self.docks["graph"], self.docks["agreement"])
        for dock in self.docks.values():
            dock.show()
        self._settle()
        # dock sizes and the current tab only take once the window is laid out
        QTimer.singleShot(0, self._settle)

    def show_panel(self, name: str) -> None:
        """Show one panel across the window's lower part, the others closed (the screenshot
        pages ``leaderboard``, ``graph``, ``agreement`` and ``failures``)."""
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
