"""The bundle: SQLAlchemy models, opening/creating/migrating, and the queries the app needs.

The names below load on first use (PEP 562), not with the package: a module of this package
that needs no SQLAlchemy (:mod:`workbench.storage.fast_read`, the command line's leaderboard)
must not pay for importing the bundle machinery."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.storage.bundle import BUNDLE_SUFFIX, Bundle, head_revision
    from workbench.storage.errors import (
        BundleError,
        BundleExistsError,
        BundleTooNewError,
        MigrationDeclinedError,
        NotABundleError,
    )

_HOMES = {
    "BUNDLE_SUFFIX": "workbench.storage.bundle",
    "Bundle": "workbench.storage.bundle",
    "head_revision": "workbench.storage.bundle",
    "BundleError": "workbench.storage.errors",
    "BundleExistsError": "workbench.storage.errors",
    "BundleTooNewError": "workbench.storage.errors",
    "MigrationDeclinedError": "workbench.storage.errors",
    "NotABundleError": "workbench.storage.errors",
}

__all__ = [
    "BUNDLE_SUFFIX",
    "Bundle",
    "BundleError",
    "BundleExistsError",
    "BundleTooNewError",
    "MigrationDeclinedError",
    "NotABundleError",
    "head_revision",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'workbench.storage' has no attribute '{name}'")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value
