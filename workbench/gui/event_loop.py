"""The app's event loop: Qt's, shared with asyncio through qasync, so that coroutines (the LLM
judge's requests) run on the GUI thread between Qt's events without blocking them."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading

from PySide6.QtWidgets import QApplication

from workbench.gui import tweaks

log = logging.getLogger(__name__)

#: how long a thread may keep the interpreter lock when another asks for it (Python's default
#: is 5 ms); see :func:`favour_the_event_loop`
GIL_SWITCH_INTERVAL_S = 0.001


def favour_the_event_loop() -> None:
    """Make worker threads hand the interpreter lock to the GUI thread sooner.

    The panels' workers run Python-heavy code (reading judgments through SQLAlchemy, building
    pandas frames, drawing with Agg) next to the GUI thread; with the default 5 ms interval a
    busy worker that takes the lock back at each switch kept the event loop waiting 200-260 ms
    at a stretch on the loaded 2-core machine, and 100-160 ms on recompute at 0.5-1 ms (measured by
    tests/gui/test_panels_responsiveness.py). The cost is more lock hand-overs on the workers."""
    if tweaks.enabled(tweaks.SHORT_SWITCH_INTERVAL):
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)


def run_shared_loop(app: QApplication) -> int:
    """Run Qt's event loop as the thread's asyncio loop until the app quits; returns Qt's exit
    status."""
    # start-up: qasync loads with the loop it runs, not with every importer of this module
    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        return int(loop.run_forever())
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def prepare_judge_runtime_in_background() -> threading.Thread:
    """Import the judge's HTTP stack once, off the GUI thread, before
    anyone runs a judge (docs/judge.md, Design: the import holds the interpreter lock for up to
    ~100 ms at a time, which would otherwise stall the first run's window)."""

    def prepare() -> None:
        # start-up: the judge's runtime (openai) loads on a worker after the first paint
        from workbench.services.judging.runner import prepare_runtime

        try:
            prepare_runtime()
        except Exception:  # a judge run does the same again and reports what fails
            log.exception("preparing the judge runtime failed")

    thread = threading.Thread(target=prepare, name="judge-runtime", daemon=True)
    thread.start()
    return thread
