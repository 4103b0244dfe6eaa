"""The one way a dialog tells the user that something went wrong: a window-modal message box
with the problem in plain text and any traceback one click away (GUIDE 3.10)."""

from __future__ import annotations

import logging
import traceback

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from workbench.errors import WorkbenchError

log = logging.getLogger(__name__)


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


def describe_failure(error: BaseException, what: str) -> tuple[str, str]:
    """The message and details for ``error`` raised while doing ``what`` ("The export").

    A :class:`WorkbenchError` already speaks to the user, so it is shown as it is. Anything
    else is a bug: it is logged with its traceback, and the traceback becomes the details."""
    if isinstance(error, WorkbenchError):
        return str(error), ""
    log.error("%s failed", what, exc_info=error)
    details = "".join(traceback.format_exception(error))
    return f"{what} failed: {type(error).__name__}: {error}", details
