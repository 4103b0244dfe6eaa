"""File > Import…: pick a format from the plugin registry and the files to read, then run the
import service on a worker thread with progress and a Cancel button. A failed or cancelled
import leaves the bundle as it was (the service guarantees it); problems are shown in a dialog
with the rejected rows one click away."""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QWidget

from workbench.errors import WorkbenchError
from workbench.gui.forms.ui_import_dialog import Ui_ImportDialog
from workbench.gui.locations import display_location
from workbench.gui.problem_dialog import show_problem
from workbench.importers.base import ImportRejectedError
from workbench.plugins import Registry, registry
from workbench.recent import is_server_location
from workbench.services.importing import ImportCancelledError, ImportResult, import_files

log = logging.getLogger(__name__)

PHASES = {
    "hashing": "Checking the files…",
    "reading": "Reading rows…",
    "images": "Checking images…",
    "writing": "Writing to the bundle…",
    "done": "Done.",
}


class ImportJob(QObject):
    """One import on a worker thread. Create it on the GUI thread; its signals arrive there."""

    progressed = Signal(str, int, int)
    succeeded = Signal(object)  # ImportResult
    failed = Signal(str, str)  # message, details
    cancelled = Signal()

    def __init__(
        self,
        bundle: str | Path,
        sources: Sequence[Path],
        format_name: str,
        skip_rejected: bool = False,
        plugins: Registry | None = None,
    ) -> None:
        super().__init__()
        self.bundle = bundle
        self.sources = list(sources)
        self.format_name = format_name
        self.skip_rejected = skip_rejected
        self.plugins = plugins
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    def start(self, pool: QThreadPool) -> None:
        pool.start(self.run)

    def run(self) -> None:
        try:
            result = import_files(
                self.bundle,
                self.sources,
                self.format_name,
                skip_rejected=self.skip_rejected,
                progress=self.progressed.emit,
                cancel_requested=self._cancel.is_set,
                plugins=self.plugins,
            )
        except ImportCancelledError:
            self.cancelled.emit()
        except ImportRejectedError as error:
            headline, _, details = str(error).partition("\n")
            full = "\n".join(str(problem) for problem in error.problems)
            self.failed.emit(headline, full or details)
        except WorkbenchError as error:
            self.failed.emit(str(error), "")
        except Exception as error:  # shown to the user with the traceback one click away
            log.exception("import failed")
            self.failed.emit(
                f"The import failed: {type(error).__name__}: {error}", traceback.format_exc()
            )
        else:
            self.succeeded.emit(result)


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
        self.job: ImportJob | None = None
        # a pool of its own: an import can take minutes and must not wait behind other work
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
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
        self.job = ImportJob(
            target,
            sources,
            self.ui.formatCombo.currentText(),
            self.ui.skipRejectedCheck.isChecked(),
            self.plugins,
        )
        self.job.progressed.connect(self._progress)
        self.job.succeeded.connect(self._succeeded)
        self.job.failed.connect(self._failed)
        self.job.cancelled.connect(self._cancelled)
        self._set_running(True)
        self.ui.statusLabel.setText("Starting…")
        self.job.start(self.pool)

    def cancel_import(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.ui.statusLabel.setText("Cancelling…")
            self.ui.cancelButton.setEnabled(False)

    @property
    def running(self) -> bool:
        return self.job is not None

    def _progress(self, phase: str, done: int, total: int) -> None:
        bar = self.ui.progressBar
        if total > 0:
            bar.setRange(0, total)
            bar.setValue(done)
            self.ui.statusLabel.setText(f"{PHASES.get(phase, phase)} {done:,} of {total:,}")
        else:
            bar.setRange(0, 0)
            suffix = f" {done:,}" if done else ""
            self.ui.statusLabel.setText(PHASES.get(phase, phase) + suffix)

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
        if self.job is None:  # closing while an import runs would hide its outcome
            super().reject()
