"""The main window's File > Export…, Tools > Run LLM judge… and Settings > API key… entries,
and the dialogs they open. An export or a judge run is a job of the window's job manager, which
asks before the window closes on it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:  # main_window imports this module; the dialogs load when first opened
    from workbench.gui.api_key_dialog import ApiKeyDialog
    from workbench.gui.backup_settings_dialog import BackupSettingsDialog
    from workbench.gui.export_dialog import ExportDialog
    from workbench.gui.judge_dialog import JudgeDialog
    from workbench.gui.main_window import MainWindow


class ToolActions(QObject):
    """Adds the entries to the main window's menus (``ui.fileMenu``, ``ui.importAction``,
    ``ui.helpMenu``)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.export_dialog: ExportDialog | None = None
        self.judge_dialog: JudgeDialog | None = None
        self.api_key_dialog: ApiKeyDialog | None = None
        ui = window.ui

        self.export_action = QAction("&Export…", window)
        self.export_action.setStatusTip("Write the bundle's items or judgments to a file")
        file_actions = ui.fileMenu.actions()
        after_import = file_actions.index(ui.importAction) + 1
        if after_import < len(file_actions):
            ui.fileMenu.insertAction(file_actions[after_import], self.export_action)
        else:
            ui.fileMenu.addAction(self.export_action)

        self.tools_menu = QMenu("&Tools", window)
        self.tools_menu.setObjectName("toolsMenu")
        self.judge_action = self.tools_menu.addAction("Run LLM &judge…")
        self.judge_action.setStatusTip("Judge the bundle's pairs with an LLM")
        self.settings_menu = QMenu("&Settings", window)
        self.settings_menu.setObjectName("settingsMenu")
        self.api_key_action = self.settings_menu.addAction("&API key…")
        self.api_key_action.setStatusTip("Store or remove the judge endpoint's API key")
        self.backups_action = self.settings_menu.addAction("&Backups…")
        self.backups_action.setStatusTip("Where backups of bundle files go, and a size limit")
        menu_bar = window.menuBar()
        menu_bar.insertMenu(ui.helpMenu.menuAction(), self.tools_menu)
        menu_bar.insertMenu(ui.helpMenu.menuAction(), self.settings_menu)

        self.export_action.triggered.connect(self.show_export_dialog)
        self.judge_action.triggered.connect(self.show_judge_dialog)
        self.api_key_action.triggered.connect(self.show_api_key_dialog)
        self.backups_action.triggered.connect(self.show_backup_settings)

    def _bundle_path(self) -> str | Path | None:
        """The open bundle's location as the window opened it (a path, or a server URL that
        may hold a password kept for this session only), or None after telling the user."""
        if self.window.bundle is None:
            self.window.show_error("No bundle", "Open a bundle first.")
            return None
        return self.window.location

    def show_export_dialog(self) -> ExportDialog | None:
        path = self._bundle_path()
        if path is None:
            return None
        if self.export_dialog is None or self.export_dialog.bundle != path:
            # the export stack (pandas among it) loads here, not with the window
            from workbench.gui.export_dialog import ExportDialog

            self.export_dialog = ExportDialog(path, self.window)
        self.export_dialog.show()
        self.export_dialog.raise_()
        return self.export_dialog

    def show_judge_dialog(self) -> JudgeDialog | None:
        path = self._bundle_path()
        if path is None:
            return None
        if self.judge_dialog is None or (
            self.judge_dialog.bundle != path and not self.judge_dialog.running
        ):
            # start-up: a Tools dialog loads when it is first opened
            from workbench.gui.judge_dialog import JudgeDialog

            self.judge_dialog = JudgeDialog(path, self.window)
            self.judge_dialog.judged.connect(self._judged)
        self.judge_dialog.show()
        self.judge_dialog.raise_()
        return self.judge_dialog

    def show_api_key_dialog(self) -> ApiKeyDialog:
        if self.api_key_dialog is None:
            # start-up: a Tools dialog loads when it is first opened
            from workbench.gui.api_key_dialog import ApiKeyDialog

            self.api_key_dialog = ApiKeyDialog(parent=self.window)
        self.api_key_dialog.refresh()
        self.api_key_dialog.show()
        self.api_key_dialog.raise_()
        return self.api_key_dialog

    def show_backup_settings(self) -> BackupSettingsDialog:
        # start-up: a Tools dialog loads when it is first opened
        from workbench.gui.backup_settings_dialog import BackupSettingsDialog

        dialog = BackupSettingsDialog(self.window)
        dialog.show()
        return dialog

    def _judged(self, location: object) -> None:
        if self.window.bundle is not None and self.window.location == location:
            self.window.reload_bundle()
