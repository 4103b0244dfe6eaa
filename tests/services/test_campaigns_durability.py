"""Durability: a process casting votes through the annotation service is killed with SIGKILL
after it has confirmed a random number of votes, in the middle of the next; every vote it
confirmed (printed after ``cast`` returned) is in the bundle (a file, which then passes
SQLite's integrity check, or a server database), and annotation resumes."""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.backends import BundleBackend, Location
from tests.patience import HANG_GUARD_SECONDS
from tests.services.campaign_helpers import build_campaign_bundle
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Vote

PROJECT_ROOT = Path(__file__).resolve().parents[2]

# The worker casts votes forever: when the queue runs dry it undoes the last answer and answers
# again. It prints a vote's UUIDs only after cast() has returned, i.e. after the commit.
WORKER = textwrap.dedent(
    """
    import sys
    from workbench.services.voting import AnnotationSession
    from workbench.storage import Bundle

    bundle = Bundle.open(sys.argv[1])
    session = AnnotationSession(bundle, "durable", "ann")
    answers = {criterion.name: "a" for criterion in session.protocol.criteria}
    print("ready", flush=True)
    while True:
        task = session.next_task() or session.undo()
        receipt = session.cast(task.token, answers)
        print(" ".join(receipt.uuids), flush=True)
    """
)

UUID = re.compile(r"^[0-9a-f]{32}$")


@pytest.fixture(scope="module")
def bundle_path(
    bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory
) -> Location:
    path = build_campaign_bundle(
        tmp_path_factory.mktemp("durable"), items=4, into=bundle_backend.new_location()
    )
    with Bundle.open(path) as bundle:
        add_annotator(bundle, "ann")
        # chirp's protocol is registered by its own plugin manifest, so the worker's default
        # registry knows it; five criteria make five rows per answer, all in one transaction
        create_campaign(bundle, CampaignSpec("durable", "chirp-five-criteria", seed=2))
    return path


def run_and_kill(bundle_path: Location, rng: random.Random) -> list[str]:
    """Start a worker, let it confirm a random number of votes (read from its output, not
    waited for), then kill it: while it is casting the next one, at whatever point of that
    transaction it has reached."""
    # errors to a file, not a pipe: never full, so never a block
    with tempfile.TemporaryFile() as errors:
        worker = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(bundle_path)],
            cwd=PROJECT_ROOT,
            stdout=subprocess.PIPE,
            stderr=errors,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        lines: list[bytes] = []
        try:
            assert worker.stdout is not None
            first = worker.stdout.readline()
            if first != b"ready\n":
                worker.wait(timeout=HANG_GUARD_SECONDS)
                errors.seek(0)
                raise AssertionError(errors.read().decode(errors="replace") or first)
            for _ in range(rng.randint(1, 6)):
                lines.append(worker.stdout.readline())
                assert lines[-1].endswith(b"\n"), "the worker stopped before it confirmed a vote"
            worker.send_signal(signal.SIGKILL)
            lines += worker.stdout.read().split(b"\n")  # what it confirmed before the kill landed
            worker.wait(timeout=HANG_GUARD_SECONDS)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
            if worker.stdout is not None:
                worker.stdout.close()
    assert worker.returncode == -signal.SIGKILL
    confirmed = []
    for line in lines[:-1]:  # the last piece may be a line cut by the kill
        confirmed.extend(line.decode().split())
    assert all(UUID.match(uuid) for uuid in confirmed)
    return confirmed


def stored_uuids(bundle_path: Location) -> set[str]:
    if isinstance(bundle_path, Path):
        connection = sqlite3.connect(bundle_path)
        try:
            assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            connection.close()
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        return set(session.scalars(select(Vote.uuid)))


def test_confirmed_votes_survive_sigkill(bundle_path: Location) -> None:
    rng = random.Random(os.getpid())
    confirmed: list[str] = []
    for _ in range(3):
        confirmed += run_and_kill(bundle_path, rng)
        stored = stored_uuids(bundle_path)
        missing = [uuid for uuid in confirmed if uuid not in stored]
        assert missing == []
    assert len(confirmed) > 0
    with Bundle.open(bundle_path) as bundle:
        session = AnnotationSession(bundle, "durable", "ann")
        task = session.next_task() or session.undo()
        assert task is not None
        answers = {criterion.name: "b" for criterion in session.protocol.criteria}
        assert len(session.cast(task.token, answers).uuids) == 5
