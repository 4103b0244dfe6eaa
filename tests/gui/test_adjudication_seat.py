"""The coordinator's adjudication dialog at 1366x768 and 1024x700: the disputed task shown in
the annotator's own task display (its image decoded and zoomable, both responses under "Response
1" / "Response 2"), the votes under the same labels, every control on screen, and decisions by
the annotators' keys (shown on the buttons), Skip moving on without deciding."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.gui.test_campaign_ops import shown_text
from tests.patience import HANG_GUARD_MS
from tests.services.campaign_helpers import MODELS
from tests.services.campaign_ops_bundle import CAMPAIGN, build_ops_bundle
from workbench.gui.campaign_ops.adjudication_dialog import AdjudicationDialog
from workbench.gui.screen_fit import SCREEN_SHARE
from workbench.services.adjudication import disagreements
from workbench.storage import Bundle

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui

SIZES = [(1366, 768), (1024, 700)]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    path, _ = build_ops_bundle(tmp_path)
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(path)
    window.show()
    wait_idle(qtbot, window)
    yield window
    window.close()


def current_task(dialog: AdjudicationDialog) -> object:
    """The task the dialog shows (a wait on it goes on while it shows none)."""
    assert dialog.current is not None
    return dialog.current["task"]


def open_dialog(qtbot: QtBot, window: MainWindow, size: tuple[int, int]) -> AdjudicationDialog:
    window.resize(*size)
    dialog = window.campaign_ops.show_adjudication(CAMPAIGN)
    dialog.resize(*(int(side * SCREEN_SHARE) for side in size))  # as on a screen of that size
    qtbot.waitUntil(lambda: dialog.shown_task is not None, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: bool(dialog.display.tiles), timeout=HANG_GUARD_MS)
    QApplication.processEvents()
    return dialog


def inside(widget: QWidget, dialog: QWidget) -> bool:
    """Whether ``widget`` is shown whole inside ``dialog``."""
    top_left = widget.mapTo(dialog, widget.rect().topLeft())
    return widget.isVisible() and dialog.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_task_is_shown_as_the_annotators_saw_it_and_fits(
    qtbot: QtBot, window: MainWindow, size: tuple[int, int]
) -> None:
    dialog = open_dialog(qtbot, window, size)
    display = dialog.display
    [tile] = display.tiles  # the item's one image, through the one decoder
    assert tile.decoded is not None
    assert tile.viewable and (tile.decoded.full.width(), tile.decoded.full.height()) == (8, 6)
    text = shown_text(dialog)
    assert "Response 1" in text and "Response 2" in text
    task = dialog.shown_task
    assert task is not None and all(r in text for r in task.turns[0].responses)
    assert not any(model in text + dialog.votes.text() for model in MODELS)
    # the votes under the labels of the buttons, never as stored ("a")
    assert "ann-a: Response 1" in dialog.votes.text()
    labels = {value: button.text() for value, button in dialog.record_buttons.items()}
    assert labels == {
        "a": "Response 1   [A]",
        "b": "Response 2   [B]",
        "tie": "Tie   [T]",
        "both_bad": "Both bad   [X]",
    }
    assert dialog.skip_button.text() == "Skip   [S]"
    for widget in [*dialog.record_buttons.values(), dialog.skip_button, dialog.note, tile]:
        assert inside(widget, dialog), widget
    # the responses get the room: each response area at least a third of the dialog's height
    [panel] = display.turn_panels
    for scroll in panel.response_scrolls:
        assert inside(scroll, dialog)
        assert scroll.height() >= dialog.height() // 3, (scroll.height(), dialog.height())
    # a click on the image zooms it
    tile.clicked.emit(tile.position)
    assert dialog.zoom is not None and dialog.zoom.isVisible()
    dialog.zoom.close()
    dialog.close()


def test_decisions_by_key_record_and_move_on(qtbot: QtBot, window: MainWindow) -> None:
    dialog = open_dialog(qtbot, window, SIZES[0])
    dialog.activateWindow()
    first, second = (row["task"] for row in dialog.rows[:2])
    assert current_task(dialog) == first
    # typed into the note, a key is text, not a decision
    dialog.note.setFocus()
    qtbot.keyClicks(dialog.note, "b")
    assert dialog.note.text() == "b"
    assert dialog.status.text() == "2 disputed task(s)"
    # Skip: the next task, nothing recorded
    dialog.display.setFocus()
    qtbot.keyClick(dialog.display, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: current_task(dialog) == second, timeout=HANG_GUARD_MS)
    qtbot.keyClick(dialog.display, Qt.Key.Key_S)  # past the last: back to the first
    qtbot.waitUntil(lambda: current_task(dialog) == first, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: dialog.shown_task is not None, timeout=HANG_GUARD_MS)
    dialog.note.setText("the left one counts wrong")
    dialog.display.setFocus()
    qtbot.keyClick(dialog.display, Qt.Key.Key_B)
    qtbot.waitUntil(lambda: "recorded Response 2" in dialog.status.text(), timeout=HANG_GUARD_MS)
    # recorded, and on to the next disputed task
    qtbot.waitUntil(lambda: current_task(dialog) == second, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    assert window.bundle is not None
    assert window.bundle.path is not None
    with Bundle.open(window.bundle.path) as reopened:
        settled = {r["task"]: r["adjudication"] for r in disagreements(reopened, CAMPAIGN)}
    assert settled[first]["answer"] == "b"
    assert settled[first]["note"] == "the left one counts wrong"
    assert settled[second] is None
    # a decision without a note: its settled line ends at the time, with no dangling colon
    qtbot.keyClick(dialog.display, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: "recorded Response 1" in dialog.status.text(), timeout=HANG_GUARD_MS)
    dialog.show_task(1)
    settled_lines = [line for line in dialog.votes.text().splitlines() if "settled" in line]
    assert settled_lines and settled_lines[0].startswith("settled: Response 1 by ")
    assert settled_lines[0].endswith(")"), settled_lines
    dialog.show_task(0)
    assert dialog.votes.text().splitlines()[-1].endswith("): the left one counts wrong")
    dialog.close()


SCALED_PROBE = """
import sys, time
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication


def main():
    from workbench.gui.main_window import MainWindow

    app = QApplication([])
    window = MainWindow(persist_layout=False)
    window.open_bundle(sys.argv[1])
    window.resize(910, 512)  # 1366x768 at 1.5x, in device-independent pixels
    window.show()
    dialog = window.campaign_ops.show_adjudication("ops")
    dialog.resize(865, 486)  # as it opens on that screen
    deadline = time.monotonic() + float(sys.argv[2])
    while (dialog.shown_task is None or not dialog.display.tiles) and time.monotonic() < deadline:
        app.processEvents()
    for _ in range(50):
        app.processEvents()

    def inside(widget):
        top_left = widget.mapTo(dialog, widget.rect().topLeft())
        return widget.isVisible() and dialog.rect().contains(QRect(top_left, widget.size()))

    controls = [*dialog.record_buttons.values(), dialog.skip_button, dialog.note]
    heights = [s.height() for s in dialog.display.turn_panels[0].response_scrolls]
    print(app.devicePixelRatio(), all(inside(w) for w in controls), min(heights))
    window.close()


if __name__ == "__main__":
    main()
"""


def test_the_dialog_fits_at_real_1_5x_scaling(tmp_path: Path) -> None:
    """At QT_SCALE_FACTOR=1.5 on a 1366x768 screen: every button and field on screen, and
    both responses keep a few lines of height."""
    import os
    import subprocess
    import sys

    from tests.patience import HANG_GUARD_SECONDS
    from workbench.gui.form_compiler import PROJECT_ROOT

    path, _ = build_ops_bundle(tmp_path)
    probe = tmp_path / "probe.py"
    probe.write_text(SCALED_PROBE, encoding="utf-8")
    environment = {**os.environ, "QT_SCALE_FACTOR": "1.5", "QT_QPA_PLATFORM": "offscreen"}
    environment["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), str(PROJECT_ROOT / "plugins")])
    done = subprocess.run(
        [sys.executable, str(probe), str(path), str(HANG_GUARD_SECONDS)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    ratio, fits, height = done.stdout.split()
    assert float(ratio) == 1.5
    assert fits == "True", done.stdout
    assert int(height) >= 100, done.stdout
