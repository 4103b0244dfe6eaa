"""Settings > Backups… stores the folder, size limit and count the CLI reads too, and the first
automatic backup is announced once, naming its folder and size."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.patience import HANG_GUARD_MS
from workbench.services.importing import import_files
from workbench.storage.backup_settings import BackupSettings, load_backup_settings
from workbench.storage.backups import list_backups

pytestmark = pytest.mark.gui


def _bundle(folder: Path) -> Path:
    path = folder / "work.wbb"
    import_files(path, [write_jsonl(folder / "src", [item_line("q1")])], "jsonl")
    return path


def test_the_dialog_saves_folder_size_limit_and_count(qtbot: QtBot, tmp_path: Path) -> None:
    from workbench.gui.backup_settings_dialog import BackupSettingsDialog

    dialog = BackupSettingsDialog()
    qtbot.addWidget(dialog)
    assert dialog.beside.isChecked() and not dialog.folder.isEnabled()
    dialog.beside.setChecked(False)
    dialog.folder.setText(str(tmp_path / "kept"))
    dialog.size_limit.setValue(250)
    dialog.keep.setValue(5)
    dialog.accept()
    assert load_backup_settings() == BackupSettings(tmp_path / "kept", 250_000_000, 5)
    assert (tmp_path / "kept").is_dir()

    again = BackupSettingsDialog()
    qtbot.addWidget(again)
    assert not again.beside.isChecked() and again.folder.text() == str(tmp_path / "kept")
    again.beside.setChecked(True)
    again.size_limit.setValue(0)
    again.accept()
    assert load_backup_settings() == BackupSettings(keep=5)


def test_the_first_automatic_backup_is_announced_once(qtbot: QtBot, tmp_path: Path) -> None:
    from workbench.gui.main_window import MainWindow

    notes = []
    for name in ("first", "second"):
        bundle = _bundle(tmp_path / name)
        window = MainWindow(persist_layout=False, auto_backup=True)
        qtbot.addWidget(window)
        window.open_bundle(bundle)
        qtbot.waitUntil(lambda: bool(list_backups(bundle)), timeout=HANG_GUARD_MS)  # noqa: B023
        qtbot.waitUntil(lambda: not window.jobs.busy, timeout=HANG_GUARD_MS)  # noqa: B023
        [backup] = list_backups(bundle)
        assert backup.path.name in window.statusBar().currentMessage()
        notes.append(window.first_backup_note)
        if name == "first":
            assert window.first_backup_note is not None
            text = window.first_backup_note.text()
            assert str(bundle.parent) in text and backup.path.name in text
            from workbench.gui.backup_settings_dialog import describe_size

            assert describe_size(backup.path.stat().st_size) in text
            assert "Settings > Backups" in text
        window.close()
    assert notes[0] is not None and notes[1] is None
    assert load_backup_settings().first_backup_shown
