"""The small dialog that asks why a task is skipped (a reason is required)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

SKIP_REASONS = (
    "The image does not load or is unreadable",
    "Outside my expertise",
    "The responses cannot be compared (e.g. both empty)",
    "The instruction is unclear",
)


class SkipDialog(QDialog):
    """Pick or type a reason; OK stays disabled until there is one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Skip this task")
        self.reason_box = QComboBox(self)
        self.reason_box.setEditable(True)
        self.reason_box.addItems(SKIP_REASONS)
        self.reason_box.setCurrentIndex(-1)
        self.reason_box.setAccessibleName("Reason for skipping")
        reason_edit = self.reason_box.lineEdit()
        assert reason_edit is not None  # an editable combo box has a line edit
        reason_edit.setPlaceholderText("Why do you skip it?")
        label = QLabel("Why do you skip this task? It will not be shown to you again.", self)
        label.setBuddy(self.reason_box)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.reason_box.currentTextChanged.connect(self._update_ok)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.reason_box)
        layout.addWidget(self.buttons)
        self._update_ok()
        self.resize(480, 130)

    def reset(self) -> None:
        self.reason_box.setCurrentIndex(-1)
        self.reason_box.setEditText("")
        self.reason_box.setFocus()

    def reason(self) -> str:
        return self.reason_box.currentText().strip()

    def _update_ok(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.reason()))
