"""Every analysis dock holds a :class:`Panel`: the docks drive all four panels through that one
interface (no case for any one of them), and the graph panel, which defers drawing while out of
sight, draws the item selected meanwhile once its dock is shown again."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from workbench.gui.panels.docks import PANEL_TITLES
from workbench.gui.panels.panel import Panel

pytestmark = pytest.mark.gui


def test_every_dock_holds_a_panel(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    docks = window.analysis
    for name in PANEL_TITLES:
        panel = docks.panel(name)
        assert isinstance(panel, Panel), name
        assert docks.api[panel] is panel
    graph = docks.graph
    docks._visibility_changed("graph", False)
    assert graph.on_screen is False
    graph._item_stale = True  # an item was selected while the graph was out of sight
    drawn: list[object] = []
    monkeypatch.setattr(graph, "_show_item", drawn.append)
    docks._visibility_changed("graph", True)
    assert graph.on_screen is True and drawn == [window.selection.item_id]
    window.close()
