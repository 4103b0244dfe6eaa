"""The bundle: SQLAlchemy models, opening/creating/migrating, and the queries the app needs."""

from workbench.storage.bundle import BUNDLE_SUFFIX, Bundle, head_revision
from workbench.storage.errors import (
    BundleError,
    BundleExistsError,
    BundleTooNewError,
    MigrationDeclinedError,
    NotABundleError,
)

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
