"""The linked selection: choosing two models in the leaderboard narrows the item
list to the items that compare them, selects their edge in the graph and their matchup in the
agreement panel; clearing the choice restores all three. Annotator mode takes no pair."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import SOURCE, panel_lines
from tests.gui.panel_window import opened_panel_window
from tests.patience import HANG_GUARD_MS

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractItemView

    from workbench.gui.main_window import MainWindow
    from workbench.gui.panels.leaderboard_panel import LeaderboardPanel


pytestmark = pytest.mark.gui

#: compared on the ordered items and the cycle, with a consensus edge on the first item
PAIR = ("m-a", "m-c")
#: compared where humans and the judge both voted (item "split")
TIED_PAIR = ("m-a", "m-b")


@pytest.fixture
def panel_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        yield window


def items_comparing(models: tuple[str, ...]) -> set[str]:
    """Items where the models (a pair, or one with any other) were compared, computed from the
    bundle's source lines, not through the query under test."""
    return {
        line["id"]
        for line in panel_lines()
        if any(set(models) <= {vote["model_a"], vote["model_b"]} for vote in line["judgments"])
    }


def listed(window: MainWindow) -> set[str]:
    assert window.browser is not None
    rows = window.browser.item_rows(window.item_list.model.ids)
    assert {row.source for row in rows} <= {SOURCE}
    return {row.external_id for row in rows}


def select_models(panel: LeaderboardPanel, models: tuple[str, ...]) -> None:
    chosen = QItemSelection()
    for row, values in enumerate(panel.model.rows):
        if values[0] in models:
            chosen.select(panel.model.index(row, 0), panel.model.index(row, 0))
    panel.table.selectionModel().select(
        chosen,
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )


def selected_rows(view: QAbstractItemView) -> list[int]:
    return sorted({index.row() for index in view.selectionModel().selectedRows()})


def test_a_pair_chosen_in_the_leaderboard_is_followed_and_cleared(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    window = panel_window
    leaderboard, graph = window.analysis.leaderboard, window.analysis.graph
    agreement = window.analysis.agreement
    # the agreement panel computes when first seen; it shares a tab group with the graph
    window.analysis.docks["agreement"].raise_()
    qtbot.waitUntil(
        lambda: agreement.result is not None and not agreement.busy, timeout=HANG_GUARD_MS
    )
    window.analysis.docks["graph"].raise_()
    everything = listed(window)
    assert items_comparing(PAIR) < everything  # the pair narrows the list
    tab_before = agreement.breakdowns.currentIndex()
    assert agreement.breakdowns.currentWidget() is not agreement.by_model_pair_view

    def graph_edge() -> set[str] | None:
        rows = selected_rows(graph.edges_view)
        return set(graph.edges[rows[0]]) if rows else None

    select_models(leaderboard, PAIR)
    assert window.selection.model_pair is not None and set(window.selection.model_pair) == set(PAIR)
    qtbot.waitUntil(lambda: listed(window) == items_comparing(PAIR), timeout=HANG_GUARD_MS)
    assert f"comparing {PAIR[0]} and {PAIR[1]}" in window.item_list.ui.countLabel.text()
    # the current item is one of them; the graph draws it and selects the pair's edge, which
    # lists the judgments behind it
    assert window.browser is not None and window.selection.item_id is not None
    item = window.browser.item_rows([window.selection.item_id])[0].external_id
    assert item == "order-0" and item in items_comparing(PAIR)
    qtbot.waitUntil(lambda: graph_edge() == set(PAIR), timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: graph.judgments_model.rowCount() > 0, timeout=HANG_GUARD_MS)
    # the agreement panel turns to its matchups; humans and the judge never met on this pair
    assert agreement.breakdowns.currentWidget() is agreement.by_model_pair_view
    assert selected_rows(agreement.by_model_pair_view) == []

    # another pair moves all of them: humans and the judge meet on m-a vs m-b (item "split");
    # order-0 has no consensus edge between them (one vote each way), so none is selected
    select_models(leaderboard, TIED_PAIR)
    qtbot.waitUntil(lambda: listed(window) == items_comparing(TIED_PAIR), timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: graph_edge() is None, timeout=HANG_GUARD_MS)
    rows = selected_rows(agreement.by_model_pair_view)
    assert len(rows) == 1 and set(agreement.by_model_pair.rows[rows[0]][:2]) == set(TIED_PAIR)

    # one row is one model: the list keeps the items where it was compared with any other;
    # the pair is gone, so the graph and the agreement panel let go of it
    select_models(leaderboard, ("m-d",))
    assert window.selection.model_pair is None and window.selection.model == "m-d"
    assert items_comparing(("m-d",)) < everything
    qtbot.waitUntil(lambda: listed(window) == items_comparing(("m-d",)), timeout=HANG_GUARD_MS)
    assert "comparing m-d with another model" in window.item_list.ui.countLabel.text()
    assert selected_rows(graph.edges_view) == []
    assert agreement.breakdowns.currentIndex() == tab_before
    assert selected_rows(agreement.by_model_pair_view) == []

    # no row: nothing is chosen and the full list comes back
    select_models(leaderboard, ())
    assert window.selection.model_pair is None and window.selection.model is None
    qtbot.waitUntil(lambda: listed(window) == everything, timeout=HANG_GUARD_MS)
    assert "comparing" not in window.item_list.ui.countLabel.text()


def test_models_chosen_elsewhere_select_their_leaderboard_rows(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    leaderboard = panel_window.analysis.leaderboard

    def chosen() -> set[str]:
        return {leaderboard.model.rows[row][0] for row in selected_rows(leaderboard.table)}

    panel_window.selection.set_model_pair(("m-d", "m-b"))
    assert chosen() == {"m-b", "m-d"}
    assert panel_window.selection.model_pair == ("m-d", "m-b")  # its order is kept
    panel_window.selection.choose_models(("m-c",))
    assert chosen() == {"m-c"} and panel_window.selection.model_pair is None
    # the table shows the choice again after a recompute resets its rows
    previous = leaderboard.result
    leaderboard.refresh_button.click()
    qtbot.waitUntil(
        lambda: leaderboard.result is not previous and not leaderboard.busy, timeout=HANG_GUARD_MS
    )
    assert chosen() == {"m-c"} and panel_window.selection.model == "m-c"
    panel_window.selection.choose_models(())
    assert chosen() == set()


def test_a_blind_selection_takes_no_pair(qapp: QApplication) -> None:
    from workbench.gui.linked_selection import LinkedSelection

    selection = LinkedSelection()
    changes: list[object] = []
    selection.modelPairChanged.connect(changes.append)
    selection.modelChanged.connect(changes.append)
    selection.choose_models(PAIR)
    selection.choose_models(("m-a",))
    assert changes == [PAIR, None, "m-a"]
    selection.set_blind(True)
    assert selection.model_pair is None and selection.model is None
    assert changes == [PAIR, None, "m-a", None]
    selection.set_model_pair(PAIR)
    selection.choose_models(("m-b",))
    assert selection.model_pair is None and selection.model is None and len(changes) == 4
    selection.set_item(3)  # items are not blind: the annotator moves through them
    assert selection.item_id == 3
    selection.set_blind(False)
    selection.set_model_pair(PAIR)
    assert selection.model_pair == PAIR
