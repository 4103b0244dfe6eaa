"""Backups beside a bundle: consistent copies (WAL included), found newest first with the
pre-upgrade copies, made automatically when due and pruned, restored without deleting anything."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from tests.services.campaign_helpers import build_campaign_bundle
from workbench.cli import main
from workbench.storage import Bundle
from workbench.storage.backups import (
    auto_backup_if_due,
    latest_backup,
    list_backups,
    make_backup,
    restore_backup,
)
from workbench.storage.bundle import copy_bundle
from workbench.storage.errors import BackupError
from workbench.storage.integrity import integrity_check


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_campaign_bundle(tmp_path_factory.mktemp("backups"), items=3)


@pytest.fixture
def bundle(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "work.wbb"
    copy_bundle(template, path)
    return path


def table(path: Path, sql: str) -> list[tuple[Any, ...]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def test_a_backup_holds_what_is_still_in_the_wal_of_an_open_bundle(bundle: Path) -> None:
    with Bundle.open(bundle) as opened:
        with opened.session() as session:
            session.execute(
                text("INSERT INTO bundle_info (key, value) VALUES ('note', 'in the wal')")
            )
        wal = bundle.with_name(bundle.name + "-wal")
        assert wal.stat().st_size > 0  # the row is not checkpointed into the main file yet
        backup = make_backup(bundle, reason="manual")
    assert backup.parent == bundle.parent
    assert backup.name.startswith("work.backup-manual-") and backup.suffix == ".wbb"
    assert integrity_check(backup, full=True) == []
    assert table(backup, "SELECT value FROM bundle_info WHERE key = 'note'") == [("in the wal",)]
    assert table(backup, "SELECT * FROM items ORDER BY id") == table(
        bundle, "SELECT * FROM items ORDER BY id"
    )
    assert not [p for p in bundle.parent.iterdir() if p.name.endswith(".partial")]


def test_backups_are_listed_newest_first_with_the_pre_upgrade_copies(bundle: Path) -> None:
    pre_upgrade = bundle.with_name("work.backup-0001-20200101T120000.wbb")
    copy_bundle(bundle, pre_upgrade)
    first = make_backup(bundle, reason="manual")
    second = make_backup(bundle, reason="auto")
    bundle.with_name("work.backup-manual-notastamp.wbb").write_bytes(b"x")
    bundle.with_name("other.backup-manual-20990101T000000.wbb").write_bytes(b"x")
    listed = list_backups(bundle)
    assert [b.path for b in listed] == [second, first, pre_upgrade]
    assert [b.reason for b in listed] == ["auto", "manual", "0001"]
    assert latest_backup(bundle) == second
    assert latest_backup(bundle.with_name("nothing.wbb")) is None


def test_automatic_backups_are_made_when_due_and_only_they_are_pruned(bundle: Path) -> None:
    manual = make_backup(bundle, reason="manual")
    assert auto_backup_if_due(bundle) is None  # a fresh backup exists
    made = []
    for step in range(5):
        future = time.time() + 10 * (step + 1)
        os.utime(bundle, (future, future))  # the bundle changed after the newest backup
        made.append(auto_backup_if_due(bundle, max_age=timedelta(0), keep=3))
    assert all(path is not None for path in made)
    automatic = [b.path for b in list_backups(bundle) if b.automatic]
    assert automatic == made[:1:-1]  # the three newest, newest first
    assert manual.exists()
    # unchanged since the newest backup: nothing to copy however old that backup is
    os.utime(bundle, (0, 0))
    assert auto_backup_if_due(bundle, max_age=timedelta(0)) is None


def test_restore_keeps_the_damaged_file_and_its_wal_aside(bundle: Path) -> None:
    backup = make_backup(bundle)
    original = table(bundle, "SELECT * FROM outputs ORDER BY id")
    damaged_bytes = bundle.read_bytes()[:5000]
    bundle.write_bytes(damaged_bytes)
    wal, shm = (bundle.with_name(bundle.name + suffix) for suffix in ("-wal", "-shm"))
    wal.write_bytes(b"old wal")
    shm.write_bytes(b"old shm")
    aside = restore_backup(bundle, backup)
    assert aside is not None and aside.name.startswith("work.damaged-")
    assert aside.read_bytes() == damaged_bytes
    assert aside.with_name(aside.name + "-wal").read_bytes() == b"old wal"
    assert aside.with_name(aside.name + "-shm").read_bytes() == b"old shm"
    assert not wal.exists() and not shm.exists()
    assert backup.exists()
    assert table(bundle, "SELECT * FROM outputs ORDER BY id") == original
    with Bundle.open(bundle) as reopened:
        assert reopened.revision() is not None


def test_a_damaged_backup_is_not_restored(bundle: Path) -> None:
    backup = make_backup(bundle)
    backup.write_bytes(backup.read_bytes()[:8192])
    before = bundle.read_bytes()
    with pytest.raises(BackupError, match="damaged too"):
        restore_backup(bundle, backup)
    assert bundle.read_bytes() == before


def test_cli_backup_list_and_check(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["backup", str(bundle)]) == 0
    made = latest_backup(bundle)
    assert made is not None and str(made) in capsys.readouterr().out
    assert main(["backups", str(bundle), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [entry["path"] for entry in listing] == [str(made)]
    assert listing[0]["reason"] == "manual" and listing[0]["bytes"] == made.stat().st_size
    assert main(["check", str(bundle), "--full"]) == 0
    assert "ok (full check)" in capsys.readouterr().out
    assert main(["restore", str(bundle.with_name("none.wbb"))]) == 1
    assert "no backup of" in capsys.readouterr().err


def test_restore_through_a_symlink_restores_the_real_file_and_keeps_the_link(
    bundle: Path, tmp_path: Path
) -> None:
    backup = make_backup(bundle)
    original = table(bundle, "SELECT * FROM bundle_info ORDER BY key")
    with Bundle.open(bundle) as opened, opened.session() as session:
        session.execute(text("INSERT INTO bundle_info (key, value) VALUES ('note', 'later')"))
    link_folder = tmp_path / "elsewhere"
    link_folder.mkdir()
    link = link_folder / "work.wbb"
    link.symlink_to(bundle)
    assert main(["restore", str(link), "--from", str(backup)]) == 0
    assert link.is_symlink() and link.resolve() == bundle.resolve()
    assert table(bundle, "SELECT * FROM bundle_info ORDER BY key") == original
    aside = [p for p in bundle.parent.iterdir() if p.name.startswith("work.damaged-")]
    assert len(aside) == 1 and not aside[0].is_symlink()
    assert ("later",) in table(aside[0], "SELECT value FROM bundle_info")
    assert [p.name for p in link_folder.iterdir()] == ["work.wbb"]
