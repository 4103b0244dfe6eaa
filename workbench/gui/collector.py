"""When the garbage collector scans everything: while the user is idle, not at a random moment.

A full collection walks every object the process holds. In the app (Qt, SQLAlchemy, the judge's
HTTP stack, pandas once a panel has loaded it: about 300,000 objects) one takes 150-600 ms with
the interpreter lock held, so wherever it falls, on the GUI thread or on a worker, the window
and the judge's requests (on the same event loop) stop that long. CPython starts one by itself
once the objects that survived younger collections grow by a quarter, which in a session that
loads a panel or a judge run happens at some point the user cannot choose.

So the app turns off only the automatic *full* collections (the third generation's threshold is
set out of reach; the young generations are collected as usual, in a few milliseconds) and runs
the full collection itself after the user has left the keyboard and mouse alone for a while
and no job of the app is running or queued.
Unreachable cycles that reached the oldest generation wait for that moment instead of being
freed at a random one. An annotator who votes without a 10 s pause for an hour never gives one,
so a backstop still collects once the young generations have been collected
:data:`BUSY_BACKSTOP_COLLECTIONS` times (several million allocations; far rarer than CPython's own
rule, so at most an occasional pause in a long busy session, and memory stays bounded).

This replaces ``gc.freeze()`` at start-up, which left every frozen cycle unfreed for the whole
process and froze again with every bundle opened.
"""

from __future__ import annotations

import gc
import logging
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QWindow
from PySide6.QtWidgets import QApplication

from workbench.gui import tweaks
from workbench.gui.jobs import JobManager

log = logging.getLogger(__name__)

#: the oldest generation's threshold: never reached, so CPython never starts a full collection
NO_AUTOMATIC_FULL_COLLECTION = 2**31 - 1
#: how long without input before the user counts as away
IDLE_AFTER_S = 10.0
#: how often to look
CHECK_EVERY_MS = 5_000
#: young collections since the last full one before a full one is worth its pause
MIN_YOUNG_COLLECTIONS = 10
#: young collections since the last full one after which a busy user gets it anyway
BUSY_BACKSTOP_COLLECTIONS = 500

_INPUT_EVENTS = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseMove,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
    }
)


class IdleCollector(QObject):
    """Notes the last input event of the application's windows, and runs a full collection
    once the user has been idle for :data:`IDLE_AFTER_S` and the young generations have been
    collected :data:`MIN_YOUNG_COLLECTIONS` times since the last one."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.last_input = time.monotonic()
        self.full_collections = 0
        young, middle, _oldest = gc.get_threshold()
        gc.set_threshold(young, middle, NO_AUTOMATIC_FULL_COLLECTION)
        # Input reaches a window before its widgets. Watching the windows (not the application,
        # whose filter would see every event of every object: about a thousand per task
        # shown, 5 ms of Python) sees the input at a few events per repaint.
        app.focusWindowChanged.connect(self.watch)
        self.watch(app.focusWindow())
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_EVERY_MS)
        self.timer.timeout.connect(self.collect_if_idle)
        self.timer.start()

    def watch(self, window: QWindow | None) -> None:
        """Count the input of ``window`` (each window as it gets the focus; installing the
        filter again on a window only moves it to the front)."""
        if window is not None:
            window.installEventFilter(self)

    def work_pending(self) -> bool:
        """Whether any job of the app or of one of its windows is running or queued (a panel's
        computation, a query, an import...)."""
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return False
        managers = app.findChildren(JobManager)
        for widget in app.topLevelWidgets():
            managers += widget.findChildren(JobManager)
        return any(manager.running() or manager.queued() for manager in managers)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _INPUT_EVENTS:
            self.last_input = time.monotonic()
        return False

    def collect_if_idle(self) -> bool:
        """Run the full collection if the user is away and there is something to collect, or
        if so much has been allocated since the last one that waiting longer would let memory
        grow; whether it ran."""
        pending = gc.get_count()[2]
        # a user who gives no input while a panel computes or a query runs is waiting for it,
        # not away: a full collection then stalled the result's redraw by its whole length
        busy = time.monotonic() - self.last_input < IDLE_AFTER_S or self.work_pending()
        if busy and pending < BUSY_BACKSTOP_COLLECTIONS:
            return False
        if pending < MIN_YOUNG_COLLECTIONS:
            return False
        started = time.perf_counter()
        found = gc.collect()
        self.full_collections += 1
        log.debug(
            "idle full collection: %d unreachable, %.0f ms",
            found,
            (time.perf_counter() - started) * 1000,
        )
        return True


def install_idle_collector(app: QApplication) -> IdleCollector | None:
    """Move the app's full collections to idle moments (once per application; None, and
    CPython's own rule kept, where the tweak is turned off)."""
    if not tweaks.enabled(tweaks.IDLE_COLLECTION):
        return None
    existing = app.findChild(IdleCollector)
    if isinstance(existing, IdleCollector):
        return existing
    return IdleCollector(app)
