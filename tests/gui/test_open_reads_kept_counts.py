"""Opening a bundle reads no judgment store whole on the GUI thread: what the window and every
panel show at open comes from the kept counts (judgment_counts), index lookups and the panel
workers, so a bundle of ten million battles opens as fast as a small one. Every statement the
GUI thread runs while the window opens and its panels fill is checked with SQLite's query
plan: a full scan of a judgment table (``SCAN``, covering index or not) fails the test."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from tests.gui.panel_bundle import build_panel_bundle
from tests.patience import HANG_GUARD_MS

#: the tables that hold judgments (imported, voted, judged, adjudicated)
JUDGMENT_TABLES = ("prior_judgments", "votes", "judge_verdicts", "adjudications")


def judgment_scans(plan: list[tuple[Any, ...]]) -> list[str]:
    """The lines of an ``EXPLAIN QUERY PLAN`` that read a judgment table whole."""
    found = []
    for row in plan:
        detail = str(row[-1])
        words = detail.split()
        if len(words) >= 2 and words[0] == "SCAN" and words[1] in JUDGMENT_TABLES:
            found.append(detail)
    return found


@pytest.fixture
def gui_thread_scans() -> Iterator[list[tuple[str, list[str]]]]:
    """Each statement the GUI (main) thread runs through SQLAlchemy while the test runs, with
    the judgment tables its plan reads whole."""
    seen: list[tuple[str, list[str]]] = []
    main = threading.main_thread()

    def explain(_conn: Any, cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if threading.current_thread() is not main:
            return
        if not statement.lstrip().upper().startswith(("SELECT", "WITH")):
            return
        connection = cursor.connection
        if not isinstance(connection, sqlite3.Connection):
            return
        plan = connection.execute("EXPLAIN QUERY PLAN " + statement, parameters or ()).fetchall()
        scans = judgment_scans(plan)
        if scans:
            seen.append((statement, scans))

    event.listen(Engine, "before_cursor_execute", explain)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", explain)


def test_the_plan_check_sees_a_count_of_every_judgment(tmp_path: Path) -> None:
    """What the check calls a scan: counting a judgment table reads all of its index."""
    path = tmp_path / "b.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE votes (id INTEGER PRIMARY KEY, item_id INTEGER)")
        connection.execute("CREATE INDEX ix_votes_item ON votes (item_id)")
        whole = connection.execute("EXPLAIN QUERY PLAN SELECT count(*) FROM votes").fetchall()
        one = connection.execute(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM votes WHERE item_id = 3"
        ).fetchall()
    connection.close()
    assert judgment_scans(whole) and not judgment_scans(one)


def test_opening_a_bundle_scans_no_judgments_on_the_gui_thread(
    qtbot: Any, tmp_path: Path, gui_thread_scans: list[tuple[str, list[str]]]
) -> None:
    from workbench.gui.main_window import MainWindow

    path = build_panel_bundle(tmp_path)
    gui_thread_scans.clear()  # building the bundle is not opening it
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    try:
        window.open_bundle(path)
        window.analysis.show_all()
        window.show()
        qtbot.waitUntil(
            lambda: window.analysis.leaderboard.result is not None, timeout=HANG_GUARD_MS
        )
        qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
        assert window.item_list.model.ids  # the first item is listed, and shown
        assert window.selection.item_id is not None
    finally:
        window.close()
    assert not gui_thread_scans, "\n\n".join(
        f"{', '.join(scans)}:\n{statement[:400]}" for statement, scans in gui_thread_scans
    )
