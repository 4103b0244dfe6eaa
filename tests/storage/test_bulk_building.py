"""A bundle built for a bulk import is filled with a rollback journal (new pages written once,
not to a WAL and again at the checkpoint) and published in WAL mode like any other."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from workbench.storage import Bundle


def journal_mode(bundle: Bundle) -> str:
    with bundle.session() as session:
        return str(session.execute(text("PRAGMA journal_mode")).scalar_one())


def header_modes(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:20]
    return header[18], header[19]  # 2, 2: WAL; 1, 1: rollback journal


@pytest.mark.parametrize(("bulk", "inside"), [(True, "delete"), (False, "wal")])
def test_a_bulk_build_writes_without_wal_and_publishes_in_wal_mode(
    tmp_path: Path, bulk: bool, inside: str
) -> None:
    path = tmp_path / "b.wbb"
    with Bundle.building(path, bulk=bulk) as building:
        assert journal_mode(building) == inside
        with building.session() as session:
            session.execute(text("CREATE TABLE scratch_rows (value BLOB)"))
            session.execute(
                text("INSERT INTO scratch_rows VALUES (:value)"), [{"value": b"x" * 50_000}] * 20
            )
    assert header_modes(path) == (2, 2)
    assert not path.with_name(path.name + "-journal").exists()
    with Bundle.open(path) as opened:
        assert journal_mode(opened) == "wal"
        with opened.read_session() as session:
            assert session.execute(text("SELECT count(*) FROM scratch_rows")).scalar_one() == 20


def test_a_failed_bulk_build_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "b.wbb"
    with pytest.raises(RuntimeError), Bundle.building(path, bulk=True) as building:
        with building.session() as session:
            session.execute(text("CREATE TABLE scratch_rows (value BLOB)"))
        raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []
