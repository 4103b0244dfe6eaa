"""The one shape of the progress and cancel callbacks that long services take (an import, a
report, an export, a backup, a restore, a new campaign), so the CLI, the tests and the GUI's job
manager feed them all the same way, and one error that says the work stopped on request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from workbench.errors import WorkbenchError

#: progress(phase, done, total); total is 0 when unknown
Progress = Callable[[str, int, int], None]
#: asked between two steps; True stops the work there
CancelRequested = Callable[[], bool]


class WorkCancelledError(WorkbenchError):
    """The work stopped because it was asked to; its message says what was left as it was."""


def no_progress(_phase: str, _done: int, _total: int) -> None:
    return None


def never_cancelled() -> bool:
    return False


@dataclass(frozen=True)
class Steps:
    """A service's progress and cancel callbacks together: ``steps(phase, done, total)`` reports
    progress and raises :class:`WorkCancelledError` (with ``cancelled``, what the service
    guarantees was left unchanged) if the caller asked to stop."""

    progress: Progress = no_progress
    cancel_requested: CancelRequested = never_cancelled
    cancelled: str = "cancelled; nothing was changed"

    def __call__(self, phase: str, done: int, total: int) -> None:
        self.progress(phase, done, total)
        self.check()

    def check(self) -> None:
        if self.cancel_requested():
            raise WorkCancelledError(self.cancelled)
