"""A damaged bundle file met in the GUI: the dialog says what is wrong and restores the latest
backup (the damaged file moved aside) or says there is none; and the automatic daily backup
runs on a worker when a bundle file is opened, its failures going to the status bar."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox
from pytest import MonkeyPatch
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from workbench.gui.restore_dialog import DamagedBundleDialog
from workbench.services import maintenance
from workbench.storage import backups
from workbench.storage.backup_names import list_backups
from workbench.storage.backups import make_backup
from workbench.storage.bundle import copy_bundle
from workbench.storage.errors import BackupError, BundleDamagedError
from workbench.storage.integrity import check_file_header

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


def item_count(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return cast("int", connection.execute("SELECT count(*) FROM items").fetchone()[0])
    finally:
        connection.close()


def cut_in_half(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.fixture
def bundle_copy(sample_bundle: Path, tmp_path: Path) -> Path:
    path = tmp_path / "work.wbb"
    copy_bundle(sample_bundle, path)
    # fold the WAL in, so the file alone holds every page (as after a clean close)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return path


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.close()


def test_opening_a_truncated_bundle_offers_and_restores_its_backup(
    qtbot: QtBot, window: MainWindow, bundle_copy: Path
) -> None:
    items = item_count(bundle_copy)
    backup = make_backup(bundle_copy, reason="auto")
    cut_in_half(bundle_copy)
    damaged_bytes = bundle_copy.read_bytes()

    assert not window.open_bundle_reporting(bundle_copy)
    dialog = window.damaged_dialog
    assert isinstance(dialog, DamagedBundleDialog) and dialog.isVisible()
    assert "cut short" in dialog.message_label.text()
    taken = list_backups(bundle_copy)[0].taken_at.astimezone().strftime("%Y-%m-%d %H:%M")
    assert dialog.restore_button is not None
    assert dialog.restore_button.text() == f"Restore backup from {taken}"
    assert backup.name in dialog.advice_label.text()

    moved: list[Path] = []
    dialog.restored.connect(lambda _path, aside: moved.append(aside))
    dialog.restore_button.click()  # a job of the window's job manager
    assert not dialog.buttons.isEnabled()
    # the dialog closes (and is deleted) once the job restored the backup
    qtbot.waitUntil(lambda: window.restored_box is not None, timeout=HANG_GUARD_MS)
    assert window.bundle is not None, window.findChildren(QMessageBox)[-1].text()
    assert window.bundle.path == bundle_copy and item_count(bundle_copy) == items
    aside = moved[0]
    assert aside is not None and aside.read_bytes() == damaged_bytes  # kept, not deleted
    assert backup.is_file()
    assert window.restored_box is not None
    assert str(aside) in window.restored_box.text() and window.restored_box.isVisible()
    assert str(aside) in window.statusBar().currentMessage()
    window.restored_box.close()


def test_without_a_backup_the_dialog_says_there_is_none(qtbot: QtBot, bundle_copy: Path) -> None:
    cut_in_half(bundle_copy)
    with pytest.raises(BundleDamagedError) as caught:
        check_file_header(bundle_copy)
    dialog = DamagedBundleDialog(caught.value)
    qtbot.addWidget(dialog)
    assert dialog.restore_button is None
    assert "No automatic backup" in dialog.advice_label.text()
    assert [button.text() for button in dialog.buttons.buttons()] == ["Close"]


def test_a_damaged_backup_is_refused_and_nothing_moves(qtbot: QtBot, bundle_copy: Path) -> None:
    backup = make_backup(bundle_copy, reason="auto")
    cut_in_half(backup)
    cut_in_half(bundle_copy)
    before = bundle_copy.read_bytes()
    with pytest.raises(BundleDamagedError) as caught:
        check_file_header(bundle_copy)
    dialog = DamagedBundleDialog(caught.value)
    qtbot.addWidget(dialog)
    dialog.show()
    restored: list[object] = []
    dialog.restored.connect(lambda *args: restored.append(args))
    assert dialog.restore_button is not None
    dialog.restore_button.click()
    qtbot.waitUntil(lambda: dialog.job is not None and not dialog.job.active, timeout=HANG_GUARD_MS)
    assert restored == [] and dialog.isVisible() and dialog.buttons.isEnabled()
    assert "damaged too" in dialog.problem_label.text()
    assert bundle_copy.read_bytes() == before
    assert not list(bundle_copy.parent.glob("*.damaged-*"))


# --- automatic backups --------------------------------------------------------------------------


def test_opening_a_bundle_file_backs_it_up_once_on_a_worker(
    qtbot: QtBot, monkeypatch: MonkeyPatch, bundle_copy: Path
) -> None:
    from workbench.gui.main_window import MainWindow

    threads: list[int] = []
    real = backups.auto_backup_if_due

    def recording(path: str | Path, **steps: Any) -> Path | None:
        threads.append(threading.get_ident())
        return real(path, **steps)

    monkeypatch.setattr(maintenance, "auto_backup_if_due", recording)
    window = MainWindow(persist_layout=False, auto_backup=True)
    qtbot.addWidget(window)
    window.open_bundle(bundle_copy)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    (made,) = list_backups(bundle_copy)
    assert made.automatic and threads and threading.get_ident() not in threads
    assert str(made.path) in window.statusBar().currentMessage()
    # a job of the window's job manager, listed with where the copy went
    assert [job.text for job in window.jobs.jobs()] == [f"Backed up to {made.path}."]
    window.open_bundle(bundle_copy)  # the day's backup exists: no second one
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    assert len(list_backups(bundle_copy)) == 1 and len(threads) == 2
    assert len(window.jobs.jobs()) == 1  # the check that found none due is not listed
    window.close()


def test_a_failed_backup_goes_to_the_status_bar(
    qtbot: QtBot, monkeypatch: MonkeyPatch, bundle_copy: Path
) -> None:
    from workbench.gui.main_window import MainWindow

    def refuse(path: str | Path, **_steps: Any) -> None:
        raise BackupError("no space left on the device")

    monkeypatch.setattr(maintenance, "auto_backup_if_due", refuse)
    window = MainWindow(persist_layout=False, auto_backup=True)
    qtbot.addWidget(window)
    window.show()
    window.open_bundle(bundle_copy)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    message = window.statusBar().currentMessage()
    assert "automatic backup" in message and "no space left" in message
    (job,) = window.jobs.jobs()
    assert job.error == "no space left on the device"
    assert window.bundle is not None  # the bundle is open all the same
    assert [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isModal()] == []
    window.close()


def test_tests_and_screenshots_make_no_backups(qtbot: QtBot, bundle_copy: Path) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)  # what a screenshot uses
    qtbot.addWidget(window)
    window.open_bundle(bundle_copy)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    assert list_backups(bundle_copy) == []
    window.close()
