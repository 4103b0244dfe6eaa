"""File > Open server bundle…: the URL of a bundle on a PostgreSQL server and, optionally, its
password. A password is either remembered in the system keyring (where ``Bundle.open`` looks
for it) or kept in memory for this session only; it is never written to the settings, the
recent list or the log."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QWidget
from sqlalchemy.engine import make_url

from workbench.errors import WorkbenchError
from workbench.gui.forms.ui_server_dialog import Ui_ServerDialog
from workbench.logging_setup import register_secret
from workbench.recent import is_server_location
from workbench.services.maintenance import PASSWORD_ENV_VAR, store_server_password

log = logging.getLogger(__name__)

URL_EXAMPLE = "postgresql://annotator@lab-server:5432/campaign?sslmode=require"


def with_password(url: str, password: str) -> str:
    """``url`` with ``password`` put in (to connect with; never to be shown or stored)."""
    return make_url(url).set(password=password).render_as_string(hide_password=False)


class ServerDialog(QDialog, Ui_ServerDialog):
    """Asks for a server location; after ``accept``, :attr:`location` is what to open."""

    def __init__(self, url: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setupUi(self)  # ui/server_dialog.ui
        self.location: str | None = None
        self.intro.setText(
            "Open a bundle kept in a PostgreSQL database shared by the lab. Leave the password "
            f"empty to use the one in the keyring, in {PASSWORD_ENV_VAR} or in ~/.pgpass."
        )
        self.url_edit.setText(url)
        self.url_edit.setPlaceholderText(URL_EXAMPLE)

        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.password_edit.textChanged.connect(
            lambda text: self.remember_box.setEnabled(bool(text))
        )
        self.url_edit.textChanged.connect(self._url_changed)
        self._url_changed(url)

    def _url_changed(self, text: str) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Open).setEnabled(bool(text.strip()))

    def show_problem(self, message: str) -> None:
        self.problem_label.setText(message)
        self.problem_label.show()

    def accept(self) -> None:
        try:
            self.location = self._location()
        except WorkbenchError as error:
            self.show_problem(str(error))
            return
        except Exception as error:  # sqlalchemy's URL parser: say what it did not understand
            self.show_problem(f"Cannot read the URL: {error}")
            return
        super().accept()

    def _location(self) -> str:
        url = self.url_edit.text().strip()
        if not is_server_location(url):
            raise WorkbenchError(
                f"This is not a server URL. Give one such as {URL_EXAMPLE} "
                "(a bundle file opens with File > Open bundle…)."
            )
        make_url(url)  # a malformed URL is reported here, before any connection
        password = self.password_edit.text()
        if not password:
            return url
        register_secret(password)
        if self.remember_box.isChecked():
            store_server_password(url, password)  # a CredentialError says why it cannot
            log.info("the password of a server bundle was stored in the keyring")
            return url
        return with_password(url, password)
