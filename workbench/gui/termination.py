"""How the app ends: promptly once its last window has closed, and as its user would end it
when the system asks (SIGTERM: a logout, ``kill``, a service manager; SIGHUP: the terminal it
was started from closed): running jobs are cancelled, every window closes and the process exits,
instead of dying where it stands with an export half-written in a temporary file.

Once the last window has closed, its layout and settings are saved, its jobs have stopped (a
window with jobs running closes only once they have: see ``MainWindow.closeEvent``) and its
bundle is closed. What may still run then only reads: an item list's query, the judge stack's
import, a decode of the next image. Waiting for them (Qt's thread pools wait for every task
when they are destroyed, and Python joins its threads) kept the process alive for seconds, 22
to 46 s after a busy session; :func:`exit_process` ends it instead, after the exit handlers
(the log's last lines, the panel workers) have run.

Python runs a signal handler only when the interpreter next gets control, which Qt's event
loop may not give it for a long time; so the signal is only noted, and written by Python to a
socket (``signal.set_wakeup_fd``) whose readiness wakes the event loop, which then closes the
windows on the GUI thread.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from types import FrameType
from typing import NoReturn

from PySide6 import QtCore
from PySide6.QtCore import QSocketNotifier
from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)

#: the signals that ask the app to end
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _noted(_number: int, _frame: FrameType | None) -> None:
    """The Python-level handler: doing nothing here keeps the default action (die at once)
    from being taken; the wake-up socket carries the signal to the event loop."""


def close_on_termination(app: QApplication) -> QSocketNotifier | None:
    """Close the app's windows, cancelling their jobs, when an ending signal arrives. Returns
    the notifier that watches for it (kept by the app), or None off the main thread, where
    Python does not allow signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        return None
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    for number in ENDING_SIGNALS:
        signal.signal(number, _noted)
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, app)

    def woken() -> None:
        received = b""
        with contextlib.suppress(BlockingIOError):
            received = reader.recv(256)
        if any(byte in ENDING_SIGNALS for byte in received):
            log.info("asked to end (signal); cancelling the running jobs and closing")
            close_every_window(app)

    notifier.activated.connect(woken)
    _wakeup_sockets.append((reader, writer))  # open as long as the process: Python writes one
    return notifier


_wakeup_sockets: list[tuple[socket.socket, socket.socket]] = []


def close_every_window(app: QApplication) -> None:
    """Close each top-level window as a user who confirmed closing would: a main window with
    jobs running cancels them and closes once they stopped; any other window closes now."""
    # start-up: the annotator's process never loads the main window (about 130 of our modules)
    from workbench.gui.main_window import MainWindow

    for widget in app.topLevelWidgets():
        if not widget.isWindow() or not widget.isVisible():
            continue
        if isinstance(widget, MainWindow):
            widget.close_cancelling_jobs()
        elif widget.parentWidget() is None:
            widget.close()


def exit_process(status: int) -> NoReturn:
    """End the process with ``status`` now that the last window has closed: run the exit
    handlers, flush the standard streams, and leave without waiting for background readers."""
    log.info("the last window closed; exiting with status %d", status)
    _leave_qt_standing()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def _leave_qt_standing() -> None:
    """Take PySide's own exit handler out of the exit handlers: it destroys the application
    and every object under it, and each thread pool destroyed waits for its tasks (an item
    query's first import of pandas: seconds on a loaded machine), while a task that ends
    meanwhile emits to an object already deleted ("Signal source has been deleted", or a
    crash). The process ends next and nothing of that teardown is kept: settings were saved
    and the bundle closed when the window closed."""
    teardown = getattr(QtCore, "__moduleShutdown", None)
    if teardown is not None:
        atexit.unregister(teardown)
