"""Every docked analysis panel shows its request in one line under its title, through the one
:class:`~workbench.gui.panels.request_line.RequestLine`, with "Copy command": the copied
command, run through the command line, prints the panel's numbers."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.panel_window import opened_panel_window
from tests.patience import HANG_GUARD_MS
from workbench.gui.panels.request_line import NO_REQUEST, RequestLine
from workbench.services.analysis.failures import FailureCases

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


@pytest.fixture
def panel_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        yield window


def _copied(panel: Any) -> str:
    from PySide6.QtWidgets import QApplication

    QApplication.clipboard().clear()
    assert panel.request_row.copy_button.isEnabled()
    panel.request_row.copy_button.click()
    return QApplication.clipboard().text()


def _run(command: str, bundle: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    from workbench.cli import main

    words = shlex.split(command)
    assert words[0] == "workbench" and "BUNDLE" in words and "--json" in words
    capsys.readouterr()
    assert main([str(bundle) if word == "BUNDLE" else word for word in words[1:]]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_analysis_panel_has_the_one_request_line(panel_window: MainWindow) -> None:
    analysis = panel_window.analysis
    for panel in (analysis.leaderboard, analysis.agreement, analysis.graph, analysis.failures):
        assert isinstance(panel.request_row, RequestLine), type(panel).__name__
        # under the title: the first thing in the panel
        layout = panel.layout()
        assert layout is not None
        first = layout.itemAt(0)
        assert first is not None and first.widget() is panel.request_row


def test_the_agreement_panels_command_prints_its_numbers(
    qtbot: QtBot, panel_window: MainWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    panel = panel_window.analysis.agreement
    panel.refresh()
    qtbot.waitUntil(lambda: panel.result is not None and not panel.busy, timeout=HANG_GUARD_MS)
    result = panel.result
    assert result is not None
    assert panel.request_row.text() == f"Request: {result.describe()}"
    assert "agreement: human vs judge" in panel.request_row.text()
    assert "majority convention" in panel.request_row.text()
    command = _copied(panel)
    assert command == result.command() and "--convention majority" in command
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    printed = _run(command, panel_window.bundle.path, capsys)
    shown = json.loads(json.dumps(result.to_json()))
    for key in ("agreement", "confusion", "ranks"):
        assert printed[key] == shown[key], key


def _listed(panel: Any, printed: Any) -> None:
    """The copied command's items are the panel's rows: the same items, each with its cycles."""
    shown = {row.label: row.cycles for row in panel.cycle_rows}
    listed = {row["label"]: int(row["detail"].split()[0]) for row in printed["items"]}
    assert listed == shown


def test_the_graph_panels_command_lists_its_cycles(
    qtbot: QtBot, panel_window: MainWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.stats.cycle_scopes import POOLED_PER_ITEM

    panel = panel_window.analysis.graph
    for scope in (panel.cycle_scope.currentData(), POOLED_PER_ITEM):
        panel.cycle_scope.setCurrentIndex(panel.cycle_scope.findData(scope))
        qtbot.waitUntil(
            lambda: not panel.busy and panel.request_row.text() != NO_REQUEST,
            timeout=HANG_GUARD_MS,
        )
        assert f"--scope {scope}" in (panel.request_row.command() or "")
        command = _copied(panel)
        assert command.startswith("workbench failures BUNDLE --kind cycles")
        assert panel_window.bundle is not None
        assert panel_window.bundle.path is not None
        printed = _run(command, panel_window.bundle.path, capsys)
        assert printed["request"]["scope"] == scope
        assert panel.cycle_rows
        _listed(panel, printed)
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    whole = _run(_copied(panel), panel_window.bundle.path, capsys)
    # another source is another question, with its own flags: the command lists what the
    # panel lists from that source alone (the judge's verdicts hold no cycle, the bundle does)
    for source, flag in (("judge", "--judgments judge"), ("imported", "--origin imported")):
        panel.source.setCurrentIndex(panel.source.findData(source))

        def asked(flag: str = flag) -> bool:
            return not panel.busy and flag in (panel.request_row.command() or "")

        qtbot.waitUntil(asked, timeout=HANG_GUARD_MS)
        assert f"judgments: {source}" in panel.request_row.text()
        assert panel_window.bundle is not None
        assert panel_window.bundle.path is not None
        printed = _run(_copied(panel), panel_window.bundle.path, capsys)
        _listed(panel, printed)
        if source == "judge":
            assert printed["items"] == [] and whole["items"]


def test_the_failures_panels_command_lists_its_items(
    qtbot: QtBot, panel_window: MainWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    panel = panel_window.analysis.failures
    for kind, model in (("disagreement", None), ("cycles", None), ("loses-to-all", "m-d")):
        panel.choose(kind, model)
        qtbot.waitUntil(
            lambda: not panel.busy and panel.request_row.text() != NO_REQUEST,
            timeout=HANG_GUARD_MS,
        )
        rows = panel.failure_rows
        assert isinstance(rows, FailureCases)  # what the panel shows is the answer's own list
        assert panel.request_row.text() == f"Request: {rows.describe()}"
        command = _copied(panel)
        assert command == rows.command() and f"--kind {kind}" in command
        assert panel_window.bundle is not None
        assert panel_window.bundle.path is not None
        printed = _run(command, panel_window.bundle.path, capsys)
        labels = [panel.model.index(row, 0).data() for row in range(panel.model.rowCount())]
        assert [row["label"] for row in printed["items"]] == labels and labels
    # a bundle switch clears it: nothing on screen, nothing to copy
    panel_window.analysis.failures.set_bundle(None, None)
    assert panel.request_row.text() == NO_REQUEST
    assert not panel.request_row.copy_button.isEnabled()
