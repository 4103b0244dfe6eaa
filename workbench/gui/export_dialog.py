"""File > Export…: the options of ``workbench export`` in a dialog, the export run by
:func:`workbench.export.export_bundle` on a worker thread, and its summary at the end. The
service writes atomically, so a failed export leaves no file behind."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import cast

from PySide6.QtCore import Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QMessageBox,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.export import FORMATS, ExportOptions, ExportSummary, ImageMode, JudgmentSource
from workbench.export import export_bundle as run_export
from workbench.export.pseudonyms import pseudonym_key
from workbench.gui.background import BackgroundRunner
from workbench.gui.forms.ui_export_dialog import Ui_ExportDialog
from workbench.gui.jobs import Access, Job, JobControl, jobs_for
from workbench.gui.locations import default_output, display_location
from workbench.gui.problem_dialog import show_problem
from workbench.storage import Bundle

log = logging.getLogger(__name__)

#: the file suffix offered for each format in the file chooser
SUFFIXES = {"items": ".jsonl", "jsonl": ".jsonl", "csv": ".csv", "arena": ".json"}
#: what the jobs list says at each step of an export
EXPORT_STEPS = {
    "judgments": "Reading the judgments…",
    "items": "Gathering the items…",
    "writing": "Writing the records…",
}
SOURCES = {
    JudgmentSource.ALL: "everyone (people and judges)",
    JudgmentSource.HUMAN: "people only",
    JudgmentSource.JUDGE: "LLM judges only",
}
IMAGE_MODES = {
    ImageMode.NONE: "references only",
    ImageMode.PATHS: "files beside the export (images/)",
    ImageMode.EMBED: "embedded as base64",
}
ALL_CAMPAIGNS = "all judgments (no campaign filter)"


def describe_summary(summary: ExportSummary) -> str:
    text = f"Wrote {summary.records:,} {summary.format} record(s) to {summary.path}."
    if summary.images_written:
        text += f" {summary.images_written:,} image file(s) under {summary.path.parent / 'images'}."
    if summary.images_not_exported:
        text += (
            f" {summary.images_not_exported:,} stored image(s) named by reference only"
            " (not carried)."
        )
    for reason, count in sorted(summary.left_out.items()):
        text += f" Left out: {count:,} {reason.replace('_', ' ')}."
    statement = summary.derived_statement()
    if statement is not None:
        text += f" {statement[0].upper()}{statement[1:]}."
    return text


class ExportDialog(QDialog, Ui_ExportDialog):
    """Emits :attr:`exported` with the summary after an export was written."""

    exported = Signal(object)  # ExportSummary

    def __init__(self, bundle: str | Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setupUi(self)  # ui/export_dialog.ui
        self.bundle = bundle
        self.summary: ExportSummary | None = None
        self.message_box: QMessageBox | None = None
        # only for the campaign names: the export itself is a job of the window's job manager
        self.runner = BackgroundRunner(self, in_order=True, kind="Picker read")
        self.job: Job | None = None

        self.bundle_label.setText(display_location(bundle))
        for name, (_, description) in FORMATS.items():
            self.format_combo.addItem(f"{name}: {description}", name)
        self.format_combo.setCurrentIndex(self.format_combo.findData("jsonl"))  # the CLI's
        self.campaign_combo.addItem(ALL_CAMPAIGNS, None)
        for source, text in SOURCES.items():
            self.source_combo.addItem(text, source)
        for mode, text in IMAGE_MODES.items():
            self.images_combo.addItem(text, mode)
        # a button of its own role: a .ui button box holds only standard buttons
        self.export_button = self.buttons.addButton(
            "Export", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.close_button = self.buttons.button(QDialogButtonBox.StandardButton.Close)

        self.format_combo.currentIndexChanged.connect(self._format_changed)
        self.browse_button.clicked.connect(self._browse)
        self.export_button.clicked.connect(self.start_export)
        self.close_button.clicked.connect(self.reject)
        self._format_changed()
        self.runner.run(self._campaign_names, self._add_campaigns, lambda _error: None)

    # --- inputs ---------------------------------------------------------------------------------

    def _campaign_names(self) -> list[str]:
        # start-up: the campaign service loads when the dialog lists campaigns
        from workbench.services.campaigns import list_campaigns

        with Bundle.open(self.bundle, migrate=False) as bundle:
            return [campaign["name"] for campaign in list_campaigns(bundle)]

    def _add_campaigns(self, names: list[str]) -> None:
        for name in names:
            self.campaign_combo.addItem(name, name)

    def set_choice(self, combo: QComboBox, value: object) -> None:
        index = combo.findData(value)
        if index < 0:
            raise WorkbenchError(f"no choice {value!r}")
        combo.setCurrentIndex(index)

    def export_format(self) -> str:
        return str(self.format_combo.currentData())

    def image_mode(self) -> ImageMode:
        # Qt hands enum members back as their plain values
        return ImageMode(self.images_combo.currentData())

    def _format_changed(self) -> None:
        self._offer_allowed_options()
        current = self.out_edit.text().strip()
        if current:
            suffix = SUFFIXES[self.export_format()]
            self.out_edit.setText(str(Path(current).with_suffix(suffix)))

    def _offer_allowed_options(self) -> None:
        name = self.export_format()
        # what export_bundle refuses is not offered
        self.aggregate_check.setEnabled(name in ("jsonl", "csv"))
        if not self.aggregate_check.isEnabled():
            self.aggregate_check.setChecked(False)
        # a QComboBox keeps its items in a QStandardItemModel unless given another model
        model = cast(QStandardItemModel, self.images_combo.model())
        for row in range(self.images_combo.count()):
            mode = ImageMode(self.images_combo.itemData(row))
            allowed = not (
                (name == "arena" and mode is not ImageMode.NONE)
                or (name == "csv" and mode is ImageMode.EMBED)
            )
            model.item(row).setEnabled(allowed)
            if not allowed and row == self.images_combo.currentIndex():
                self.set_choice(self.images_combo, ImageMode.NONE)

    def _browse(self) -> None:
        suffix = SUFFIXES[self.export_format()]
        start = self.out_edit.text().strip() or str(default_output(self.bundle, suffix))
        name, _ = QFileDialog.getSaveFileName(
            self, "Export to", start, f"{suffix[1:].upper()} files (*{suffix});;All files (*)"
        )
        if name:
            self.out_edit.setText(name)

    def options(self) -> ExportOptions:
        campaign = self.campaign_combo.currentText().strip()
        return ExportOptions(
            format=self.export_format(),
            campaign=None if not campaign or campaign == ALL_CAMPAIGNS else campaign,
            source=JudgmentSource(self.source_combo.currentData()),
            images=self.image_mode(),
            pseudonym_key=pseudonym_key() if self.pseudonymize_check.isChecked() else None,
            aggregate=self.aggregate_check.isChecked(),
        )

    # --- running --------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.job is not None and self.job.active

    def start_export(self) -> None:
        target = self.out_edit.text().strip()
        if not target:
            self._show_problem("Choose the file to export to.", "")
            return
        options = self.options()
        self.summary = None
        self.progress_bar.setValue(0)
        self._set_running(True)
        self.status_label.setText("Exporting…")
        bundle, out = self.bundle, Path(target)

        def work(control: JobControl) -> ExportSummary:
            # cancelled at a step, the export leaves no file (nor image file) behind
            return run_export(
                bundle,
                out,
                options,
                progress=control.reporter(EXPORT_STEPS),
                cancel_requested=control.cancelled,
                # the save dialog has already asked before replacing a file
                replace_any_file=True,
            )

        self.job = jobs_for(self).submit(
            f"Export ({options.format}) to {out.name}", "Export", work, access=Access.READ
        )
        self.job.finished.connect(self._job_ended)

    def _job_ended(self) -> None:
        if self.job is not None:
            self.job.report_ending(
                self._succeeded, self._cancelled, self._failed, describe=describe_summary
            )

    def _succeeded(self, summary: ExportSummary) -> None:
        self._set_running(False)
        self.progress_bar.setValue(1)
        self.summary = summary
        self.status_label.setText(describe_summary(summary))
        self.exported.emit(summary)

    def _cancelled(self) -> None:
        self._set_running(False)
        self.status_label.setText("Export cancelled; no file was written.")

    def _failed(self, message: str, details: str) -> None:
        self._set_running(False)
        self.status_label.setText("Nothing was exported.")
        if message:
            self._show_problem(message if not details else f"The export failed: {message}", details)

    def _set_running(self, running: bool) -> None:
        self.progress_bar.setRange(0, 0 if running else 1)
        for widget in (
            self.export_button,
            self.close_button,
            self.format_combo,
            self.campaign_combo,
            self.source_combo,
            self.images_combo,
            self.pseudonymize_check,
            self.out_edit,
            self.browse_button,
        ):
            widget.setEnabled(not running)
        if not running:
            self._offer_allowed_options()

    def _show_problem(self, message: str, details: str) -> None:
        self.message_box = show_problem(self, "Export", message, details)

    def reject(self) -> None:
        if not self.running:  # the export's outcome must be seen
            super().reject()
