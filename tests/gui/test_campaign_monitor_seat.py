"""The coordinator's monitor docked at 1366x768 and 1024x700: wide enough to read every
column, kappa and alpha to three decimals as ``workbench campaign status`` prints them, and the
task that cannot finish (skipped by one of the three annotators it needs) listed with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtWidgets import QPushButton, QScrollArea, QTableView
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from tests.services.campaign_ops_bundle import CAMPAIGN, SKIP_REASON, build_ops_bundle
from workbench.cli import main
from workbench.services.monitor import campaign_status

pytestmark = pytest.mark.gui

SIZES = [(1366, 768), (1024, 700)]


@pytest.fixture(scope="module")
def ops_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path, _ = build_ops_bundle(tmp_path_factory.mktemp("monitor-seat"))
    _flag_two_tasks(path)
    return path


def _flag_two_tasks(path: Path) -> None:
    """An annotator's flag on the answer of the first task's left model, another on the third
    task's item: what the annotator's Ctrl+Shift+F stores."""
    from sqlalchemy import select

    from workbench.services.flags import add_flag
    from workbench.storage import Bundle
    from workbench.storage.models import Annotator, Campaign, ScheduledPair

    with Bundle.open(path, migrate=False) as bundle, bundle.session() as session:
        campaign = session.scalars(select(Campaign).where(Campaign.name == CAMPAIGN)).one()
        pairs = list(
            session.scalars(
                select(ScheduledPair)
                .where(ScheduledPair.campaign_id == campaign.id)
                .order_by(ScheduledPair.sequence)
            )
        )
        annotator = session.scalars(select(Annotator).where(Annotator.handle == "ann-a")).one()
        for pair, model_id, reason in (
            (pairs[0], pairs[0].left_model_id, "names_model"),
            (pairs[2], None, "broken_image"),
        ):
            add_flag(
                session,
                item_id=pair.item_id,
                model_id=model_id,
                reason=reason,
                note="",
                origin="annotator",
                campaign_id=campaign.id,
                pair_id=pair.id,
                annotator_id=annotator.id,
            )


def cells(model: QAbstractItemModel) -> list[list[str]]:
    return [
        [model.index(r, c).data(Qt.ItemDataRole.DisplayRole) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def columns_fit(view: QTableView) -> bool:
    """Every column but the free-text last one lies whole inside the table's viewport, and is
    as wide as its header and cells need."""
    model = view.model()
    width = view.viewport().width()
    for column in range(model.columnCount() - 1):
        right = view.columnViewportPosition(column) + view.columnWidth(column)
        if right > width or view.columnWidth(column) < view.sizeHintForColumn(column):
            return False
    return True


def all_columns_fit(view: QTableView) -> bool:
    """Every column lies whole inside the viewport, the last one included."""
    model = view.model()
    width = view.viewport().width()
    return all(
        view.columnViewportPosition(column) >= 0
        and view.columnViewportPosition(column) + view.columnWidth(column) <= width
        and view.columnWidth(column) >= min(view.sizeHintForColumn(column), 60)
        for column in range(model.columnCount())
    )


def rows_whole(view: QTableView) -> bool:
    """Every row lies whole inside the viewport, as tall as its wrapped cells need."""
    height = view.viewport().height()
    for row in range(view.model().rowCount()):
        top = view.rowViewportPosition(row)
        if top < 0 or top + view.rowHeight(row) > height:
            return False
        if view.rowHeight(row) < view.sizeHintForRow(row):
            return False
    return True


def test_the_status_lists_the_task_that_cannot_finish(
    ops_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.storage import Bundle

    with Bundle.open(ops_bundle, migrate=False) as bundle:
        status = campaign_status(bundle, CAMPAIGN)
    [stuck] = status["stuck_tasks"]
    assert stuck["votes"] == 2 and stuck["votes_target"] == 3
    assert stuck["skipped_by"] == {"ann-b": SKIP_REASON}
    assert "ann-b" in stuck["reason"] and SKIP_REASON in stuck["reason"]
    assert main(["campaign", "status", str(ops_bundle), CAMPAIGN]) == 0
    printed = capsys.readouterr().out
    assert "1 task(s) cannot finish" in printed and stuck["reason"] in printed


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_docked_monitor_is_readable_with_kappa_as_the_cli_prints_it(
    qtbot: QtBot, ops_bundle: Path, capsys: pytest.CaptureFixture[str], size: tuple[int, int]
) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.open_bundle(ops_bundle)
    window.show()
    wait_idle(qtbot, window)
    window.campaign_ops.monitor_action.trigger()
    monitor = window.campaign_ops.monitor
    qtbot.waitUntil(lambda: monitor.agreement.rowCount() > 0, timeout=HANG_GUARD_MS)
    qtbot.wait(50)
    assert not monitor.isFloating()
    assert window.bundle is not None
    status = campaign_status(window.bundle, CAMPAIGN)
    overall = status["agreement"]["overall"]["fleiss_kappa"]
    assert overall is not None
    [all_tasks, *_] = cells(monitor.agreement)
    assert all_tasks[2] == f"{overall:.3f}"
    assert main(["campaign", "status", str(ops_bundle), CAMPAIGN]) == 0
    assert f"Fleiss {all_tasks[2]}" in capsys.readouterr().out  # the CLI's figure
    annotators_view = monitor.views["Annotators"]
    assert annotators_view.isVisible() and columns_fit(annotators_view)
    # kappa and alpha are figures: whole, never cut as text is; the scope's name wraps
    agreement_view = monitor.views["Agreement"]
    assert agreement_view.isVisible() and all_columns_fit(agreement_view)
    for row in range(monitor.agreement.rowCount()):
        assert agreement_view.rowHeight(row) >= agreement_view.sizeHintForRow(row)
    stuck_view = monitor.views["Stuck tasks"]
    assert stuck_view.isVisible()
    assert rows_whole(stuck_view)  # why it cannot finish: every line of the reason shown
    [stuck_row] = cells(monitor.stuck)
    assert stuck_row[2] == "2/3" and SKIP_REASON in stuck_row[3]
    assert monitor.width() >= 340  # a new dock's 250 px cut the columns
    # the flags: counted per kind as the CLI counts them, and on which tasks, readable
    assert monitor.flags_label.isVisible()
    assert monitor.flags_label.text() == "2 flag(s): broken_image 1, names_model 1"
    flags_view = monitor.views["Flagged tasks"]
    assert flags_view.isVisible() and columns_fit(flags_view)
    assert flags_view.viewport().height() >= 2 * flags_view.rowHeight(0)
    rows = cells(monitor.flags)
    tasks = [task["task"] for task in status["flagged_tasks"]]
    assert [row[0] for row in rows] == [str(task) for task in tasks] and len(tasks) == 2
    assert [row[2:5] for row in rows] == [
        ["names_model", "an answer", "ann-a"],
        ["broken_image", "the item", "ann-a"],
    ]
    assert main(["campaign", "status", str(ops_bundle), CAMPAIGN]) == 0
    assert f"flagged tasks: {tasks[0]}, {tasks[1]}" in capsys.readouterr().out
    window.close()


def test_adjudication_names_answers_as_the_annotators_buttons_do(
    qtbot: QtBot, ops_bundle: Path
) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.open_bundle(ops_bundle)
    window.show()
    wait_idle(qtbot, window)
    dialog = window.campaign_ops.show_adjudication(CAMPAIGN)
    qtbot.waitUntil(lambda: bool(dialog.votes.text()), timeout=HANG_GUARD_MS)
    votes = dialog.votes.text().splitlines()[1:]
    answers = [line.split(": ", 1)[1] for line in votes if line.startswith("ann-")]
    assert answers and set(answers) <= {"Response 1", "Response 2"}, votes
    buttons = {button.text() for button in dialog.findChildren(QPushButton)}
    assert {"Response 1   [A]", "Response 2   [B]"} <= buttons
    dialog.close()
    window.close()


@pytest.mark.parametrize("way", ["reassign", "lower"])
def test_the_monitor_unsticks_the_task(qtbot: QtBot, tmp_path: Path, way: str) -> None:
    """The stuck task's way out, in the dock: give it back to the annotator who skipped it, or
    ask two votes of it; either way the monitor then lists no stuck task."""
    from workbench.gui.main_window import MainWindow

    path, _ = build_ops_bundle(tmp_path)
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.open_bundle(path)
    window.show()
    wait_idle(qtbot, window)
    monitor = window.campaign_ops.show_monitor(CAMPAIGN)
    qtbot.waitUntil(lambda: monitor.stuck.rowCount() == 1, timeout=HANG_GUARD_MS)
    assert monitor.way_out.isVisible()
    assert monitor.reassign_button.isVisible() and monitor.lower_button.isVisible()
    assert (monitor.votes_needed.minimum(), monitor.votes_needed.maximum()) == (2, 2)
    assert "ann-b" in [monitor.reassign_to.itemText(i) for i in range(monitor.reassign_to.count())]
    if way == "reassign":
        monitor.reassign_to.setCurrentText("ann-b")
        monitor.reassign_button.click()
        expected = "reserved for ann-b (their skip is withdrawn)"
    else:
        monitor.votes_needed.setValue(2)
        monitor.lower_button.click()
        expected = "now needs 2 vote(s)"
    qtbot.waitUntil(lambda: expected in monitor.way_out_status.text(), timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: monitor.stuck.rowCount() == 0, timeout=HANG_GUARD_MS)
    assert not monitor.views["Stuck tasks"].isVisible()
    assert window.bundle is not None
    assert campaign_status(window.bundle, CAMPAIGN)["stuck_tasks"] == []
    window.close()


#: the window a 1024x700 screen gives the app under a window manager (title bar and frame off)
SMALL_SCREEN_WINDOW = (972, 665)
WALKED = [*SIZES, SMALL_SCREEN_WINDOW]


def headers_whole(view: QTableView) -> bool:
    """Every column at least as wide as its header's text, the last one included."""
    header = view.horizontalHeader()
    return all(
        view.columnWidth(column) >= header.sectionSizeFromContents(column).width()
        for column in range(view.model().columnCount())
    )


@pytest.mark.parametrize("size", WALKED, ids=[f"{w}x{h}" for w, h in WALKED])
def test_no_part_of_the_docked_monitor_is_cut_at_its_right_edge(
    qtbot: QtBot, ops_bundle: Path, size: tuple[int, int]
) -> None:
    """Seen in a real window on a 1024x700 screen: the way-out buttons in one row made the
    dock's body wider than the dock, so kappa, alpha and the reason a task cannot finish sat
    behind its right edge; the skip reasons and the stuck table's last header were cut behind
    a scroll bar; the flags needed the dock scrolled; scope names broke mid-word."""
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.open_bundle(ops_bundle)
    window.show()
    wait_idle(qtbot, window)
    window.campaign_ops.monitor_action.trigger()
    monitor = window.campaign_ops.monitor
    qtbot.waitUntil(lambda: monitor.flags.rowCount() == 2, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: monitor.stuck.rowCount() == 1, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    assert not monitor.isFloating() and monitor.visibleRegion().boundingRect().width() > 0
    # beside the item list where there is room for both; sharing its place where there is not
    assert bool(window.tabifiedDockWidgets(monitor)) == (size[0] < 1366)
    scroll = monitor.widget()
    assert isinstance(scroll, QScrollArea)
    room = scroll.viewport().width()
    body = scroll.widget()
    assert body is not None and body.width() <= room
    layout = body.layout()
    assert layout is not None
    for index in range(layout.count()):
        item = layout.itemAt(index)
        widget = item.widget() if item is not None else None
        if widget is not None and widget.isVisible():
            assert widget.geometry().right() < room, widget.accessibleName() or widget
    for name in ("Annotators", "Agreement", "Stuck tasks", "Flagged tasks"):
        view = monitor.views[name]
        assert view.isVisible(), name
        assert not view.horizontalScrollBar().isVisible(), name
        assert headers_whole(view), name
        assert all_columns_fit(view) if name == "Agreement" else columns_fit(view), name
    # the skip reason wraps whole in its cell, not elided
    annotators = monitor.views["Annotators"]
    assert rows_whole(annotators)
    # no scope breaks inside a word
    agreement = monitor.views["Agreement"]
    metrics = agreement.fontMetrics()
    for row in range(monitor.agreement.rowCount()):
        scope = str(monitor.agreement.index(row, 0).data(Qt.ItemDataRole.DisplayRole))
        widest = max(metrics.horizontalAdvance(word) for word in scope.split())
        assert widest + 2 * agreement.style().pixelMetric(
            agreement.style().PixelMetric.PM_FocusFrameHMargin
        ) < agreement.columnWidth(0), scope
    # the flags are on screen without scrolling the dock
    flags = monitor.views["Flagged tasks"]
    bottom = flags.mapTo(scroll.viewport(), flags.rect().bottomLeft()).y()
    assert bottom <= scroll.viewport().height()
    window.close()


#: an item id as long as the real benchmarks' (a hash, no place to break it)
LONG_ID = "6d636ae8d21b4f0e9c4a7b2e1f3c5d9a8b7c6d5e-"


@pytest.fixture(scope="module")
def long_ids_bundle(ops_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The flagged bundle with every item's id made long."""
    from sqlalchemy import update

    from workbench.storage import Bundle
    from workbench.storage.bundle import copy_bundle
    from workbench.storage.models import Item

    path = tmp_path_factory.mktemp("long-ids") / "long.wbb"
    copy_bundle(ops_bundle, path)
    with Bundle.open(path, migrate=False) as bundle, bundle.session() as session:
        session.execute(update(Item).values(external_id=LONG_ID + Item.external_id))
    return path


def test_a_long_item_id_leaves_the_flags_note_on_screen_at_1024x700(
    qtbot: QtBot, long_ids_bundle: Path
) -> None:
    """Seen in a real window at 1024x700: a flag on an item with a long id widened the Item
    column, so the flag's Note went behind a scroll bar. The id is shortened in its middle,
    whole in its tooltip."""
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1024, 700)
    window.open_bundle(long_ids_bundle)
    window.show()
    wait_idle(qtbot, window)
    window.campaign_ops.monitor_action.trigger()
    monitor = window.campaign_ops.monitor
    qtbot.waitUntil(lambda: monitor.flags.rowCount() == 2, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    for name in ("Flagged tasks", "Stuck tasks"):
        view = monitor.views[name]
        model = view.model()
        assert view.isVisible(), name
        assert not view.horizontalScrollBar().isVisible(), name
        last = model.columnCount() - 1
        right = view.columnViewportPosition(last) + view.columnWidth(last)
        assert right <= view.viewport().width(), name
        assert view.columnWidth(last) >= view.fontMetrics().horizontalAdvance("Note"), name
        item = model.index(0, 1)
        full = item.data(Qt.ItemDataRole.DisplayRole)
        assert LONG_ID in full and item.data(Qt.ItemDataRole.ToolTipRole) == full, name
    window.close()
