"""Errors the storage layer raises, each with a message meant for the user."""

from pathlib import Path

from workbench.errors import WorkbenchError


class BundleError(WorkbenchError):
    """A bundle could not be opened or used; the message says why and what to do."""


class BundleExistsError(BundleError):
    """A new bundle was to be created where a file already is (perhaps created meanwhile by
    another process); nothing was written to that file."""


class NotABundleError(BundleError):
    """The file exists but is not a VLM Workbench bundle."""


class BundleTooNewError(BundleError):
    """The bundle was written by a newer version of the app than this one."""


class MigrationDeclinedError(BundleError):
    """The bundle needs a schema upgrade and the caller did not allow it."""


class BundleConnectionError(BundleError):
    """The server holding a bundle could not be reached (down, refused the login, no such
    database)."""


class ServerSupportMissingError(BundleError):
    """A server bundle was asked for but the PostgreSQL driver (the ``server`` extra) is not
    installed."""


class BundleDamagedError(BundleError):
    """The bundle file is damaged (truncated, overwritten, not a database any more).

    ``path`` is the damaged file and ``backup`` the latest backup beside it (None when there is
    none), so a dialog can offer to restore it.
    """

    def __init__(self, path: Path, problem: str, backup: Path | None = None) -> None:
        self.path = Path(path)
        self.problem = problem
        self.backup = backup
        if backup is not None:
            advice = (
                f"the latest backup is {backup.name}; `workbench restore {path}` puts it back "
                "and keeps the damaged file aside"
            )
        else:
            advice = "no backup of it was found beside it"
        super().__init__(f"{path} is damaged ({problem}); {advice}")


class BackupError(BundleError):
    """A backup could not be made, found or restored."""
