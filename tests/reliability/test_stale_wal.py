"""``check``, ``backup`` and ``restore`` never replay a ``-wal`` file that does not belong to the
bundle file beside it: a crash leaves a WAL, the user copies another copy of the bundle over the
file, and the WAL (written for the old file's pages) is set aside and reported, the file left
byte for byte as copied. A WAL the file does own (a plain crash) is still applied."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.services.importing import import_files
from workbench.services.maintenance import restore
from workbench.storage import Bundle


def build(folder: Path, items: int = 150) -> Path:
    lines = [
        item_line(f"q{n:04d}", outputs=[{"model": "m1", "text": f"answer {n} " * 40}])
        for n in range(items)
    ]
    bundle = folder / "b.wbb"
    import_files(bundle, [write_jsonl(folder / "src", lines)], "jsonl")
    return bundle


def crash_wal(bundle: Path) -> bytes:
    """The -wal a crash leaves after committed writes nobody checkpointed."""
    connection = sqlite3.connect(bundle)
    connection.execute("PRAGMA wal_autocheckpoint = 0")
    connection.execute("UPDATE outputs SET text = text || ' (edited)'")
    connection.execute("DELETE FROM outputs WHERE id % 3 = 0")
    connection.commit()
    wal = bundle.with_name(bundle.name + "-wal").read_bytes()
    connection.close()  # checkpoints and removes the WAL: a crash would have left it
    return wal


def other_copy(bundle: Path, folder: Path) -> Path:
    """A copy of the same bundle that went another way (a colleague's copy, a backup)."""
    folder.mkdir()
    copy = folder / "b.wbb"
    with sqlite3.connect(bundle) as connection:
        connection.execute("DELETE FROM outputs WHERE id % 2 = 0")
        connection.commit()
        connection.execute("VACUUM INTO ?", (str(copy),))
    return copy


@pytest.fixture
def copied_over(tmp_path: Path) -> tuple[Path, bytes]:
    """A bundle file copied over a crashed one whose -wal stayed behind; and the copy's bytes."""
    bundle = build(tmp_path)
    copy = other_copy(Path(shutil.copy(bundle, tmp_path / "spare.wbb")), tmp_path / "elsewhere")
    stale = crash_wal(bundle)
    shutil.copyfile(copy, bundle)  # the user's copy over the crashed file
    bundle.with_name(bundle.name + "-wal").write_bytes(stale)
    return bundle, copy.read_bytes()


def kept_aside(bundle: Path) -> list[Path]:
    return sorted(bundle.parent.glob(f"{bundle.name}-wal.stale-*"))


def test_check_sets_a_stale_wal_aside_and_leaves_the_file_intact(
    copied_over: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    bundle, copied = copied_over
    assert main(["check", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "set aside b.wbb-wal, which does not belong to this file" in out
    assert f"{bundle}: ok" in out
    assert bundle.read_bytes() == copied
    assert not bundle.with_name(bundle.name + "-wal").exists()
    (kept,) = kept_aside(bundle)
    assert str(kept) in out
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        assert session.connection().exec_driver_sql("PRAGMA quick_check").scalar() == "ok"


def test_check_json_names_what_it_set_aside(
    copied_over: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    bundle, _copied = copied_over
    assert main(["check", str(bundle), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is True
    assert result["wal_set_aside"]["kept_at"] == str(kept_aside(bundle)[0])


def test_backup_backs_up_the_intact_file_not_the_wal_s_damage(
    copied_over: tuple[Path, bytes], capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    bundle, copied = copied_over
    assert main(["backup", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "set aside" in out
    assert bundle.read_bytes() == copied
    backup = Path(out.strip().splitlines()[-1].removeprefix("backed up to "))
    with sqlite3.connect(backup) as connection:
        assert connection.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        with sqlite3.connect(f"{bundle.as_uri()}?immutable=1", uri=True) as original:
            count = "SELECT count(*) FROM outputs"
            assert connection.execute(count).fetchone() == original.execute(count).fetchone()


def test_restore_does_not_replay_a_stale_wal_into_the_backup_it_checks(
    copied_over: tuple[Path, bytes], tmp_path: Path
) -> None:
    stale_holder, copied = copied_over
    # the copied-over file with its stale WAL is now the backup being restored
    target = build(tmp_path / "target")
    restore(target, stale_holder, force=True)
    assert stale_holder.read_bytes() == copied
    assert target.read_bytes() == copied


def test_a_wal_the_file_owns_is_applied_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build(tmp_path)
    intact = bundle.read_bytes()
    wal = crash_wal(bundle)
    bundle.write_bytes(intact)  # the file as it was at the crash
    bundle.with_name(bundle.name + "-wal").write_bytes(wal)
    assert main(["check", str(bundle)]) == 0
    assert "set aside" not in capsys.readouterr().out
    assert kept_aside(bundle) == []
    with sqlite3.connect(bundle) as connection:  # the committed edits are there
        edited = "SELECT count(*) FROM outputs WHERE text LIKE '%(edited)'"
        assert connection.execute(edited).fetchone()[0] > 0
