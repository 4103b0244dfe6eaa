"""The list of recently opened bundles, kept in the ``recent`` part of the app's settings file
(:mod:`workbench.storage.app_settings`).

An entry is a bundle's location: a file path, or a server URL without its password (as
``Bundle.location`` shows it), so the list never holds a secret.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url

from workbench.domain.settings import MAX_RECENT, AppSettings
from workbench.storage.app_settings import load_settings, update_settings
from workbench.storage.dialects import parse_location
from workbench.storage.errors import BundleError


def is_server_location(location: str | Path) -> bool:
    """Whether ``location`` is a server URL such as ``postgresql://host/db`` (else it names a
    file: a path or ``sqlite:///path``; a location no bundle can have is neither)."""
    try:
        return parse_location(location).is_server
    except BundleError:
        return False


def without_password(url: str) -> str:
    """``url`` with no password in it at all (a masked ``***`` would be taken for one when the
    entry is opened again; without one, the keyring or the environment supplies it)."""
    # URL.set() leaves a field alone when given None; the named tuple's _replace clears it
    return make_url(url)._replace(password=None).render_as_string(hide_password=False)


def recent_locations() -> list[str]:
    """Every remembered location, most recent first (files that have gone included)."""
    return list(load_settings().recent)


def recent_bundles() -> list[Path]:
    """The remembered bundle files, most recent first (server locations left out)."""
    return [Path(entry) for entry in recent_locations() if not is_server_location(entry)]


def remember_location(location: str | Path) -> None:
    """Put ``location`` first in the list: a file path (stored resolved) or a server URL (any
    password in it is removed before it is written)."""
    if is_server_location(location):
        entry = without_password(str(location))
    else:
        entry = str(Path(location).resolve())

    def first(settings: AppSettings) -> AppSettings:
        entries = [entry] + [other for other in settings.recent if other != entry]
        return settings.with_changes(recent=tuple(entries[:MAX_RECENT]))

    update_settings(first)


def available(location: str) -> bool:
    """Whether a remembered location is worth offering: a server, or a file that still exists."""
    return is_server_location(location) or Path(location).is_file()


def most_recent_location() -> str | None:
    """The most recent server URL or existing bundle file."""
    return next((entry for entry in recent_locations() if available(entry)), None)
