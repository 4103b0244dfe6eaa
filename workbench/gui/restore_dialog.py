"""The dialog shown when a bundle file turns out damaged on open: what is wrong, and either a
button that restores the latest automatic backup (the damaged file is moved aside, never
deleted) or why there is nothing to restore. The restore is a job of the window's job manager:
copying a large backup takes a while, and the jobs list shows it."""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.jobs import Job, JobControl, JobStatus, jobs_for
from workbench.services.maintenance import backup_time, restore
from workbench.storage.errors import BundleDamagedError

log = logging.getLogger(__name__)

#: what the jobs list says at each step of a restore
RESTORE_STEPS = {"checking": "Checking the backup…", "copying": "Copying the backup…"}


def describe_time(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


class DamagedBundleDialog(QDialog):
    """Built from the error opening raised. When the user restores, ``restored(path, aside)``
    is emitted: open ``path`` again; ``aside`` is where the damaged file went."""

    restored = Signal(Path, object)  # the bundle, where the damaged file went (or None)

    def __init__(self, error: BundleDamagedError, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.error = error
        self.path = error.path
        self.backup = error.backup
        self.taken_at = backup_time(self.path, self.backup) if self.backup else None
        self.aside: Path | None = None
        self.job: Job | None = None
        self.setWindowTitle("The bundle is damaged")
        self.setMinimumWidth(600)

        icon = QLabel()
        style = self.style()
        icon.setPixmap(
            style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical).pixmap(48, 48)
        )
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        headline = QLabel(f"<b>{self.path.name} cannot be opened: the file is damaged.</b>")
        # the error's own message also gives the CLI's advice; here the buttons are the advice
        self.message_label = QLabel(f"File: {self.path}\nProblem: {error.problem}.")
        self.message_label.setTextFormat(Qt.TextFormat.PlainText)
        self.advice_label = QLabel(self._advice())
        self.problem_label = QLabel()
        self.problem_label.setTextFormat(Qt.TextFormat.PlainText)
        self.problem_label.setStyleSheet("color: #b00020")
        self.problem_label.hide()
        for label in (headline, self.message_label, self.advice_label, self.problem_label):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.buttons = QDialogButtonBox()
        self.restore_button: QPushButton | None = None
        if self.taken_at is not None:  # there is a backup
            self.restore_button = self.buttons.addButton(
                f"Restore backup from {describe_time(self.taken_at)}",
                QDialogButtonBox.ButtonRole.AcceptRole,
            )
            self.restore_button.setDefault(True)
            self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        else:
            self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.accepted.connect(self.restore)
        self.buttons.rejected.connect(self.reject)

        text = QVBoxLayout()
        for label in (headline, self.message_label, self.advice_label, self.problem_label):
            text.addWidget(label)
        text.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(icon)
        row.addLayout(text, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.buttons)

    def _advice(self) -> str:
        if self.backup is None or self.taken_at is None:
            return (
                "No automatic backup of this bundle was found, so there is nothing to restore. "
                "Keep the file: a copy of it may still be rescued (sqlite3 BUNDLE '.recover'), "
                "or open a copy of the bundle you or a colleague keep elsewhere."
            )
        return (
            f"The latest backup, {self.backup.name}, was taken on "
            f"{describe_time(self.taken_at)}. Restoring puts it in place of the "
            "damaged file; anything written after the backup is not in it. The damaged file is "
            "moved aside, not deleted."
        )

    def restore(self) -> None:
        """Put the backup in place on the job manager's worker; on success emit
        :attr:`restored` and close."""
        if self.backup is None or (self.job is not None and self.job.active):
            return

        path, backup = self.path, self.backup

        def work(control: JobControl) -> Path | None:
            # cancelled before its last step (the renames), the bundle stays exactly as it was
            return restore(
                path,
                backup,
                progress=control.reporter(RESTORE_STEPS),
                cancel_requested=control.cancelled,
            ).aside

        job = jobs_for(self).submit(f"Restore {path.name} from its backup", "Restore", work)
        self.job = job
        self.buttons.setEnabled(False)
        self.problem_label.hide()
        job.finished.connect(self._restore_ended)

    def _restore_ended(self) -> None:
        job = self.job
        assert job is not None  # set before the job could finish
        self.buttons.setEnabled(True)
        if job.status is JobStatus.CANCELLED:
            self.problem_label.setText("Restore cancelled; the bundle was not changed.")
            self.problem_label.show()
            return
        if job.status is not JobStatus.SUCCEEDED:
            log.warning("restoring %s failed: %s", self.path, job.error)
            self.problem_label.setText(f"The backup could not be restored: {job.error}")
            self.problem_label.show()
            return
        self.aside = job.result
        log.info(
            "restored %s from %s; damaged file moved to %s", self.path, self.backup, self.aside
        )
        self.accept()
        self.restored.emit(self.path, self.aside)
