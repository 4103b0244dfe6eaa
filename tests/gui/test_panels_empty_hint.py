"""Each analysis panel says why it is empty and what would fill it (gui/panels/empty_hint.py),
and the note goes away once the panel has rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import MODELS, SOURCE, write_jsonl
from tests.gui.panel_window import opened_panel_window
from tests.patience import HANG_GUARD_MS
from workbench.services.importing import import_files

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


def _unjudged_bundle(folder: Path) -> Path:
    """One item answered by two models and judged by nobody; no category or language."""
    line = {
        "format": "vlm-workbench/item",
        "format_version": 1,
        "source": SOURCE,
        "id": "unjudged",
        "turns": [{"prompt": "What is shown?"}],
        "outputs": [{"model": model, "text": f"{model} answers"} for model in MODELS[:2]],
    }
    bundle = folder / "empty.wbb"
    import_files(bundle, [write_jsonl(folder / "source" / "items.jsonl", [line])], "jsonl")
    return bundle


@pytest.fixture
def empty_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(_unjudged_bundle(tmp_path))
    window.analysis.show_all()
    window.show()
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    try:
        yield window
    finally:
        window.close()


@pytest.mark.parametrize(
    ("panel_name", "why", "fill"),
    [
        ("leaderboard", "no pairwise judgments", "workbench import"),
        ("agreement", "none match", "Tools > Run LLM judge…"),
        ("graph", "no preference cycles", "workbench judge --models all"),
        ("failures", "0 item(s)", "Tools > Run LLM judge…"),
    ],
)
def test_an_empty_panel_says_why_and_what_would_fill_it(
    qtbot: QtBot, empty_window: MainWindow, panel_name: str, why: str, fill: str
) -> None:
    panel = getattr(empty_window.analysis, panel_name)
    empty_window.analysis.docks[panel_name].raise_()
    qtbot.waitUntil(lambda: why in panel.status.text() and not panel.busy, timeout=HANG_GUARD_MS)
    hint = panel.empty_hint
    assert hint.showing
    assert fill in hint.text()
    assert hint.isVisible()  # laid over the panel's table, which is on screen


def test_the_hint_leaves_when_rows_arrive(qtbot: QtBot, tmp_path: Path) -> None:
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        panels = window.analysis
        panels.docks["agreement"].raise_()
        qtbot.waitUntil(lambda: panels.agreement.result is not None, timeout=HANG_GUARD_MS)
        panels.docks["graph"].raise_()
        qtbot.waitUntil(lambda: panels.graph.model.rowCount() > 0, timeout=HANG_GUARD_MS)
        panels.docks["failures"].raise_()
        panels.failures.choose("cycles")
        qtbot.waitUntil(lambda: not panels.failures.busy, timeout=HANG_GUARD_MS)
        for panel in (panels.leaderboard, panels.agreement, panels.graph, panels.failures):
            assert not panel.empty_hint.showing, panel
        panels.failures.choose("lowest-turn-scores")  # no ConvBench scores in this bundle
        qtbot.waitUntil(lambda: not panels.failures.busy, timeout=HANG_GUARD_MS)
        assert panels.failures.empty_hint.showing
