"""The analysis panels' worker process: one long-lived process (``spawn``, so it shares no
lock, thread or Qt state with the app) that runs the panels' statistics, graphs and figure
drawing, and hands results back to the GUI thread.

Why a process and not threads: the panels' work is Python-heavy (SQLAlchemy, pandas, scipy,
matplotlib) and holds the interpreter lock for long stretches; on a thread the GUI thread waited
for that lock, and the event loop stalled for 150-280 ms while only 2-50 ms of it was the GUI's
own work (docs/PERFORMANCE.md, "Event-loop stalls"). In a process that work has its own
interpreter lock; the GUI process only pickles a computation's switches and unpickles a compact
result (tables of a few hundred rows, pixels).

A panel reaches its worker through a :class:`ProcessRunner`, which has
:class:`~workbench.gui.background.BackgroundRunner`'s ``run`` and ``busy`` (so
:class:`~workbench.gui.panels.latest_only.LatestOnly` drives either) and makes each computation
a job of the window's :class:`~workbench.gui.jobs.JobManager`, listed by its ``running()`` and
cancelled through it. Computations must be picklable (the functions of
:mod:`workbench.gui.panel_computations`, bound with :func:`functools.partial`). The process
starts on first use (after the window's first paint: no panel computes before a bundle is open)
and is shared by every window of the app (one per lane: the docks use two); it is shut down
when the application quits (and at interpreter exit, so tests leave no process behind).
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Signal

from workbench.gui import panel_computations
from workbench.gui.background import JobGroup
from workbench.gui.jobs import Job, JobCancelled, jobs_for

log = logging.getLogger(__name__)

#: how long closing a bundle waits for the worker's running computation to end before going on
RELEASE_TIMEOUT_S = 30.0
#: how long stopping a worker waits for its process to end after being told to
STOP_TIMEOUT_S = 5.0


def _callback_alive(callback: Callable[..., Any] | None) -> bool:
    """False when ``callback`` is a method of a Qt object whose C++ side is deleted."""
    owner = getattr(callback, "__self__", None)
    return not isinstance(owner, QObject) or shiboken6.isValid(owner)


class _Relay(QObject):
    """Lives on the GUI thread; the executor's thread emits, Qt queues the call to it."""

    finished = Signal(object)


class PanelProcess(QObject):
    """One worker process running picklable computations in order, their results delivered
    on the GUI thread; state a computation keeps in the worker (the open bundle, the
    leaderboard's counts) is there for the next computation of the same process."""

    busyChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None, *, warm: bool = True) -> None:
        """``warm``: the worker's first job imports the panels' stacks (about 3 CPU s, see
        :func:`~workbench.gui.panel_computations.warm_up`); off, it only reports the worker's
        id, for a worker that is given no panel computation."""
        super().__init__(parent)
        self._first_job: Callable[[], int] = panel_computations.warm_up if warm else os.getpid
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._relays: set[_Relay] = set()
        #: the worker's process id once it answered (for tests and diagnostics)
        self.worker_pid: int | None = None
        #: processes started so far (a crashed worker is replaced on the next computation)
        self.starts = 0
        #: a computation may have opened a bundle in the worker since the last release
        self._may_hold_bundle = False

    @property
    def busy(self) -> bool:
        return bool(self._relays)

    @property
    def running(self) -> bool:
        return self._executor is not None

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                # spawn: a fork of a process running Qt and threads can deadlock in the child
                context = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(
                    max_workers=1, mp_context=context, initializer=panel_computations.start_worker
                )
                self.starts += 1
                # first in the queue: the stacks load while the GUI goes on
                self._executor.submit(self._first_job).add_done_callback(self._warmed)
            return self._executor

    def _warmed(self, future: Future[int]) -> None:
        if not future.cancelled() and future.exception() is None:
            self.worker_pid = future.result()

    def start(self) -> None:
        """Start the worker now (it starts on the first computation otherwise)."""
        self._pool()

    def run(
        self,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> Future[Any]:
        """Run the picklable ``function()`` in the worker, then ``on_result(value)`` or
        ``on_error(exception)`` on the GUI thread (dropped if their owner is deleted; a
        computation cancelled before it started, see :meth:`cancel`, ends with
        :class:`~concurrent.futures.CancelledError`)."""
        relay = _Relay()
        was_busy = self.busy
        self._relays.add(relay)
        pool: ProcessPoolExecutor | None = None  # the pool the computation went to, once known

        def finished(future: Future[Any]) -> None:
            self._relays.discard(relay)
            if shiboken6.isValid(relay):
                relay.deleteLater()
            error = future.exception() if not future.cancelled() else None
            if isinstance(error, BrokenProcessPool) and pool is not None:
                # only that pool: one started since (after a stop) is a new, sound worker
                self._forget_broken_pool(pool)
            if future.cancelled():
                error = CancelledError()
            try:
                if error is not None:
                    if on_error is None:
                        log.error("panel computation failed", exc_info=error)
                    elif _callback_alive(on_error):
                        on_error(error)
                elif _callback_alive(on_result):
                    on_result(future.result())
                else:
                    log.debug("dropped a panel result: its owner is gone")
            finally:
                if shiboken6.isValid(self) and not self.busy:
                    self.busyChanged.emit(False)

        relay.finished.connect(finished)
        self._may_hold_bundle = True
        try:
            pool = self._pool()
            future = pool.submit(function)
        except (BrokenProcessPool, RuntimeError) as error:
            # the worker died (killed, out of memory) or the pool is shut down: a new one next
            if pool is not None:
                self._forget_broken_pool(pool)
            pool = None  # forgotten here, so the callback does not forget it (or a new one) again
            future = Future()
            future.set_exception(error)
        if not was_busy:
            self.busyChanged.emit(True)
        # called on the executor's thread (or here, if already done): queued to the GUI thread
        future.add_done_callback(lambda done: relay.finished.emit(done))
        return future

    def cancel(self, future: Future[Any]) -> None:
        """Stop one computation: one still waiting never starts; the one running is stopped
        with the worker process (the executor cannot stop a running call otherwise), which
        drops the computations queued behind it too and the worker's kept state (a new process
        starts on the next computation)."""
        if future.done() or future.cancel():
            return
        with self._lock:
            running = self._executor
        if running is not None:
            log.info("stopping the panel worker to cancel the computation it runs")
            self.shutdown(finish_running=False)

    def _forget_broken_pool(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is not broken:
                return  # already forgotten (stopped, or replaced by a new worker)
            executor, self._executor = self._executor, None
        if executor is not None:
            log.warning("the panel worker process ended unexpectedly; a new one starts")
            executor.shutdown(wait=False, cancel_futures=True)

    def release_bundle(self) -> None:
        """Have the worker let go of the bundle it holds: the caller closes, replaces or
        deletes the bundle next. An idle worker closes it (a moment's work, waited for up to
        :data:`RELEASE_TIMEOUT_S`); a busy one is stopped with its computations, as a closing
        window stops it (:meth:`shutdown`): they only read the bundle that is going away, and
        waiting for a long count of cycles would hold the GUI thread."""
        with self._lock:
            executor = self._executor
        if executor is None or not self._may_hold_bundle:
            return
        self._may_hold_bundle = False
        if self.busy:
            log.info("stopping the busy panel worker: its bundle is being closed")
            self.shutdown(finish_running=False)
            return
        try:
            executor.submit(panel_computations.release).result(timeout=RELEASE_TIMEOUT_S)
        except Exception as error:  # a dead worker holds nothing
            log.warning("the panel worker did not release the bundle: %s", error)

    def shutdown(self, *, finish_running: bool = True) -> None:
        """Stop the worker: waiting computations are dropped; the running one is waited for, or,
        with ``finish_running`` off (the app quitting), stopped with its process. A panel
        computation only reads the bundle, so stopping it loses nothing, and a count of cycles on
        a large bundle would otherwise keep a closed app alive for tens of seconds."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            if not finish_running:
                # the executor has no public way to stop a running computation; its processes are
                # plain multiprocessing processes
                processes = list(getattr(executor, "_processes", {}).values())
                for process in processes:
                    process.terminate()
                for process in processes:  # reaped here: gone once this returns
                    process.join(STOP_TIMEOUT_S)
            # a stopped worker's executor is not waited for: its thread notices the ended
            # process in its own time (joining it took half a second on a busy machine)
            executor.shutdown(wait=finish_running, cancel_futures=True)
        self.worker_pid = None


class ProcessRunner(JobGroup):
    """One owner's door to a :class:`PanelProcess` (the shared worker outlives any window):
    each computation is an unlisted job of the owner's window's
    :class:`~workbench.gui.jobs.JobManager`, which lists it while it runs and cancels it through
    :meth:`PanelProcess.cancel`; results that arrive after the runner is deleted (its window
    closed) are dropped, as :class:`~workbench.gui.background.BackgroundRunner` drops them."""

    def __init__(self, process: PanelProcess, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.process = process

    def run(
        self,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> Job:
        name = getattr(getattr(function, "func", function), "__name__", "computation")
        manager = jobs_for(self)
        job = manager.follow(f"Panel: {name}", "Panel computation")
        manager.deliver(job, on_result, on_error, owner=self)
        self._track(job)
        future = self.process.run(function, job.end, lambda error: job.end(None, error))

        def cancel() -> None:
            self.process.cancel(future)
            # ended now: a stopped worker's executor tells its futures in its own time
            job.end(None, JobCancelled("cancelled"))

        job.control.on_cancel(cancel)
        return job


#: the app's workers by lane (see :func:`shared_panel_process`)
_shared: dict[str, PanelProcess] = {}


def shared_panel_process(lane: str) -> PanelProcess:
    """The app's panel worker for ``lane``, created on first call and shut down when the
    application quits. The docks use two lanes, so the leaderboard after a vote never waits
    behind a long count of cycles, and the two cores both work (docs/design.md)."""
    process = _shared.get(lane)
    if process is None or not shiboken6.isValid(process):
        process = _shared[lane] = PanelProcess()
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(shutdown_shared_panel_processes)
    return process


def shutdown_shared_panel_processes() -> None:
    """Stop the shared workers (if any), their running jobs too: called as the app quits, which
    should not wait for a panel nobody will see. A later job starts a new worker."""
    for process in list(_shared.values()):
        if shiboken6.isValid(process):
            process.shutdown(finish_running=False)


atexit.register(shutdown_shared_panel_processes)
