"""The annotation page of the main window: the Annotate menu (new campaign, start annotating,
leave annotator mode) and what changes when the page does.

Starting to annotate enters annotator mode: every dock (item list, analysis panels) is hidden,
every menu but Annotate and Help is hidden, and every action outside the annotation view is
disabled, so no shortcut, menu or dock leads to a model name or to an analysis that would show
how a vote came out. The window title and status bar name only the campaign and the annotator.
Leaving is deliberate: Annotate > Leave annotator mode…, confirmed in a message box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QDockWidget, QMenu, QMessageBox

from workbench.errors import WorkbenchError
from workbench.gui.annotation.annotation_view import AnnotationView, keep_mnemonics_off_keys
from workbench.gui.annotation.annotator_window import MAIN_WINDOW, remember_session
from workbench.gui.annotation.new_campaign_dialog import NewCampaignDialog
from workbench.gui.annotation.start_dialog import StartAnnotatingDialog
from workbench.services.voting import AnnotationSession

if TYPE_CHECKING:  # main_window imports this module
    from workbench.gui.main_window import MainWindow

ITEMS_PAGE = "items"
ANNOTATE_PAGE = "annotate"


class AnnotationPage(QObject):
    """Adds the annotation view and the Annotate menu to ``window`` (a ``MainWindow``)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.view = AnnotationView(window)
        self.view.hide()
        window.ui.centralLayout.addWidget(self.view)
        self.page = ITEMS_PAGE
        self._hidden_docks: list[QDockWidget] = []
        self._disabled_actions: list[QAction] = []
        self._hidden_menus: list[QAction] = []
        self._dialog: QDialog | None = None
        self.leave_box: QMessageBox | None = None
        self.menu = self._build_menu()

    def _build_menu(self) -> QMenu:
        ui = self.window.ui
        menu = QMenu("&Annotate", self.window)
        menu.setObjectName("annotateMenu")
        ui.menuBar.insertMenu(ui.helpMenu.menuAction(), menu)
        self.new_campaign_action = menu.addAction("New campaign…")
        self.new_campaign_action.triggered.connect(self.show_new_campaign_dialog)
        self.start_action = menu.addAction("Start annotating…")
        self.start_action.triggered.connect(self.show_start_dialog)
        self.leave_action = menu.addAction("Leave annotator mode…")
        self.leave_action.setObjectName("leaveAnnotatorModeAction")
        self.leave_action.setStatusTip("Stop annotating and go back to the inspector")
        self.leave_action.triggered.connect(self.request_leave)
        self.leave_action.setEnabled(False)
        menu.addSeparator()
        for action in (self.view.undo_action, self.view.skip_action, self.view.flag_action):
            menu.addAction(action)
        return menu

    # --- sessions ---------------------------------------------------------------------------

    def start(self, campaign: str, annotator: str | None) -> None:
        """Annotate ``campaign`` as ``annotator`` in the open bundle (resuming where they were);
        raises WorkbenchError when either is unknown. A bundle open read-only shows a preview
        that writes nothing (``annotator`` may then be None)."""
        bundle = self.window.bundle
        if bundle is None:
            raise WorkbenchError("open a bundle first")
        session = AnnotationSession(bundle, campaign, annotator, preview=bundle.read_only)
        self.view.start(session)
        keep_mnemonics_off_keys(self.window.menuBar(), self.view.answer_keys())
        if self.window.location is not None:
            remember_session(self.window.location, session, MAIN_WINDOW)
        self.show_page(ANNOTATE_PAGE)

    def end(self) -> None:
        """The bundle closes: stop annotating and go back to the inspector."""
        self.view.end()
        self.show_page(ITEMS_PAGE)

    def _replace_dialog(self, dialog: QDialog) -> None:
        """Keep one dialog at a time; the previous one goes once a new one opens (deleting a
        dialog from inside its own signal handlers is what is avoided here)."""
        if self._dialog is not None:
            self._dialog.deleteLater()
        self._dialog = dialog

    def show_start_dialog(
        self, campaign: str | None = None, annotator: str | None = None
    ) -> StartAnnotatingDialog | None:
        """Ask for the campaign and the annotator (``campaign`` and ``annotator`` chosen at
        first, as the defaults to confirm); the session starts once it is accepted."""
        bundle = self.window.bundle
        if bundle is None:
            self.window.statusBar().showMessage("Open a bundle first.", 5000)
            return None
        dialog = StartAnnotatingDialog(bundle, self.window, campaign, annotator)
        self._replace_dialog(dialog)
        dialog.accepted.connect(self._start_accepted)
        dialog.open()
        return dialog

    def _start_accepted(self) -> None:
        dialog = self._dialog
        if not isinstance(dialog, StartAnnotatingDialog):
            return
        if dialog.campaign is None or dialog.annotator is None:
            return
        try:
            self.start(dialog.campaign, dialog.annotator)
        except WorkbenchError as error:
            self.window.show_error("Cannot start annotating", str(error))

    def show_new_campaign_dialog(self) -> NewCampaignDialog | None:
        bundle, browser = self.window.bundle, self.window.browser
        if bundle is None or browser is None:
            self.window.statusBar().showMessage("Open a bundle first.", 5000)
            return None
        choices = browser.filter_choices()
        dialog = NewCampaignDialog(bundle, choices.sources, choices.models, parent=self.window)
        self._replace_dialog(dialog)
        dialog.accepted.connect(self._campaign_created)
        dialog.open()
        return dialog

    def _campaign_created(self) -> None:
        dialog = self._dialog
        if isinstance(dialog, NewCampaignDialog) and dialog.summary is not None:
            summary = dialog.summary
            images = ""
            if summary.left_out_missing_images:
                images = f" ({summary.left_out_missing_images} items left out: images missing)"
            elif summary.items_missing_images:
                images = f"; warning: {summary.items_missing_images} items miss an image"
            self.window.statusBar().showMessage(
                f"Campaign created with {summary.tasks} tasks{images}: "
                "Annotate > Start annotating.",
                8000,
            )

    # --- pages ------------------------------------------------------------------------------

    def _allowed_actions(self) -> set[QAction]:
        """What stays usable in annotator mode: the annotation view's own actions, leaving,
        quitting and the help (F1 shows the annotation keys there)."""
        ui = self.window.ui
        return {
            *self.view.actions(),
            self.leave_action,
            ui.quitAction,
            ui.shortcutsAction,
            ui.aboutAction,
            self.menu.menuAction(),
            ui.helpMenu.menuAction(),
        }

    def _enter_mode(self) -> None:
        window = self.window
        allowed = self._allowed_actions()
        self._hidden_docks = [d for d in window.findChildren(QDockWidget) if d.isVisible()]
        for dock in self._hidden_docks:
            dock.hide()
        self._disabled_actions = [
            action
            for action in window.findChildren(QAction)
            if action.isEnabled() and action not in allowed
        ]
        for action in self._disabled_actions:
            action.setEnabled(False)
        self._hidden_menus = [
            action
            for action in window.menuBar().actions()
            if action.isVisible() and action not in allowed
        ]
        for action in self._hidden_menus:
            action.setVisible(False)
        # the dock and toolbar menu of a right click would list the hidden docks
        window.setContextMenuPolicy(Qt.ContextMenuPolicy.PreventContextMenu)
        window.item_view.hide()
        # a model pair left over from the inspector would name models and narrow the item list
        window.selection.set_blind(True)
        self.leave_action.setEnabled(True)

    def _leave_mode(self) -> None:
        window = self.window
        for action in self._disabled_actions:
            action.setEnabled(True)
        for action in self._hidden_menus:
            action.setVisible(True)
        for dock in self._hidden_docks:
            dock.show()
        self._disabled_actions, self._hidden_menus, self._hidden_docks = [], [], []
        window.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)
        window.item_view.show()
        window.selection.set_blind(False)
        self.leave_action.setEnabled(False)

    def show_page(self, page: str) -> None:
        """Enter annotator mode (``ANNOTATE_PAGE``, once a session is started) or leave it
        without asking (``ITEMS_PAGE``: the bundle closes or the window does)."""
        if page == self.page:
            return
        annotating = page == ANNOTATE_PAGE
        if annotating and not self.view.active:
            self.show_start_dialog()
            return
        self.page = page
        if annotating:
            self._enter_mode()
        else:
            self._leave_mode()
        self.view.setVisible(annotating)
        self.window._update_title()
        if annotating:
            self.view.setFocus()

    def request_leave(self) -> QMessageBox:
        """Ask before leaving annotator mode (the inspector shows which model wrote what)."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Leave annotator mode",
            "Stop annotating and open the inspector? The inspector and the analysis panels "
            "show model names; your answers so far are saved.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.window,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        yes = box.button(QMessageBox.StandardButton.Yes)
        box.buttonClicked.connect(lambda button: self.leave() if button is yes else None)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda: setattr(self, "leave_box", None))
        self.leave_box = box
        box.open()
        return box

    def leave(self) -> None:
        """Leave annotator mode: the session ends and the inspector comes back (and the next
        start no longer reopens into it)."""
        self.view.end()
        self.window.settings.forget_annotation_session()
        self.show_page(ITEMS_PAGE)

    def update_title(self) -> None:
        """Window title and status bar while annotating: the campaign and the annotator only."""
        session = self.view.session
        if session is None:
            return
        self.window.setWindowTitle(f"{session.campaign_name} — annotating — VLM Workbench")
        self.window.statusBar().showMessage(
            f"Annotating {session.campaign_name} as {session.annotator_handle}"
        )
