"""File > Import…: pick a format from the plugin registry and the files to read, then run the
import service as a job of the window's job manager, with progress and a Cancel button here and
in the jobs list. A failed or cancelled import leaves the bundle as it was (the service
guarantees it); problems are shown in a dialog with the rejected rows one click away."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QWidget

from workbench.errors import WorkbenchError
from workbench.gui.forms.ui_import_dialog import Ui_ImportDialog
from workbench.gui.jobs import Job, JobControl, JobStatus, jobs_for
from workbench.gui.locations import display_location
from workbench.gui.problem_dialog import show_problem
from workbench.plugins import Registry, registry
from workbench.recent import is_server_location
from workbench.services.importing import ImportResult, import_files

log = logging.getLogger(__name__)

PHASES = {
    "hashing": "Checking the files…",
    "reading": "Reading rows…",
    "images": "Checking images…",
    "writing": "Writing to the bundle…",
    "done": "Done.",
}


def describe_result(result: ImportResult) -> str:
    if result.already_imported:
        return "These files were already imported into this bundle; nothing changed."
    counts = ", ".join(
        f"{value:,} {name.replace('_', ' ')}" for name, value in result.counts.items() if value
    )
    text = f"Imported with {result.importer}: {counts or 'nothing new'}."
    if result.rejections:
        text += f" {len(result.rejections)} rejected row(s) were skipped."
    if result.warnings:
        text += f" {len(result.warnings)} warning(s)."
    return text


class ImportDialog(QDialog):
    """Emits :attr:`imported` with the bundle's location after an import that landed.

    ``target`` is the bundle to import into: a path or a server URL. A URL is shown without
    its password; the password is kept in memory to connect with."""

    imported = Signal(object)

    def __init__(
        self,
        target: str | Path | None,
        parent: QWidget | None = None,
        plugins: Registry | None = None,
    ) -> None:
        super().__init__(parent)
        self.ui = Ui_ImportDialog()
        self.ui.setupUi(self)
        self.plugins = plugins
        self.job: Job | None = None
        self.message_box: QMessageBox | None = None
        self.import_result: ImportResult | None = None
        for importer in (plugins or registry()).importers():
            self.ui.formatCombo.addItem(importer.name, importer.description)
        self.ui.formatCombo.currentIndexChanged.connect(self._describe_format)
        self._describe_format()
        #: shown location -> the location to connect with (a URL with its password)
        self._connect_as: dict[str, str] = {}
        self.import_target: str | Path | None = None
        if target is not None:
            self.set_target(target)
        self.ui.addFilesButton.clicked.connect(self._add_files)
        self.ui.addFolderButton.clicked.connect(self._add_folder)
        self.ui.removeButton.clicked.connect(self._remove_selected)
        self.ui.browseTargetButton.clicked.connect(self._browse_target)
        self.ui.importButton.clicked.connect(self.start_import)
        self.ui.cancelButton.clicked.connect(self.cancel_import)
        self.ui.closeButton.clicked.connect(self.reject)
        self._set_running(False)

    # --- inputs ---------------------------------------------------------------------------------

    def set_format(self, name: str) -> None:
        index = self.ui.formatCombo.findText(name)
        if index < 0:
            raise WorkbenchError(f"no import format named {name}")
        self.ui.formatCombo.setCurrentIndex(index)

    def set_target(self, target: str | Path) -> None:
        shown = display_location(target)
        if is_server_location(str(target)):
            self._connect_as[shown] = str(target)
        self.ui.targetEdit.setText(shown)

    def target(self) -> str | Path | None:
        """The bundle to import into, as a path or a URL to connect with."""
        text = self.ui.targetEdit.text().strip()
        if not text:
            return None
        if is_server_location(text):
            return self._connect_as.get(text, text)
        return Path(text)

    def add_sources(self, paths: Sequence[Path]) -> None:
        present = set(self.sources())
        for path in paths:
            if path not in present:
                self.ui.fileList.addItem(str(path))

    def sources(self) -> list[Path]:
        return [Path(self.ui.fileList.item(row).text()) for row in range(self.ui.fileList.count())]

    def _describe_format(self) -> None:
        self.ui.formatDescription.setText(self.ui.formatCombo.currentData() or "")

    def _add_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Files to import")
        self.add_sources([Path(name) for name in names])

    def _add_folder(self) -> None:
        name = QFileDialog.getExistingDirectory(self, "Folder to import")
        if name:
            self.add_sources([Path(name)])

    def _remove_selected(self) -> None:
        for item in self.ui.fileList.selectedItems():
            self.ui.fileList.takeItem(self.ui.fileList.row(item))

    def _browse_target(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self,
            "Import into bundle",
            self.ui.targetEdit.text(),
            "Bundles (*.wbb)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if name:
            self.ui.targetEdit.setText(name)

    # --- running --------------------------------------------------------------------------------

    def start_import(self) -> None:
        target = self.target()
        sources = self.sources()
        if not sources or target is None:
            self._show_problem("Choose the files to import and the bundle to import into.", "")
            return
        self.import_result = None
        self.import_target = target
        format_name = self.ui.formatCombo.currentText()
        skip_rejected, plugins = self.ui.skipRejectedCheck.isChecked(), self.plugins

        def work(control: JobControl) -> ImportResult:
            def progress(phase: str, done: int, total: int) -> None:
                text = PHASES.get(phase, phase)
                if total > 0:
                    text += f" {done:,} of {total:,}"
                elif done:
                    text += f" {done:,}"
                control.progress(done, total, text)

            return import_files(
                target,
                sources,
                format_name,
                skip_rejected=skip_rejected,
                progress=progress,
                cancel_requested=control.cancelled,
                plugins=plugins,
            )

        where = Path(target).name if isinstance(target, Path) else display_location(target)
        job = jobs_for(self).submit(f"Import ({format_name}) into {where}", "Import", work)
        self.job = job
        job.changed.connect(self._progress)
        job.finished.connect(self._job_ended)
        self._set_running(True)
        queued = job.status is JobStatus.QUEUED
        self.ui.statusLabel.setText("Waiting for the job before it…" if queued else "Starting…")

    def cancel_import(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.ui.statusLabel.setText("Cancelling…")
            self.ui.cancelButton.setEnabled(False)

    @property
    def running(self) -> bool:
        return self.job is not None and self.job.active

    def _progress(self) -> None:
        job = self.job
        if job is None or not job.active or job.status is JobStatus.QUEUED:
            return
        bar = self.ui.progressBar
        if job.total > 0:
            bar.setRange(0, job.total)
            bar.setValue(job.done)
        else:
            bar.setRange(0, 0)
        self.ui.statusLabel.setText(job.text)

    def _job_ended(self) -> None:
        if self.job is not None:
            self.job.report_ending(
                self._succeeded, self._cancelled, self._failed, describe=describe_result
            )

    def _succeeded(self, result: ImportResult) -> None:
        self._finish()
        self.import_result = result
        self.ui.progressBar.setRange(0, 1)
        self.ui.progressBar.setValue(1)
        self.ui.statusLabel.setText(describe_result(result))
        self.imported.emit(self.import_target)

    def _failed(self, message: str, details: str) -> None:
        self._finish()
        self.ui.statusLabel.setText("The import did not land; the bundle was not changed.")
        self._show_problem(message, details)

    def _cancelled(self) -> None:
        self._finish()
        self.ui.statusLabel.setText("Import cancelled; the bundle was not changed.")

    def _finish(self) -> None:
        self.job = None
        self._set_running(False)
        self.ui.progressBar.setRange(0, 1)
        self.ui.progressBar.setValue(0)

    def _set_running(self, running: bool) -> None:
        for widget in (
            self.ui.importButton,
            self.ui.closeButton,
            self.ui.formatCombo,
            self.ui.addFilesButton,
            self.ui.addFolderButton,
            self.ui.removeButton,
            self.ui.targetEdit,
            self.ui.browseTargetButton,
            self.ui.skipRejectedCheck,
        ):
            widget.setEnabled(not running)
        self.ui.cancelButton.setEnabled(running)

    def _show_problem(self, message: str, details: str) -> None:
        self.message_box = show_problem(self, "Import", message, details)

    def reject(self) -> None:
        if not self.running:  # closing while an import runs would hide its outcome
            super().reject()
