"""Two writers on one bundle file: another process votes through the annotation service while
the window has the bundle open (and this process votes too). The window's leaderboard picks
the new votes up, no poll or vote fails on SQLite's locks, and every confirmed vote is there."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pytest import LogCaptureFixture
from pytestqt.qtbot import QtBot
from sqlalchemy import func, select

from tests.patience import HANG_GUARD_MS
from tests.services.campaign_helpers import build_campaign_bundle
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.outcomes import judgments_frame, pairwise_outcomes
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Vote

pytestmark = pytest.mark.gui

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CAMPAIGN = "team"

# The other annotator: casts every task it is handed, pausing a little between votes so the
# window polls in between, and prints each vote's UUIDs once cast() has returned (committed).
OTHER_WRITER = textwrap.dedent(
    """
    import sys, time
    from workbench.services.voting import AnnotationSession
    from workbench.storage import Bundle

    with Bundle.open(sys.argv[1]) as bundle:
        session = AnnotationSession(bundle, sys.argv[2], "bob")
        print("ready", flush=True)
        while (task := session.next_task()) is not None:
            receipt = session.cast(task.token, "a")
            print(" ".join(receipt.uuids), flush=True)
            time.sleep(0.03)
    print("done", flush=True)
    """
)


@pytest.fixture
def campaign_bundle(tmp_path: Path) -> Path:
    path = Path(build_campaign_bundle(tmp_path, items=3))
    with Bundle.open(path) as bundle:
        for handle in ("ana", "bob"):
            add_annotator(bundle, handle)
        # two votes per pair: both annotators get every pair, so both write all along
        create_campaign(bundle, CampaignSpec(CAMPAIGN, "arena-battle", votes_per_pair=2, seed=1))
    return path


def pairwise_count(path: Path) -> int:
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        return len(pairwise_outcomes(judgments_frame(session)))


def test_votes_from_another_process_reach_the_open_window(
    qtbot: QtBot, campaign_bundle: Path, caplog: LogCaptureFixture
) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(campaign_bundle)
    window.analysis.show_panel("leaderboard")
    window.show()
    board = window.analysis.leaderboard
    watcher = window.analysis.watcher
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    assert board.result is None  # no votes yet: nothing to rate

    caplog.set_level(logging.WARNING)
    other = subprocess.Popen(
        [sys.executable, "-c", OTHER_WRITER, str(campaign_bundle), CAMPAIGN],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert other.stdout is not None
    assert other.stdout.readline() == "ready\n"
    # this process votes too, on the window's own bundle, while the other one writes
    assert window.bundle is not None
    own = AnnotationSession(window.bundle, CAMPAIGN, "ana")
    own_uuids: list[str] = []
    while (task := own.next_task()) is not None:
        own_uuids += own.cast(task.token, "b").uuids
        qtbot.wait(20)  # let the window poll and refresh between votes
    output, errors = other.communicate(timeout=120)
    assert other.returncode == 0, errors
    lines = output.splitlines()
    assert lines[-1] == "done"
    other_uuids = [uuid for line in lines[:-1] for uuid in line.split()]
    assert other_uuids and own_uuids

    # every confirmed vote is stored, once
    with Bundle.open(campaign_bundle) as bundle, bundle.read_session() as session:
        stored = set(session.scalars(select(Vote.uuid)))
        total = session.scalar(select(func.count(Vote.id)))
    assert set(other_uuids) | set(own_uuids) <= stored
    assert total == len(other_uuids) + len(own_uuids)

    # the leaderboard caught up without being asked
    expected = pairwise_count(campaign_bundle)
    assert expected == total
    qtbot.waitUntil(
        lambda: board.result is not None and board.result.battles == expected,
        timeout=HANG_GUARD_MS,
    )
    assert not watcher.failing
    problems = [
        r for r in caplog.records if r.levelno >= logging.WARNING and "bradley" not in r.name
    ]
    assert problems == []
    window.close()
