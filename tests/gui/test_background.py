"""Background tasks whose owner is gone: the result is dropped, never delivered to a deleted
widget (which raised ``RuntimeError: Signal source has been deleted`` on the GUI thread)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS, HANG_GUARD_SECONDS
from workbench.gui.background import BackgroundRunner
from workbench.gui.export_dialog import ExportDialog

pytestmark = pytest.mark.gui


class Owner(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.runner = BackgroundRunner(self, in_order=True)
        self.label = QLabel(self)

    def show_result(self, value: str) -> None:
        self.label.setText(value)

    def show_error(self, error: BaseException) -> None:
        self.label.setText(str(error))


def slow(value: str, started: threading.Event) -> str:
    started.set()
    time.sleep(0.3)
    return value


def slow_failure(started: threading.Event) -> str:
    started.set()
    time.sleep(0.3)
    raise ValueError("too late")


@pytest.mark.parametrize("fails", [False, True])
def test_a_result_for_a_deleted_owner_is_dropped(qtbot: QtBot, fails: bool) -> None:
    owner = Owner()
    runner = owner.runner
    started = threading.Event()
    if fails:
        runner.run(lambda: slow_failure(started), owner.show_result, owner.show_error)
    else:
        runner.run(lambda: slow("done", started), owner.show_result, owner.show_error)
    assert started.wait(HANG_GUARD_SECONDS)
    shiboken6.delete(owner)  # the pool waits for the task; its result is queued behind
    assert not shiboken6.isValid(runner)
    qtbot.wait(100)  # delivers the queued result: an exception here fails the test


def test_closing_a_dialog_while_its_query_runs(qtbot: QtBot, sample_bundle: Path) -> None:
    dialog = ExportDialog(sample_bundle)  # starts reading the campaign names at once
    assert dialog.runner.busy
    dialog.show()
    dialog.close()
    shiboken6.delete(dialog)
    qtbot.wait(100)


def test_a_live_owner_still_gets_its_result(qtbot: QtBot) -> None:
    owner = Owner()
    qtbot.addWidget(owner)
    started = threading.Event()
    owner.runner.run(lambda: slow("done", started), owner.show_result)
    qtbot.waitUntil(lambda: not owner.runner.busy, timeout=HANG_GUARD_MS)
    assert owner.label.text() == "done"
