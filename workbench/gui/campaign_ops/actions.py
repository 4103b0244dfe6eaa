"""The coordinator's campaign actions in the full app's View menu: Campaign monitor
(Ctrl+Shift+M), a dock refreshed live from the judgment watcher, and Adjudicate disagreements
(Ctrl+Shift+J), a dialog."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from workbench.gui.campaign_ops.adjudication_dialog import AdjudicationDialog
from workbench.gui.campaign_ops.monitor_dock import CampaignMonitorDock

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


class CampaignOps:
    """Owns the monitor dock and the adjudication dialog of one main window."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.monitor = CampaignMonitorDock(lambda: window.bundle, window.runner, window)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.monitor)
        self.monitor.hide()
        self.monitor_action = self.monitor.toggleViewAction()
        self.monitor_action.setText("Campaign &monitor")
        self.monitor_action.setObjectName("campaignMonitorAction")
        self.monitor_action.setShortcut(QKeySequence("Ctrl+Shift+M"))
        self.monitor_action.setToolTip("Progress and agreement of a campaign (Ctrl+Shift+M)")
        # shown again where it shares a place as a tab (a narrow window), it comes to the front
        self.monitor_action.triggered.connect(self._raise_monitor)
        self.adjudicate_action = QAction("&Adjudicate disagreements…", window)
        self.adjudicate_action.setObjectName("adjudicateAction")
        self.adjudicate_action.setShortcut(QKeySequence("Ctrl+Shift+J"))
        self.adjudicate_action.setToolTip("Settle the tasks annotators disagree on (Ctrl+Shift+J)")
        self.adjudicate_action.triggered.connect(lambda: self.show_adjudication())
        menu, before = window.ui.viewMenu, window.ui.resetLayoutAction
        for action in (self.monitor_action, self.adjudicate_action):
            menu.insertAction(before, action)
            window.addAction(action)
        self.adjudication: AdjudicationDialog | None = None
        # the watcher polls the bundle off the GUI thread; a change refreshes the open monitor
        window.analysis.watcher.judgmentsChanged.connect(self.monitor.refresh)

    def _raise_monitor(self, shown: bool) -> None:
        if shown:
            self.monitor.raise_()

    def show_monitor(self, campaign: str | None = None) -> CampaignMonitorDock:
        self.monitor.wanted = campaign
        self.monitor.show()
        self.monitor.fit_width()
        self.monitor.raise_()
        self.monitor.refresh()
        return self.monitor

    def show_adjudication(self, campaign: str | None = None) -> AdjudicationDialog:
        if self.adjudication is None:
            self.adjudication = AdjudicationDialog(
                lambda: self.window.bundle, self.window.runner, self.window
            )
        self.adjudication.show()
        self.adjudication.raise_()
        self.adjudication.open_for(campaign)
        return self.adjudication
