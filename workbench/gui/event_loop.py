"""The app's event loop: Qt's, shared with asyncio through qasync, so that coroutines (the LLM
judge's requests) run on the GUI thread between Qt's events without blocking them."""

from __future__ import annotations

import asyncio
import logging
import threading

from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)


def run_shared_loop(app: QApplication) -> int:
    """Run Qt's event loop as the thread's asyncio loop until the app quits; returns Qt's exit
    status."""
    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        return int(loop.run_forever())
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def prepare_judge_runtime_in_background() -> threading.Thread:
    """Import the judge's HTTP stack and freeze the collector once, off the GUI thread, before
    anyone runs a judge (docs/judge.md, Design: the import holds the interpreter lock for up to
    ~100 ms at a time, which would otherwise stall the first run's window)."""

    def prepare() -> None:
        from workbench.services.judging.runner import prepare_runtime

        try:
            prepare_runtime()
        except Exception:  # a judge run does the same again and reports what fails
            log.exception("preparing the judge runtime failed")

    thread = threading.Thread(target=prepare, name="judge-runtime", daemon=True)
    thread.start()
    return thread
