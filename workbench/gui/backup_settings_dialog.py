"""Settings > Backups…: where backups of bundle files go and how much room the automatic ones may
take, stored through :mod:`workbench.storage.backup_settings` (which the CLI reads too); and the
one-time note that tells the user where the first automatic backup went."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.problem_dialog import show_problem
from workbench.services.maintenance import (
    BackupSettings,
    save_backup_settings,
)
from workbench.services.maintenance import backup_settings as load_backup_settings

MEGABYTE = 1_000_000
EXPLANATION = (
    "The app backs up a bundle file when it opens it, at most once a day and only if it "
    "changed; `workbench import` does the same, and a copy is made before a schema upgrade. "
    "`workbench restore BUNDLE` and the damaged-bundle dialog look beside the bundle and in "
    "the folder chosen here."
)


def describe_size(size: int) -> str:
    return f"{size / MEGABYTE:.1f} MB" if size >= 100_000 else f"{size / 1000:.0f} kB"


class BackupSettingsDialog(QDialog):
    """The backup folder (empty: beside each bundle), a size limit for each bundle's automatic
    backups (0: none) and how many are kept. Saved on OK."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Backups")
        self.settings = load_backup_settings()
        self.message_box: QMessageBox | None = None
        explanation = QLabel(EXPLANATION, self)
        explanation.setWordWrap(True)

        self.beside = QCheckBox("Beside each bundle file", self)
        self.folder = QLineEdit(self)
        self.folder.setPlaceholderText("a folder for the backups of every bundle")
        self.browse = QPushButton("Choose…", self)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(self.browse)

        self.size_limit = QSpinBox(self)
        self.size_limit.setRange(0, 1_000_000)
        self.size_limit.setSuffix(" MB")
        self.size_limit.setSpecialValueText("no limit")
        self.size_limit.setToolTip(
            "The most one bundle's automatic backups may take together; the oldest go first, "
            "the newest is always kept"
        )
        self.keep = QSpinBox(self)
        self.keep.setRange(1, 100)
        self.keep.setToolTip("How many automatic backups of each bundle are kept")

        form = QFormLayout()
        form.addRow("Where", self.beside)
        form.addRow("", folder_row)
        form.addRow("Size limit per bundle", self.size_limit)
        form.addRow("Automatic backups kept", self.keep)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QVBoxLayout(self)
        layout.addWidget(explanation)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

        self.beside.setChecked(self.settings.folder is None)
        self.folder.setText(str(self.settings.folder or ""))
        self.size_limit.setValue((self.settings.size_limit_bytes or 0) // MEGABYTE)
        self.keep.setValue(self.settings.keep)
        self._beside_changed()
        self.beside.toggled.connect(self._beside_changed)
        self.browse.clicked.connect(self._choose_folder)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    def _beside_changed(self) -> None:
        for widget in (self.folder, self.browse):
            widget.setEnabled(not self.beside.isChecked())

    def _choose_folder(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Backup folder", self.folder.text())
        if chosen:
            self.folder.setText(chosen)

    def chosen_settings(self) -> BackupSettings:
        text = self.folder.text().strip()
        folder = None if self.beside.isChecked() or not text else Path(text).expanduser()
        limit = self.size_limit.value() * MEGABYTE or None
        return self.settings.with_changes(
            folder=folder, size_limit_bytes=limit, keep=self.keep.value()
        )

    def accept(self) -> None:
        chosen = self.chosen_settings()
        if chosen.folder is not None:
            try:
                chosen.folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                self.message_box = show_problem(
                    self, "Backups", f"Cannot use {chosen.folder}: {error}"
                )
                return
        save_backup_settings(chosen)
        self.settings = chosen
        super().accept()


def first_backup_note(backup: Path, total: int) -> str:
    """What the one-time note says: where the backup went, its size and the total."""
    return (
        f"VLM Workbench backed up this bundle to\n{backup.parent}\n\n"
        f"as {backup.name} ({describe_size(backup.stat().st_size)}; all backups of this bundle "
        f"take {describe_size(total)}). It does so at most once a day when a changed bundle is "
        "opened, and keeps the newest few. Change the folder and a size limit in "
        "Settings > Backups…"
    )


def announce_first_backup(parent: QWidget, backup: Path, total: int) -> QMessageBox | None:
    """Show the one-time note about the first automatic backup (non-modal), and remember it was
    shown; None when it was shown before."""
    settings = load_backup_settings()
    if settings.first_backup_shown:
        return None
    save_backup_settings(settings.with_changes(first_backup_shown=True))
    box = QMessageBox(QMessageBox.Icon.Information, "Backups", first_backup_note(backup, total))
    box.setParent(parent, box.windowFlags())
    box.setObjectName("firstBackupNote")
    box.setModal(False)
    box.show()
    return box
