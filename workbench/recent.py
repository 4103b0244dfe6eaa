"""The list of recently opened bundles, kept in the user's config folder as versioned JSON.

An entry is a bundle's location: a file path, or a server URL without its password (as
``Bundle.location`` shows it), so the list never holds a secret.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from workbench.paths import config_dir
from workbench.storage.dialects import parse_location
from workbench.storage.errors import BundleError

RECENT_FILE = "recent.json"
RECENT_VERSION = 1
MAX_RECENT = 10


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
    from sqlalchemy.engine import make_url

    # URL.set() leaves a field alone when given None; the named tuple's _replace clears it
    return make_url(url)._replace(password=None).render_as_string(hide_password=False)


def _file() -> Path:
    return config_dir() / RECENT_FILE


def recent_locations() -> list[str]:
    """Every remembered location, most recent first (files that have gone included)."""
    try:
        data = json.loads(_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("version") != RECENT_VERSION:
        return []
    return [entry for entry in data.get("bundles", []) if isinstance(entry, str)]


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
    entries = [entry] + [other for other in recent_locations() if other != entry]
    target = _file()
    temporary = target.with_suffix(".tmp")
    temporary.write_text(
        json.dumps({"version": RECENT_VERSION, "bundles": entries[:MAX_RECENT]}, indent=2),
        encoding="utf-8",
    )
    os.replace(temporary, target)


def available(location: str) -> bool:
    """Whether a remembered location is worth offering: a server, or a file that still exists."""
    return is_server_location(location) or Path(location).is_file()


def most_recent_location() -> str | None:
    """The most recent server URL or existing bundle file."""
    return next((entry for entry in recent_locations() if available(entry)), None)
