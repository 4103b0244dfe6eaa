"""A main window on the panels' bundle with every analysis dock shown and computed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import build_panel_bundle
from tests.patience import HANG_GUARD_MS, HANG_GUARD_SECONDS

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


def wait_for_file(path: str, timeout_s: float = HANG_GUARD_SECONDS) -> bool:
    """A job for the panel worker that holds it until ``path`` exists (module-level, so it
    pickles); True when the file appeared."""
    import time

    deadline = time.monotonic() + timeout_s
    while not Path(path).exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@contextmanager
def opened_panel_window(qtbot: QtBot, folder: Path) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    path = build_panel_bundle(folder)
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(path)
    window.analysis.show_all()
    window.show()
    qtbot.waitUntil(lambda: window.analysis.leaderboard.result is not None, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    try:
        yield window
    finally:
        window.close()
