"""The answer area under a task: one row of choice buttons per criterion (the current one
marked), or a grade field; the optional rationale; and a line for hints and errors.

It only displays state and reports clicks; the annotation view decides what a key or click does
(Enter in the grade or rationale field reaches the view, as line edits pass it on).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIntValidator
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.domain.protocols import AnnotationProtocol, Choice

CURRENT_MARK = "▶ "
CHOSEN_STYLE = "QPushButton:checked { background: #2b6cb0; color: white; font-weight: bold; }"


ERROR_STYLE = "color: #b00020;"
MESSAGE_STYLE = "color: #225522;"


def _set_text(label: QLabel, text: str) -> None:
    if label.text() != text:  # setText lays the label out again even for the same text
        label.setText(text)


def _set_style(widget: QWidget, style: str) -> None:
    if widget.styleSheet() != style:  # setStyleSheet repolishes even for the same sheet
        widget.setStyleSheet(style)


def choice_button_text(choice: Choice) -> str:
    return f"{choice.label}   [{choice.key}]"


class AnswerPanel(QFrame):
    """Choice buttons per criterion or a grade field, the rationale field and a message line."""

    choiceClicked = Signal(int, str)  # criterion index, choice value

    def __init__(self, protocol: AnnotationProtocol, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.protocol = protocol
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(CHOSEN_STYLE)
        layout = QVBoxLayout(self)
        self.criterion_labels: list[QLabel] = []
        self.buttons: list[dict[str, QPushButton]] = []
        self.groups: list[QButtonGroup] = []
        self.grade_field: QLineEdit | None = None
        if protocol.grade_scale is not None:
            layout.addLayout(self._grade_row())
        else:
            layout.addLayout(self._choice_grid())
        self.comment_field = QLineEdit(self)
        self.comment_field.setAccessibleName("Rationale")
        layout.addWidget(self.comment_field)
        self.message = QLabel(self)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.set_comment_required(False)

    def _choice_grid(self) -> QGridLayout:
        grid = QGridLayout()
        for row, criterion in enumerate(self.protocol.criteria):
            label = QLabel(criterion.label, self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            if criterion.description:
                label.setToolTip(criterion.description)
            self.criterion_labels.append(label)
            grid.addWidget(label, row, 0)
            group = QButtonGroup(self)
            group.setExclusive(True)
            buttons: dict[str, QPushButton] = {}
            for column, choice in enumerate(self.protocol.choices, start=1):
                button = QPushButton(choice_button_text(choice), self)
                button.setCheckable(True)
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                if choice.description:
                    button.setToolTip(choice.description)
                button.clicked.connect(
                    lambda _checked=False, r=row, v=choice.value: self.choiceClicked.emit(r, v)
                )
                group.addButton(button)
                buttons[choice.value] = button
                grid.addWidget(button, row, column)
            self.buttons.append(buttons)
            self.groups.append(group)
        grid.setColumnStretch(len(self.protocol.choices) + 1, 1)
        return grid

    def _grade_row(self) -> QHBoxLayout:
        scale = self.protocol.grade_scale
        assert scale is not None
        row = QHBoxLayout()
        label = QLabel(f"Grade ({scale.minimum:g} to {scale.maximum:g})", self)
        row.addWidget(label)
        self.grade_field = QLineEdit(self)
        self.grade_field.setAccessibleName("Grade")
        self.grade_field.setValidator(QIntValidator(int(scale.minimum), int(scale.maximum), self))
        self.grade_field.setMaximumWidth(80)
        label.setBuddy(self.grade_field)
        row.addWidget(self.grade_field)
        hint = QLabel("type the number, then Enter", self)
        hint.setStyleSheet("color: #555;")
        row.addWidget(hint)
        row.addStretch(1)
        return row

    # --- state ------------------------------------------------------------------------------

    def show_answers(self, answers: dict[str, str], current: int) -> None:
        """Check the chosen buttons and mark the criterion the next key answers."""
        for index, criterion in enumerate(self.protocol.criteria):
            if index >= len(self.buttons):
                break
            chosen = answers.get(criterion.name)
            if chosen is None:
                self._uncheck(index)
            for value, button in self.buttons[index].items():
                if value == chosen:
                    button.setChecked(True)
            label = self.criterion_labels[index]
            marked = index == current and len(self.protocol.criteria) > 1
            _set_text(label, (CURRENT_MARK if marked else "") + criterion.label)
            _set_style(label, "font-weight: bold;" if marked else "")

    def set_comment_required(self, required: bool) -> None:
        self.comment_field.setPlaceholderText(
            "Comment required: say what the problem is, then press Enter"
            if required
            else "Rationale (optional): type it before answering, or after, then press Enter"
        )

    def _uncheck(self, index: int) -> None:
        """Leave criterion ``index`` with no button checked. An exclusive group refuses to
        uncheck its checked button (that left the previous task's answer selected on the next,
        where a slip of Enter would record it), so exclusivity is lifted while unchecking."""
        group = self.groups[index]
        group.setExclusive(False)
        for button in self.buttons[index].values():
            button.setChecked(False)
        group.setExclusive(True)

    def checked_values(self) -> list[str | None]:
        """The checked choice of each criterion (None where none is): what the page shows."""
        return [
            next((value for value, button in buttons.items() if button.isChecked()), None)
            for buttons in self.buttons
        ]

    def clear(self) -> None:
        for index in range(len(self.buttons)):
            self._uncheck(index)
        if self.grade_field is not None:
            self.grade_field.clear()
        self.comment_field.clear()
        self.set_comment_required(False)
        self.show_message("")

    def show_message(self, text: str, error: bool = False) -> None:
        # called three times a task ("", "Saving…", "Saved."): restyled only when the kind of
        # message changes, since a style sheet repolishes the label on the GUI thread
        _set_text(self.message, text)
        _set_style(self.message, ERROR_STYLE if error else MESSAGE_STYLE)
