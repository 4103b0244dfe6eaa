"""The contradiction graph dock: cycle items first, cycle edges red, rows select the item."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib.colors as mcolors
import pytest
from matplotlib.patches import FancyArrowPatch
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import CYCLE_EDGES, CYCLE_ITEM, SOURCE
from tests.gui.panel_window import opened_panel_window
from tests.patience import HANG_GUARD_MS
from workbench.stats.graph_plots import CONSISTENT_COLOUR, CYCLE_COLOUR, edge_colours

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


@pytest.fixture
def panel_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        yield window


def test_cycle_item_listed_first_and_its_edges_red(qtbot: QtBot, panel_window: MainWindow) -> None:
    panel = panel_window.analysis.graph
    assert panel.model.rowCount() >= 1
    assert panel.model.index(0, 0).data() == f"{SOURCE}/{CYCLE_ITEM}"
    assert panel.model.index(0, 2).data() == "1"

    panel.cycles_view.clicked.emit(panel.model.index(0, 0))
    cycle_item = panel.cycle_rows[0].item
    assert panel_window.selection.item_id == cycle_item
    qtbot.waitUntil(lambda: not panel.busy, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: set(panel.colours) == set(CYCLE_EDGES), timeout=HANG_GUARD_MS)
    assert set(panel.colours.values()) == {CYCLE_COLOUR}
    # the drawn arrows carry the same colour
    assert panel.figure.figure is not None
    arrows = [
        patch for patch in panel.figure.figure.axes[0].patches if isinstance(patch, FancyArrowPatch)
    ]
    assert len(arrows) == len(CYCLE_EDGES)
    assert all(
        tuple(round(c, 3) for c in mcolors.to_rgba(arrow.get_edgecolor())[:3])
        == tuple(round(c, 3) for c in _rgb(CYCLE_COLOUR))
        for arrow in arrows
    )
    # the inspector follows the same selection
    assert panel_window.item_view.detail is not None
    assert panel_window.item_view.detail.external_id == CYCLE_ITEM


def _rgb(colour: str) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    return to_rgb(colour)


def test_consistent_edges_are_green() -> None:
    import networkx as nx

    graph = nx.DiGraph([("c", "b"), ("b", "a"), ("c", "a"), ("x", "y"), ("y", "x")])
    colours = edge_colours(graph)
    assert colours[("c", "b")] == colours[("b", "a")] == colours[("c", "a")] == CONSISTENT_COLOUR
    assert colours[("x", "y")] == colours[("y", "x")] == CYCLE_COLOUR


def test_selecting_an_edge_lists_the_judgments_behind_it(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    import pandas as pd

    from workbench.services.outcomes import judgments_frame, pairwise_outcomes
    from workbench.storage import Bundle

    panel = panel_window.analysis.graph
    panel.cycles_view.clicked.emit(panel.model.index(0, 0))  # the cycle item
    qtbot.waitUntil(
        lambda: set(panel.edges) == set(CYCLE_EDGES) and not panel.busy, timeout=HANG_GUARD_MS
    )
    assert [panel.edges_model.rows[row][4] for row in range(len(panel.edges))] == ["yes"] * 3

    loser, winner = CYCLE_EDGES[0]
    panel.edges_view.selectRow(panel.edges.index((loser, winner)))
    qtbot.waitUntil(
        lambda: panel.judgments_model.rowCount() > 0 and not panel.busy, timeout=HANG_GUARD_MS
    )
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle, bundle.read_session() as session:
        outcomes = pairwise_outcomes(judgments_frame(session))
    behind = outcomes[
        (outcomes["item_external_id"] == CYCLE_ITEM)
        & outcomes[["model_a", "model_b"]].apply(lambda row: set(row) == {loser, winner}, axis=1)
    ]
    assert panel.judgments_model.rowCount() == len(behind) == 1
    item, origin, evaluator, outcome, criterion = panel.judgments_model.rows[0]
    row = behind.iloc[0]
    assert (item, origin, evaluator, criterion) == (
        f"{SOURCE}/{CYCLE_ITEM}",
        row["origin"],
        row["evaluator"],
        row["criterion"],
    )
    assert outcome == winner and not pd.isna(criterion)


def test_graph_pooled_over_a_category(qtbot: QtBot, panel_window: MainWindow) -> None:
    from workbench.services.outcomes import judgments_frame, pairwise_outcomes
    from workbench.stats.contradictions import preference_graph
    from workbench.storage import Bundle

    panel = panel_window.analysis.graph
    panel.scope.setCurrentIndex(panel.scope.findData("ordered"))
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle, bundle.read_session() as session:
        outcomes = pairwise_outcomes(judgments_frame(session))
    expected = preference_graph(outcomes[outcomes["category"] == "ordered"])
    qtbot.waitUntil(
        lambda: set(panel.edges) == set(expected.edges) and not panel.busy, timeout=HANG_GUARD_MS
    )
    shown_votes = {(row[0], row[1]): row[2] for row in panel.edges_model.rows}
    assert shown_votes == {
        edge: int(data["votes"])
        for edge, data in ((e[:2], e[2]) for e in expected.edges(data=True))
    }
    # m-a beats m-b in the pooled majority: the edge points from m-b to m-a
    assert ("m-b", "m-a") in panel.edges
