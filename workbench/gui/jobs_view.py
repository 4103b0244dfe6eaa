"""Where the job manager's work shows: :class:`JobsIndicator` in the main window's status bar
(how many jobs run, the current one's progress; a click opens the list) and
:class:`JobsDialog`, the list with a progress bar and a Cancel button per job, and the finished
ones with their outcome until *Clear finished*.

Both redraw at most every :data:`REDRAW_MS`: a judge reports each verdict, milliseconds apart,
and relaying out the list for each would be wasted work on the GUI thread. While the window is
in annotator mode (``blind()`` is true) a job shows only its kind and progress: a title may hold
a file name and an error may quote a model's name.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.jobs import Job, JobManager, JobStatus
from workbench.gui.problem_dialog import show_problem

REDRAW_MS = 100


def _never_blind() -> bool:
    return False


def job_title(job: Job, blind: bool) -> str:
    return job.kind if blind else job.title


def job_state(job: Job, blind: bool) -> str:
    """The status line: progress text while it runs, the outcome once it ended."""
    if job.status is JobStatus.QUEUED:
        return "Waiting for the job before it…"
    if job.status is JobStatus.FAILED:
        return "Failed." if blind else f"Failed: {job.error}"
    if not blind:
        return job.text
    if job.active:
        return "Cancelling…" if job.cancel_requested else "Running…"
    # an outcome may name the file written
    return "Cancelled." if job.status is JobStatus.CANCELLED else "Done."


def _show_progress(bar: QProgressBar, job: Job) -> None:
    if job.active and job.total <= 0:
        bar.setRange(0, 0 if job.status is JobStatus.RUNNING else 1)  # busy, or not started
        return
    total = max(job.total, 1)
    bar.setRange(0, total)
    bar.setValue(total if job.status is JobStatus.SUCCEEDED else min(job.done, total))


class JobRow(QWidget):
    """One job in the list."""

    def __init__(self, job: Job, blind: Callable[[], bool], parent: QWidget | None = None):
        super().__init__(parent)
        self.job = job
        self.blind = blind
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.state = QLabel()
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.state.setWordWrap(True)
        self.bar = QProgressBar()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop this job; what it changed is undone or kept whole")
        self.details_button = QPushButton("Details…")
        self.cancel_button.clicked.connect(self.cancel)
        self.details_button.clicked.connect(self.show_details)
        self.details_box: QMessageBox | None = None
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 4)
        grid.addWidget(self.title, 0, 0)
        grid.addWidget(self.bar, 1, 0)
        grid.addWidget(self.state, 2, 0, 1, 3)
        grid.addWidget(self.cancel_button, 1, 1)
        grid.addWidget(self.details_button, 1, 2)
        grid.setColumnStretch(0, 1)
        self.refresh()

    def refresh(self) -> None:
        job, blind = self.job, self.blind()
        self.title.setText(job_title(job, blind))
        self.state.setText(job_state(job, blind))
        _show_progress(self.bar, job)
        self.cancel_button.setVisible(job.active)
        self.cancel_button.setEnabled(job.cancellable and not job.cancel_requested)
        self.details_button.setVisible(job.status is JobStatus.FAILED and not blind)

    def cancel(self) -> None:
        self.job.cancel()
        self.refresh()  # the button greys at once, not at the next redraw

    def show_details(self) -> QMessageBox:
        self.details_box = show_problem(self, self.job.title, self.job.error, self.job.details)
        return self.details_box


class JobsDialog(QDialog):
    """The list of jobs: running and queued first as started, then the finished ones."""

    def __init__(
        self,
        manager: JobManager,
        parent: QWidget | None = None,
        blind: Callable[[], bool] = _never_blind,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Jobs")
        self.setObjectName("jobsDialog")
        self.resize(520, 360)
        self.manager = manager
        self.blind = blind
        self.rows: list[JobRow] = []
        self.empty_label = QLabel("Nothing has been started yet.")
        self.list_widget = QWidget()
        self.list_layout = QVBoxLayout(self.list_widget)
        self.list_layout.addWidget(self.empty_label)
        self.list_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.list_widget)
        self.buttons = QDialogButtonBox()
        self.clear_button = self.buttons.addButton(
            "Clear finished", QDialogButtonBox.ButtonRole.ResetRole
        )
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.buttons)
        self.clear_button.clicked.connect(manager.clear_finished)
        self.close_button.clicked.connect(self.reject)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.refresh)
        manager.jobsChanged.connect(self.rebuild)
        manager.jobUpdated.connect(self.timer.start)
        self.rebuild()

    def rebuild(self) -> None:
        """Rows for the manager's jobs (added or cleared)."""
        jobs = self.manager.jobs()
        if [row.job for row in self.rows] != jobs:
            for row in self.rows:
                row.deleteLater()
            self.rows = []
            for index, job in enumerate(jobs):
                row = JobRow(job, self.blind, self.list_widget)
                self.list_layout.insertWidget(index, row)
                self.rows.append(row)
        self.refresh()

    def refresh(self) -> None:
        for row in self.rows:
            row.refresh()
        self.empty_label.setVisible(not self.rows)
        self.clear_button.setEnabled(any(not row.job.active for row in self.rows))


class JobsIndicator(QWidget):
    """The status bar's summary: a button saying how many jobs run (a click opens the list) and
    the current job's progress. Hidden while there is no job to show."""

    def __init__(
        self,
        manager: JobManager,
        open_list: Callable[[], object],
        parent: QWidget | None = None,
        blind: Callable[[], bool] = _never_blind,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("jobsIndicator")
        self.manager = manager
        self.blind = blind
        self.button = QToolButton()
        self.button.setAutoRaise(True)
        self.button.setToolTip("Show the jobs: their progress, Cancel, and how they ended")
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(120)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.bar)
        self.button.clicked.connect(lambda: open_list())
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.refresh)
        manager.jobsChanged.connect(self.refresh)
        manager.jobUpdated.connect(self.timer.start)
        self.refresh()

    def current(self) -> Job | None:
        """The job the bar follows: the oldest running one."""
        running = self.manager.running()
        return running[0] if running else None

    def refresh(self) -> None:
        jobs = self.manager.jobs()
        self.setVisible(bool(jobs))
        active = [job for job in jobs if job.active]
        current = self.current()
        if current is not None:
            waiting = len(active) - 1
            more = f" (+{waiting} more)" if waiting else ""
            self.button.setText(f"{len(active)} job(s): {job_title(current, self.blind())}{more}")
            _show_progress(self.bar, current)
            self.bar.show()
        else:
            failed = sum(job.status is JobStatus.FAILED for job in jobs)
            self.button.setText(f"Jobs: none running, {failed} failed" if failed else "Jobs")
            self.bar.hide()
