"""After the disk reports an input/output error and recovers, the next unit of work on an open
bundle works: the connections that met the error are not kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from tests.storage.failing_disk import failing_disk
from workbench.storage import Bundle
from workbench.storage.errors import BundleError
from workbench.storage.models import BundleInfo


def test_an_open_bundle_recovers_on_the_next_write_after_a_disk_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Bundle.create(tmp_path / "b.wbb").close()
    with failing_disk(monkeypatch) as disk, Bundle.open(tmp_path / "b.wbb") as bundle:
        with bundle.session() as session:
            session.add(BundleInfo(key="before", value="1"))
        disk.fail()
        with (
            pytest.raises(BundleError, match=r"input/output error.*try again"),
            bundle.session() as session,
        ):
            session.add(BundleInfo(key="during", value="1"))
        # the disk is back: the same open bundle writes and reads again
        with bundle.session() as session:
            session.add(BundleInfo(key="after", value="1"))
        with bundle.read_session() as session:
            keys = set(session.scalars(select(BundleInfo.key)))
        assert {"before", "after"} <= keys and "during" not in keys
        assert disk.errors == 1
