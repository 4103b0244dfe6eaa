"""Settings > API key…: stores and removes the key in the keyring (one per host), never shows
it back, and says plainly what to do when there is no keyring."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from PySide6.QtWidgets import QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from tests.keyrings import MemoryKeyring
from workbench.gui.api_key_dialog import ApiKeyDialog
from workbench.judge.secrets import KEYRING_SERVICE, keyring_account, resolve_api_key

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui

HOSTED = "https://api.example.com/v1"
KEY = "wbtest-key-5d1e-8a2b-c3f4"


def shown_texts(dialog: ApiKeyDialog) -> str:
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    texts += [edit.text() for edit in dialog.findChildren(QLineEdit)]
    return "\n".join(texts)


def test_a_key_is_stored_per_host_and_never_shown(
    qtbot: QtBot,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    dialog = ApiKeyDialog(HOSTED)
    qtbot.addWidget(dialog)
    assert "No key is stored for api.example.com" in dialog.status_label.text()
    assert not dialog.save_button.isEnabled() and not dialog.clear_button.isEnabled()
    assert dialog.key_edit.echoMode() is QLineEdit.EchoMode.Password

    dialog.key_edit.setText(KEY)
    assert dialog.save_button.isEnabled()
    dialog.save_button.click()
    account = keyring_account(HOSTED)
    assert memory_keyring.passwords == {(KEYRING_SERVICE, account): KEY}
    assert resolve_api_key(HOSTED).secret.reveal() == KEY  # where the judge looks for it
    assert dialog.key_edit.text() == ""
    assert "Saved the key for api.example.com" in dialog.status_label.text()
    assert KEY not in shown_texts(dialog)
    assert dialog.clear_button.isEnabled()

    dialog.clear_button.click()
    assert memory_keyring.passwords == {}
    assert "Removed the stored key" in dialog.status_label.text()
    assert not dialog.clear_button.isEnabled()


def test_without_a_keyring_the_dialog_points_to_the_environment(
    qtbot: QtBot,
    no_keyring: None,
) -> None:
    dialog = ApiKeyDialog(HOSTED)
    qtbot.addWidget(dialog)
    text = dialog.status_label.text()
    assert "No system keyring is available" in text and "OPENAI_API_KEY" in text
    assert not dialog.key_edit.isEnabled()
    assert not dialog.save_button.isEnabled() and not dialog.clear_button.isEnabled()
    # even when asked directly, nothing is stored and the same advice is given
    dialog.key_edit.setText(KEY)
    dialog.save()
    assert "OPENAI_API_KEY" in dialog.status_label.text()
    assert KEY not in shown_texts(dialog)


def test_settings_api_key_opens_the_dialog(open_window: MainWindow) -> None:
    open_window.tools.api_key_action.trigger()
    dialog = open_window.tools.api_key_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.close()
