"""Cancelling a backup or a restore (through services.maintenance, as the app and the CLI do):
a cancelled backup leaves no backup file, partial or whole, and prunes nothing; a cancelled
restore leaves the bundle's files exactly as they were."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.services.campaign_helpers import build_campaign_bundle
from workbench.progress import WorkCancelledError
from workbench.services.maintenance import automatic_backup, back_up, backups, restore
from workbench.storage import backups as storage_backups
from workbench.storage import integrity
from workbench.storage.bundle import copy_bundle
from workbench.storage.integrity import integrity_check


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_campaign_bundle(tmp_path_factory.mktemp("cancel-backups"), items=6)


@pytest.fixture
def bundle(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "work.wbb"
    copy_bundle(template, path)
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


class CancelAfter:
    """A cancel callback that turns true on its ``calls``-th call and notes which files of
    ``folder`` were there then (a partial copy shows the work was under way)."""

    def __init__(self, calls: int, folder: Path) -> None:
        self.calls = calls
        self.folder = folder
        self.count = 0
        self.present: list[str] = []
        self.phases: list[str] = []

    def __call__(self) -> bool:
        self.count += 1
        if self.count == self.calls:
            self.present = sorted(path.name for path in self.folder.iterdir())
        return self.count >= self.calls

    def progress(self, phase: str, _done: int, _total: int) -> None:
        self.phases.append(phase)


def test_a_backup_cancelled_during_the_copy_leaves_no_file(bundle: Path) -> None:
    before = snapshot(bundle.parent)
    # the first call is the check before starting; the second comes from inside VACUUM INTO
    cancel = CancelAfter(2, bundle.parent)
    with pytest.raises(WorkCancelledError, match="no backup file was written"):
        back_up(bundle, progress=cancel.progress, cancel_requested=cancel)
    assert any(name.endswith(".partial") for name in cancel.present)  # stopped mid-copy
    assert snapshot(bundle.parent) == before
    assert backups(bundle) == []


def test_a_backup_cancelled_before_its_rename_leaves_no_file(bundle: Path) -> None:
    before = snapshot(bundle.parent)
    never_in_the_copy = CancelAfter(10**9, bundle.parent)
    back_up(bundle, cancel_requested=never_in_the_copy)  # counts the calls of a whole backup
    for made in backups(bundle):
        made.path.unlink()
    last = CancelAfter(never_in_the_copy.count, bundle.parent)
    with pytest.raises(WorkCancelledError):
        back_up(bundle, cancel_requested=last)
    assert snapshot(bundle.parent) == before


def test_a_cancelled_automatic_backup_prunes_nothing(bundle: Path) -> None:
    made = []
    for step in range(2):
        future = time.time() + 10 * (step + 1)
        os.utime(bundle, (future, future))
        made.append(storage_backups.auto_backup_if_due(bundle, max_age=timedelta(0), keep=2))
    future = time.time() + 100
    os.utime(bundle, (future, future))
    before = snapshot(bundle.parent)
    # keep=1 would remove both older ones once the new one is made: cancelled, none goes
    with pytest.raises(WorkCancelledError):
        storage_backups.auto_backup_if_due(
            bundle, max_age=timedelta(0), keep=1, cancel_requested=CancelAfter(2, bundle.parent)
        )
    assert snapshot(bundle.parent) == before
    assert [b.path for b in backups(bundle)] == made[::-1]


def test_an_automatic_backup_reports_its_copy(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = CancelAfter(10**9, bundle.parent)
    monkeypatch.setattr(storage_backups, "_CALLS_PER_REPORT", 1)  # at every handler call
    copy, total = automatic_backup(bundle, progress=calls.progress, cancel_requested=calls)
    assert copy is not None and total == copy.stat().st_size
    assert calls.phases and set(calls.phases) == {"copying"}


def damage(bundle: Path) -> None:
    bundle.write_bytes(bundle.read_bytes()[:5000])
    bundle.with_name(bundle.name + "-wal").write_bytes(b"old wal")
    bundle.with_name(bundle.name + "-shm").write_bytes(b"old shm")


def test_a_restore_cancelled_during_the_copy_leaves_the_bundle_as_it_was(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backup = back_up(bundle)
    damage(bundle)
    before = snapshot(bundle.parent)
    monkeypatch.setattr(storage_backups, "_COPY_BLOCK", 4096)  # many steps on a small file
    cancel = CancelAfter(4, bundle.parent)
    with pytest.raises(WorkCancelledError, match="the bundle was not changed"):
        restore(bundle, backup, progress=cancel.progress, cancel_requested=cancel)
    assert any(name.endswith(".restoring") for name in cancel.present)  # stopped mid-copy
    assert "copying" in cancel.phases
    assert snapshot(bundle.parent) == before


def test_a_restore_cancelled_during_the_check_of_the_backup_changes_nothing(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a small bundle's check is over within the usual interval: ask SQLite more often
    monkeypatch.setattr(integrity, "_VM_STEPS", 100)
    backup = back_up(bundle)
    damage(bundle)
    before = snapshot(bundle.parent)
    # the first call is the step before the check; the next ones come from inside SQLite's
    cancel = CancelAfter(2, bundle.parent)
    with pytest.raises(WorkCancelledError, match="the bundle was not changed"):
        restore(bundle, backup, cancel_requested=cancel)
    assert not any(name.endswith(".restoring") for name in cancel.present)  # before the copy
    assert snapshot(bundle.parent) == before


def test_a_restore_not_cancelled_still_puts_the_backup_in_place(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backup = back_up(bundle)
    damage(bundle)
    monkeypatch.setattr(storage_backups, "_COPY_BLOCK", 4096)
    calls = CancelAfter(10**9, bundle.parent)
    result = restore(bundle, backup, progress=calls.progress, cancel_requested=calls)
    assert result.aside is not None and bundle.read_bytes() == backup.read_bytes()
    assert integrity_check(bundle) == []
    assert calls.phases.count("copying") == -(-backup.stat().st_size // 4096)


def test_a_restore_copies_the_same_bytes_where_the_system_has_no_sendfile(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backup = back_up(bundle)
    damage(bundle)
    monkeypatch.setattr(storage_backups, "_COPY_BLOCK", 4096)
    monkeypatch.delattr(os, "sendfile", raising=False)
    steps: list[int] = []
    restore(bundle, backup, progress=lambda _phase, done, _total: steps.append(done))
    assert bundle.read_bytes() == backup.read_bytes()
    assert steps[-1] == backup.stat().st_size and len(steps) > 2
