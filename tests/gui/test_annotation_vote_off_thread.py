"""Votes are written off the GUI thread: with the bundle locked by another
writer the window stays responsive and says "Saving…" (on the next task's page when it was read
ahead), the vote lands once the lock is gone;
when the write fails the reason is shown, the answer stays pending on the page, and Enter saves
it again. No exception escapes the key handler."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest
from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle
from tests.gui.test_annotation_view import start_view
from tests.patience import HANG_GUARD_MS
from tests.storage.failing_disk import failing_disk
from workbench.gui.jobs import jobs_for
from workbench.storage import Bundle, dialects
from workbench.storage.bundle import copy_bundle

if TYPE_CHECKING:
    from workbench.gui.annotation.annotation_view import AnnotationView
    from workbench.services.blind_tasks import BlindTask

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("off-thread"))


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "b.wbb")
    return tmp_path / "b.wbb"


@pytest.fixture
def other_writer(bundle_path: Path) -> Iterator[sqlite3.Connection]:
    """Another process's connection, holding the bundle's write lock while in BEGIN IMMEDIATE."""
    connection = sqlite3.connect(bundle_path, timeout=0, isolation_level=None)
    yield connection
    if connection.in_transaction:
        connection.execute("ROLLBACK")
    connection.close()


def vote_count(connection: sqlite3.Connection) -> int:
    return cast("int", connection.execute("SELECT count(*) FROM votes").fetchone()[0])


def event_loop_turns(qtbot: QtBot) -> None:
    timer = QTimer()
    timer.setSingleShot(True)
    with qtbot.waitSignal(timer.timeout, timeout=HANG_GUARD_MS):
        timer.start(20)


def start_idle(qtbot: QtBot, bundle: Bundle, read_ahead: bool) -> AnnotationView:
    """The view on its first task, with the next one read ahead (or, without read-ahead, the
    step before it: the vote committed first, the next task fetched after)."""
    view = start_view(qtbot, bundle, "arena-battle")
    view.read_ahead = read_ahead
    qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
    return view


@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "commit-first"])
def test_a_vote_behind_another_writer_keeps_the_window_responsive(
    qtbot: QtBot, bundle_path: Path, other_writer: sqlite3.Connection, read_ahead: bool
) -> None:
    with Bundle.open(bundle_path) as bundle:
        view = start_idle(qtbot, bundle, read_ahead)
        first = view.task
        other_writer.execute("BEGIN IMMEDIATE")
        qtbot.keyClick(view, Qt.Key.Key_A)
        assert view.busy
        assert view.answer_panel is not None
        assert "Saving" in view.answer_panel.message.text()
        # read ahead, the next task is on the page at once; else it waits for the commit
        shown = view.task
        assert (shown is not first) == read_ahead and shown is not None
        event_loop_turns(qtbot)  # the GUI thread is not waiting for the lock
        # read ahead, the page shows the next task: its answer is kept until the first is
        # saved, then given; commit-first, the page still shows the answered task: ignored
        qtbot.keyClick(view, Qt.Key.Key_B)
        assert view.task is shown and vote_count(other_writer) == 0
        assert "Saving" in view.answer_panel.message.text()  # never "Saved." before the commit
        other_writer.execute("ROLLBACK")
        qtbot.waitUntil(
            lambda: not view.busy and vote_count(other_writer) >= 1, timeout=HANG_GUARD_MS
        )
        answered = 2 if read_ahead else 1
        qtbot.waitUntil(lambda: vote_count(other_writer) == answered, timeout=HANG_GUARD_MS)
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
        assert view.task is not first and view.task is not (shown if read_ahead else None)
        assert f"{answered} answered" in view.progress_label.text()
        assert view.answer_panel.message.text() == "Saved."
        view.end()


@pytest.mark.parametrize("read_ahead", [True, False], ids=["read-ahead", "commit-first"])
def test_a_failed_vote_is_shown_and_stays_pending_until_saved(
    qtbot: QtBot,
    bundle_path: Path,
    other_writer: sqlite3.Connection,
    monkeypatch: pytest.MonkeyPatch,
    read_ahead: bool,
) -> None:
    # give up on the lock quickly (the defaults wait a minute)
    monkeypatch.setattr(dialects, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(dialects, "BUSY_RETRY_DEADLINE_S", 0.2)
    with Bundle.open(bundle_path) as bundle:
        view = start_idle(qtbot, bundle, read_ahead)
        panel = view.answer_panel
        assert panel is not None
        first = view.task
        assert first is not None
        other_writer.execute("BEGIN IMMEDIATE")
        qtbot.keyClick(view, Qt.Key.Key_A)  # raises nothing out of keyPressEvent
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
        message = panel.message.text()
        assert message.startswith("Not saved: the bundle is busy"), message
        assert "press Enter" in message and "SELECT" not in message and "BEGIN" not in message
        assert view.task is first and panel.checked_values() == ["a"]  # pending on the page
        assert view.progress_label.text().startswith(f"{first.progress.answered} answered ")
        assert vote_count(other_writer) == 0
        other_writer.execute("ROLLBACK")
        qtbot.keyClick(view, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
        assert vote_count(other_writer) == 1
        assert view.task is not first and panel.message.text() == "Saved."
        view.end()


def test_starting_on_a_locked_bundle_fails_with_one_line(
    qtbot: QtBot,
    bundle_path: Path,
    other_writer: sqlite3.Connection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workbench.errors import WorkbenchError
    from workbench.gui.annotation.annotation_view import AnnotationView
    from workbench.services.voting import AnnotationSession

    monkeypatch.setattr(dialects, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(dialects, "BUSY_RETRY_DEADLINE_S", 0.2)
    with Bundle.open(bundle_path) as bundle:
        view = AnnotationView()
        qtbot.addWidget(view)
        session = AnnotationSession(bundle, "arena-battle", "ana")
        other_writer.execute("BEGIN IMMEDIATE")
        with pytest.raises(WorkbenchError, match="cannot start annotating: the bundle is busy"):
            view.start(session)
        assert not view.active
        other_writer.execute("ROLLBACK")
        view.start(session)
        assert view.task is not None
        view.end()


def test_the_next_tasks_images_are_decoded_on_the_worker(
    qtbot: QtBot, bundle_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the vote key and the next page the GUI thread only lays the page out;
    the pictures (tens of milliseconds each) are decoded and scaled with the next task."""
    import threading

    from workbench.gui.annotation import task_display
    from workbench.gui.image_loader import DecodedImage, decode_image

    decoded_on: list[bool] = []

    def recording_decode(data: bytes) -> DecodedImage:
        decoded_on.append(threading.current_thread() is threading.main_thread())
        return decode_image(data)

    monkeypatch.setattr(task_display, "decode_image", recording_decode)
    with Bundle.open(bundle_path) as bundle:
        view = start_view(qtbot, bundle, "arena-battle")
        shown = 0
        for _ in range(4):  # until a task with a picture follows a vote
            decoded_on.clear()
            first = view.task
            qtbot.keyClick(view, Qt.Key.Key_A)

            def moved_on(first: BlindTask | None = first) -> bool:
                return not view.busy and view.task is not first

            qtbot.waitUntil(moved_on, timeout=HANG_GUARD_MS)
            assert view.task is not None
            shown += len([tile for tile in view.display.tiles if tile.decoded is not None])
            assert True not in decoded_on  # never on the GUI thread
            if decoded_on:
                break
        assert shown > 0 and decoded_on
        view.end()


def test_the_window_recovers_once_the_disk_is_back_after_an_input_output_error(
    qtbot: QtBot, bundle_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection that met a disk error can go on failing after the disk recovered; the
    window used to report the error on every try while a fresh open found the bundle sound."""
    with failing_disk(monkeypatch) as disk, Bundle.open(bundle_path) as bundle:
        view = start_idle(qtbot, bundle, read_ahead=True)
        panel = view.answer_panel
        assert panel is not None
        first = view.task
        disk.fail()  # fails once: what is opened from now on works
        qtbot.keyClick(view, Qt.Key.Key_A)
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
        message = panel.message.text()
        assert message.startswith("Not saved:") and "input/output error" in message, message
        assert "try again" in message and "press Enter" in message
        assert view.task is first and panel.checked_values() == ["a"]
        qtbot.keyClick(view, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
        assert view.task is not first and panel.message.text() == "Saved."
        qtbot.keyClick(view, Qt.Key.Key_B)
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
        assert panel.message.text() == "Saved."
        view.end()
    with sqlite3.connect(bundle_path) as connection:
        assert vote_count(connection) == 2


def test_a_vote_being_written_is_listed_and_lands_even_if_cancelled(
    qtbot: QtBot, bundle_path: Path, other_writer: sqlite3.Connection
) -> None:
    with Bundle.open(bundle_path) as bundle:
        view = start_idle(qtbot, bundle, True)
        manager = jobs_for(view)
        other_writer.execute("BEGIN IMMEDIATE")  # the vote waits on the bundle's lock
        qtbot.keyClick(view, Qt.Key.Key_A)
        qtbot.waitUntil(
            lambda: any(job.kind == "Vote" for job in manager.running()), timeout=HANG_GUARD_MS
        )
        (vote,) = [job for job in manager.running() if job.kind == "Vote"]
        vote.cancel()  # a vote being written is finished: the user was told it is saving
        other_writer.execute("ROLLBACK")
        qtbot.waitUntil(lambda: vote_count(other_writer) == 1, timeout=HANG_GUARD_MS)
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
        assert view.answer_panel is not None
        assert view.answer_panel.message.text() == "Saved."
        view.end()
