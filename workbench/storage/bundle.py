"""Open, create and migrate a bundle: a benchmark and its judgments in one SQLite file, or in
one database on a PostgreSQL server that a lab's annotators share.

A bundle location is a file path or a ``postgresql://`` URL (see ``dialects``). On SQLite every
connection runs with foreign keys on, WAL journaling, full fsync on commit (a vote the user saw
confirmed survives a crash) and a busy timeout, so a second process waits rather than fails.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, event, insert, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from workbench import __version__
from workbench.storage.backups import make_backup
from workbench.storage.dialects import (
    BundleLocation,
    connection_error,
    make_engine,
    parse_location,
    reading,
    writer_queue,
)
from workbench.storage.errors import (
    BundleError,
    BundleExistsError,
    BundleTooNewError,
    MigrationDeclinedError,
    NotABundleError,
)
from workbench.storage.files import sidecar_paths
from workbench.storage.integrity import check_file_header, damage_from
from workbench.storage.leftovers import remove_abandoned, writer_tag
from workbench.storage.models import BundleInfo

# re-exported: the tests move it to stand for a later release
from workbench.storage.revision import HEAD_REVISION as HEAD_REVISION

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

BUNDLE_SUFFIX = ".wbb"
MIGRATIONS_DIR = Path(__file__).with_name("migrations")
#: key of the PostgreSQL advisory lock that lets one client at a time migrate a server bundle
_MIGRATION_LOCK_KEY = 0x766C6D77  # "vlmw"
#: SQLSTATE classes of a lost or refused connection (not of a conflict the caller may retry)
_CONNECTION_SQLSTATES = ("08", "28", "3D", "57P")
#: how the private file a new bundle is built in starts (see :meth:`Bundle.building`)
CREATING_PREFIX = ".creating-"


def _alembic_config(connection: Connection | None = None) -> Config:
    # start-up: Alembic (about 0.2 s), loaded only when the revision differs from the head
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The schema revision this version of the app writes."""
    return HEAD_REVISION


def alembic_head_revision() -> str:
    """The head revision as Alembic finds it in the migrations folder (what
    :data:`HEAD_REVISION` must equal)."""
    # start-up: Alembic (about 0.2 s), loaded only when the revision differs from the head
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None, "the migrations folder has no revision"
    return head


def _known_revisions() -> set[str]:
    # start-up: Alembic (about 0.2 s), loaded only when the revision differs from the head
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(_alembic_config())
    return {rev.revision for rev in script.walk_revisions()}


def _revision_of(connection: Connection) -> str | None:
    """The bundle's schema revision, read as Alembic's ``MigrationContext`` reads it (None
    without a version table or row), without importing Alembic."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(rows) > 1:  # Alembic refuses branched heads the same way
        raise BundleError(f"the bundle has {len(rows)} schema revisions: {', '.join(rows)}")
    return rows[0] if rows else None


def _current_revision(engine: Engine) -> str | None:
    with reading(engine).connect() as connection:
        return _revision_of(connection)


def _is_connection_failure(error: BaseException) -> bool:
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    sqlstate = getattr(error.orig, "sqlstate", None)
    if not isinstance(sqlstate, str):  # refused, unreachable or timed out before an answer
        return isinstance(error, OperationalError)
    return sqlstate.startswith(_CONNECTION_SQLSTATES)


def _rollback_journal(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    """Run after the dialect's own connect hook, which sets WAL (see Bundle.building)."""
    dbapi_connection.execute("PRAGMA journal_mode = DELETE").close()


def _checkpoint(path: Path) -> None:
    """Move everything from the WAL into the database file, so the file alone is the bundle
    (it is about to be linked into place without its sidecars), in WAL mode whatever it was
    built in. Call with no engine open."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA journal_mode = WAL").close()
        busy = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        connection.close()
    if busy:
        raise BundleError("the new bundle is still in use and cannot be published")


#: SQLite's words for a file it cannot write, and what to tell the user instead
_FILE_PROBLEMS = (
    ("database or disk is full", "the disk is full; nothing was written (free some space)"),
    (
        "readonly database",
        "it is read-only (the file, its folder or the disk); nothing was written",
    ),
    (
        "unable to open database file",
        "it cannot be opened for writing: SQLite keeps -wal and -shm files beside a bundle, so "
        "its folder must be writable (copy it to a writable folder to read it)",
    ),
    (
        "disk i/o error",
        "the disk reported an input/output error; nothing was written (once the disk is "
        "back, try again: the next try opens the bundle afresh)",
    ),
)


def file_problem(where: BundleLocation, error: DBAPIError) -> BundleError | None:
    """One clear line for an SQLite error that is about the file system, not the data (a full
    disk, a read-only file or mount); None for any other error."""
    text = str(error.orig).lower()
    for words, meaning in _FILE_PROBLEMS:
        if words in text:
            return BundleError(f"{where.display}: {meaning}")
    return None


def _refuse_foreign_database(path: Path) -> None:
    """Raise :class:`NotABundleError` for an SQLite file that holds no bundle, checked through a
    read-only connection: opening it as a bundle would switch it to WAL, changing a file that
    is not ours. A file this cannot read (damaged, locked) is left to the usual open, which
    reports it in its own words."""
    try:
        # immutable: no lock, no -wal or -shm file created or touched
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    except sqlite3.Error:
        return
    try:
        found = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
        ).fetchone()
        # A bundle from a newer app is refused here too, before opening it switched its
        # journal mode (a refused import left the newer app's file in WAL mode).
        revision = (
            connection.execute("SELECT version_num FROM alembic_version").fetchone()
            if found is not None
            else None
        )
    except sqlite3.Error:
        return
    finally:
        connection.close()
    if found is None:
        raise NotABundleError(f"{path} is an SQLite file but not a VLM Workbench bundle")
    current = revision[0] if revision else None
    if current is not None and current != HEAD_REVISION and current not in _known_revisions():
        raise BundleTooNewError(_too_new(str(path), current))


def _too_new(display: str, current: str) -> str:
    return (
        f"{display} was written by a newer VLM Workbench (schema {current}); "
        f"this version ({__version__}) reads schemas up to {head_revision()}. Update the app."
    )


def _upgrade(connection: Connection) -> None:
    # start-up: Alembic (about 0.2 s), loaded only when the revision differs from the head
    from alembic import command

    command.upgrade(_alembic_config(connection), "head")


class Bundle:
    """An open bundle. Use :meth:`session` for a unit of work that commits or rolls back whole.

    ``path`` is the file (None on a server), ``location`` what to show for it (the path, or the
    URL without its password), ``dialect`` "sqlite" or "postgresql".
    """

    def __init__(self, location: BundleLocation, engine: Engine, read_only: bool = False) -> None:
        self._location = location
        #: opened with ``read_only``: :meth:`session` refuses, and the database refuses writes
        self.read_only = read_only
        self.path: Path | None = location.path
        self.location: str = location.display
        self.is_server: bool = location.is_server
        self.dialect: str = location.dialect
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._writer_queue = writer_queue(location)
        self._read_sessions = sessionmaker(reading(engine), expire_on_commit=False)

    # --- creating and opening --------------------------------------------------------------

    @classmethod
    def create(cls, location: str | Path) -> Bundle:
        """Create a new, empty bundle: at a file path that must not exist, or in an existing,
        empty database on a server. Raises :class:`BundleExistsError` if the path is taken."""
        with cls.building(location):
            pass
        return cls.open(location)

    @classmethod
    @contextmanager
    def building(cls, location: str | Path, *, bulk: bool = False) -> Iterator[Bundle]:
        """A new bundle to fill inside the block, published at ``location`` when it ends well.

        A file is built under a private temporary name beside ``location`` and linked into
        place only at the end, and only if nothing is at ``location`` by then (else
        :class:`BundleExistsError`). So a failed or cancelled step removes only a file no other
        process could have opened, never a bundle someone else created and wrote to meanwhile;
        and a crash never leaves a half-built file at ``location``. A server database cannot
        be built aside: it is created in place in the empty database, as :meth:`create` does.

        ``bulk`` (a large import, one writer in the block): the private file is filled with a
        rollback journal instead of WAL. No other connection can read it, so WAL buys nothing
        there, while it writes every new page twice (to the log, then at the checkpoint) and a
        rollback journal writes pages beyond the file's old end once. It is back in WAL mode
        before it is published.
        """
        where = parse_location(location)
        if where.path is None:
            with cls._create_in_place(location) as in_place:
                yield in_place
            return
        path = where.path
        if path.exists():
            raise BundleExistsError(f"{path} already exists")
        remove_abandoned(path.parent, f"{CREATING_PREFIX}{path.name}.")
        partial = path.with_name(
            f"{CREATING_PREFIX}{path.name}.{writer_tag()}.{uuid.uuid4().hex[:12]}"
        )
        bundle: Bundle | None = None
        try:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                bundle = cls._create_in_place(partial)
            except OSError as error:
                raise BundleError(f"cannot create {path}: {error.strerror or error}") from None
            except BundleError as error:  # name the bundle, not its private file
                raise BundleError(str(error).replace(str(partial), str(path))) from error
            bundle.location = where.display  # messages name the bundle, not its private file
            if bulk:
                bundle.close()  # the pooled connection is in WAL mode; new ones leave it
                event.listen(bundle.engine, "connect", _rollback_journal)
            yield bundle
            bundle.close()
            _checkpoint(partial)
            try:
                os.link(partial, path)
            except FileExistsError:
                raise BundleExistsError(
                    f"{path} was created by another process meanwhile; nothing was written to it"
                ) from None
        finally:
            if bundle is not None:
                bundle.close()
            remove_bundle_files(partial)

    @classmethod
    def _create_in_place(cls, location: str | Path) -> Bundle:
        """Write a new, empty bundle right at ``location`` (:meth:`create` builds files under
        a temporary name with this and links them into place)."""
        where = parse_location(location)
        if where.path is not None:
            if where.path.exists():
                raise BundleExistsError(f"{where.path} already exists")
            where.path.parent.mkdir(parents=True, exist_ok=True)
        engine = make_engine(where)
        try:
            with cls._connecting(where), engine.begin() as connection:
                if where.is_server:
                    cls._check_empty(where, connection)
                _upgrade(connection)
                connection.execute(
                    insert(BundleInfo),
                    [
                        {"key": "bundle_id", "value": uuid.uuid4().hex},
                        {"key": "created_by", "value": f"vlm-workbench {__version__}"},
                        {"key": "created_at", "value": datetime.now(UTC).isoformat()},
                    ],
                )
        except BaseException:
            engine.dispose()
            if where.path is not None:
                remove_bundle_files(where.path)
            raise
        log.info("created bundle %s", where.display)
        return cls(where, engine)

    @classmethod
    def open(cls, location: str | Path, *, migrate: bool = True, read_only: bool = False) -> Bundle:
        """Open an existing bundle, upgrading its schema when ``migrate`` (a file is first
        backed up beside itself; a server is backed up by the lab, with pg_dump).

        ``read_only`` (screenshots, previews): nothing is written, not even a migration or
        its backup; a bundle whose schema needs an upgrade is refused with
        :class:`MigrationDeclinedError`.

        Raises :class:`NotABundleError` for files or databases that are not bundles,
        :class:`BundleTooNewError` for bundles from a newer app, :class:`MigrationDeclinedError`
        when an upgrade is needed but ``migrate`` is False, and :class:`BundleConnectionError`
        when the server cannot be reached.
        """
        where = parse_location(location)
        if where.path is not None:
            if not where.path.is_file():
                raise BundleError(f"no bundle at {where.path}")
            check_file_header(where.path)
            _refuse_foreign_database(where.path)
        engine = make_engine(where, read_only=read_only)
        try:
            with cls._connecting(where):
                cls._bring_to_head(where, engine, migrate=migrate and not read_only)
        except MigrationDeclinedError:
            engine.dispose()
            raise  # it says how to upgrade: a read-only open never does
        except BaseException:
            engine.dispose()
            raise
        return cls(where, engine, read_only=read_only)

    @classmethod
    def open_or_create(cls, location: str | Path) -> Bundle:
        """Open the bundle at ``location``, creating it if there is none (no file yet, or an
        empty database)."""
        return cls.open(location) if cls.exists(location) else cls.create(location)

    @classmethod
    def exists(cls, location: str | Path) -> bool:
        """Whether something is at ``location`` to open: a file, or a database with tables
        (an empty database is where :meth:`create` puts a new bundle)."""
        where = parse_location(location)
        if where.path is not None:
            return where.path.exists()
        engine = make_engine(where)
        try:
            with cls._connecting(where), engine.connect() as connection:
                return bool(inspect(connection).get_table_names())
        finally:
            engine.dispose()

    @staticmethod
    @contextmanager
    def _connecting(where: BundleLocation) -> Iterator[None]:
        try:
            yield
        except DBAPIError as error:
            if where.path is not None and (damage := damage_from(where.path, error)):
                raise damage from error
            if where.path is not None and (plain := file_problem(where, error)):
                raise plain from error
            if where.is_server and _is_connection_failure(error):
                raise connection_error(where, error) from None
            raise

    @staticmethod
    def _check_empty(where: BundleLocation, connection: Connection) -> None:
        tables = inspect(connection).get_table_names()
        if "alembic_version" in tables and _revision_of(connection) is not None:
            raise BundleError(f"{where.display} already holds a bundle; open it instead")
        if tables:
            raise NotABundleError(
                f"{where.display} has tables but is not a bundle; give an empty database"
            )

    @classmethod
    def _bring_to_head(cls, where: BundleLocation, engine: Engine, *, migrate: bool) -> None:
        try:
            current = _current_revision(engine)
        except DBAPIError as error:
            if where.path is None:  # a server's failures are reported by _connecting
                raise
            if damage := damage_from(where.path, error):
                raise damage from error
            if plain := file_problem(where, error):
                raise plain from error
            # a damaged file fails here, before anything is written
            reason = error.orig if error.orig is not None else error
            raise NotABundleError(f"{where.display} cannot be read as a bundle: {reason}") from None
        head = head_revision()
        if current == head:
            return
        if current is None:
            what = "a database" if where.is_server else "an SQLite file"
            raise NotABundleError(f"{where.display} is {what} but not a VLM Workbench bundle")
        if current not in _known_revisions():
            raise BundleTooNewError(_too_new(where.display, current))
        if not migrate:
            raise MigrationDeclinedError(
                f"{where.display} uses an older schema ({current}) and must be upgraded to "
                f"{head}: `workbench upgrade {where.display}` does it (a backup is written "
                "first), as does opening it in the app"
            )
        if where.path is not None:
            make_backup(where.path, reason=current)
        with engine.begin() as connection:
            if where.is_server:
                # Annotators opening the bundle at once: the first migrates, the others wait
                # and then find it migrated.
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK_KEY}
                )
                if _revision_of(connection) == head:
                    return
            _upgrade(connection)
        log.info("upgraded bundle %s from schema %s to %s", where.display, current, head)

    # --- units of work ---------------------------------------------------------------------

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A transaction: committed when the block ends normally, rolled back on any error."""
        if self.read_only:
            raise BundleError(f"{self.location} is open read-only; nothing can be changed")
        with (
            self._writer_queue,
            self._connecting(self._location),
            self._sessions() as session,
            session.begin(),
        ):
            yield session

    @contextmanager
    def read_session(self) -> Iterator[Session]:
        """A consistent snapshot for reading that takes no write lock. Loaded objects stay
        usable after the block (nothing is expired)."""
        with self._connecting(self._location), self._read_sessions() as session, session.begin():
            yield session

    def revision(self) -> str | None:
        with self._connecting(self._location):
            return _current_revision(self.engine)

    def info(self) -> dict[str, str]:
        with self.read_session() as session:
            return {row.key: row.value for row in session.query(BundleInfo)}

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Bundle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Bundle({self.location!r})"


def remove_bundle_files(path: Path) -> None:
    """Delete a bundle and its sidecars (used to undo a bundle created by a failed step).
    Files that are not there are skipped without asking the file system to delete them (a
    read-only mount refuses even that)."""
    for leftover in (path, *sidecar_paths(path)):
        if os.path.lexists(leftover):
            leftover.unlink(missing_ok=True)


def copy_bundle(source: Path, target: Path) -> None:
    """Copy a bundle file with its WAL sidecars (for tests and backups of closed bundles)."""
    shutil.copy2(source, target)
    for sidecar, target_sidecar in zip(sidecar_paths(source), sidecar_paths(target), strict=True):
        if sidecar.exists():
            shutil.copy2(sidecar, target_sidecar)
