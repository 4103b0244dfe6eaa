"""One owner's door to its window's :class:`~workbench.gui.jobs.JobManager` for the work it does
for itself: run a function as an unlisted job and get its result back on the GUI thread.

Queries that can take longer than a frame (a search over every output, sorting 100,000 items by
a count), the pickers' reads, the watcher's polls, a vote and the next task read ahead go
through a :class:`BackgroundRunner`, so the event loop is never blocked by them and the window's
manager lists them with the rest of its jobs. The runner has no threads of its own: it is a
group of the manager's jobs, run one at a time in order when asked (``in_order``), that its
owner can wait for and ask whether it is busy.

A result can arrive after its owner is gone (a dialog closed while its query ran, a test's window
deleted before the manager's threads finished): it is then dropped, because calling into a
deleted widget raises ``RuntimeError`` on the GUI thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from workbench.gui.jobs import Access, Job, JobManager, jobs_for

log = logging.getLogger(__name__)

#: how long :meth:`BackgroundRunner.wait` waits by default
WAIT_MS = 30_000


class JobGroup(QObject):
    """The jobs one owner has started and not seen end: ``busy`` while there are any, with
    ``busyChanged`` when that changes (the owner shows "Computing…" or a spinner by it)."""

    busyChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._jobs: set[Job] = set()

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    def _track(self, job: Job) -> None:
        was_busy = self.busy
        self._jobs.add(job)

        def ended() -> None:
            self._jobs.discard(job)
            if shiboken6.isValid(self) and not self.busy:
                self.busyChanged.emit(False)

        # after the manager's delivery: busy stays true while the owner takes the result
        job.finished.connect(ended)
        if not was_busy:
            self.busyChanged.emit(True)


class BackgroundRunner(JobGroup):
    """Runs callables as unlisted jobs of its window's manager and reports how many of them
    have not ended."""

    def __init__(
        self, parent: QObject | None = None, *, in_order: bool = False, kind: str = "Read"
    ) -> None:
        super().__init__(parent)
        #: one job at a time, in the order given (a vote before the read that follows it)
        self.in_order = in_order
        #: the jobs' generic name in :meth:`JobManager.running` ("Read", "Poll"…)
        self.kind = kind
        self._manager: JobManager | None = None

    @property
    def manager(self) -> JobManager:
        """The manager of this runner's window (found once: a runner does not change window)."""
        if self._manager is None or not shiboken6.isValid(self._manager):
            self._manager = jobs_for(self)
        return self._manager

    def run(
        self,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
        *,
        access: Access = Access.READ,
        kind: str = "",
        title: str = "",
    ) -> Job:
        """Call ``function()`` on one of the manager's threads (after the writers before it if
        ``access`` is WRITE), then ``on_result(value)`` or ``on_error(exception)`` on the GUI
        thread (``on_error`` gets :class:`~workbench.gui.jobs.JobCancelled` if the job was
        cancelled)."""
        job = self.manager.run(
            kind or self.kind,
            function,
            on_result,
            on_error,
            title=title,
            access=access,
            group=self,
            in_order=self.in_order,
            owner=self,
        )
        self._track(job)
        return job

    def wait(self, timeout_ms: int = WAIT_MS) -> bool:
        """Block until every job of this runner has run, queued ones included (their results
        are delivered by the event loop)."""
        return self.manager.wait(timeout_ms, group=self)
