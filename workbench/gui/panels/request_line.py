"""The line under an analysis panel's title that says what the panel's numbers answer (its
request, in one line) with a "Copy command" button: the ``workbench ...`` command that prints
the same numbers. Every analysis panel shows its request through this one widget, so they read
and copy the same way."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHBoxLayout, QPushButton, QWidget

from workbench.gui.panels.folding_label import FoldingLabel

#: what the line says before a result is shown
NO_REQUEST = "Request: none yet"


class RequestLine(QWidget):
    """A request in one line and the command that reproduces it. ``command_name`` (such as
    ``workbench agreement``) names the command in the button's tooltip."""

    def __init__(self, command_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: wraps; folded to one line by a panel in a short dock
        self.label = FoldingLabel(NO_REQUEST, self)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QPushButton("Copy command", self)
        self.copy_button.setToolTip(f"Copy the {command_name} command that prints these numbers")
        self.copy_button.clicked.connect(self.copy_command)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.copy_button)
        self._command: str | None = None
        self.set_request(None, None)

    def set_request(self, description: str | None, command: str | None) -> None:
        """Show the request of the result on screen (None: no result yet, nothing to copy)."""
        self._command = command
        self.label.setText(NO_REQUEST if description is None else f"Request: {description}")
        self.copy_button.setEnabled(command is not None)

    def text(self) -> str:
        return self.label.text()

    def command(self) -> str | None:
        """The command that prints the numbers on screen."""
        return self._command

    def copy_command(self) -> None:
        if self._command is not None:
            QApplication.clipboard().setText(self._command)
