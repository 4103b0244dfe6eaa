"""The one job manager of the GUI: every long piece of work the user starts (an import, an
export, a report, a judge run, a backup or a restore) is a :class:`Job` of one
:class:`JobManager`, so one place knows what is running, shows its progress and can cancel it
(after Vorta's ``JobsManager``).

Work runs where it belongs: a function that writes the bundle on the manager's writer thread
(one writer at a time, in the order started: SQLite serialises writers anyway, and an import
waits for the one before it rather than failing on a locked database), a function that only
reads it (an export, a report, a backup: SQLite gives each reader a consistent snapshot beside
a writer) on the readers' threads at once, never behind a writer or another reader, or a
coroutine on the asyncio loop qasync shares with Qt (the judge, which waits on the network and
needs no thread, so it never holds up an export). Cancelling is cooperative: the work asks
:meth:`JobControl.cancelled` (or registers a handler with :meth:`JobControl.on_cancel`), and the
services' own cancel callbacks are fed from it, so a cancelled job stops between two steps and
leaves the bundle as the service guarantees.

A finished job keeps its outcome (result, or error with details) until the user clears it.
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
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QThreadPool, Signal

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


#: how many readers run at once (the machine's two cores; the GUI thread needs one too)
READER_THREADS = 2


class JobCancelled(Exception):
    """Raised by work that stopped because it was asked to (see :meth:`JobControl.check`)."""


def _cancellation_types() -> tuple[type[BaseException], ...]:
    # the services stop with WorkCancelledError (an import's own error is one too)
    return (JobCancelled, WorkCancelledError, asyncio.CancelledError)


def describe_error(error: BaseException) -> tuple[str, str]:
    """(message, details) for the user: a WorkbenchError speaks for itself (an import's rejected
    rows are its details); anything else is logged and shown with its traceback one click away."""
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

    def __init__(
        self,
        title: str,
        kind: str,
        *,
        cancellable: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.title = title
        #: a generic name of the work ("Import", "Export"…), shown instead of the title while
        #: the window is in annotator mode, since a title may hold a file name
        self.kind = kind
        self.cancellable = cancellable
        self.status = JobStatus.QUEUED
        self.done = 0
        self.total = 0
        self.text = ""
        self.result: Any = None
        self.error = ""
        self.details = ""
        self.created = time.monotonic()
        self.control = JobControl(self)
        self.cancel_requested = False
        #: whether work that returns normally after Cancel stopped short (a judge run keeps what
        #: was answered) rather than finished (thread work returns only when all was done)
        self.stops_short = False
        self._task: asyncio.Task[Any] | None = None
        self._progressed.connect(self._apply_progress)
        self._ended.connect(self._end)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def cancel(self) -> None:
        """Ask the work to stop; a queued job is cancelled at once."""
        if not self.active or not self.cancellable or self.cancel_requested:
            return
        self.cancel_requested = True
        if self.status is JobStatus.QUEUED:
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
        elif isinstance(error, _cancellation_types()):
            self._finish(JobStatus.CANCELLED)
        else:
            self.error, self.details = describe_error(error)
            self._finish(JobStatus.FAILED)

    def _finish(self, status: JobStatus) -> None:
        self.status = status
        self.text = {
            JobStatus.SUCCEEDED: "Done.",
            JobStatus.FAILED: "Failed.",
            JobStatus.CANCELLED: "Cancelled.",
        }.get(status, self.text)
        self._task = None
        self.changed.emit()
        self.finished.emit()


class JobManager(QObject):
    """Owns every job of one window (or of the app, see :func:`jobs_for`)."""

    #: a job was added, started, finished or cleared
    jobsChanged = Signal()
    #: any job's progress or state changed (often: views redraw on a timer)
    jobUpdated = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: the writers' thread (one job at a time)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        #: the readers' threads
        self.readers = QThreadPool(self)
        self.readers.setMaxThreadCount(READER_THREADS)
        self._jobs: list[Job] = []
        #: thread jobs waiting for the worker, with their work
        self._waiting: list[tuple[Job, Callable[[JobControl], Any]]] = []
        self._thread_job: Job | None = None

    # --- reading --------------------------------------------------------------------------------

    def jobs(self) -> list[Job]:
        """Every job not cleared, oldest first."""
        return list(self._jobs)

    def active(self) -> list[Job]:
        return [job for job in self._jobs if job.active]

    def running(self) -> list[Job]:
        return [job for job in self._jobs if job.status is JobStatus.RUNNING]

    @property
    def busy(self) -> bool:
        return any(job.active for job in self._jobs)

    # --- starting -------------------------------------------------------------------------------

    def submit(
        self,
        title: str,
        kind: str,
        work: Callable[[JobControl], Any],
        *,
        cancellable: bool = True,
        access: Access = Access.WRITE,
    ) -> Job:
        """Run ``work(control)`` on a worker thread: a writer after the writers started
        before it, a reader (``access`` READ) at once."""
        job = self._add(title, kind, cancellable)
        if access is Access.READ:
            job._start()
            self.readers.start(self._task(job, work))
            return job
        self._waiting.append((job, work))
        job.finished.connect(self._start_next)
        self._start_next()
        return job

    def wait(self, timeout_ms: int) -> bool:
        """Block until the thread jobs have run (their outcomes arrive through the event
        loop); False if some still run after ``timeout_ms`` each."""
        return self.pool.waitForDone(timeout_ms) and self.readers.waitForDone(timeout_ms)

    def submit_async(
        self,
        title: str,
        kind: str,
        work: Callable[[JobControl], Awaitable[Any]],
        *,
        cancellable: bool = True,
    ) -> Job:
        """Run the coroutine ``work(control)`` on the running asyncio loop, at once."""
        job = self._add(title, kind, cancellable)
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

    def _add(self, title: str, kind: str, cancellable: bool) -> Job:
        job = Job(title, kind, cancellable=cancellable, parent=self)
        self._jobs.append(job)
        job.finished.connect(self.jobsChanged)
        job.changed.connect(self.jobUpdated)
        self.jobsChanged.emit()
        return job

    def _start_next(self) -> None:
        if self._thread_job is not None and self._thread_job.active:
            return
        self._thread_job = None
        while self._waiting:
            job, work = self._waiting.pop(0)
            if job.active:  # a queued job cancelled meanwhile is skipped
                break
        else:
            return
        self._thread_job = job
        job._start()
        self.jobsChanged.emit()
        self.pool.start(self._task(job, work))

    @staticmethod
    def _task(job: Job, work: Callable[[JobControl], Any]) -> Callable[[], None]:
        """What a worker thread runs: the work, then its outcome queued to the GUI thread."""
        ended, control = job._ended, job.control

        def task() -> None:
            try:
                value = work(control)
            except BaseException as error:  # reported on the GUI thread, never lost
                outcome: tuple[Any, BaseException | None] = (None, error)
            else:
                outcome = (value, None)
            try:
                ended.emit(*outcome)
            except RuntimeError:  # the manager was deleted with its window
                log.debug("dropped the outcome of a job whose window is gone")

        return task

    # --- cancelling and clearing ----------------------------------------------------------------

    def cancel_all(self) -> None:
        # the queued ones first, so that none starts when the running one ends
        for job in sorted(self.active(), key=lambda job: job.status is JobStatus.RUNNING):
            job.cancel()

    def forget(self, job: Job) -> None:
        """Drop one finished job from the list (one that turned out to have done nothing)."""
        if job.active or job not in self._jobs:
            return
        self._jobs.remove(job)
        job.deleteLater()
        self.jobsChanged.emit()

    def clear_finished(self) -> None:
        """Forget the finished jobs (their outcomes were seen)."""
        finished = [job for job in self._jobs if not job.active]
        if not finished:
            return
        self._jobs = [job for job in self._jobs if job.active]
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
