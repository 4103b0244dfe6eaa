"""The failure-case browser: each question's items, and a row opens the item in the inspector."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import CYCLE_ITEM, SOURCE
from tests.gui.panel_window import opened_panel_window
from tests.patience import HANG_GUARD_MS

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow
    from workbench.gui.panels.failures_panel import FailuresPanel


pytestmark = pytest.mark.gui


@pytest.fixture
def panel_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        yield window


def _labels(panel: FailuresPanel) -> list[str]:
    return [panel.model.index(row, 0).data() for row in range(panel.model.rowCount())]


@pytest.mark.parametrize(
    ("kind", "model", "expected"),
    [
        ("disagreement", None, ["split"]),
        ("cycles", None, [CYCLE_ITEM]),
        ("reference-flagged", None, ["flagged"]),
        # m-d loses every pair on d-loses and on the ordered items without an upset against it
        ("loses-to-all", "m-d", ["d-loses", "order-0", "order-1", "order-3"]),
    ],
)
def test_each_question_lists_its_items(
    qtbot: QtBot, panel_window: MainWindow, kind: str, model: str | None, expected: list[str]
) -> None:
    panel = panel_window.analysis.failures
    panel.choose(kind, model)
    qtbot.waitUntil(lambda: not panel.busy, timeout=HANG_GUARD_MS)
    assert _labels(panel) == [f"{SOURCE}/{name}" for name in expected]


def test_a_row_opens_the_item_in_the_inspector(qtbot: QtBot, panel_window: MainWindow) -> None:
    panel = panel_window.analysis.failures
    panel.choose("reference-flagged")
    qtbot.waitUntil(lambda: not panel.busy and panel.model.rowCount() == 1, timeout=HANG_GUARD_MS)
    panel.view.activated.emit(panel.model.index(0, 0))
    item = panel.failure_rows[0].item
    assert panel_window.selection.item_id == item
    assert panel_window.item_view.detail is not None
    assert panel_window.item_view.detail.id == item
    assert panel_window.item_view.detail.external_id == "flagged"


def test_the_graph_follows_a_failure_row(qtbot: QtBot, panel_window: MainWindow) -> None:
    from workbench.stats.graph_plots import CONSISTENT_COLOUR

    failures, graph = panel_window.analysis.failures, panel_window.analysis.graph
    failures.choose("reference-flagged")
    qtbot.waitUntil(
        lambda: not failures.busy and failures.model.rowCount() == 1, timeout=HANG_GUARD_MS
    )
    failures.view.clicked.emit(failures.model.index(0, 0))
    # the flagged item's one vote: m-b over m-c
    qtbot.waitUntil(
        lambda: graph.colours == {("m-c", "m-b"): CONSISTENT_COLOUR}, timeout=HANG_GUARD_MS
    )
