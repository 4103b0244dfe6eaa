"""Durability: a process casting votes through the annotation service is killed with SIGKILL at
a random moment; every vote it confirmed (printed after ``cast`` returned) is in the bundle (a
file, which then passes SQLite's integrity check, or a server database), and annotation resumes."""

from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.backends import BundleBackend, Location
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
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(bundle_path)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert worker.stdout is not None
        first = worker.stdout.readline()
        assert first == b"ready\n", worker.stderr.read() if worker.stderr else first
        time.sleep(rng.uniform(0.05, 0.6))
        worker.send_signal(signal.SIGKILL)
        out, err = worker.communicate(timeout=10)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == -signal.SIGKILL, err.decode()
    confirmed = []
    for line in out.decode().split("\n")[:-1]:  # the last piece may be a line cut by the kill
        confirmed.extend(line.split())
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
