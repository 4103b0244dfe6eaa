"""The answer area under a task: one row of choice buttons per criterion (the current one
marked), or a grade field; the optional rationale; and a line for hints and errors.

It only displays state and reports clicks; the annotation view decides what a key or click does
(Enter in the grade or rationale field reaches the view, as line edits pass it on).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIntValidator, QResizeEvent
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
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        #: criteria side by side (see _reflow); 0 until the panel first has a width
        self.columns = 0
        self._grid: QGridLayout | None = None
        self.criterion_labels: list[QLabel] = []
        self.buttons: list[dict[str, QPushButton]] = []
        self.groups: list[QButtonGroup] = []
        self.grade_field: QLineEdit | None = None
        self.compact = False
        self.legend = QLabel(
            "Keys:  " + "   ".join(f"{c.key} = {c.label}" for c in protocol.choices), self
        )
        self.legend.setTextFormat(Qt.TextFormat.PlainText)
        self.legend.setObjectName("choiceLegend")
        self.legend.hide()
        layout.addWidget(self.legend)
        if protocol.grade_scale is not None:
            layout.addLayout(self._grade_row())
        else:
            layout.addLayout(self._choice_grid())
        self.comment_field = QLineEdit(self)
        self.comment_field.setAccessibleName("Rationale")
        self.message = QLabel(self)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        # the message beside the rationale, not under it: a line of height for the responses
        bottom = QHBoxLayout()
        bottom.addWidget(self.comment_field, 3)
        bottom.addWidget(self.message, 2)
        layout.addLayout(bottom)
        self.set_comment_required(False)

    def _choice_grid(self) -> QGridLayout:
        grid = self._grid = QGridLayout()
        grid.setVerticalSpacing(2)
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
        self._place(1)
        return grid

    def _group_width(self, compact: bool) -> int:
        """The width of one criterion's row: its label and its buttons (showing only their
        keys when ``compact``)."""
        assert self._grid is not None
        spacing = max(self._grid.horizontalSpacing(), 0)
        label = max(label.sizeHint().width() for label in self.criterion_labels)
        buttons = 0
        for choice, button in zip(self.protocol.choices, self.buttons[0].values(), strict=True):
            text = choice.key if compact else choice_button_text(choice)
            width = button.fontMetrics().horizontalAdvance(text) + 24
            buttons += max(width, button.minimumSizeHint().width() if not compact else 0)
            buttons += spacing
        return label + 2 * spacing + buttons + 16 + spacing  # the gap to the next column

    def _set_compact(self, compact: bool) -> None:
        """Buttons that show only their key, under a legend naming each key once: five
        criteria then fit in three rows even at 1.5x scaling."""
        if compact == self.compact:
            return
        self.compact = compact
        for buttons in self.buttons:
            for choice in self.protocol.choices:
                button = buttons[choice.value]
                button.setText(choice.key if compact else choice_button_text(choice))
                button.setAccessibleName(choice_button_text(choice))
                if compact:
                    button.setMinimumWidth(0)
        self.legend.setVisible(compact)

    def _place(self, columns: int) -> None:
        """Lay the criteria out ``columns`` side by side: five criteria take three rows rather
        than five at 1366x768, leaving the height to the responses."""
        grid = self._grid
        if grid is None or columns == self.columns:
            return
        self.columns = columns
        width = len(self.protocol.choices) + 2  # the label, the buttons and a gap
        for column in range(grid.columnCount()):
            grid.setColumnStretch(column, 0)
            grid.setColumnMinimumWidth(column, 0)
        for place in range(1, columns):
            grid.setColumnMinimumWidth(place * width - 1, 16)
        for index, label in enumerate(self.criterion_labels):  # taken out, then put back
            grid.removeWidget(label)
            for button in self.buttons[index].values():
                grid.removeWidget(button)
        for index, label in enumerate(self.criterion_labels):
            row, place = divmod(index, columns)
            grid.addWidget(label, row, place * width)
            for offset, button in enumerate(self.buttons[index].values(), start=1):
                grid.addWidget(button, row, place * width + offset)
        grid.setColumnStretch(columns * width, 1)

    def _reflow(self) -> None:
        """Criteria side by side as the width allows; when not even two fit, the buttons show
        only their keys (see _set_compact)."""
        if self._grid is None or len(self.criterion_labels) < 3:
            return
        available = self.contentsRect().width()
        compact = available // max(self._group_width(False), 1) < 2
        fits = max(1, available // max(self._group_width(compact), 1))
        self._set_compact(compact)
        self._place(min(fits, 3, len(self.criterion_labels)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._reflow()

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
