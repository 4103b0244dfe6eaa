"""Settings > API key…: store the judge endpoint's API key in the system keyring (one key per
host, where ``workbench judge`` and the judge dialog look for it) or remove it. The key is
never shown back, logged or written anywhere else; without a keyring backend the dialog says
so and points to the environment variable."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QWidget

from workbench.gui.forms.ui_api_key_dialog import Ui_ApiKeyDialog
from workbench.judge.secrets import (
    DEFAULT_ENV_VAR,
    ApiKeyError,
    delete_api_key,
    keyring_account,
    public_base_url,
    store_api_key,
)
from workbench.keyring_store import read_secret
from workbench.logging_setup import register_secret

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
NO_KEYRING = (
    "No system keyring is available on this machine, so no key can be stored here. "
    f"Set the {DEFAULT_ENV_VAR} environment variable before starting the app instead."
)


def keyring_state(base_url: str) -> tuple[bool, bool]:
    """(a keyring is available, a key is stored for ``base_url``'s host)."""
    found = read_secret(keyring_account(base_url))
    if found.note:
        log.warning("%s", found.note)
        return False, False
    return True, bool(found.value)


class ApiKeyDialog(QDialog, Ui_ApiKeyDialog):
    """The layout is ui/api_key_dialog.ui; the key field refuses the context menu and drags
    there, since a key in the clipboard or a drag would outlive the dialog."""

    def __init__(self, base_url: str = DEFAULT_BASE_URL, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setupUi(self)
        self.base_url_edit.setText(base_url)
        self.explanation.setText(
            "The judge endpoint's key is kept in the system keyring, one per host. "
            f"{DEFAULT_ENV_VAR}, when set, is used instead. The key is never shown, logged "
            "or written to a bundle."
        )
        # buttons of our own roles: a .ui button box holds only standard buttons
        self.save_button = self.buttons.addButton(
            "Save key", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.clear_button = self.buttons.addButton(
            "Remove stored key", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.close_button = self.buttons.button(QDialogButtonBox.StandardButton.Close)

        self.save_button.clicked.connect(self.save)
        self.clear_button.clicked.connect(self.clear)
        self.close_button.clicked.connect(self.reject)
        self.base_url_edit.editingFinished.connect(self.refresh)
        self.key_edit.textChanged.connect(self._update_buttons)
        self.keyring_available = False
        self.key_stored = False
        self.refresh()

    def host(self) -> str:
        """The host a key is stored for (one key per host)."""
        text = self.base_url_edit.text().strip()
        return urlsplit(text).hostname or public_base_url(text)

    def refresh(self) -> None:
        base_url = self.base_url_edit.text().strip()
        self.keyring_available, self.key_stored = keyring_state(base_url)
        if not self.keyring_available:
            self.status_label.setText(NO_KEYRING)
        elif self.key_stored:
            self.status_label.setText(f"A key is stored for {self.host()}.")
        else:
            self.status_label.setText(f"No key is stored for {self.host()}.")
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.key_edit.setEnabled(self.keyring_available)
        self.save_button.setEnabled(self.keyring_available and bool(self.key_edit.text().strip()))
        self.clear_button.setEnabled(self.keyring_available and self.key_stored)

    def save(self) -> None:
        key = self.key_edit.text().strip()
        # the key leaves the widget at once, whatever happens next
        self.key_edit.clear()
        if not key:
            return
        register_secret(key)
        try:
            store_api_key(self.base_url_edit.text().strip(), key)
        except ApiKeyError as error:
            self.refresh()
            self.status_label.setText(
                NO_KEYRING if not self.keyring_available else f"Not saved: {error}."
            )
            return
        self.refresh()
        self.status_label.setText(f"Saved the key for {self.host()} in the system keyring.")

    def clear(self) -> None:
        try:
            removed = delete_api_key(self.base_url_edit.text().strip())
        except ApiKeyError as error:
            self.refresh()
            self.status_label.setText(f"Not removed: {error}.")
            return
        self.refresh()
        self.status_label.setText(
            f"Removed the stored key for {self.host()}."
            if removed
            else f"No key was stored for {self.host()}."
        )
