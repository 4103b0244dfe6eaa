"""The coordinator's campaign views in the full app: the Campaign monitor dock shows the
monitor service's figures and refreshes by itself when a vote arrives; the adjudication dialog
shows a disputed task without model names until revealed, and records a settled answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from tests.services.campaign_helpers import MODELS
from tests.services.campaign_ops_bundle import CAMPAIGN, PLUGINS, build_ops_bundle
from workbench.services.adjudication import disagreements
from workbench.services.campaigns import add_annotator
from workbench.services.monitor import campaign_status
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

if TYPE_CHECKING:
    from PySide6.QtCore import QAbstractItemModel

    from workbench.gui.campaign_ops.adjudication_dialog import AdjudicationDialog
    from workbench.gui.main_window import MainWindow


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


def table(model: QAbstractItemModel) -> list[list[str]]:
    return [
        [model.index(r, c).data(Qt.ItemDataRole.DisplayRole) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def shown_text(dialog: AdjudicationDialog) -> str:
    """Every text the dialog's task display shows: headings, prompts and responses."""
    from PySide6.QtWidgets import QLabel, QTextEdit

    texts = [label.text() for label in dialog.display.findChildren(QLabel) if label.isVisible()]
    texts += [view.toPlainText() for view in dialog.display.findChildren(QTextEdit)]
    return "\n".join(texts)


def test_view_menu_opens_the_monitor_with_the_service_figures(
    qtbot: QtBot, window: MainWindow
) -> None:
    ops = window.campaign_ops
    assert ops.monitor_action.shortcut().toString() == "Ctrl+Shift+M"
    assert ops.monitor_action in window.ui.viewMenu.actions()
    ops.monitor_action.trigger()
    wait_idle(qtbot, window)
    assert ops.monitor.isVisible()
    assert window.bundle is not None
    status = campaign_status(window.bundle, CAMPAIGN)
    rows = table(ops.monitor.annotators)
    assert [row[0] for row in rows] == [row["annotator"] for row in status["annotators"]]
    assert [row[1] for row in rows] == [str(row["answered"]) for row in status["annotators"]]
    assert "Category: none" in [row[0] for row in table(ops.monitor.agreement)]


def test_the_monitor_refreshes_when_a_vote_arrives(qtbot: QtBot, window: MainWindow) -> None:
    monitor = window.campaign_ops.show_monitor(CAMPAIGN)
    wait_idle(qtbot, window)
    before = monitor.refreshes
    # another annotator votes (another process in real life): the watcher notices off-thread
    assert window.bundle is not None
    add_annotator(window.bundle, "ann-d")
    session = AnnotationSession(window.bundle, CAMPAIGN, "ann-d", PLUGINS)
    task = session.next_task()
    assert task is not None
    session.cast(task.token, "a")
    qtbot.waitUntil(
        lambda: "ann-d" in [row[0] for row in table(monitor.annotators)], timeout=HANG_GUARD_MS
    )
    assert monitor.refreshes > before


def test_adjudication_hides_models_until_revealed_and_records(
    qtbot: QtBot, window: MainWindow
) -> None:
    ops = window.campaign_ops
    assert ops.adjudicate_action.shortcut().toString() == "Ctrl+Shift+J"
    dialog = ops.show_adjudication(CAMPAIGN)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: dialog.shown_task is not None, timeout=HANG_GUARD_MS)
    shown = shown_text(dialog) + dialog.votes.text()
    assert "Response 1" in shown and "ann-c" in shown
    assert not any(model in shown for model in MODELS)
    dialog.reveal.setChecked(True)
    assert any(model in dialog.votes.text() for model in MODELS)
    assert dialog.current is not None
    task = dialog.current["task"]
    dialog.note.setText("left miscounts")
    dialog.adjudicator.setText("lead")
    record_b = dialog.findChild(QPushButton, "record_b")
    assert record_b is not None
    record_b.click()
    qtbot.waitUntil(lambda: "recorded Response 2" in dialog.status.text(), timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    assert window.bundle is not None
    assert window.bundle.path is not None
    with Bundle.open(window.bundle.path) as reopened:
        row = next(r for r in disagreements(reopened, CAMPAIGN) if r["task"] == task)
    assert row["adjudication"]["answer"] == "b"
    assert row["adjudication"]["adjudicator"] == "lead"
    assert row["adjudication"]["note"] == "left miscounts"
    dialog.close()


@pytest.mark.parametrize("page", ["monitor", "adjudicate"])
def test_each_page_renders_to_a_screenshot(tmp_path: Path, page: str) -> None:
    from workbench.gui.app import run_app

    path, _ = build_ops_bundle(tmp_path)
    target = tmp_path / f"{page}.png"
    assert run_app(path, screenshot=target, page=page, campaign=CAMPAIGN) == 0
    assert target.stat().st_size > 10_000
