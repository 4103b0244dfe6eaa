"""The static dialogs take their layout from Designer forms: each has a .ui file in
ui/ (whose compiled form test_app checks is current), and its class builds no layout by hand."""

from __future__ import annotations

import re

import pytest
from pytestqt.qtbot import QtBot

from workbench.gui.form_compiler import PROJECT_ROOT, ui_files

pytestmark = pytest.mark.gui

#: dialog module (under workbench/gui) -> its .ui file's name
DIALOGS = {
    "api_key_dialog.py": "api_key_dialog",
    "server_dialog.py": "server_dialog",
    "export_dialog.py": "export_dialog",
    "report_dialog.py": "report_dialog",
    "judge_dialog.py": "judge_dialog",
    "import_dialog.py": "import_dialog",
    "annotation/start_dialog.py": "start_dialog",
}
#: dialogs whose frame is a form but whose rows are built from a table of options (the New
#: campaign dialog: one entry per option of ``campaign create``, so an option is one entry)
TABLE_DRIVEN = {"annotation/new_campaign_dialog.py": "new_campaign_dialog"}
HAND_BUILT = re.compile(r"\bQ(?:VBox|HBox|Form|Grid)Layout\(|\bQGroupBox\(|\.addRow\(")


@pytest.mark.parametrize("module", sorted(DIALOGS | TABLE_DRIVEN))
def test_a_static_dialog_is_laid_out_by_its_form(module: str) -> None:
    form = (DIALOGS | TABLE_DRIVEN)[module]
    assert PROJECT_ROOT / "ui" / f"{form}.ui" in ui_files()
    source = (PROJECT_ROOT / "workbench" / "gui" / module).read_text(encoding="utf-8")
    assert f"workbench.gui.forms.ui_{form} import" in source
    if module in TABLE_DRIVEN:
        assert "OPTIONS" in source
        return
    assert HAND_BUILT.findall(source) == []


def test_widgets_keep_the_names_the_code_and_tests_use(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QLineEdit

    from workbench.gui.api_key_dialog import ApiKeyDialog
    from workbench.gui.server_dialog import ServerDialog

    api = ApiKeyDialog("http://127.0.0.1:9/v1")
    server = ServerDialog("postgresql://u@h/db")
    for dialog in (api, server):
        qtbot.addWidget(dialog)
    # the form's widget is the attribute, found by its object name
    assert api.findChild(QLineEdit, "key_edit") is api.key_edit
    assert api.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert api.base_url_edit.text() == "http://127.0.0.1:9/v1"
    assert server.findChild(QLineEdit, "url_edit") is server.url_edit
    assert server.url_edit.text() == "postgresql://u@h/db"
    assert api.save_button.text() == "Save key" and api.close_button is not None
