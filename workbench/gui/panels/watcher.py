"""Notices new judgments in the open bundle (votes cast by this or another annotator, verdicts
returned, imports) by polling a cheap fingerprint, so the panels refresh live.

Polls run on a worker thread, one at a time: the next is scheduled only when the last has
answered, so a slow server never piles them up. A bundle file is polled every 400 ms; a server
bundle every 2 s, since each poll is a network round trip there. A failed poll (a server gone,
a file locked for long) is reported once through ``pollFailed`` and retried at the same pace.

The fingerprint changes are measured against is read by the first poll, on the worker too:
counting a store is a scan of one of its indexes, a noticeable pause at ten million judgments,
never taken on the GUI thread when a bundle opens. Whoever reads the judgments after the open
(the panels) starts from :meth:`JudgmentWatcher.set_bundle`'s ``then``, called once that first
fingerprint is read, so a change made before their read is never mistaken for the baseline.

A vote cast in this process need not wait for the next poll: :meth:`poll_now` polls at once
(after the running poll, if any), so the panels refresh as soon as the vote is committed and
the fingerprint then already includes it, so the regular poll finds no second change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.gui.background import BackgroundRunner
from workbench.gui.jobs import JobCancelled
from workbench.services.judgment_activity import judgment_activity
from workbench.storage import Bundle

log = logging.getLogger(__name__)

POLL_INTERVAL_MS = 400
SERVER_POLL_INTERVAL_MS = 2000
#: how much of a failure's message the status bar shows
MESSAGE_LENGTH = 160


def poll_interval_ms(bundle: Bundle) -> int:
    return SERVER_POLL_INTERVAL_MS if getattr(bundle, "is_server", False) else POLL_INTERVAL_MS


def short_message(error: BaseException) -> str:
    """The first line of an error's message, cut to fit a status bar."""
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else type(error).__name__
    return first if len(first) <= MESSAGE_LENGTH else first[: MESSAGE_LENGTH - 1] + "…"


class JudgmentWatcher(QObject):
    """Emits ``judgmentsChanged`` when the bundle's judgment fingerprint changes,
    ``pollFailed(message)`` when polling starts failing and ``pollRecovered`` when it works
    again."""

    judgmentsChanged = Signal()
    pollFailed = Signal(str)
    pollRecovered = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bundle: Bundle | None = None
        self.failing = False
        self.polls = 0  # answered polls, successful or not (for tests and diagnostics)
        self._fingerprint: tuple[int, ...] | None = None
        #: whether the first poll of the bundle, which reads the baseline, is still due
        self._baseline_due = False
        #: what runs once the first fingerprint of the bundle is read (or could not be)
        self._then: Callable[[], None] | None = None
        #: a poll was asked for while one ran: poll again as soon as it answers
        self._again = False
        # Stale answers (from a bundle since replaced) are recognised by their generation.
        self._generation = 0
        self.runner = BackgroundRunner(self, in_order=True, kind="Poll")
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(POLL_INTERVAL_MS)
        self.timer.timeout.connect(self.poll)

    @property
    def polling(self) -> bool:
        return self.runner.busy

    @property
    def reading_baseline(self) -> bool:
        """Whether the first fingerprint of the bundle is still being read (``then`` due)."""
        return self._baseline_due

    def set_bundle(self, bundle: Bundle | None, then: Callable[[], None] | None = None) -> None:
        """Watch ``bundle`` (None: stop). Waits for a poll of the previous bundle to end, so
        the caller may close that bundle afterwards. The first poll, at once on the worker,
        reads the fingerprint later ones are compared with; ``then`` is called when it has
        answered (or failed), for readers that must not start before it."""
        self._generation += 1
        self.timer.stop()
        self.runner.wait()
        self.bundle = bundle
        self.failing = False
        self._again = False
        self._fingerprint = None
        self._baseline_due = bundle is not None
        self._then = then if bundle is not None else None
        if bundle is not None:
            self.timer.setInterval(poll_interval_ms(bundle))
            self.poll()

    def poll(self) -> None:
        """Start one poll on the worker, unless one is still running."""
        bundle = self.bundle
        if bundle is None or self.runner.busy:
            return
        generation = self._generation
        self.runner.run(
            lambda: judgment_activity(bundle),
            lambda fingerprint: self._answered(generation, fingerprint),
            lambda error: self._failed(generation, error),
        )

    def poll_now(self) -> None:
        """Poll without waiting for the timer (judgments were just written in this process);
        if a poll is running, it may have read before the write, so poll once more after it."""
        if self.bundle is None:
            return
        if self.runner.busy:
            self._again = True
            return
        self.timer.stop()
        self.poll()

    def _answered(self, generation: int, fingerprint: tuple[int, ...]) -> None:
        if generation != self._generation:
            return
        self.polls += 1
        if self.failing:
            self.failing = False
            log.info("the bundle answers again")
            self.pollRecovered.emit()
        if self._baseline_due:
            self._fingerprint = fingerprint  # the baseline: the readers start after it
            self._started()
        elif fingerprint != self._fingerprint:
            # (a baseline that could not be read counts any later answer as a change)
            self._fingerprint = fingerprint
            self.judgmentsChanged.emit()
        self._schedule()

    def _started(self) -> None:
        self._baseline_due = False
        then, self._then = self._then, None
        if then is not None:
            then()

    def _failed(self, generation: int, error: BaseException) -> None:
        if generation != self._generation:
            return
        if isinstance(error, JobCancelled):  # stopped, not out of reach: the next one is due
            self._schedule()
            return
        self.polls += 1
        if not self.failing:
            # once per outage: a server that stays down must not fill the log every 2 s
            self.failing = True
            log.warning("cannot read the bundle's judgment counts; retrying", exc_info=error)
            self.pollFailed.emit(short_message(error))
        else:
            log.debug("poll failed again: %s", short_message(error))
        self._started()  # the readers try on their own, and say why they cannot read
        self._schedule()

    def _schedule(self) -> None:
        if self.bundle is None:
            return
        if self._again:
            self._again = False
            # from the event loop: the runner counts as busy until this answer's callback ends
            QTimer.singleShot(0, self, self.poll)
        else:
            self.timer.start()
