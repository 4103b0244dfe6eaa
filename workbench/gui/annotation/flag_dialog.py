"""The small dialog that flags the task on screen (a broken image, a response that names its
model, offensive content, something else with a note), from the keyboard: arrows choose, Enter
flags. Flagging keeps the task: it is still answered (or skipped) as usual."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.services.flags import FLAG_REASONS


def flag_choices(responses: int) -> list[tuple[str, str, int | None]]:
    """(label, reason, response index or None) for a task showing ``responses`` answers."""
    choices: list[tuple[str, str, int | None]] = [
        (FLAG_REASONS["broken_image"], "broken_image", None)
    ]
    if responses == 1:
        choices.append(("The response names its model", "names_model", 0))
    for index in range(responses if responses > 1 else 0):
        choices.append((f"Response {index + 1} names its model", "names_model", index))
    choices.append((FLAG_REASONS["offensive"], "offensive", None))
    choices.append((FLAG_REASONS["other"], "other", None))
    return choices


class FlagDialog(QDialog):
    """Pick a reason (and, for "something else", say what); OK flags the task."""

    def __init__(self, responses: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Flag this task")
        self.choices = flag_choices(responses)
        self.reason_box = QComboBox(self)
        self.reason_box.addItems([label for label, _reason, _index in self.choices])
        self.reason_box.setAccessibleName("What is wrong")
        self.note_field = QLineEdit(self)
        self.note_field.setPlaceholderText("A note (needed for something else)")
        label = QLabel(
            "What is wrong with this task? It stays on screen for you to answer or skip.", self
        )
        label.setWordWrap(True)
        label.setBuddy(self.reason_box)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.reason_box.currentIndexChanged.connect(self._update_ok)
        self.note_field.textChanged.connect(self._update_ok)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.reason_box)
        layout.addWidget(self.note_field)
        layout.addWidget(self.buttons)
        self.resize(480, 160)

    def reset(self) -> None:
        self.reason_box.setCurrentIndex(0)
        self.note_field.clear()
        self.reason_box.setFocus()
        self._update_ok()

    def chosen(self) -> tuple[str, int | None, str]:
        """(reason, response index or None, note)."""
        _label, reason, index = self.choices[self.reason_box.currentIndex()]
        return reason, index, self.note_field.text().strip()

    def _update_ok(self) -> None:
        reason, _index, note = self.chosen()
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(reason != "other" or bool(note))
