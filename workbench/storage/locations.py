"""Whether a bundle location names a file or a server: the one answer every command, service
and reader uses. Standard library only, so the quick readers (:mod:`workbench.storage.fast_read`)
can ask without importing SQLAlchemy; :func:`workbench.storage.dialects.parse_location` builds
the full location (the server URL, the driver) on top of it.

A location is a file path, ``sqlite:///PATH`` (the same file), or a ``postgresql://`` URL. A
:class:`~pathlib.Path` is always a file: ``Path("sqlite:///x")`` has already folded the URL's
slashes, so only text is read as a URL.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

#: the URL schemes of a bundle on a PostgreSQL server (psycopg 3 is the driver whichever one)
SERVER_SCHEMES = frozenset({"postgresql", "postgres", "postgresql+psycopg"})
SQLITE_SCHEME = "sqlite"

_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")


def location_scheme(location: str | Path) -> str | None:
    """The URL scheme of ``location`` in lower case (``"sqlite"``, ``"postgresql"``, ...), or
    None for a file path."""
    if isinstance(location, Path):
        return None
    found = _URL_SCHEME.match(str(location).strip())
    return found.group(1).lower() if found else None


def is_server_url(location: str | Path) -> bool:
    """Whether ``location`` is a PostgreSQL server URL."""
    return location_scheme(location) in SERVER_SCHEMES


def location_file(location: str | Path) -> Path | None:
    """The file ``location`` names: a path as given, or the path of ``sqlite:///PATH``
    (``sqlite:////abs/x.wbb`` is ``/abs/x.wbb``, ``%20`` a space). None for a server URL, for
    any other URL and for a ``sqlite://`` URL naming a host or no path;
    :func:`~workbench.storage.dialects.parse_location` refuses those last ones with a reason."""
    if isinstance(location, Path):
        return location
    text = str(location).strip()
    scheme = location_scheme(text)
    if scheme is None:
        return Path(text)
    if scheme != SQLITE_SCHEME:
        return None
    rest = text[len(SQLITE_SCHEME) + len("://") :]
    if not rest.startswith("/"):  # a host between the slashes: not a file on this machine
        return None
    database = unquote(rest[1:].split("?", 1)[0])  # as SQLAlchemy reads it: %20 is a space
    return Path(database) if database else None


def not_a_location_message(scheme: str) -> str:
    """The refusal of a URL that names neither a file nor a server."""
    return f"'{scheme}://' is not a bundle location: give a file path or a postgresql:// URL"
