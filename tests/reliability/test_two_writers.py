"""Two processes writing one SQLite bundle at once (two annotators voting, or an annotator
voting while an import lands): they queue on SQLite's write lock, neither fails with "database
is locked", no confirmed vote is lost, and the bundle passes the integrity check."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.patience import HANG_GUARD_SECONDS
from tests.reliability.kill_harness import (
    ImportWorkload,
    WorkerServer,
    confirmed_words,
    rows,
    wait_until_ready,
    worker_errors,
)
from tests.services.campaign_helpers import build_campaign_bundle
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.storage import Bundle
from workbench.storage.integrity import integrity_check

#: confirmations each worker prints before both are stopped: they ran side by side
EACH_CONFIRMS = 2


@pytest.fixture(scope="module")
def server() -> Iterator[WorkerServer]:
    with WorkerServer() as running:
        yield running


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = Path(build_campaign_bundle(tmp_path, items=4))
    with Bundle.open(path) as opened:
        for handle in ("ann", "bob"):
            add_annotator(opened, handle)
        create_campaign(opened, CampaignSpec("shared", "chirp-five-criteria", votes_per_pair=2))
    return path


def run_together(
    server: WorkerServer, commands: dict[str, list[str]], folder: Path
) -> dict[str, list[str]]:
    """Start the workers, let them run side by side until each has confirmed some work (read
    from their output, however long that takes on a busy machine), stop them; what each
    confirmed."""
    outs = {name: folder / f"{name}.out" for name in commands}
    pids = {name: server.start(argv, outs[name]) for name, argv in commands.items()}
    for name, pid in pids.items():
        wait_until_ready(outs[name], pid)
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while not all(len(confirmed_words(out)) >= EACH_CONFIRMS for out in outs.values()):
        failed = {name: worker_errors(out) for name, out in outs.items() if worker_errors(out)}
        assert not failed, failed
        assert time.monotonic() < deadline, "a worker confirmed nothing (a hang)"
        time.sleep(0.01)  # between looks at the output files
    for pid in pids.values():
        os.kill(pid, signal.SIGKILL)
    codes = {name: server.wait(pid) for name, pid in pids.items()}
    for name, code in codes.items():
        assert code in (0, -signal.SIGKILL), f"{name} failed: {worker_errors(outs[name])}"
        assert worker_errors(outs[name]) == "", f"{name}: {worker_errors(outs[name])}"
    return {name: confirmed_words(out) for name, out in outs.items()}


def test_two_annotators_vote_at_once(server: WorkerServer, bundle: Path, tmp_path: Path) -> None:
    confirmed = run_together(
        server,
        {
            "ann": ["voting", str(bundle), "shared", "ann"],
            "bob": ["voting", str(bundle), "shared", "bob"],
        },
        tmp_path,
    )
    assert integrity_check(bundle, full=True) == []
    stored = dict(
        rows(
            bundle,
            "SELECT uuid, annotators.handle FROM votes "
            "JOIN annotators ON annotators.id = votes.annotator_id",
        )
    )
    for handle, uuids in confirmed.items():
        assert len(uuids) > 0, f"{handle} never got to vote"
        assert [uuid for uuid in uuids if stored.get(uuid) != handle] == []


def test_voting_while_an_import_lands(server: WorkerServer, bundle: Path, tmp_path: Path) -> None:
    parts = ImportWorkload.write_parts(tmp_path / "parts")
    confirmed = run_together(
        server,
        {
            "ann": ["voting", str(bundle), "shared", "ann"],
            "import": ["import", str(bundle), str(parts)],
        },
        tmp_path,
    )
    assert integrity_check(bundle, full=True) == []
    stored = {row[0] for row in rows(bundle, "SELECT uuid FROM votes")}
    assert confirmed["ann"] and set(confirmed["ann"]) <= stored
    assert confirmed["import"], "no import landed while voting went on"
    imported = dict(
        rows(bundle, "SELECT substr(external_id, 1, 3), count(*) FROM items GROUP BY 1")
    )
    for part in confirmed["import"]:
        assert imported[part] == ImportWorkload.ITEMS
