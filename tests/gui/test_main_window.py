"""The main window: menus, keyboard navigation, go to item, recent bundles, saved layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QMessageBox
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.gui.sample_bundle import sample_lines
from tests.patience import HANG_GUARD_MS
from workbench.gui.help_dialogs import shortcut_rows
from workbench.gui.main_window import MainWindow
from workbench.gui.plain_text import plain_tooltip
from workbench.gui.settings import settings_path

pytestmark = pytest.mark.gui


def menu_texts(menu: QMenu) -> list[str]:
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]


def test_menus(open_window: MainWindow) -> None:
    ui = open_window.ui
    assert [a.text().replace("&", "") for a in ui.menuBar.actions()] == [
        "File",
        "View",
        "Annotate",
        "Tools",
        "Settings",
        "Help",
    ]
    assert menu_texts(ui.fileMenu) == [
        "Open bundle…",
        "Open server bundle…",
        "Recent bundles",
        "Import…",
        "Export…",
        "Export report…",
        "Quit",
    ]
    assert "Items" in menu_texts(ui.viewMenu)  # the dock can be hidden and shown again
    assert menu_texts(ui.helpMenu) == ["Keyboard shortcuts", "About VLM Workbench"]
    assert ui.nextAction.toolTip().endswith("(Ctrl+Down)")


def test_keyboard_navigation(qtbot: QtBot, open_window: MainWindow) -> None:
    order = [line["id"] for line in sample_lines()]
    open_window.activateWindow()
    qtbot.waitUntil(open_window.isActiveWindow, timeout=HANG_GUARD_MS)
    assert open_window.item_view.detail is not None
    assert open_window.item_view.detail.external_id == order[0]
    qtbot.keyClick(open_window, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    assert open_window.item_view.detail.external_id == order[1]
    qtbot.keyClick(open_window, Qt.Key.Key_N)
    assert open_window.item_view.detail.external_id == order[2]
    qtbot.keyClick(open_window, Qt.Key.Key_P)
    assert open_window.item_view.detail.external_id == order[1]
    for _ in range(10):  # stops at the last item
        open_window.ui.nextAction.trigger()
    assert open_window.item_view.detail.external_id == order[-1]
    # typing in the search box types, it does not navigate
    open_window.item_list.ui.searchEdit.setFocus()
    qtbot.keyClicks(open_window.item_list.ui.searchEdit, "np")
    assert open_window.item_list.ui.searchEdit.text() == "np"
    assert open_window.item_view.detail.external_id == order[-1]


def test_go_to_item(qtbot: QtBot, open_window: MainWindow) -> None:
    assert open_window.go_to_item("b1")
    assert open_window.selection.item_id == open_window.item_list.model.id_at(3)
    assert not open_window.go_to_item("nope")
    assert "No item 'nope'" in open_window.statusBar().currentMessage()
    # an item hidden by a filter is still shown, and the status bar says why it is not listed
    source = open_window.item_list.ui.sourceFilter
    source.setCurrentIndex(source.findData("beta"))
    qtbot.waitUntil(lambda: open_window.item_list.model.total() == 2, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, open_window)
    assert open_window.go_to_item("a2")
    assert open_window.item_view.detail is not None
    assert open_window.item_view.detail.external_id == "a2"
    assert "filters hide it" in open_window.statusBar().currentMessage()


def test_shortcuts_help_lists_every_shortcut(qtbot: QtBot, open_window: MainWindow) -> None:
    dialog = open_window.show_shortcuts()
    assert dialog is not None

    def text(row: int, column: int) -> str:
        item = dialog.table.item(row, column)
        assert item is not None
        return item.text()

    rows = {text(r, 0): text(r, 1) for r in range(dialog.table.rowCount())}
    assert rows["Next item"] == "Ctrl+Down or N"
    assert rows["Go to item"] == "Ctrl+G"
    assert len(rows) == len(shortcut_rows(open_window.actions_with_shortcuts()))
    dialog.close()


def test_opening_a_broken_file_shows_an_error_and_keeps_the_bundle(
    qtbot: QtBot, open_window: MainWindow, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.wbb"
    broken.write_text("not a database", encoding="utf-8")
    before = open_window.bundle
    assert not open_window.open_bundle_reporting(broken)
    messages = [box.text() for box in open_window.findChildren(QMessageBox)]
    assert any("not a VLM Workbench bundle" in text for text in messages), messages
    assert open_window.bundle is before


def test_layout_and_recent_bundles_persist(qtbot: QtBot, sample_bundle: Path) -> None:
    first = MainWindow()
    qtbot.addWidget(first)
    first.open_bundle(sample_bundle)
    first.show()
    wait_idle(qtbot, first)
    first.removeDockWidget(first.item_dock)
    first.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, first.item_dock)
    first.item_dock.show()
    first.ui.rawTextAction.setChecked(True)
    first.close()
    assert settings_path().is_file()

    second = MainWindow()
    qtbot.addWidget(second)
    assert second.dockWidgetArea(second.item_dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert second.ui.rawTextAction.isChecked()
    second.ui.recentMenu.aboutToShow.emit()
    recent = [a.toolTip() for a in second.ui.recentMenu.actions()]
    assert recent == [plain_tooltip(str(sample_bundle.resolve()))]
    second.reset_layout()
    assert second.dockWidgetArea(second.item_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    second.close()
