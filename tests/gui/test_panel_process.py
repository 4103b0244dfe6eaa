"""The panels' worker process: jobs run in another process and answer on the GUI thread, errors
come back with their message, a dead worker is replaced, the worker lets go of the bundle when
asked, results for a closed window are dropped, and shutting down leaves no process behind."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import build_panel_bundle
from tests.gui.panel_window import wait_for_file
from tests.patience import HANG_GUARD_MS, HANG_GUARD_SECONDS
from workbench.errors import WorkbenchError
from workbench.gui import panel_computations
from workbench.gui.panel_computations import PanelComputationError, bundle_ref
from workbench.gui.panel_process import PanelProcess, ProcessRunner
from workbench.storage import Bundle

pytestmark = pytest.mark.gui


@pytest.fixture
def process(qapp: QApplication) -> Iterator[PanelProcess]:
    # a process of the test's own, not the app's shared one; these tests give it no panel
    # computation, so it skips the warm-up's imports (about 3 CPU s a start)
    process = PanelProcess(warm=False)
    yield process
    process.shutdown()


@pytest.fixture
def warm_process(qapp: QApplication) -> Iterator[PanelProcess]:
    process = PanelProcess()  # as the app makes its workers
    yield process
    process.shutdown()


#: modules the warm-up imports and a spawned worker does not import by itself
WARMED_UP = ("matplotlib", "networkx", "workbench.services.analysis", "workbench.stats.plots")


def loaded_in_worker() -> list[str]:
    """Module-level (so it pickles): which of :data:`WARMED_UP` the worker has imported."""
    import sys

    return [name for name in WARMED_UP if name in sys.modules]


def run_and_wait(
    qtbot: QtBot, process: PanelProcess, job: Callable[[], Any]
) -> tuple[list[Any], list[Any]]:
    results: list[Any] = []
    errors: list[Any] = []
    process.run(job, results.append, errors.append)
    qtbot.waitUntil(lambda: bool(results or errors), timeout=HANG_GUARD_MS)
    return results, errors


def failing_job(kind: str) -> None:
    """Module-level (so it pickles): raises a user error, or an error that is not."""
    if kind == "user":
        raise WorkbenchError("no judgments match this selection")
    raise KeyError("m-z")


def test_a_job_runs_in_another_process_and_answers_on_the_gui_thread(
    qtbot: QtBot, warm_process: PanelProcess
) -> None:
    process = warm_process
    answered_on: list[threading.Thread] = []
    process.run(partial(os.getpid), lambda pid: answered_on.append(threading.current_thread()))
    qtbot.waitUntil(lambda: bool(answered_on), timeout=HANG_GUARD_MS)
    assert answered_on == [threading.main_thread()]
    (pid,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    assert pid != os.getpid()
    # the warm-up's answer, after it imported the panels' stacks, before the first job
    qtbot.waitUntil(lambda: process.worker_pid == pid, timeout=HANG_GUARD_MS)
    assert not process.busy
    (loaded,), _ = run_and_wait(qtbot, process, partial(loaded_in_worker))
    assert loaded == list(WARMED_UP)


def test_a_worker_without_the_warm_up_imports_no_stacks_and_still_answers(
    qtbot: QtBot, process: PanelProcess
) -> None:
    (loaded,), _ = run_and_wait(qtbot, process, partial(loaded_in_worker))
    assert loaded == []
    (pid,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    qtbot.waitUntil(lambda: process.worker_pid == pid, timeout=HANG_GUARD_MS)


def test_errors_come_back_with_their_message(qtbot: QtBot, process: PanelProcess) -> None:
    _, (user,) = run_and_wait(
        qtbot, process, partial(panel_computations._guarded, failing_job, "user")
    )
    assert type(user) is WorkbenchError and str(user) == "no judgments match this selection"
    _, (other,) = run_and_wait(
        qtbot, process, partial(panel_computations._guarded, failing_job, "bug")
    )
    assert isinstance(other, PanelComputationError) and not isinstance(other, WorkbenchError)
    assert "KeyError: 'm-z'" in str(other) and "failing_job" in str(other)  # the traceback


def test_a_killed_worker_is_replaced_by_the_next_job(qtbot: QtBot, process: PanelProcess) -> None:
    (first,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    os.kill(first, signal.SIGKILL)
    _, (error,) = run_and_wait(qtbot, process, partial(os.getpid))  # the job it was given
    assert "terminated abruptly" in str(error) or "broken" in str(error).lower()
    (second,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    assert second not in (first, os.getpid()) and process.starts == 2


def test_shutdown_leaves_no_process_behind(qtbot: QtBot, process: PanelProcess) -> None:
    (pid,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    process.shutdown()
    assert not process.running
    with pytest.raises(ProcessLookupError):  # gone, and reaped: not even a zombie
        os.kill(pid, 0)


def test_closing_stops_a_running_job_with_its_worker(qtbot: QtBot, process: PanelProcess) -> None:
    (pid,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    outcomes: list[Any] = []
    # a job that would run for an hour: waiting for it would keep a closed window open
    process.run(partial(time.sleep, 3600), outcomes.append, outcomes.append)
    qtbot.waitUntil(lambda: process.busy, timeout=60_000)
    process.shutdown(finish_running=False)  # returns without the hour (the timeout guards)
    assert not process.running
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_busy_worker_is_stopped_not_waited_for_when_its_bundle_goes(
    qtbot: QtBot, process: PanelProcess, tmp_path: Path
) -> None:
    """Closing or switching the bundle while a panel computes (a count held on a file here)
    stops the worker at once instead of holding the GUI thread; the stopped computation ends
    with an error, and the worker started next is not taken for the broken one when that
    error arrives."""
    (pid,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    stopped: list[Any] = []
    go = tmp_path / "go"
    process.run(partial(wait_for_file, str(go)), stopped.append, stopped.append)
    try:
        process.release_bundle()
        with pytest.raises(ProcessLookupError):  # gone, and reaped
            os.kill(pid, 0)
    finally:
        go.touch()  # a worker still held lets go, so a failure does not hang the teardown
    results, errors = run_and_wait(qtbot, process, partial(os.getpid))
    assert errors == [] and results[0] not in (pid, os.getpid())
    again = results[0]
    qtbot.waitUntil(lambda: bool(stopped), timeout=HANG_GUARD_MS)
    assert isinstance(stopped[0], BaseException)
    (still,), _ = run_and_wait(qtbot, process, partial(os.getpid))
    assert still == again and process.starts == 2


def test_the_worker_lets_go_of_the_bundle_when_asked(
    qtbot: QtBot, process: PanelProcess, tmp_path: Path
) -> None:
    path = build_panel_bundle(tmp_path / "bundle")
    with Bundle.open(path) as bundle:
        ref = bundle_ref(bundle)
        assert bundle_ref(bundle) is ref  # one reference per open bundle
        (choices,), _ = run_and_wait(qtbot, process, partial(panel_computations.read_choices, ref))
        assert "m-a" in choices.models
        (held,), _ = run_and_wait(qtbot, process, partial(held_bundle))
        assert held == ref
        process.release_bundle()
        (held,), _ = run_and_wait(qtbot, process, partial(held_bundle))
        assert held is None
    with Bundle.open(path) as again:  # the same file opened again is opened afresh
        assert bundle_ref(again).token != ref.token


def held_bundle() -> panel_computations.BundleRef | None:
    return panel_computations._opened.ref


def test_results_for_a_deleted_owner_are_dropped(
    qtbot: QtBot, process: PanelProcess, tmp_path: Path
) -> None:
    owner = QObject()
    runner = ProcessRunner(process, owner)
    delivered: list[object] = []
    go = tmp_path / "go"
    runner.run(partial(wait_for_file, str(go)), delivered.append)
    assert runner.busy
    owner.deleteLater()
    qtbot.waitUntil(lambda: not _alive(runner), timeout=HANG_GUARD_MS)
    go.touch()
    run_and_wait(qtbot, process, partial(os.getpid))  # runs after the first job
    qtbot.wait(50)
    assert delivered == [] and not process.busy


def _alive(qobject: QObject) -> bool:
    import shiboken6

    return shiboken6.isValid(qobject)


APP_THAT_GETS_KILLED = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from workbench.gui import panel_computations

if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(1, mp_context=context, initializer=panel_computations.start_worker)
    print(pool.submit(os.getpid).result(), flush=True)
    time.sleep(120)
"""


def test_a_killed_app_leaves_no_worker_behind(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    script = tmp_path / "app.py"
    script.write_text(APP_THAT_GETS_KILLED)
    app = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert app.stdout is not None
        worker = int(app.stdout.readline())
        os.kill(worker, 0)  # running
        app.kill()  # no shutdown, no atexit: as a crash
        app.wait()
        deadline = time.monotonic() + HANG_GUARD_SECONDS  # the worker notices and exits
        while time.monotonic() < deadline:
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.kill(worker, signal.SIGKILL)
            pytest.fail("the worker outlived the app it worked for")
    finally:
        if app.poll() is None:
            app.kill()
