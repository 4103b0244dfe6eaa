"""The one way a dialog tells the user that something went wrong: a window-modal message box
with the problem in plain text and any traceback one click away. What the message
and details of a failed job are is :func:`workbench.gui.jobs.describe_error`'s to say."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def show_problem(
    parent: QWidget | None,
    title: str,
    message: str,
    details: str = "",
    icon: QMessageBox.Icon = QMessageBox.Icon.Warning,
) -> QMessageBox:
    """Open (not exec) a message box saying ``message``, with ``details`` behind its
    "Show Details…" button; returns the box, which the caller keeps so tests can read it.

    Plain text, because messages quote file names and user input that may hold markup."""
    box = QMessageBox(icon, title, message, parent=parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    if details:
        box.setDetailedText(details)
    box.open()
    return box
