"""The annotator's window (``workbench annotate``, or an offline pack opened): the annotation
page and nothing else.

It has no inspector, search, analysis panel, judge, export or leaderboard, and so no menu,
shortcut or dock that leads to one: a model name or a vote's outcome cannot reach the
annotator from here. Its one menu holds the annotation view's own actions and Quit.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QMainWindow, QWidget

from workbench.gui.annotation.annotation_view import AnnotationView, keep_mnemonics_off_keys
from workbench.gui.resources import app_icon
from workbench.gui.screen_fit import resize_within_screen
from workbench.gui.settings import GuiSettings
from workbench.recent import is_server_location, without_password
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

#: the size the window opens at; the page is laid out to read well down to 1024x700
WINDOW_SIZE = (1366, 768)
#: which window a remembered session reopens in
ANNOTATOR_WINDOW = "annotator"
MAIN_WINDOW = "main"


def remember_session(location: str | Path, session: AnnotationSession, window: str) -> None:
    """Remember where the annotator is, so that the next start reopens into it (a preview is
    never remembered; a server URL is kept without its password)."""
    if session.preview:
        return
    text = str(location)
    stored = without_password(text) if is_server_location(text) else str(Path(text).resolve())
    GuiSettings().remember_annotation_session(
        stored, session.campaign_name, session.annotator_handle, window
    )


class AnnotatorWindow(QMainWindow):
    """Annotates with ``session``; the window owns ``bundle`` and closes it with itself."""

    def __init__(
        self,
        bundle: Bundle,
        session: AnnotationSession,
        location: str | Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowIcon(app_icon())
        self.bundle: Bundle | None = bundle
        self.view = AnnotationView(self)
        self.setCentralWidget(self.view)
        # no dock, no toolbar: nothing for the right-click menu of a main window to list
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        menu = self.menuBar().addMenu("&Annotate")
        for action in (
            self.view.undo_action,
            self.view.skip_action,
            self.view.flag_action,
            self.view.help_action,
        ):
            menu.addAction(action)
        menu.addSeparator()
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
        self.quit_action.triggered.connect(self.close)
        menu.addAction(self.quit_action)
        self.addAction(self.quit_action)
        resize_within_screen(self, *WINDOW_SIZE)
        self.view.start(session)
        keep_mnemonics_off_keys(self.menuBar(), self.view.answer_keys())
        self.setWindowTitle(f"{session.campaign_name} — annotating — VLM Workbench")
        self.statusBar().showMessage(
            f"Annotating {session.campaign_name} as {session.annotator_handle}"
        )
        self.view.setFocus()
        if location is not None:
            remember_session(location, session, ANNOTATOR_WINDOW)

    def is_busy(self) -> bool:
        """Whether an answer is still being saved (a screenshot waits for it; a task's images
        are decoded when it is shown)."""
        return self.view.busy

    def closeEvent(self, event: QCloseEvent) -> None:
        self.view.end()
        if self.bundle is not None:
            self.bundle.close()
            self.bundle = None
        super().closeEvent(event)
