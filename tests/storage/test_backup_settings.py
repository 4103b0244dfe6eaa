"""Backup settings (storage/backup_settings.py) and where backups go with them: a chosen folder
for every path that makes backups, found again by `backups` and `restore` wherever they are, a
size limit on the automatic ones, and the daily backup of a CLI import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.services.importing import import_files
from workbench.storage.backup_settings import (
    BackupSettings,
    load_backup_settings,
    save_backup_settings,
    settings_path,
)
from workbench.storage.backups import (
    AUTOMATIC,
    auto_backup_if_due,
    list_backups,
    make_backup,
)


def _bundle(folder: Path, name: str = "work.wbb") -> Path:
    path = folder / name
    import_files(path, [write_jsonl(folder / f"src-{name}", [item_line("q1")])], "jsonl")
    return path


def test_settings_round_trip_and_a_bad_file_gives_defaults(tmp_path: Path) -> None:
    assert load_backup_settings() == BackupSettings()
    chosen = BackupSettings(tmp_path / "b", 5_000_000, 4, True)
    save_backup_settings(chosen)
    assert load_backup_settings() == chosen
    assert json.loads(settings_path().read_text())["version"] == 1
    settings_path().write_text("{not json")
    assert load_backup_settings() == BackupSettings()


def test_a_chosen_folder_holds_new_backups_and_restore_finds_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _bundle(tmp_path)
    beside = make_backup(bundle)  # made before a folder was chosen
    folder = tmp_path / "all-backups"
    save_backup_settings(BackupSettings(folder=folder))
    assert main(["backup", str(bundle)]) == 0
    [in_folder] = list(folder.iterdir())
    assert in_folder.name.startswith("work.") and ".backup-manual-" in in_folder.name
    assert {backup.path for backup in list_backups(bundle)} == {beside, in_folder}

    bundle.write_bytes(b"damaged")
    capsys.readouterr()
    assert main(["restore", str(bundle)]) == 0
    assert f"from {in_folder}" in capsys.readouterr().out  # the newest, in the folder


def test_bundles_with_the_same_name_keep_their_backups_apart(tmp_path: Path) -> None:
    save_backup_settings(BackupSettings(folder=tmp_path / "all-backups"))
    first = _bundle(tmp_path / "one")
    second = _bundle(tmp_path / "two")
    made = make_backup(first)
    assert [backup.path for backup in list_backups(first)] == [made]
    assert list_backups(second) == []


def test_the_size_limit_removes_the_oldest_automatic_backups(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    manual = make_backup(bundle)
    automatic = [make_backup(bundle, reason=AUTOMATIC) for _ in range(3)]
    size = automatic[0].stat().st_size
    save_backup_settings(BackupSettings(size_limit_bytes=2 * size + size // 2))
    assert auto_backup_if_due(bundle) is None  # the newest is fresh: none is due
    left = {backup.path for backup in list_backups(bundle)}
    assert left == {manual, automatic[2], automatic[1]}
    # the newest is kept even when it alone is over the limit
    assert auto_backup_if_due(bundle, size_limit_bytes=1) is None
    assert {backup.path for backup in list_backups(bundle)} == {manual, automatic[2]}


def test_a_cli_import_makes_the_daily_backup_restore_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = _bundle(tmp_path)
    assert list_backups(bundle) == []
    source = write_jsonl(tmp_path / "more", [item_line("q2")])
    assert main(["import", str(source), "--format", "jsonl", "--into", str(bundle)]) == 0
    [backup] = list_backups(bundle)
    assert backup.automatic
    assert f"automatic backup written to {backup.path}" in capsys.readouterr().err
    source = write_jsonl(tmp_path / "again", [item_line("q3")])
    assert main(["import", str(source), "--format", "jsonl", "--into", str(bundle)]) == 0
    assert len(list_backups(bundle)) == 1  # at most one a day
