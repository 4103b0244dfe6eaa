"""One problem dialog for every dialog: plain text, the traceback one click away,
and no copy of the box elsewhere in the GUI."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

pytestmark = pytest.mark.gui


def test_the_box_shows_plain_text_with_details_behind_a_button(qtbot: QtBot) -> None:
    from workbench.gui.problem_dialog import show_problem

    parent = QWidget()
    qtbot.addWidget(parent)
    box = show_problem(parent, "Export", "<b>not markup</b>", "Traceback: here")
    assert box.isVisible() and box.parent() is parent
    assert box.windowTitle() == "Export" and box.icon() == QMessageBox.Icon.Warning
    assert box.textFormat() == Qt.TextFormat.PlainText and box.text() == "<b>not markup</b>"
    assert box.detailedText() == "Traceback: here"
    quiet = show_problem(parent, "Open", "gone", icon=QMessageBox.Icon.Critical)
    assert quiet.detailedText() == "" and quiet.icon() == QMessageBox.Icon.Critical


def test_every_dialog_goes_through_it() -> None:
    # a copied box would drift (rich text, no details): only the module builds one
    gui = Path(__file__).resolve().parents[2] / "workbench" / "gui"
    copies = [
        path.relative_to(gui).as_posix()
        for path in gui.rglob("*.py")
        if path.name != "problem_dialog.py"
        and "forms" not in path.parts
        and (
            "QMessageBox.Icon.Warning" in path.read_text(encoding="utf-8")
            or "QMessageBox.warning(" in path.read_text(encoding="utf-8")
            or "QMessageBox.critical(" in path.read_text(encoding="utf-8")
        )
    ]
    assert copies == []


def test_the_backup_dialog_reports_an_unusable_folder(qtbot: QtBot, tmp_path: Path) -> None:
    from workbench.gui.backup_settings_dialog import BackupSettingsDialog

    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    dialog = BackupSettingsDialog()
    qtbot.addWidget(dialog)
    dialog.beside.setChecked(False)
    dialog.folder.setText(str(blocker / "backups"))
    dialog.accept()
    assert dialog.message_box is not None and "Cannot use" in dialog.message_box.text()
    assert dialog.result() != QDialog.DialogCode.Accepted
