"""A disk that fails once: every SQLite connection open when it fails keeps failing with
SQLite's "disk I/O error" (as one whose file descriptor died with a removable or network disk
does), while connections opened afterwards work, as the disk has come back."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

DISK_ERROR = "disk I/O error"


class FailingDisk:
    def __init__(self) -> None:
        self.open: list[_Connection] = []
        self.errors = 0

    def fail(self) -> None:
        """The disk fails: every connection open now is broken for good."""
        for connection in self.open:
            connection.broken = True

    def _raise(self) -> None:
        self.errors += 1
        raise sqlite3.OperationalError(DISK_ERROR)


class _Cursor:
    def __init__(self, cursor: sqlite3.Cursor, connection: _Connection) -> None:
        self._cursor = cursor
        self._connection = connection

    def execute(self, *args: Any) -> Any:
        if self._connection.broken:
            self._connection.disk._raise()
        return self._cursor.execute(*args)

    def executemany(self, *args: Any) -> Any:
        if self._connection.broken:
            self._connection.disk._raise()
        return self._cursor.executemany(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor)


class _Connection:
    def __init__(self, real: sqlite3.Connection, disk: FailingDisk) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "disk", disk)
        object.__setattr__(self, "broken", False)

    def cursor(self, *args: Any) -> _Cursor:
        return _Cursor(self._real.cursor(*args), self)

    def execute(self, *args: Any) -> Any:
        return self.cursor().execute(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "broken":
            object.__setattr__(self, name, value)
        else:
            setattr(self._real, name, value)


@contextmanager
def failing_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[FailingDisk]:
    """SQLAlchemy's SQLite connections (made through ``sqlite3.dbapi2.connect``) on a disk the
    test can fail once."""
    disk = FailingDisk()
    real_connect: Callable[..., sqlite3.Connection] = sqlite3.dbapi2.connect

    def connect(*args: Any, **kwargs: Any) -> _Connection:
        connection = _Connection(real_connect(*args, **kwargs), disk)
        disk.open.append(connection)
        return connection

    monkeypatch.setattr(sqlite3.dbapi2, "connect", connect)
    yield disk
