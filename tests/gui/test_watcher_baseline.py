"""The judgment watcher reads the fingerprint it compares with (its baseline) on its worker, not
on the GUI thread, and whoever reads the judgments after an open starts only once it is read."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from tests.patience import HANG_GUARD_MS, HANG_GUARD_SECONDS
from workbench.gui.panels import watcher as watcher_module
from workbench.gui.panels.watcher import JudgmentWatcher
from workbench.storage import Bundle


def test_the_baseline_is_read_on_the_worker_before_the_readers_start(
    qtbot: Any, sample_bundle: Path, monkeypatch: Any
) -> None:
    read_on: list[threading.Thread] = []
    release = threading.Event()

    def activity(_bundle: Bundle) -> tuple[int, ...]:
        read_on.append(threading.current_thread())
        release.wait(HANG_GUARD_SECONDS)
        return (1, 1)

    monkeypatch.setattr(watcher_module, "judgment_activity", activity)
    started: list[bool] = []
    changed: list[bool] = []
    watcher = JudgmentWatcher()
    watcher.judgmentsChanged.connect(lambda: changed.append(True))
    with Bundle.open(sample_bundle) as bundle:
        try:
            watcher.set_bundle(bundle, then=lambda: started.append(True))
            # the open returns at once: the baseline is still being read, the readers wait
            assert watcher.reading_baseline and not started
            release.set()
            qtbot.waitUntil(lambda: started == [True], timeout=HANG_GUARD_MS)
            assert read_on and threading.main_thread() not in read_on
            assert not watcher.reading_baseline
            assert not changed  # the baseline is not a change
        finally:
            release.set()
            watcher.set_bundle(None)
