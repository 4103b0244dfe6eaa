"""The PI's analysis page docked at 1366x768, on the bundle of all ../shared/data (22 WildVision
models): the leaderboard shows ten rows and its ratings figure at a legible size without moving
a dock, no docked panel scrolls sideways (their pickers wrap), and a figure is drawn again at
its dock's size when the dock is floated and when it is docked again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from workbench.gui.panels.docks import wrap_picker_rows

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = [pytest.mark.gui, pytest.mark.shared_data]

#: a figure smaller than this is not legible (ticks and labels overlap)
LEGIBLE = QSize(320, 200)


def visible_in(widget: QWidget, dock: QWidget) -> QRect:
    """The part of ``widget`` on screen inside ``dock``."""
    top_left = widget.mapTo(dock, widget.rect().topLeft())
    return QRect(top_left, widget.size()).intersected(dock.rect())


@pytest.fixture(scope="module")
def opened_window(qapp: QApplication, full_bundle: Path) -> Iterator[MainWindow]:
    """One window on the full bundle for the module: its opening and its panels' computations
    on 22 models' battles are made once, not once per test; :func:`window` puts it back as a
    test expects it."""
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    window.resize(1366, 768)
    window.open_bundle(full_bundle)
    window.show()
    window.analysis.show_all()
    yield window
    window.close()
    window.deleteLater()


@pytest.fixture
def window(qtbot: QtBot, opened_window: MainWindow) -> MainWindow:
    """The module's window as a freshly opened one is: 1366x768, every dock docked and shown,
    the leaderboard and its figure drawn, nothing computing."""
    window = opened_window
    # what the previous test left computing (every tab it raised: a count of cycles on 22
    # models) is stopped, as closing its window did; a fresh window computes none of it
    window.analysis.stop_panel_computations()
    for dock in window.analysis.docks.values():
        dock.setFloating(False)
    window.resize(1366, 768)
    window.analysis.show_all()
    board = window.analysis.leaderboard
    qtbot.waitUntil(lambda: board.result is not None, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: board.forest.pixmap is not None, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    return window


def test_ten_rows_and_a_legible_figure_without_moving_a_dock(
    qtbot: QtBot, window: MainWindow
) -> None:
    board = window.analysis.leaderboard
    dock = window.analysis.docks["leaderboard"]
    assert board.model.rowCount() >= 10
    table = board.table
    rows = visible_in(table.viewport(), dock).height() // table.rowHeight(0)
    assert rows >= 10, f"{rows} rows on screen"
    shown = visible_in(board.forest, dock).size()
    assert shown.width() >= LEGIBLE.width() and shown.height() >= LEGIBLE.height(), shown
    # the figure is drawn at the size it is shown at, not scaled from another
    qtbot.waitUntil(
        lambda: board.forest._rendered_size == board.forest.target_size(), timeout=HANG_GUARD_MS
    )
    for name, dock in window.analysis.docks.items():  # each tab in turn
        dock.raise_()
        QApplication.processEvents()
        area = dock.widget()
        assert isinstance(area, QScrollArea) and not dock.visibleRegion().isEmpty(), name
        inner = area.widget()
        assert inner is not None
        assert inner.width() <= area.viewport().width(), f"{name} is cut at its side"


#: the window's sizes
FOLD_SIZES = {"1366x768": (1366, 768), "1024x700": (1024, 700), "1.5x": (910, 512)}
#: table rows on screen at least, by window size, with every analysis dock shown (1.5x: a
#: 1366x768 screen at QT_SCALE_FACTOR=1.5, in device-independent pixels)
LEAST_ROWS = {"1366x768": 10, "1024x700": 8, "1.5x": 6}


@pytest.mark.parametrize("size", list(FOLD_SIZES))
def test_the_pickers_fold_away_and_the_table_takes_the_dock(
    qtbot: QtBot, window: MainWindow, size: str
) -> None:
    window.resize(*FOLD_SIZES[size])
    wait_idle(qtbot, window)
    QApplication.processEvents()
    board = window.analysis.leaderboard
    dock = window.analysis.docks["leaderboard"]
    dock.raise_()
    QApplication.processEvents()
    area = dock.widget()
    assert isinstance(area, QScrollArea)
    table = board.table
    assert not board.filters.isVisible()
    assert board.filters_button.isVisible() and board.refresh_button.isVisible()
    rows = visible_in(table.viewport(), dock).height() // table.rowHeight(0)
    # the table is on screen whole, nothing of the panel below the dock's edge
    assert area.verticalScrollBar().maximum() == 0, size
    assert visible_in(table.viewport(), dock).height() == table.viewport().height()
    assert rows >= LEAST_ROWS[size], f"{rows} rows on screen at {size}"
    # the button unfolds the method and the filters, and folds them away again
    board.filters_button.click()
    QApplication.processEvents()
    assert board.filters.isVisible() and board.method.isVisible()
    board.filters_button.click()
    assert not board.filters.isVisible()


def test_at_1_5x_scaling_the_table_and_the_figure_take_turns_at_the_dock(
    qtbot: QtBot, window: MainWindow
) -> None:
    """1366x768 at 1.5x scaling leaves the leaderboard's dock about 580x340: its request and
    status fold to a line each, and the table and the ratings figure each take the whole
    dock as tabs (side by side the table showed its model column alone)."""
    window.resize(*FOLD_SIZES["1.5x"])
    window.analysis.show_all()
    wait_idle(qtbot, window)
    QApplication.processEvents()
    board = window.analysis.leaderboard
    dock = window.analysis.docks["leaderboard"]
    area = dock.widget()
    assert isinstance(area, QScrollArea)
    assert board.folded and board.table_tabbed
    assert area.verticalScrollBar().maximum() == 0
    table = board.table
    rows = visible_in(table.viewport(), dock).height() // table.rowHeight(0)
    assert rows >= LEAST_ROWS["1.5x"], f"{rows} rows on screen"
    for column in (1, 2):  # the rating and its interval on screen beside the model's name
        right = table.columnViewportPosition(column) + table.columnWidth(column)
        assert right <= table.viewport().width(), column
    forest = board.forest
    board.plots.setCurrentWidget(forest)
    qtbot.waitUntil(
        lambda: forest._rendered_size == forest.target_size() and forest.pixmap is not None,
        timeout=HANG_GUARD_MS,
    )
    shown = visible_in(forest.scroll_area.viewport(), dock).size()
    assert shown.width() >= LEGIBLE.width() and shown.height() >= LEGIBLE.height(), shown
    window.resize(1366, 768)  # a wide dock puts them side by side again, request unfolded
    window.analysis.show_all()
    wait_idle(qtbot, window)
    QApplication.processEvents()
    assert not board.table_tabbed and not board.folded
    assert board.splitter.indexOf(table) == 0


def test_a_floated_dock_s_figure_follows_its_size(qtbot: QtBot, window: MainWindow) -> None:
    board = window.analysis.leaderboard
    forest = board.forest
    dock = window.analysis.docks["leaderboard"]
    docked = forest._rendered_size
    assert docked is not None
    dock.setFloating(True)
    dock.resize(1200, 700)
    QApplication.processEvents()

    def drawn_at_its_size() -> bool:
        return forest.isVisible() and forest._rendered_size == forest.target_size()

    qtbot.waitUntil(lambda: forest.target_size() != docked, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(drawn_at_its_size, timeout=HANG_GUARD_MS)
    floated = forest._rendered_size
    assert floated is not None
    assert floated.width() > docked.width()
    assert forest.pixmap is not None
    assert round(forest.pixmap.width() / forest.pixmap.devicePixelRatio()) == floated.width()
    dock.setFloating(False)
    QApplication.processEvents()
    qtbot.waitUntil(lambda: forest.target_size() != floated, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(drawn_at_its_size, timeout=HANG_GUARD_MS)


def test_picker_rows_wrap_and_keep_captions_with_their_pickers(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

    panel = QWidget()
    qtbot.addWidget(panel)
    layout = QVBoxLayout(panel)
    request = QLabel("a request line that wraps", panel)
    request.setWordWrap(True)
    request_row = QHBoxLayout()
    request_row.addWidget(request)
    request_row.addWidget(QPushButton("Copy command", panel))
    layout.addLayout(request_row)
    combos = []
    for row_number in range(2):
        row = QHBoxLayout()
        for n in range(4):
            combo = QComboBox(panel)
            combo.addItem(f"choice {row_number}-{n} with a long name")
            row.addWidget(QLabel(f"Picker {row_number}-{n}", panel))
            row.addWidget(combo)
            combos.append(combo)
        row.addStretch(1)
        layout.addLayout(row)
    wide = panel.minimumSizeHint().width()
    wrap_picker_rows(panel)
    assert layout.count() == 2  # the request row kept, the two picker rows one flow
    panel.resize(400, 400)
    panel.show()
    QApplication.processEvents()
    assert panel.minimumSizeHint().width() < wide / 3
    for combo in combos:  # each caption stays left of its picker, on the same line
        pair = combo.parentWidget()
        assert pair is not None
        pair_layout = pair.layout()
        assert pair_layout is not None
        first = pair_layout.itemAt(0)
        assert first is not None
        assert pair is not panel and isinstance(first.widget(), QLabel)
        assert QRect(QRect(combo.mapTo(panel, combo.rect().topLeft()), combo.size())).right() <= 400


def test_the_view_menu_opens_a_panel_with_its_room_beside_the_monitor(
    qtbot: QtBot, full_bundle: Path
) -> None:
    """The PI's path: the campaign monitor docked on the right, then View > Leaderboard; the
    panel opened at a strip with no row showing."""
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.open_bundle(full_bundle)
    window.show()
    wait_idle(qtbot, window)
    window.campaign_ops.monitor_action.trigger()
    dock = window.analysis.docks["leaderboard"]
    dock.toggleViewAction().trigger()
    board = window.analysis.leaderboard
    qtbot.waitUntil(lambda: board.result is not None, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    table = board.table
    rows = visible_in(table.viewport(), dock).height() // table.rowHeight(0)
    assert rows >= 10, f"{rows} rows on screen"
    wait_idle(qtbot, window)  # closed idle: a busy worker would be stopped with it
    window.close()
