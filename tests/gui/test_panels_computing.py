"""A panel whose job is running says so ("Computing… 12 s", with a Cancel), never an
empty-result note; a panel waiting for an opening bundle says it is reading it, not that no
bundle is open (gui/panels/computing.py). Each test holds the panel worker on a file the test
creates, so the job stays open while the panel is read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import build_panel_bundle
from tests.gui.panel_window import wait_for_file
from workbench.gui.panels.computing import CANCELLED, COMPUTING, READING
from workbench.gui.panels.empty_hint import AGREEMENT_HINT, CYCLES_HINT
from workbench.stats.cycle_scopes import POOLED_PER_ITEM

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui

ELAPSED = re.compile(r"^Computing… \d+ s$")


#: a generous ceiling for every wait: two loaded cores take tens of seconds for a first result
CEILING_MS = 120_000
#: how long the worker may be held before it lets go on its own (the test lets go first)
HOLD_S = 300.0


@pytest.fixture
def panel_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(build_panel_bundle(tmp_path / "panels"))
    window.analysis.show_all()
    window.show()
    qtbot.waitUntil(lambda: window.analysis.leaderboard.result is not None, timeout=CEILING_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=CEILING_MS)
    try:
        yield window
    finally:
        window.close()


def test_a_running_cycle_count_says_computing_then_shows_the_result(
    qtbot: QtBot, panel_window: MainWindow, tmp_path: Path
) -> None:
    panels = panel_window.analysis
    panels.docks["graph"].raise_()
    panel = panels.graph
    qtbot.waitUntil(lambda: not panel.busy, timeout=CEILING_MS)
    go = tmp_path / "go"
    waited: list[bool] = []
    # the worker runs one job at a time: this one holds it until the file appears
    panels.other_process.run(partial(wait_for_file, str(go), HOLD_S), waited.append)
    panel.cycle_scope.setCurrentIndex(panel.cycle_scope.findData(POOLED_PER_ITEM))
    qtbot.waitUntil(lambda: panel.computing.showing, timeout=CEILING_MS)
    assert panel.list_tasks.busy and not waited  # the job is open
    assert ELAPSED.match(panel.computing.text), panel.computing.text
    assert panel.computing.cancel_button.isVisibleTo(panel.computing)
    # the empty list says it is computing, not that no item has a cycle
    assert panel.model.rowCount() == 0 and panel.empty_hint.showing
    assert panel.empty_hint.text() == COMPUTING
    assert CYCLES_HINT not in panel.empty_hint.text()
    assert "no preference cycles" not in panel.status.text()

    go.touch()
    qtbot.waitUntil(lambda: not panel.busy and panel.model.rowCount() > 0, timeout=CEILING_MS)
    assert waited == [True]
    assert not panel.computing.showing and not panel.empty_hint.showing
    assert panel.status.text().endswith("pooled per item")


def test_cancel_drops_the_answer_and_says_so(
    qtbot: QtBot, panel_window: MainWindow, tmp_path: Path
) -> None:
    panels = panel_window.analysis
    panels.docks["agreement"].raise_()
    panel = panels.agreement
    qtbot.waitUntil(lambda: panel.result is not None and not panel.busy, timeout=CEILING_MS)
    shown = panel.result
    go = tmp_path / "go"
    waited: list[bool] = []
    panels.other_process.run(partial(wait_for_file, str(go), HOLD_S), waited.append)
    panel.convention.setCurrentIndex(panel.convention.findData("mt-bench"))
    qtbot.waitUntil(lambda: panel.computing.showing, timeout=CEILING_MS)
    assert ELAPSED.match(panel.computing.text), panel.computing.text

    panel.computing.cancel_button.click()
    assert not panel.computing.showing
    assert panel.empty_hint.text() == CANCELLED
    go.touch()
    qtbot.waitUntil(lambda: not panel.busy, timeout=CEILING_MS)
    assert waited == [True]
    assert panel.result is shown  # the cancelled answer is not shown
    assert panel.empty_hint.text() == CANCELLED

    panel.compare_button.click()  # computing again shows the new convention's answer
    qtbot.waitUntil(lambda: not panel.busy and panel.result is not shown, timeout=CEILING_MS)
    assert panel.result is not None
    assert panel.result.convention == "mt-bench"
    assert panel.empty_hint.text() == AGREEMENT_HINT


def test_an_opening_bundle_is_read_not_absent(
    qtbot: QtBot, panel_window: MainWindow, tmp_path: Path
) -> None:
    panels = panel_window.analysis
    leaderboard = panels.leaderboard
    second = build_panel_bundle(tmp_path / "second")
    go = tmp_path / "go"
    waited: list[bool] = []
    panel_window.open_bundle(second)
    # the choices of the bundle are read by the leaderboard's worker once the watcher has read
    # its first fingerprint (on its own thread, after this returns): hold the worker first
    panels.process.run(partial(wait_for_file, str(go), HOLD_S), waited.append)
    qtbot.waitUntil(lambda: leaderboard.computing.showing, timeout=CEILING_MS)
    assert leaderboard.computing.text.startswith(READING)
    assert "No bundle open" not in leaderboard.status.text()
    for panel in (panels.leaderboard, panels.graph, panels.failures, panels.agreement):
        assert panel.empty_hint.text() == READING, panel

    go.touch()
    qtbot.waitUntil(
        lambda: leaderboard.result is not None and not panel_window.is_busy(), timeout=CEILING_MS
    )
    assert waited == [True]
    assert not leaderboard.computing.showing
    assert "No bundle open" not in leaderboard.status.text()
