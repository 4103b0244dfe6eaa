"""Run a function on a worker thread and get its result back on the GUI thread.

Queries that can take longer than a frame (a search over every output, sorting 100,000 items by
a count) go through :class:`BackgroundRunner`, so the event loop is never blocked by them.

A result can arrive after its owner is gone (a dialog closed while its query ran, a test's window
deleted before the pool finished): it is then dropped, because calling into a deleted widget
raises ``RuntimeError`` on the GUI thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QThreadPool, Signal

log = logging.getLogger(__name__)


def _callback_alive(callback: Callable[..., Any] | None) -> bool:
    """False when ``callback`` is a method of a Qt object whose C++ side is deleted."""
    owner = getattr(callback, "__self__", None)
    return not isinstance(owner, QObject) or shiboken6.isValid(owner)


class _Relay(QObject):
    """Lives on the GUI thread; signals emitted from the worker are queued to it."""

    succeeded = Signal(object)
    failed = Signal(object)


class BackgroundRunner(QObject):
    """Runs callables on its own thread pool and reports how many are still running."""

    busyChanged = Signal(bool)

    def __init__(self, max_threads: int = 2, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self._relays: set[_Relay] = set()

    @property
    def busy(self) -> bool:
        return bool(self._relays)

    def run(
        self,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Call ``function()`` on a worker thread, then ``on_result(value)`` or
        ``on_error(exception)`` on the GUI thread."""
        relay = _Relay()
        was_busy = self.busy
        self._relays.add(relay)

        def alive() -> bool:
            """Whether the runner still exists; a result for a deleted one is dropped."""
            return shiboken6.isValid(self)

        def finish() -> None:
            self._relays.discard(relay)
            if shiboken6.isValid(relay):
                relay.deleteLater()
            if alive() and not self.busy:
                self.busyChanged.emit(False)

        def deliver(value: Any) -> None:
            try:
                if alive() and _callback_alive(on_result):
                    on_result(value)
                else:
                    log.debug("dropped a background result: its owner is gone")
            finally:
                finish()

        def fail(error: BaseException) -> None:
            try:
                if on_error is None:
                    log.error("background task failed", exc_info=error)
                elif alive() and _callback_alive(on_error):
                    on_error(error)
                else:
                    log.debug("dropped a background error, its owner is gone: %r", error)
            finally:
                finish()

        relay.succeeded.connect(deliver)
        relay.failed.connect(fail)

        def task() -> None:
            try:
                value = function()
            except BaseException as error:  # reported on the GUI thread, never lost
                relay.failed.emit(error)
            else:
                relay.succeeded.emit(value)

        self.pool.start(task)
        if not was_busy:
            self.busyChanged.emit(True)

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Block until every task has run (their results are delivered by the event loop)."""
        return self.pool.waitForDone(timeout_ms)
