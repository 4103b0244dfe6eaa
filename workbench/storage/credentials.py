"""Passwords for bundles on a PostgreSQL server: from the URL, the environment or the system
keyring, never written to the bundle or to a log (each one found is registered for redaction).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from sqlalchemy.engine import URL, make_url

from workbench.keyring_store import KEYRING_SERVICE as KEYRING_SERVICE  # re-exported
from workbench.keyring_store import (
    KeyringUnavailableError,
    delete_secret,
    read_secret,
    write_secret,
)
from workbench.logging_setup import register_secret
from workbench.storage.errors import BundleError

log = logging.getLogger(__name__)

PASSWORD_ENV_VAR = "WORKBENCH_DB_PASSWORD"
DEFAULT_PORT = 5432


class CredentialError(BundleError):
    """A database password could not be stored in or removed from the keyring."""


@dataclass(frozen=True)
class ResolvedPassword:
    """The password to connect with (None: let libpq find one in PGPASSWORD or ~/.pgpass) and
    where it came from: ``url``, ``env:WORKBENCH_DB_PASSWORD``, ``keyring`` or ``none``."""

    password: str | None
    source: str


def _as_url(url: str | URL) -> URL:
    return url if isinstance(url, URL) else make_url(url)


def keyring_username(url: str | URL) -> str:
    """The keyring entry of a database: ``db:{user}@{host}:{port}/{database}``."""
    parsed = _as_url(url)
    return (
        f"db:{parsed.username or ''}@{parsed.host or 'localhost'}:"
        f"{parsed.port or DEFAULT_PORT}/{parsed.database or ''}"
    )


def masked(url: str | URL) -> str:
    """The URL as it may be shown and logged: any password replaced by ``***``."""
    return _as_url(url).render_as_string(hide_password=True)


def _from_keyring(url: URL) -> str | None:
    found = read_secret(keyring_username(url))
    if found.note:
        log.warning("%s; no database password taken from it", found.note)
    return found.value


def resolve_password(url: str | URL) -> ResolvedPassword:
    """The password for ``url``: the one in the URL, else ``$WORKBENCH_DB_PASSWORD``, else the
    system keyring's entry for this database, else none."""
    parsed = _as_url(url)
    if parsed.password:
        found = ResolvedPassword(str(parsed.password), "url")
    elif os.environ.get(PASSWORD_ENV_VAR):
        found = ResolvedPassword(os.environ[PASSWORD_ENV_VAR], f"env:{PASSWORD_ENV_VAR}")
    elif stored := _from_keyring(parsed):
        found = ResolvedPassword(stored, "keyring")
    else:
        found = ResolvedPassword(None, "none")
    if found.password:
        register_secret(found.password)
    return found


def store_password(url: str | URL, password: str) -> None:
    """Save the password of the database ``url`` names in the system keyring."""
    register_secret(password)
    try:
        write_secret(keyring_username(url), password)
    except KeyringUnavailableError as error:
        instead = (
            f"; set the password in the environment variable {PASSWORD_ENV_VAR} or in "
            "~/.pgpass instead"
            if error.no_keyring
            else ""
        )
        raise CredentialError(f"{error.reason}{instead}") from error
    log.info("stored the database password for %s in the system keyring", masked(url))


def forget_password(url: str | URL) -> bool:
    """Remove the stored password of the database ``url`` names; False when there was none."""
    try:
        return delete_secret(keyring_username(url))
    except KeyringUnavailableError as error:
        raise CredentialError(error.reason) from error
