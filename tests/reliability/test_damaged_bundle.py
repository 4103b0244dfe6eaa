"""Damaged bundle files: truncated at several points, pages overwritten with garbage, a zeroed
header. Opening says the bundle is damaged and offers the latest backup; ``workbench restore``
puts the backup back, and it opens with every row it had."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import text

from tests.services.campaign_helpers import build_campaign_bundle
from workbench.cli import main
from workbench.storage import Bundle, NotABundleError
from workbench.storage.backups import make_backup
from workbench.storage.bundle import copy_bundle
from workbench.storage.errors import BundleDamagedError
from workbench.storage.integrity import check_file_header, integrity_check

Damage = Callable[[Path], None]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_campaign_bundle(tmp_path_factory.mktemp("damage"), items=12)


@pytest.fixture
def bundle(template: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the template and a backup of it."""
    path = tmp_path / "work.wbb"
    copy_bundle(template, path)
    return path, make_backup(path, reason="auto")


def rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(f'SELECT * FROM "{table}" ORDER BY 1').fetchall()
    finally:
        connection.close()


def page_size(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return cast("int", connection.execute("PRAGMA page_size").fetchone()[0])
    finally:
        connection.close()


def root_page(path: Path, table: str) -> int:
    connection = sqlite3.connect(path)
    try:
        query = "SELECT rootpage FROM sqlite_master WHERE name = ?"
        return cast("int", connection.execute(query, (table,)).fetchone()[0])
    finally:
        connection.close()


def truncate_to(share: float) -> Damage:
    def damage(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * share)])

    return damage


def truncate_to_bytes(size: int) -> Damage:
    def damage(path: Path) -> None:
        path.write_bytes(path.read_bytes()[:size])

    return damage


def drop_last_page(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - page_size(path)])


def zero_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[:100] = bytes(100)
    path.write_bytes(bytes(data))


def garbage_over_schema_page(path: Path) -> None:
    # page 1 holds sqlite_master after the 100-byte file header
    size = page_size(path)
    data = bytearray(path.read_bytes())
    data[100:size] = random.Random(1).randbytes(size - 100)
    path.write_bytes(bytes(data))


def garbage_over_table(table: str) -> Damage:
    def damage(path: Path) -> None:
        size, page = page_size(path), root_page(path, table)
        data = bytearray(path.read_bytes())
        data[(page - 1) * size : page * size] = random.Random(page).randbytes(size)
        path.write_bytes(bytes(data))

    return damage


# damage an open reaches: the header, the length, the schema, the schema-version table
OPEN_DETECTS = {
    "truncated inside the magic": truncate_to_bytes(10),
    "truncated inside the header": truncate_to_bytes(60),
    "truncated after the first page": truncate_to_bytes(4096),
    "truncated to a third": truncate_to(1 / 3),
    "truncated mid-page": truncate_to(0.77),
    "last page missing": drop_last_page,
    "zeroed header": zero_header,
    "garbage over the schema page": garbage_over_schema_page,
    "garbage over the version table": garbage_over_table("alembic_version"),
}


@pytest.mark.parametrize("damage", OPEN_DETECTS.values(), ids=OPEN_DETECTS.keys())
def test_open_reports_damage_and_offers_the_backup(
    bundle: tuple[Path, Path], damage: Damage, capsys: pytest.CaptureFixture[str]
) -> None:
    path, backup = bundle
    expected = {table: rows(path, table) for table in ("items", "outputs", "turns")}
    damage(path)
    with pytest.raises(BundleDamagedError) as raised:
        Bundle.open(path).close()
    error = raised.value
    assert error.path == path and error.backup == backup
    assert "is damaged" in str(error) and f"workbench restore {path}" in str(error)
    assert integrity_check(path) != []

    assert main(["restore", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"restored {path} from {backup}" in out and "kept at" in out
    with Bundle.open(path) as restored:
        assert restored.revision() is not None
    assert {table: rows(path, table) for table in expected} == expected
    assert integrity_check(path, full=True) == []


def test_garbage_in_a_data_page_is_found_by_check_and_by_the_first_read(
    bundle: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, backup = bundle
    garbage_over_table("outputs")(path)
    check_file_header(path)  # the header is intact: the cheap check on open cannot see this
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "is damaged" in out and f"latest backup: {backup}" in out
    with (
        Bundle.open(path) as opened,
        pytest.raises(BundleDamagedError) as raised,
        opened.read_session() as session,
    ):
        session.execute(text("SELECT * FROM outputs")).fetchall()
    assert raised.value.backup == backup


def test_damage_without_a_backup_says_so(template: Path, tmp_path: Path) -> None:
    path = tmp_path / "lonely.wbb"
    copy_bundle(template, path)
    drop_last_page(path)
    with pytest.raises(BundleDamagedError, match="no backup of it was found") as raised:
        Bundle.open(path)
    assert raised.value.backup is None


def test_a_file_that_never_was_a_bundle_is_not_called_damaged(tmp_path: Path) -> None:
    path = tmp_path / "photo.wbb"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    with pytest.raises(NotABundleError):
        Bundle.open(path)
