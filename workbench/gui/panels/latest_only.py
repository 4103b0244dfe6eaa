"""Run one background computation at a time and keep only the latest request waiting, so a
panel refreshed many times a second never queues up work nor blocks the event loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from workbench.gui.jobs import JobCancelled

Task = tuple[Callable[[], Any], Callable[[Any], None], Callable[[BaseException], None]]


class Runner(Protocol):
    """Runs ``function`` elsewhere and calls back on the GUI thread: as a job on the window's
    threads (:class:`~workbench.gui.background.BackgroundRunner`) or in the panels' worker
    process (:class:`~workbench.gui.panel_process.ProcessRunner`, picklable functions only);
    what it returns (the job) is not used here."""

    def run(
        self,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> object: ...


class LatestOnly(QObject):
    """Submits work to a :class:`Runner`; while one task runs, a newer request replaces
    any older one still waiting. Every finished result is delivered (so the panel shows the most
    recent finished answer), unless :meth:`forget` was called since it started."""

    busyChanged = Signal(bool)
    #: a request was submitted (every time, busy or not: a panel's "Computing…" line restarts)
    submitted = Signal()

    def __init__(self, runner: Runner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._running = False
        self._pending: Task | None = None
        self._epoch = 0

    @property
    def busy(self) -> bool:
        return self._running or self._pending is not None

    def submit(
        self,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None],
    ) -> None:
        was_busy = self.busy
        self._pending = (function, on_result, on_error)
        if not self._running:
            self._start()
        if not was_busy:
            self.busyChanged.emit(True)
        self.submitted.emit()

    def forget(self) -> None:
        """Drop the waiting request and the answer of the running one (the bundle changed)."""
        self._epoch += 1
        self._pending = None
        if not self._running:
            self.busyChanged.emit(False)

    def _start(self) -> None:
        assert self._pending is not None
        function, on_result, on_error = self._pending
        self._pending = None
        self._running = True
        epoch = self._epoch

        def finish(deliver: Callable[[], None]) -> None:
            self._running = False
            if epoch == self._epoch:
                deliver()
            if self._pending is not None:
                self._start()
            elif not self._running:
                self.busyChanged.emit(False)

        def failed(error: BaseException) -> None:
            # a cancelled computation (its job, or its worker stopped) leaves the panel as it was
            if not isinstance(error, JobCancelled):
                on_error(error)

        self.runner.run(
            function,
            lambda value: finish(lambda: on_result(value)),
            lambda error: finish(lambda: failed(error)),
        )
