"""Screenshots write nothing: ``open --screenshot`` (any page) and ``annotate --screenshot``
open the bundle read-only, so no profile, lease, backup or recent-list entry appears and the
bundle file keeps its bytes and modification time."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.gui.annotation_bundle import build_annotation_bundle
from workbench.cli import main
from workbench.recent import recent_locations
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle
from workbench.storage.errors import BundleError

pytestmark = pytest.mark.gui

COUNTED = ("annotators", "pair_leases", "votes", "campaigns", "scheduled_pairs")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("read-only"))


def state(path: Path) -> tuple[Any, ...]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        counts = tuple(
            connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in COUNTED
        )
    finally:
        connection.close()
    return (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_mtime_ns,
        counts,
        sorted(p.name for p in path.parent.iterdir() if not p.name.endswith(("-shm", "-wal"))),
    )


@pytest.mark.parametrize(
    "command",
    [
        ["open", "--page", "annotate", "--campaign", "arena-battle"],
        ["open", "--page", "annotate", "--campaign", "arena-battle", "--annotator", "bob"],
        ["open", "--page", "items"],
        ["annotate", "--campaign", "chirp-five-criteria"],
        ["annotate", "--campaign", "arena-battle", "--annotator", "ana", "--size", "1024x700"],
    ],
    ids=["open-annotate", "open-annotate-bob", "open-items", "annotate", "annotate-ana"],
)
def test_a_screenshot_writes_nothing(template: Path, tmp_path: Path, command: list[str]) -> None:
    folder = tmp_path / "bundle"
    folder.mkdir()
    path = folder / "b.wbb"
    copy_bundle(template, path)
    with sqlite3.connect(path) as connection:  # fold the WAL in: the file alone is compared
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = state(path)
    recent_before = recent_locations()
    target = tmp_path / "shot.png"
    verb, *options = command
    assert main([verb, str(path), "--screenshot", str(target), *options]) == 0
    assert target.stat().st_size > 0
    assert state(path) == before
    assert recent_locations() == recent_before


def test_a_read_only_bundle_refuses_to_write(template: Path, tmp_path: Path) -> None:
    path = tmp_path / "b.wbb"
    copy_bundle(template, path)
    with Bundle.open(path, read_only=True) as bundle:
        assert bundle.read_only and bundle.info()["bundle_id"]
        with pytest.raises(BundleError, match="read-only"), bundle.session():
            pass
        # even a write that goes around the session is refused by SQLite
        with (
            pytest.raises(Exception, match=r"readonly|read-only|attempt to write"),
            bundle.engine.begin() as connection,
        ):
            connection.exec_driver_sql("DELETE FROM annotators")
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        assert session.connection().exec_driver_sql("SELECT count(*) FROM annotators").scalar()


def test_a_read_only_open_never_upgrades_and_says_how(tmp_path: Path) -> None:
    from tests.fixtures.make_bundle_0001 import FIXTURE
    from workbench.storage.errors import MigrationDeclinedError

    old = tmp_path / "old.wbb"
    copy_bundle(FIXTURE, old)
    before = hashlib.sha256(old.read_bytes()).hexdigest()
    with pytest.raises(MigrationDeclinedError, match="workbench upgrade"):
        Bundle.open(old, read_only=True)
    assert hashlib.sha256(old.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-shm", "-wal"))) == [
        "old.wbb"
    ]  # no backup either
