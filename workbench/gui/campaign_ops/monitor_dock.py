"""The Campaign monitor dock: per-annotator progress, time per task, skips and attention checks,
and agreement between annotators, from ``services.monitor.campaign_status``; refreshed off the
GUI thread whenever the bundle's judgment watcher sees a vote arrive or be undone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.background import BackgroundRunner
from workbench.gui.panels.rows_model import RowsTableModel
from workbench.storage import Bundle

ANNOTATOR_HEADERS = ("Annotator", "Answered", "Skipped", "Median s/task", "Checks", "Skip reasons")
AGREEMENT_HEADERS = ("Scope", "Comparisons", "Fleiss' kappa", "Krippendorff's alpha")


def annotator_rows(status: dict[str, Any]) -> list[tuple[Any, ...]]:
    rows = []
    for row in status["annotators"]:
        gold = row["gold"]
        checks = f"{gold['correct']}/{gold['answered']}" if gold else "-"
        reasons = "; ".join(f"{reason} ({n})" for reason, n in row["skip_reasons"].items())
        rows.append(
            (
                row["annotator"],
                row["answered"],
                row["skipped"],
                row["median_seconds_per_task"],
                checks,
                reasons or "-",
            )
        )
    return rows


def agreement_rows(status: dict[str, Any]) -> list[tuple[Any, ...]]:
    scopes = [("All comparisons", status["agreement"]["overall"])]
    scopes += [(f"Category: {name}", v) for name, v in status["agreement"]["by_category"].items()]
    return [
        (scope, v["comparisons"], v["fleiss_kappa"], v["krippendorff_alpha"]) for scope, v in scopes
    ]


class CampaignMonitorDock(QDockWidget):
    """Shows one campaign's status; ``refresh`` reads it on ``runner``'s worker thread."""

    def __init__(
        self, bundle: Callable[[], Bundle | None], runner: BackgroundRunner, parent: QWidget
    ) -> None:
        super().__init__("Campaign monitor", parent)
        self.setObjectName("campaignMonitorDock")
        self._bundle = bundle
        self.runner = runner
        self.refreshes = 0
        #: the campaign to show first (until the coordinator picks one)
        self.wanted: str | None = None
        body = QWidget(self)
        layout = QVBoxLayout(body)
        self.campaigns = QComboBox(body)
        self.campaigns.setAccessibleName("Campaign")
        self.campaigns.currentTextChanged.connect(lambda _: self.refresh())
        self.summary = QLabel("No campaign", body)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.annotators = RowsTableModel(ANNOTATOR_HEADERS, self)
        self.agreement = RowsTableModel(AGREEMENT_HEADERS, self)
        layout.addWidget(self.campaigns)
        layout.addWidget(self.summary)
        for model, name in ((self.annotators, "Annotators"), (self.agreement, "Agreement")):
            view = QTableView(body)
            view.setModel(model)
            view.setAccessibleName(name)
            view.horizontalHeader().setStretchLastSection(True)
            layout.addWidget(view)
        self.setWidget(body)
        self.visibilityChanged.connect(lambda visible: self.refresh() if visible else None)

    def refresh(self) -> None:
        """Read the campaigns and the chosen one's status off the GUI thread, if shown."""
        bundle = self._bundle()
        if bundle is None or not self.isVisible():
            return
        chosen = self.campaigns.currentText() or self.wanted

        def read() -> tuple[list[str], dict[str, Any] | None]:
            from workbench.services.campaigns import list_campaigns
            from workbench.services.monitor import campaign_status

            names = [campaign["name"] for campaign in list_campaigns(bundle)]
            name = chosen if chosen in names else (names[0] if names else None)
            return names, campaign_status(bundle, name) if name else None

        self.runner.run(read, self._show)

    def _show(self, result: tuple[list[str], dict[str, Any] | None]) -> None:
        names, status = result
        self.refreshes += 1
        self.campaigns.blockSignals(True)
        if [self.campaigns.itemText(i) for i in range(self.campaigns.count())] != names:
            self.campaigns.clear()
            self.campaigns.addItems(names)
        if status is not None:
            self.campaigns.setCurrentText(status["campaign"])
        self.campaigns.blockSignals(False)
        if status is None:
            self.summary.setText("This bundle has no campaign.")
            self.annotators.set_rows([])
            self.agreement.set_rows([])
            return
        self.summary.setText(
            f"{status['protocol']} ({status['status']}): {status['tasks']} tasks, "
            f"{status['complete_tasks']} complete; {status['answered']} answers, "
            f"{status['skipped']} skips; {status['active_leases']} in progress"
        )
        self.annotators.set_rows(annotator_rows(status))
        self.agreement.set_rows(agreement_rows(status))
