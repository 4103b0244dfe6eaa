"""Clumsy hands: the wrong file given as a bundle, a backup of another bundle, unwritable
places. Each ends in one clear line, and nothing that was there is changed."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(text: str) -> bool:
    return text.count("\n") == 1 and "Traceback" not in text and "[SQL:" not in text


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
