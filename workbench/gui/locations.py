"""What the GUI needs to know about a bundle location (a file path or a server URL): how to
show it without its password, whether two name the same bundle, and where files written from
it (exports) go by default."""

from __future__ import annotations

from pathlib import Path

from workbench.storage.dialects import parse_location
from workbench.storage.errors import BundleError


def display_location(location: str | Path) -> str:
    """The path, or the URL with any password masked."""
    try:
        return parse_location(location).display
    except BundleError:
        return str(location)


def same_bundle(first: str | Path, second: str | Path) -> bool:
    """Whether two locations name the same bundle (files compared resolved, URLs without
    their passwords)."""
    try:
        return parse_location(first).same_bundle(parse_location(second))
    except BundleError:
        return False


def default_output(location: str | Path, suffix: str, tag: str = "-export") -> Path:
    """Where a file written from the bundle goes unless the user says otherwise: beside a
    bundle file, or in the home folder (named after the database) for a server bundle."""
    try:
        parsed = parse_location(location)
    except BundleError:
        parsed = None
    if parsed is not None and parsed.url is not None:
        return Path.home() / f"{parsed.url.database or 'bundle'}{tag}{suffix}"
    path = Path(location)
    return path.with_name(path.stem + tag + suffix)
