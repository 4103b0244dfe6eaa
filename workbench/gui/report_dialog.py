"""File > Export report…: the main options of ``workbench report`` in a dialog, the report
written by :func:`workbench.services.report_html.write_report` on a worker thread with a progress
bar that follows its steps. The bundle is only read."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QMessageBox,
    QWidget,
)

from workbench.gui.background import BackgroundRunner
from workbench.gui.forms.ui_report_dialog import Ui_ReportDialog
from workbench.gui.jobs import Access, Job, JobControl, JobStatus, jobs_for
from workbench.gui.locations import default_output, display_location
from workbench.gui.problem_dialog import show_problem
from workbench.storage import Bundle

if TYPE_CHECKING:  # the report's modules load matplotlib and networkx: imported when used, so
    # the main window (which adds the menu entry at start-up) paints without them
    from workbench.gui.main_window import MainWindow  # which imports this module
    from workbench.services.analysis import AnalysisChoices
    from workbench.services.report import ReportRequest

log = logging.getLogger(__name__)

ALL = "(all)"


class ReportDialog(QDialog, Ui_ReportDialog):
    """Emits :attr:`written` with the report's path after it was written."""

    written = Signal(object)  # Path

    def __init__(self, bundle: str | Path, parent: QWidget | None = None) -> None:
        # start-up: the report's statistics stack loads when the dialog first opens
        from workbench.services.report import DEFAULT_BOOTSTRAP_ROUNDS, STEPS

        super().__init__(parent)
        self.setupUi(self)  # ui/report_dialog.ui
        self.bundle = bundle
        # only for the choices: the report itself is a job of the window's job manager
        self.runner = BackgroundRunner(self, in_order=True, kind="Picker read")
        self.job: Job | None = None
        self.message_box: QMessageBox | None = None

        self.bundle_label.setText(display_location(bundle))
        self.combos: dict[str, QComboBox] = {
            "categories": self.category_combo,
            "campaigns": self.campaign_combo,
            "judge_runs": self.judge_run_combo,
        }
        for combo in self.combos.values():
            combo.addItem(ALL)
        self.bootstrap_spin.setValue(DEFAULT_BOOTSTRAP_ROUNDS)
        self.out_edit.setText(str(default_output(bundle, ".html", "-report")))
        self.progress_bar.setRange(0, len(STEPS))
        # a button of its own role: a .ui button box holds only standard buttons
        self.write_button = self.buttons.addButton(
            "Write report", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.close_button = self.buttons.button(QDialogButtonBox.StandardButton.Close)

        self.browse_button.clicked.connect(self._browse)
        self.write_button.clicked.connect(self.start)
        self.close_button.clicked.connect(self.reject)
        self.runner.run(self._choices, self._fill_choices, lambda _error: None)

    def _choices(self) -> AnalysisChoices:
        # start-up: the analysis package loads when the dialog first opens
        from workbench.services.analysis import analysis_choices

        with Bundle.open(self.bundle, migrate=False) as bundle:
            return analysis_choices(bundle)

    def _fill_choices(self, choices: AnalysisChoices) -> None:
        runs = tuple(side[4:] for side in choices.sides if side.startswith("run:"))
        for name, values in (
            ("categories", choices.categories),
            ("campaigns", choices.campaigns),
            ("judge_runs", runs),
        ):
            self.combos[name].addItems(list(values))

    def _browse(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, "Write report to", self.out_edit.text(), "HTML files (*.html);;All files (*)"
        )
        if name:
            self.out_edit.setText(name)

    def request(self) -> ReportRequest:
        # start-up: the report's statistics stack loads when the dialog first opens
        from workbench.services.analysis_request import AnalysisRequest
        from workbench.services.report import ReportRequest

        def chosen(name: str) -> tuple[str, ...]:
            text = self.combos[name].currentText().strip()
            return () if text in ("", ALL) else (text,)

        return ReportRequest(
            AnalysisRequest(
                categories=chosen("categories"),
                campaigns=chosen("campaigns"),
                judge_runs=chosen("judge_runs"),
                bootstrap=self.bootstrap_spin.value(),
                seed=self.seed_spin.value(),
            )
        )

    @property
    def running(self) -> bool:
        return self.job is not None and self.job.active

    def start(self) -> None:
        # start-up: the report's writer (Jinja2, matplotlib) loads when a report is written
        from workbench.services.report_html import write_report

        target = self.out_edit.text().strip()
        if not target:
            self._show_problem("Choose the file to write the report to.", "")
            return
        request, bundle, out = self.request(), self.bundle, Path(target)
        self._set_running(True)
        self.progress_bar.setValue(0)
        self.status_label.setText("Gathering the report…")

        def work(control: JobControl) -> int:
            def stepped(step: str, done: int, total: int) -> None:
                # the report is written only after its last step, so stopping at a step
                # leaves no file behind
                control.check()
                control.progress(done, total, f"Working on: {step}…")

            return write_report(bundle, out, request, stepped)

        job = jobs_for(self).submit(f"Report to {out.name}", "Report", work, access=Access.READ)
        self.job = job
        job.changed.connect(self._stepped)
        job.finished.connect(lambda: self._job_ended(job, out))

    def _stepped(self) -> None:
        job = self.job
        if job is None or not job.active:
            return
        if job.total > 0:
            self.progress_bar.setRange(0, job.total)
            self.progress_bar.setValue(job.done)
        self.status_label.setText(job.text)

    def _job_ended(self, job: Job, out: Path) -> None:
        if job.status is JobStatus.SUCCEEDED:
            self._succeeded(out, job.result)
            job.set_outcome(self.status_label.text())
        elif job.status is JobStatus.CANCELLED:
            self._set_running(False)
            self.status_label.setText("Report cancelled; no file was written.")
        else:
            self._failed(job.error, job.details)

    def _succeeded(self, out: Path, size: int) -> None:
        self._set_running(False)
        self.progress_bar.setValue(self.progress_bar.maximum())
        self.status_label.setText(f"Wrote the report to {out} ({size // 1024:,} KiB).")
        self.written.emit(out)

    def _failed(self, message: str, details: str) -> None:
        self._set_running(False)
        self.status_label.setText("No report was written.")
        self._show_problem(message if not details else f"The report failed: {message}", details)

    def _show_problem(self, message: str, details: str) -> None:
        self.message_box = show_problem(self, "Export report", message, details)

    def _set_running(self, running: bool) -> None:
        for widget in (
            self.write_button,
            self.close_button,
            self.out_edit,
            self.browse_button,
            self.bootstrap_spin,
            self.seed_spin,
            *self.combos.values(),
        ):
            widget.setEnabled(not running)


class ReportMenuEntry(QObject):
    """File > Export report… in the main window, placed after File > Export…."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.dialog: ReportDialog | None = None
        self.action = QAction("Export &report…", window)
        self.action.setObjectName("exportReportAction")
        self.action.setStatusTip("Write a self-contained HTML evaluation report of the bundle")
        menu = window.ui.fileMenu
        actions = menu.actions()
        export_action = window.tools.export_action
        after = actions.index(export_action) + 1 if export_action in actions else len(actions)
        if after < len(actions):
            menu.insertAction(actions[after], self.action)
        else:
            menu.addAction(self.action)
        self.action.triggered.connect(self.show_dialog)

    def show_dialog(self) -> ReportDialog | None:
        window = self.window
        location = window.location  # set with the bundle, when one is open
        if window.bundle is None or location is None:
            window.show_error("No bundle", "Open a bundle first.")
            return None
        if self.dialog is None or (self.dialog.bundle != location and not self.dialog.running):
            self.dialog = ReportDialog(location, window)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog
