"""A vote cast in this window reaches the leaderboard through the annotation view's signal, not
the poll: the panel refreshes once per vote, adding the vote's counts to those it keeps, and
shows what a full recompute shows. A vote from another connection is still found by the poll."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from tests.services.campaign_helpers import build_campaign_bundle
from workbench.services.analysis import leaderboard
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.judgments import battle_counts, fingerprint

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui

CAMPAIGN = "arena"
#: the watcher's timer, made too slow to matter: only the signal can bring a refresh in time
NEVER_MS = 600_000


@pytest.fixture
def campaign_bundle(tmp_path: Path) -> Path:
    path = Path(build_campaign_bundle(tmp_path, items=3))
    with Bundle.open(path) as bundle:
        for handle in ("ana", "bob"):
            add_annotator(bundle, handle)
        create_campaign(bundle, CampaignSpec(CAMPAIGN, "arena-battle", votes_per_pair=2, seed=1))
        # one vote first, so the leaderboard has something to rate when the window opens
        session = AnnotationSession(bundle, CAMPAIGN, "bob")
        task = session.next_task()
        assert task is not None
        session.cast(task.token, "a")
    return path


@pytest.fixture
def window(qtbot: QtBot, campaign_bundle: Path) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(campaign_bundle)
    window.analysis.show_panel("leaderboard")
    window.show()
    board = window.analysis.leaderboard
    board.rounds.setValue(20)
    # a campaign's first votes are fewer than a board's default minimum: rate them anyway
    board.min_battles.setValue(0)
    board.refresh()
    qtbot.waitUntil(lambda: board.result is not None, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    yield window
    window.close()


def test_a_vote_here_refreshes_the_leaderboard_incrementally(
    qtbot: QtBot, window: MainWindow
) -> None:
    board = window.analysis.leaderboard
    watcher = window.analysis.watcher
    watcher.timer.stop()
    watcher.timer.setInterval(NEVER_MS)
    board.refresh()  # with the 20 rounds chosen above
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    # the worker process keeps the counts; the panel reports how it brought them up to date
    full_reads, _ = board.count_reads
    assert full_reads >= 1
    shown: list[object] = []
    board.computed.connect(shown.append)

    assert window.bundle is not None
    session = AnnotationSession(window.bundle, CAMPAIGN, "ana")
    choices = ("a", "b", "tie", "both_bad")
    for vote in range(5):
        task = session.next_task()
        assert task is not None
        session.cast(task.token, choices[vote % len(choices)])
        window.annotation.view.judgmentsWritten.emit()
        qtbot.waitUntil(lambda: len(shown) == vote + 1, timeout=HANG_GUARD_MS)  # noqa: B023
        qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)

        assert window.bundle is not None
        with window.bundle.read_session() as read:
            # the kind the request resolved to (human: the campaign's votes) is counted
            assert board.result is not None
            resolved = board.result.request
            expected = battle_counts(
                read, resolved.filters(), decisive_weight=resolved.decisive_weight
            )
        assert board.result is not None
        assert board.result.battles == sum(judgments for *_, judgments in expected)
        pd.testing.assert_frame_equal(
            board.result.table, leaderboard(window.bundle, board.request()).table
        )
    assert board.count_reads[0] == full_reads  # each vote added its counts, nothing re-read
    assert board.count_reads[1] >= 5

    # the poll sees the fingerprint the signal already read: no second refresh
    watcher.timer.setInterval(50)
    polls = watcher.polls
    watcher.timer.start()
    qtbot.waitUntil(lambda: watcher.polls >= polls + 3, timeout=HANG_GUARD_MS)
    assert len(shown) == 5


def test_a_vote_during_a_poll_is_read_by_a_poll_after_it(qtbot: QtBot, window: MainWindow) -> None:
    board = window.analysis.leaderboard
    watcher = window.analysis.watcher
    watcher.timer.stop()
    watcher.timer.setInterval(NEVER_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    assert board.result is not None
    before = board.result.battles
    watcher.poll()  # a poll that may read before the vote below is committed
    assert watcher.polling
    assert window.bundle is not None
    session = AnnotationSession(window.bundle, CAMPAIGN, "ana")
    task = session.next_task()
    assert task is not None
    session.cast(task.token, "a")
    window.annotation.view.judgmentsWritten.emit()
    qtbot.waitUntil(
        lambda: board.result is not None and board.result.battles == before + 1,
        timeout=HANG_GUARD_MS,
    )


def test_a_vote_from_another_connection_is_found_by_the_poll(
    qtbot: QtBot, window: MainWindow, campaign_bundle: Path
) -> None:
    board = window.analysis.leaderboard
    assert board.result is not None
    before = board.result.battles
    with Bundle.open(campaign_bundle) as other:
        session = AnnotationSession(other, CAMPAIGN, "bob")
        task = session.next_task()
        assert task is not None
        session.cast(task.token, "b")
    # no signal: the regular poll finds it
    qtbot.waitUntil(
        lambda: board.result is not None and board.result.battles == before + 1,
        timeout=HANG_GUARD_MS,
    )
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    assert window.bundle is not None
    pd.testing.assert_frame_equal(
        board.result.table, leaderboard(window.bundle, board.request()).table
    )


def test_the_annotation_view_signals_a_committed_vote(qtbot: QtBot, campaign_bundle: Path) -> None:
    from workbench.gui.annotation.annotation_view import AnnotationView

    with Bundle.open(campaign_bundle) as bundle:
        view = AnnotationView()
        qtbot.addWidget(view)
        view.show()
        view.start(AnnotationSession(bundle, CAMPAIGN, "ana"))
        before = fingerprint_of(bundle)
        with qtbot.waitSignal(view.judgmentsWritten, timeout=HANG_GUARD_MS):
            view.choose("a")  # the protocol's one criterion answered: the vote is cast
        # emitted once the vote was committed, so a read on receiving it sees the vote
        assert fingerprint_of(bundle) != before
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)


def fingerprint_of(bundle: Bundle) -> tuple[int, ...]:
    with bundle.read_session() as session:
        return fingerprint(session)
