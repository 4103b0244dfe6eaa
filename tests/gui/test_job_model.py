"""One job model: the window's own background work (queries, votes, image decodes, panel
computations in their worker process) runs as unlisted jobs of the same
:class:`~workbench.gui.jobs.JobManager` as the user's imports and exports, so
``running()`` names all of it and each can be cancelled through its job; writers wait for each
other, readers never wait behind a writer."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.job_status import status
from tests.gui.test_jobs import Gate
from tests.patience import HANG_GUARD_MS
from workbench.gui.background import BackgroundRunner
from workbench.gui.jobs import Access, JobCancelled, JobManager, JobStatus
from workbench.gui.panel_process import PanelProcess, ProcessRunner
from workbench.gui.panels.latest_only import LatestOnly

pytestmark = pytest.mark.gui

WAIT = HANG_GUARD_MS


class Window(QObject):
    """What a main window is to its runners: the owner of a ``jobs`` manager."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs = JobManager(self)


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[Window]:
    window = Window()
    yield window
    window.jobs.cancel_all()
    for job in window.jobs.running():
        job.cancel()
    window.jobs.wait(WAIT)
    window.deleteLater()


def test_a_query_runs_beside_a_writer_and_a_vote_waits_for_it(qtbot: QtBot, window: Window) -> None:
    gate = Gate()
    window.jobs.submit("Import a.jsonl", "Import", gate)  # a writer
    assert gate.started.wait(HANG_GUARD_MS / 1000)
    runner = BackgroundRunner(window, in_order=False)
    assert runner.manager is window.jobs  # found through its parent, as a panel finds it
    answers: list[object] = []
    runner.run(lambda: "items", answers.append)
    # the query does not wait for the import
    qtbot.waitUntil(lambda: answers == ["items"], timeout=WAIT)
    voted = threading.Event()
    vote = runner.run(voted.set, answers.append, access=Access.WRITE, kind="Vote")
    assert vote.status is JobStatus.QUEUED and vote in window.jobs.queued()
    assert not voted.is_set()
    kinds = {job.kind for job in window.jobs.running()}
    assert kinds == {"Import"}  # the one answer to "what is running"
    gate.release.set()
    qtbot.waitUntil(lambda: voted.is_set() and len(answers) == 2, timeout=WAIT)
    assert status(vote) is JobStatus.SUCCEEDED and not window.jobs.queued()
    qtbot.waitUntil(lambda: not runner.busy, timeout=WAIT)
    # unlisted work is not in the Jobs window's list and is forgotten once it ended
    assert [job.kind for job in window.jobs.jobs()] == ["Import"]


def test_a_queued_vote_cancelled_through_its_job_never_runs(qtbot: QtBot, window: Window) -> None:
    gate = Gate()
    window.jobs.submit("Import a.jsonl", "Import", gate)
    assert gate.started.wait(HANG_GUARD_MS / 1000)
    runner = BackgroundRunner(window, in_order=True)
    ran: list[str] = []
    errors: list[BaseException] = []
    vote = runner.run(
        lambda: ran.append("vote"), ran.append, errors.append, access=Access.WRITE, kind="Vote"
    )
    # the read after it keeps the page's order: it waits for the vote, not for the import
    read = runner.run(lambda: ran.append("read"), ran.append, errors.append)
    assert read.status is JobStatus.QUEUED
    vote.cancel()
    assert vote.status is JobStatus.CANCELLED
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT)
    assert isinstance(errors[0], JobCancelled)
    # with the vote withdrawn, the read behind it runs while the import still does
    qtbot.waitUntil(lambda: "read" in ran, timeout=WAIT)
    assert "vote" not in ran
    assert any(job.kind == "Import" for job in window.jobs.running())
    gate.release.set()


def test_waiting_for_a_runner_runs_its_queued_jobs_too(qtbot: QtBot, window: Window) -> None:
    runner = BackgroundRunner(window, in_order=True)
    done: list[int] = []
    for number in range(5):
        runner.run(partial(done.append, number), lambda _value: None)
    # what the annotation page does before its bundle closes: every vote has landed after it
    assert runner.wait()
    assert done == [0, 1, 2, 3, 4]


@pytest.fixture
def process(qapp: QApplication) -> Iterator[PanelProcess]:
    process = PanelProcess(warm=False)  # given no panel computation: the stacks are not needed
    yield process
    process.shutdown(finish_running=False)


def started_then_sleeps(marker: str) -> None:
    """Module-level (so it pickles): says it runs, then would run for an hour."""
    Path(marker).touch()
    time.sleep(3600)


def test_a_panel_computation_is_listed_and_cancelled_through_its_job(
    qtbot: QtBot, window: Window, process: PanelProcess, tmp_path: Path
) -> None:
    runner = ProcessRunner(process, window)
    pids: list[int] = []
    runner.run(partial(os.getpid), pids.append)
    qtbot.waitUntil(lambda: bool(pids), timeout=WAIT)
    outcomes: list[object] = []
    marker = tmp_path / "started"
    runner.run(partial(started_then_sleeps, str(marker)), outcomes.append, outcomes.append)
    (job,) = window.jobs.running()
    assert job.kind == "Panel computation" and job.title == "Panel: started_then_sleeps"
    assert runner.busy
    qtbot.waitUntil(marker.exists, timeout=WAIT)
    job.cancel()  # an hour's computation: stopped with its worker process
    qtbot.waitUntil(lambda: bool(outcomes), timeout=WAIT)
    assert isinstance(outcomes[0], JobCancelled)
    assert job.status is JobStatus.CANCELLED
    qtbot.waitUntil(lambda: not runner.busy and not window.jobs.running(), timeout=WAIT)
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)
    # the next computation starts a new worker
    runner.run(partial(os.getpid), pids.append)
    qtbot.waitUntil(lambda: len(pids) == 2, timeout=WAIT)
    assert pids[1] != pids[0]


def test_a_cancelled_panel_computation_leaves_the_panel_as_it_was(
    qtbot: QtBot, window: Window, process: PanelProcess, tmp_path: Path
) -> None:
    tasks = LatestOnly(ProcessRunner(process, window), window)
    results: list[object] = []
    errors: list[BaseException] = []
    marker = tmp_path / "started"
    tasks.submit(partial(started_then_sleeps, str(marker)), results.append, errors.append)
    qtbot.waitUntil(marker.exists, timeout=WAIT)
    (job,) = window.jobs.running()
    job.cancel()
    # not stuck "Computing…", and no error shown for what the user stopped
    qtbot.waitUntil(lambda: not tasks.busy, timeout=WAIT)
    assert results == [] and errors == []
