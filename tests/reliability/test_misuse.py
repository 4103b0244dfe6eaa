"""Clumsy hands: the wrong file given as a bundle, a backup of another bundle, unwritable
places. Each ends in one clear line, and nothing that was there is changed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(text: str) -> bool:
    """One error line, after the phases the command reached (piped progress writes one plain
    ``phase...`` line per phase)."""
    lines = [line for line in text.splitlines() if not line.endswith("...")]
    return len(lines) == 1 and "Traceback" not in text and "[SQL:" not in text


def test_importing_into_an_ordinary_sqlite_file_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "random.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
        connection.execute("INSERT INTO notes VALUES ('mine')")
    connection.close()
    before = digest(other)
    source = write_jsonl(tmp_path / "src", [item_line("q1")])
    code = main(["import", str(source), "--format", "jsonl", "--into", str(other)])
    err = capsys.readouterr().err
    assert code == 1 and "is an SQLite file but not a VLM Workbench bundle" in err
    assert one_line(err)
    assert digest(other) == before  # not switched to WAL: header bytes 18-19 unchanged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["random.db", "src"]


# --- a backup of another bundle ----------------------------------------------------------------


@pytest.fixture
def two_bundles(tmp_path: Path) -> tuple[Path, Path]:
    from workbench.services.importing import import_files

    first, second = tmp_path / "first.wbb", tmp_path / "second.wbb"
    import_files(first, [write_jsonl(tmp_path / "s1", [item_line("q1")])], "jsonl")
    import_files(second, [write_jsonl(tmp_path / "s2", [item_line("q2")])], "jsonl")
    return first, second


def test_restore_refuses_another_bundles_backup_unless_forced(
    two_bundles: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.storage.backups import make_backup

    first, second = two_bundles
    foreign = make_backup(second)
    before = digest(first)
    code = main(["restore", str(first), "--from", str(foreign)])
    err = capsys.readouterr().err
    assert code == 1 and "is a backup of another bundle" in err and one_line(err)
    assert digest(first) == before
    assert main(["restore", str(first), "--from", str(foreign), "--force"]) == 0
    assert digest(first) == digest(foreign)


def test_restore_refuses_any_sqlite_file_even_forced(
    two_bundles: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, _second = two_bundles
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE t (x)")
    connection.close()
    before = digest(first)
    for extra in ([], ["--force"]):
        assert main(["restore", str(first), "--from", str(other), *extra]) == 1
        assert "is not a backup of a VLM Workbench bundle" in capsys.readouterr().err
    assert digest(first) == before


def test_a_damaged_bundle_takes_its_own_backup_but_not_a_stray_copy(
    two_bundles: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from workbench.storage.backups import make_backup

    first, second = two_bundles
    own = make_backup(first)
    stray = tmp_path / "copy-of-second.wbb"
    shutil.copyfile(second, stray)
    first.write_bytes(first.read_bytes()[:3000])  # too damaged to tell its id
    assert main(["restore", str(first), "--from", str(stray)]) == 1
    assert "cannot be read to check" in capsys.readouterr().err
    assert main(["restore", str(first), "--from", str(own)]) == 0


# --- spreadsheets ------------------------------------------------------------------------------

FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def test_csv_exports_neutralize_formula_cells(tmp_path: Path) -> None:
    import csv

    from workbench.export.options import ExportOptions
    from workbench.export.service import export_bundle
    from workbench.services.importing import import_files

    models = [FORMULAS[0], FORMULAS[3]]
    line = item_line(
        "q1",
        outputs=[{"model": models[0], "text": FORMULAS[1]}, {"model": models[1], "text": "-2+3"}],
        judgments=[
            {
                "kind": "human",
                "model_a": models[0],
                "model_b": models[1],
                "outcome": "a",
                "rater": "=rater",
            }
        ],
    )
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "src", [line])], "jsonl")
    out = tmp_path / "pairs.csv"
    export_bundle(bundle, out, ExportOptions(format="csv"))
    with out.open(newline="") as handle:
        rows = list(csv.reader(handle))
    cells = [cell for row in rows[1:] for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'" + models[0] in cells and "'" + models[1] in cells
    # JSONL keeps the names exactly
    jsonl = tmp_path / "pairs.jsonl"
    export_bundle(bundle, jsonl, ExportOptions())
    assert models[0] in jsonl.read_text() or "HYPERLINK" in jsonl.read_text()


def test_spreadsheet_safe_leaves_numbers_and_plain_text() -> None:
    from workbench.export.spreadsheet import spreadsheet_safe

    assert [spreadsheet_safe(f) for f in FORMULAS] == ["'" + f for f in FORMULAS]
    assert spreadsheet_safe(-3.5) == -3.5 and spreadsheet_safe("model-a") == "model-a"


# --- read-only mounts, a full disk, /proc ----------------------------------------------------


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A small tmpfs at ``folder`` (needs root; skips otherwise)."""
    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def test_a_read_only_mount_gives_one_line_per_command_and_keeps_the_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.services.importing import import_files

    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "s1", [item_line("q1")])], "jsonl")
    more = write_jsonl(tmp_path / "s2", [item_line("q2")])
    with tmpfs(tmp_path / "ro", "4m") as mounted:
        shutil.copyfile(bundle, mounted / "b.wbb")
        subprocess.run(["mount", "-o", "remount,ro", str(mounted)], check=True)
        before = digest(mounted / "b.wbb")
        commands = [
            ["import", str(more), "--format", "jsonl", "--into", str(mounted / "b.wbb")],
            ["import", str(more), "--format", "jsonl", "--into", str(mounted / "new.wbb")],
            ["backup", str(mounted / "b.wbb")],
            ["export", str(bundle), "--out", str(mounted / "out.jsonl")],
        ]
        for argv in commands:
            code, err = run(argv, capsys)
            assert code == 1 and one_line(err), (argv, err)
            assert "internal error" not in err, (argv, err)
        assert digest(mounted / "b.wbb") == before
        assert sorted(p.name for p in mounted.iterdir()) == ["b.wbb"]


def test_read_only_commands_and_check_work_on_a_read_only_mount(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """They refused ("its folder must be writable"), and check called the healthy bundle
    damaged ("unable to open database file")."""
    from workbench.services.importing import import_files

    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "s1", [item_line("q1")])], "jsonl")
    with tmpfs(tmp_path / "ro", "4m") as mounted:
        shutil.copyfile(bundle, mounted / "b.wbb")
        subprocess.run(["mount", "-o", "remount,ro", str(mounted)], check=True)
        before = digest(mounted / "b.wbb")
        for argv in (
            ["info", str(mounted / "b.wbb")],
            ["leaderboard", str(mounted / "b.wbb"), "--min-battles", "0"],
            ["leaderboard", str(mounted / "b.wbb"), "--min-battles", "0", "--json"],
            ["export", str(mounted / "b.wbb"), "--out", str(tmp_path / "out.jsonl")],
            ["check", str(mounted / "b.wbb")],
            ["check", "--full", str(mounted / "b.wbb")],
        ):
            code, err = run(argv, capsys)
            assert code == 0, (argv, err)
            assert "damaged" not in err
        assert digest(mounted / "b.wbb") == before
        assert sorted(p.name for p in mounted.iterdir()) == ["b.wbb"]


def test_a_full_disk_gives_one_line_and_leaves_no_partial_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.services.importing import import_files

    bundle = tmp_path / "b.wbb"
    lines = [item_line(f"q{n}", turns=[{"prompt": "x" * 4000}]) for n in range(40)]
    source = write_jsonl(tmp_path / "s1", lines)
    import_files(bundle, [source], "jsonl")
    with tmpfs(tmp_path / "full", "96k") as mounted:
        for argv in (
            ["import", str(source), "--format", "jsonl", "--into", str(mounted / "new.wbb")],
            ["export", str(bundle), "--out", str(mounted / "out.jsonl")],
        ):
            code, err = run(argv, capsys)
            assert code == 1 and one_line(err), (argv, err)
            assert "internal error" not in err and ("full" in err or "space" in err), err
            assert list(mounted.iterdir()) == [], (argv, list(mounted.iterdir()))


def test_exports_to_proc_and_dev_full_give_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.services.importing import import_files

    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "s1", [item_line("q1")])], "jsonl")
    for target, words, extra in (
        ("/proc/workbench-export.jsonl", "cannot write", []),
        ("/proc/self/comm", "is not an earlier export", []),
        # told to replace it, the write itself fails
        ("/proc/self/comm", "cannot write", ["--force"]),
        ("/dev/full", "not a regular file", []),
    ):
        code, err = run(["export", str(bundle), "--out", target, *extra], capsys)
        assert code == 1 and one_line(err) and words in err, (target, err)
