"""The one job manager of the GUI: every piece of background work is a :class:`Job` of one
:class:`JobManager`, so one place knows what is running, shows its progress, can cancel it and
keeps its outcome (after Vorta's ``JobsManager``). The work the user starts (an import, an
export, a report, a judge run, a backup or a restore) is *listed*: shown in the Jobs window and
asked about when the window closes. The work the window does for itself (the item list's
queries, the pickers' reads, the watcher's polls, a vote and the next task read ahead, an image
decoded, a panel's computation in its worker process) is unlisted: it runs and ends by the same
rules, :meth:`JobManager.running` names it beside the listed work, and it can be cancelled
through its job, but it is not shown and is forgotten once it ended.

Work runs where it belongs. A function runs on the manager's threads: one that writes the
bundle (an import, a vote) waits for the writers started before it (SQLite serialises writers
anyway, and an import waits for the one before it rather than failing on a locked database);
one that only reads it (an export, a report, a backup, a query: SQLite gives each reader a
consistent snapshot beside a writer) starts at once, never behind a writer. Work given a
*group* with ``in_order`` (the annotation page's votes and reads ahead, the watcher's polls)
also runs one at a time in the order given, whatever its access. A coroutine runs on the
asyncio loop qasync shares with Qt (the judge, which waits on the network and needs no thread,
so it never holds up an export); a panel's computation runs in a worker process
(:mod:`workbench.gui.panel_process`), and its job only follows it (:meth:`JobManager.follow`).

Cancelling is cooperative: the work asks :meth:`JobControl.cancelled` (or registers a handler
with :meth:`JobControl.on_cancel`), and the services' own cancel callbacks are fed from it, so
a cancelled job stops between two steps and leaves the bundle as the service guarantees; a
queued job is taken off the queue and never starts.

A finished listed job keeps its outcome (result, or error with details) until the user clears
it; an unlisted one hands its outcome to its owner's callbacks (:meth:`JobManager.run`).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import CancelledError as FutureCancelledError
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, QThreadPool, Signal

from workbench.errors import WorkbenchError
from workbench.logging_setup import redact
from workbench.progress import Progress, WorkCancelledError

log = logging.getLogger(__name__)

#: the largest count a progress bar (a Qt int) holds: byte counts above it are scaled down
_MAX_COUNT = 2**31 - 1


class JobStatus(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)


class Access(enum.Enum):
    """What a thread job does to the bundle, which decides whether it waits for others."""

    #: writes it: waits for the writers started before it
    WRITE = "write"
    #: only reads it (and may write files elsewhere): starts at once
    READ = "read"


#: how many functions run at once on the manager's threads (long reads, queries, decodes; the
#: GUI thread and the panels' worker processes have their own)
WORKER_THREADS = 6


class JobCancelled(Exception):
    """Raised by work that stopped because it was asked to (see :meth:`JobControl.check`)."""


def _cancellation_types() -> tuple[type[BaseException], ...]:
    # the services stop with WorkCancelledError (an import's own error is one too)
    # (and a panel's worker ends a computation withdrawn from its queue with the executor's)
    return (JobCancelled, WorkCancelledError, asyncio.CancelledError, FutureCancelledError)


def describe_error(error: BaseException) -> tuple[str, str]:
    """(message, details) for the user: a WorkbenchError speaks for itself (an import's rejected
    rows are its details); anything else is logged and shown with its traceback one click away."""
    # start-up: the importers' base (and Pillow) loads only when a job failed
    from workbench.importers.base import ImportRejectedError

    # a judge's error can quote its endpoint's answer: secrets are masked as in the log
    if isinstance(error, ImportRejectedError):
        headline, _, details = str(error).partition("\n")
        problems = "\n".join(str(problem) for problem in error.problems)
        return redact(headline), redact(problems or details)
    if isinstance(error, WorkbenchError):
        return redact(str(error)), ""
    log.error("a job failed", exc_info=error)
    return (
        redact(f"{type(error).__name__}: {error}"),
        redact("".join(traceback.format_exception(error))),
    )


class JobControl:
    """What the work gets: report progress, ask whether it should stop. Safe from any thread."""

    def __init__(self, job: Job) -> None:
        self._job = job
        self._event = threading.Event()
        self._handlers: list[Callable[[], None]] = []

    def progress(self, done: int, total: int, text: str = "") -> None:
        """``total`` 0 means unknown (the bar is shown busy)."""
        while max(done, total) > _MAX_COUNT:  # the bytes of a large bundle's copy
            done, total = done // 1024, total // 1024
        # a RuntimeError: the job's window is gone, and the work is being cut short anyway
        with contextlib.suppress(RuntimeError):
            self._job._progressed.emit(done, total, text)

    def reporter(self, texts: Mapping[str, str]) -> Progress:
        """A service's progress callback (:data:`workbench.progress.Progress`) that shows each
        phase it reports with its text in ``texts`` (a phase not named keeps the last text)."""

        def report(phase: str, done: int, total: int) -> None:
            self.progress(done, total, texts.get(phase, ""))

        return report

    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`JobCancelled` if the job was asked to stop."""
        if self._event.is_set():
            raise JobCancelled()

    def on_cancel(self, handler: Callable[[], None]) -> None:
        """Call ``handler`` when Cancel is pressed (on the GUI thread, where Cancel is), or at
        once if it already was. Register from the GUI thread (a coroutine job) so that the
        handler always runs there."""
        self._handlers.append(handler)
        if self._event.is_set():
            handler()

    def _request(self) -> None:
        self._event.set()
        for handler in list(self._handlers):
            handler()


class Job(QObject):
    """One piece of work: its title, progress, status and outcome. Lives on the GUI thread."""

    changed = Signal()
    finished = Signal()  # succeeded, failed or cancelled: see status

    # from the worker; queued to the GUI thread, where the job lives
    _progressed = Signal(int, int, str)
    _ended = Signal(object, object)  # value, error
    _began = Signal()

    def __init__(
        self,
        title: str,
        kind: str,
        *,
        cancellable: bool = True,
        listed: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.title = title
        #: a generic name of the work ("Import", "Export"…), shown instead of the title while
        #: the window is in annotator mode, since a title may hold a file name
        self.kind = kind
        self.cancellable = cancellable
        #: work the user started, shown in the Jobs window (see the module's docstring)
        self.listed = listed
        self.status = JobStatus.QUEUED
        self.done = 0
        self.total = 0
        self.text = ""
        self.result: Any = None
        self.error = ""
        self.details = ""
        #: the error the work raised (a cancelled job's is :class:`JobCancelled`)
        self.exception: BaseException | None = None
        self.created = time.monotonic()
        self.control = JobControl(self)
        self.cancel_requested = False
        #: whether work that returns normally after Cancel stopped short (a judge run keeps what
        #: was answered) rather than finished (thread work returns only when all was done)
        self.stops_short = False
        self._task: asyncio.Task[Any] | None = None
        #: takes a queued job off its manager's queue; False once it started
        self._withdraw: Callable[[], bool] | None = None
        self._progressed.connect(self._apply_progress)
        self._ended.connect(self._end)
        self._began.connect(self.changed)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def cancel(self) -> None:
        """Ask the work to stop; a queued job is cancelled at once."""
        if not self.active or not self.cancellable or self.cancel_requested:
            return
        self.cancel_requested = True
        if self.status is JobStatus.QUEUED and (self._withdraw is None or self._withdraw()):
            self.control._event.set()
            self._finish(JobStatus.CANCELLED)
            return
        self.text = "Cancelling…"
        had_handlers = bool(self.control._handlers)
        self.control._request()
        if self._task is not None and not had_handlers:
            self._task.cancel()  # a coroutine with no handler of its own stops where it waits
        self.changed.emit()

    def set_outcome(self, text: str) -> None:
        """Say how a finished job ended, in the words of the dialog that started it."""
        if not self.active:
            self.text = text
            self.changed.emit()

    def report_ending(
        self,
        succeeded: Callable[[Any], None],
        cancelled: Callable[[], None],
        failed: Callable[[str, str], None],
        describe: Callable[[Any], str] | None = None,
    ) -> None:
        """Tell the dialog that started the finished job how it ended: ``succeeded(result)``
        (after ``describe(result)`` became the job's outcome), ``cancelled()``, or
        ``failed(error, details)``."""
        if self.status is JobStatus.SUCCEEDED:
            if describe is not None:
                self.set_outcome(describe(self.result))
            succeeded(self.result)
        elif self.status is JobStatus.CANCELLED:
            cancelled()
        else:
            failed(self.error, self.details)

    def end(self, value: Any, error: BaseException | None = None) -> None:
        """Record the outcome of work this job follows (see :meth:`JobManager.follow`); safe
        from any thread (queued to the GUI thread)."""
        # a RuntimeError: the job's window is gone with it
        with contextlib.suppress(RuntimeError):
            self._ended.emit(value, error)

    def _apply_progress(self, done: int, total: int, text: str) -> None:
        if not self.active:
            return
        self.done, self.total = done, total
        if text and not self.cancel_requested:
            self.text = text
        self.changed.emit()

    def _start(self) -> None:
        self.status = JobStatus.RUNNING
        if not self.text:
            self.text = "Running…"
        self.changed.emit()

    def _end(self, value: Any, error: BaseException | None) -> None:
        if not self.active:
            return
        if error is None:
            self.result = value
            # work that stops short on Cancel and returns what it did (the judge keeps what was
            # answered) ends as cancelled, with its result; work that returned because it was
            # done (Cancel came after its last step: the export is in place) succeeded
            stopped = self.cancel_requested and self.stops_short
            self._finish(JobStatus.CANCELLED if stopped else JobStatus.SUCCEEDED)
        elif isinstance(error, _cancellation_types()) or self.cancel_requested:
            # an error after Cancel is the stop (a panel's worker process ended under it)
            self.exception = JobCancelled("cancelled")
            self._finish(JobStatus.CANCELLED)
        else:
            self.exception = error
            if self.listed:
                self.error, self.details = describe_error(error)
            else:  # its owner's error handler says it (or logs it, see JobManager.run)
                self.error = redact(f"{type(error).__name__}: {error}")
            self._finish(JobStatus.FAILED)

    def _finish(self, status: JobStatus) -> None:
        self.status = status
        if status is JobStatus.CANCELLED and self.exception is None:
            self.exception = JobCancelled("cancelled")
        self.text = {
            JobStatus.SUCCEEDED: "Done.",
            JobStatus.FAILED: "Failed.",
            JobStatus.CANCELLED: "Cancelled.",
        }.get(status, self.text)
        self._task = None
        self.changed.emit()
        self.finished.emit()


class _Queued:
    """A thread job waiting for its turn: what decides when it may start."""

    __slots__ = ("access", "group", "in_order", "job", "work")

    def __init__(
        self,
        job: Job,
        work: Callable[[JobControl], Any],
        access: Access,
        group: object | None,
        in_order: bool,
    ) -> None:
        self.job, self.work, self.access = job, work, access
        self.group, self.in_order = group, in_order


def _callback_alive(callback: Callable[..., Any] | None) -> bool:
    """False when ``callback`` is a method of a Qt object whose C++ side is deleted."""
    owner = getattr(callback, "__self__", None)
    return not isinstance(owner, QObject) or shiboken6.isValid(owner)


class JobManager(QObject):
    """Owns every job of one window (or of the app, see :func:`jobs_for`)."""

    #: a listed job was added, started, finished or cleared
    jobsChanged = Signal()
    #: any listed job's progress or state changed (often: views redraw on a timer)
    jobUpdated = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: the threads every function job runs on
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(WORKER_THREADS)
        #: every job not forgotten, listed or not, oldest first (touched on the GUI thread)
        self._all: list[Job] = []
        # the queue, read and changed on the GUI thread and on the workers under this lock
        self._lock = threading.Condition()
        self._waiting: list[_Queued] = []
        self._writing = False
        self._groups_running: set[object] = set()
        #: function jobs not ended, per group (None: all of them), for :meth:`wait`
        self._unfinished: dict[object | None, int] = {}

    # --- reading --------------------------------------------------------------------------------

    def jobs(self) -> list[Job]:
        """Every listed job not cleared, oldest first."""
        return [job for job in self._all if job.listed]

    def active(self) -> list[Job]:
        """The listed jobs queued or running (what closing the window asks about)."""
        return [job for job in self._all if job.listed and job.active]

    def running(self) -> list[Job]:
        """Every job running now, listed or not: the one answer to "what is running"."""
        return [job for job in self._all if job.status is JobStatus.RUNNING]

    def queued(self) -> list[Job]:
        """Every job waiting for its turn, listed or not."""
        return [job for job in self._all if job.status is JobStatus.QUEUED]

    @property
    def busy(self) -> bool:
        return any(job.listed and job.active for job in self._all)

    # --- starting -------------------------------------------------------------------------------

    def submit(
        self,
        title: str,
        kind: str,
        work: Callable[[JobControl], Any],
        *,
        cancellable: bool = True,
        access: Access = Access.WRITE,
        listed: bool = True,
        group: object | None = None,
        in_order: bool = False,
    ) -> Job:
        """Run ``work(control)`` on a worker thread: a writer after the writers submitted
        before it, a reader (``access`` READ) at once; with ``in_order``, after the jobs of
        ``group`` submitted before it too."""
        job = self._add(title, kind, cancellable, listed)
        queued = _Queued(job, work, access, group, in_order)

        def withdraw() -> bool:
            with self._lock:
                if queued not in self._waiting:
                    return False
                self._waiting.remove(queued)
                self._ended_locked(queued, started=False)
            self._start_ready()  # the jobs of its group held behind it
            return True

        job._withdraw = withdraw
        with self._lock:
            self._waiting.append(queued)
            for key in (None, group) if group is not None else (None,):
                self._unfinished[key] = self._unfinished.get(key, 0) + 1
        self._start_ready()
        return job

    def run(
        self,
        kind: str,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
        *,
        title: str = "",
        access: Access = Access.READ,
        group: object | None = None,
        in_order: bool = False,
        owner: QObject | None = None,
    ) -> Job:
        """Run ``function()`` as an unlisted job, then ``on_result(value)`` or
        ``on_error(exception)`` on the GUI thread (a cancelled job's exception is
        :class:`JobCancelled`); dropped if ``owner`` or the callback's own object is deleted
        meanwhile."""
        job = self.submit(
            title or kind,
            kind,
            lambda _control: function(),
            access=access,
            listed=False,
            group=group,
            in_order=in_order,
        )
        self.deliver(job, on_result, on_error, owner=owner)
        return job

    def follow(self, title: str, kind: str) -> Job:
        """An unlisted job for work that runs elsewhere (a panel's worker process): it is
        running from now on, the caller ends it with :meth:`Job.end` and stops the work from a
        handler it gives :meth:`JobControl.on_cancel`."""
        job = self._add(title, kind, True, False)
        job._start()
        return job

    def deliver(
        self,
        job: Job,
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
        *,
        owner: QObject | None = None,
    ) -> None:
        """Call ``on_result`` or ``on_error`` when the unlisted ``job`` ends (see :meth:`run`)."""

        def alive(callback: Callable[..., Any]) -> bool:
            return (owner is None or shiboken6.isValid(owner)) and _callback_alive(callback)

        def ended() -> None:
            if job.status is JobStatus.SUCCEEDED:
                if alive(on_result):
                    on_result(job.result)
                else:
                    log.debug("dropped a %s result: its owner is gone", job.kind)
                return
            error = job.exception or JobCancelled("cancelled")
            if on_error is None:
                if job.status is JobStatus.FAILED:
                    log.error("%s failed", job.title, exc_info=error)
            elif alive(on_error):
                on_error(error)
            else:
                log.debug("dropped a %s error, its owner is gone: %r", job.kind, error)

        job.finished.connect(ended)

    def wait(self, timeout_ms: int, group: object | None = None) -> bool:
        """Block until the function jobs (of ``group``, or all) have run, queued ones
        included (their outcomes arrive through the event loop); False if some still run
        after ``timeout_ms``."""
        deadline = time.monotonic() + timeout_ms / 1000
        with self._lock:
            while self._unfinished.get(group, 0) > 0:
                left = deadline - time.monotonic()
                if left <= 0 or not self._lock.wait(left):
                    return self._unfinished.get(group, 0) == 0
        return True

    def submit_async(
        self,
        title: str,
        kind: str,
        work: Callable[[JobControl], Awaitable[Any]],
        *,
        cancellable: bool = True,
    ) -> Job:
        """Run the coroutine ``work(control)`` on the running asyncio loop, at once."""
        job = self._add(title, kind, cancellable, True)
        job.stops_short = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            job._end(None, WorkbenchError("the app's asyncio event loop is not running here"))
            return job

        async def guarded() -> None:
            try:
                value = await work(job.control)
            except BaseException as error:  # the job reports it; nothing is lost
                if shiboken6.isValid(job):
                    job._end(None, error)
                if not isinstance(error, Exception | asyncio.CancelledError):
                    raise
            else:
                if shiboken6.isValid(job):
                    job._end(value, None)

        job._start()
        job._task = loop.create_task(guarded())
        return job

    def _add(self, title: str, kind: str, cancellable: bool, listed: bool) -> Job:
        job = Job(title, kind, cancellable=cancellable, listed=listed, parent=self)
        self._all.append(job)
        if listed:
            job.finished.connect(self.jobsChanged)
            job.changed.connect(self.jobUpdated)
            self.jobsChanged.emit()
        else:  # forgotten once its outcome was delivered (connected after deliver's handler)
            job.finished.connect(lambda: self._drop(job), Qt.ConnectionType.QueuedConnection)
        return job

    def _drop(self, job: Job) -> None:
        if job in self._all:
            self._all.remove(job)
            job.deleteLater()

    def _start_ready(self) -> None:
        """Start every queued job whose turn it is (from the GUI thread or a worker)."""
        with self._lock:
            ready = self._ready_locked()
        for queued in ready:
            try:
                queued.job._began.emit()
                self.pool.start(self._task(queued))
            except RuntimeError:  # the manager was deleted with its window
                log.debug("dropped a queued job whose window is gone")

    def _ready_locked(self) -> list[_Queued]:
        ready: list[_Queued] = []
        held_groups = set(self._groups_running)
        writer_held = self._writing
        for queued in list(self._waiting):
            if queued.in_order and queued.group in held_groups:
                continue
            if queued.access is Access.WRITE and writer_held:
                # the writers after it wait too (in order), and so does its group
                if queued.in_order:
                    held_groups.add(queued.group)
                continue
            self._waiting.remove(queued)
            ready.append(queued)
            # set here, under the lock, so that Cancel knows it has started
            queued.job.status = JobStatus.RUNNING
            if not queued.job.text:
                queued.job.text = "Running…"
            if queued.in_order:
                held_groups.add(queued.group)
                self._groups_running.add(queued.group)
            if queued.access is Access.WRITE:
                writer_held = self._writing = True
        return ready

    def _ended_locked(self, queued: _Queued, *, started: bool) -> None:
        if started:
            if queued.in_order:
                self._groups_running.discard(queued.group)
            if queued.access is Access.WRITE:
                self._writing = False
        for key in (None, queued.group) if queued.group is not None else (None,):
            self._unfinished[key] -= 1
            if not self._unfinished[key]:
                del self._unfinished[key]
        self._lock.notify_all()

    def _task(self, queued: _Queued) -> Callable[[], None]:
        """What a worker thread runs: the work, then the next jobs started, then its outcome
        queued to the GUI thread."""
        ended, control, work = queued.job._ended, queued.job.control, queued.work

        def task() -> None:
            try:
                value = work(control)
            except BaseException as error:  # reported on the GUI thread, never lost
                outcome: tuple[Any, BaseException | None] = (None, error)
            else:
                outcome = (value, None)
            with self._lock:
                self._ended_locked(queued, started=True)
            # started from here, not from the GUI thread: wait() may be holding it
            self._start_ready()
            try:
                ended.emit(*outcome)
            except RuntimeError:  # the manager was deleted with its window
                log.debug("dropped the outcome of a job whose window is gone")

        return task

    # --- cancelling and clearing ----------------------------------------------------------------

    def cancel_all(self) -> None:
        """Cancel the listed jobs (the user's work; the window's own ends with it)."""
        # the queued ones first, so that none starts when the running one ends
        for job in sorted(self.active(), key=lambda job: job.status is JobStatus.RUNNING):
            job.cancel()

    def forget(self, job: Job) -> None:
        """Drop one finished job from the list (one that turned out to have done nothing)."""
        if job.active or job not in self._all:
            return
        self._all.remove(job)
        job.deleteLater()
        self.jobsChanged.emit()

    def clear_finished(self) -> None:
        """Forget the finished listed jobs (their outcomes were seen)."""
        finished = [job for job in self._all if job.listed and not job.active]
        if not finished:
            return
        self._all = [job for job in self._all if job not in finished]
        for job in finished:
            job.deleteLater()
        self.jobsChanged.emit()


def jobs_for(widget: QObject | None) -> JobManager:
    """The job manager of ``widget``'s window (the first ancestor with a ``jobs`` manager), or
    the application's own for a dialog that stands alone."""
    owner = widget
    while owner is not None:
        manager = getattr(owner, "jobs", None)
        if isinstance(manager, JobManager):
            return manager
        owner = owner.parent()
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("no QApplication: jobs run in the GUI only")
    manager = app.findChild(JobManager, "applicationJobs")
    if manager is None:
        manager = JobManager(app)
        manager.setObjectName("applicationJobs")
    return manager
