"""The moment the item list first paints an item: the app starts its deferred work (the judge's
HTTP stack) from it, and, when ``WORKBENCH_FIRST_PAINT_REPORT`` names a file, records there
the time and the modules loaded so far (for bench/first_paint.py and the start-up test).

The report is JSON: ``{"time": <time.time() at the paint>, "cpu": <the process's CPU seconds
so far, user + system of every thread>, "gui_cpu": <the GUI thread's alone>, "modules":
[...]}``. With
``WORKBENCH_FIRST_PAINT_EXIT=1`` the process exits right after writing it, so a benchmark
times start-up alone."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QAbstractItemView

REPORT_VARIABLE = "WORKBENCH_FIRST_PAINT_REPORT"
EXIT_VARIABLE = "WORKBENCH_FIRST_PAINT_EXIT"


class _FirstItemPaint(QObject):
    """Watches ``view``'s viewport for the first paint with at least one row to draw."""

    def __init__(self, view: QAbstractItemView, callbacks: list[Callable[[float], None]]) -> None:
        super().__init__(view)
        self.view = view
        self.callbacks = callbacks
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The event's type first: a filter still installed when the window is torn down (a
        # bundle without items never paints a row) sees the view's Destroy event after the view
        # is gone, and touching the view then raises at interpreter exit, which crashed it.
        if event.type() != QEvent.Type.Paint:
            return False
        model = self.view.model()
        if model is not None and model.rowCount() > 0:
            painted_at = time.time()
            self.view.viewport().removeEventFilter(self)
            # after this paint has drawn its rows
            QTimer.singleShot(0, lambda: self._fire(painted_at))
        return False

    def _fire(self, painted_at: float) -> None:
        for callback in self.callbacks:
            callback(painted_at)


def write_report(path: str | Path, painted_at: float) -> None:
    """Record the paint time and the loaded modules in ``path`` (JSON)."""
    spent = os.times()
    report = {
        "time": painted_at,
        "cpu": spent.user + spent.system,
        "gui_cpu": time.thread_time(),  # the report is written on the GUI thread
        "modules": sorted(sys.modules),
    }
    Path(path).write_text(json.dumps(report), encoding="utf-8")


def when_items_painted(view: QAbstractItemView, callback: Callable[[float], None]) -> None:
    """Call ``callback(time.time() at the paint)`` once, after ``view`` first paints a row;
    also writes the report (and exits) when the environment asks for it."""
    callbacks: list[Callable[[float], None]] = []
    report = os.environ.get(REPORT_VARIABLE)
    if report:  # first, so the modules are those loaded before the paint
        callbacks.append(lambda painted_at: write_report(report, painted_at))
        if os.environ.get(EXIT_VARIABLE) == "1":
            callbacks.append(lambda _painted_at: os._exit(0))  # start-up alone is timed
    callbacks.append(callback)
    _FirstItemPaint(view, callbacks)
