"""The app opens and closes on every shape of bundle without a native crash: judgments without
items (a FastChat battle log without conversations, at 2,000 battles of 10 models and at
1,000,000 of 100), items without outputs, and an empty bundle. Each run is a child process,
because a crash at exit (a Qt object torn down out of order) kills the process with no Python
frame and no exception a test could catch.

Each is opened as ``workbench open B --screenshot S --page items``, which renders the window
and closes it through Python's own exit (where the crash was). A screenshot waits for the panels
to finish (up to 30 s), and on the million-battle shape the leaderboard's bootstrap takes about
45 CPU seconds; this test asks whether the app opens and closes, so there the picture is taken
once the panels are reading the battles, and the window closes with its worker still reading.
That bundle is built once per session by one SQL statement, about 5 CPU seconds (inserts from
Python took 20)."""

from __future__ import annotations

import gzip
import os
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.patience import HANG_GUARD_SECONDS
from workbench.gui.item_list_panel import no_items_text
from workbench.gui.main_window import MainWindow
from workbench.services.importing import import_files
from workbench.storage import Bundle

pytestmark = pytest.mark.gui

BATTLES = 2_000
#: the scale shape: a FastChat battle log without conversations at a million battles
MILLION_BATTLES = 1_000_000
MILLION_MODELS = 100


def battle_log(shared_data: Path, folder: Path) -> Path:
    """The first 2,000 battles of WildVision-Bench's published battle log (question ids, model
    names and winners only: no conversation), written to ``folder``."""
    source = shared_data / "wildvision-bench" / "vision_bench_battles.jsonl.gz"
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        head = [next(lines) for _ in range(BATTLES)]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "battles.jsonl"
    target.write_text("".join(head), encoding="utf-8")
    return target


def judgments_without_items(shared_data: Path, folder: Path) -> Path:
    bundle = folder / "battles.wbb"
    import_files(bundle, [battle_log(shared_data, folder / "log")], "arena-battles")
    return bundle


def million_battles(shared_data: Path, folder: Path) -> Path:
    """1,000,000 battles of 100 models and no item: the published log's first 20 battles
    imported as the app imports them, then battles between 98 more models added as rows of the
    same import, shaped as the importer writes them (a question id in their metadata), by one
    INSERT ... SELECT over a counter (pairs and outcomes drawn by a fixed multiplicative hash of
    the battle's number, so every build is the same). The table's indexes are dropped for the
    insert and built again after it: one sort each instead of a million random updates."""
    folder.mkdir(parents=True, exist_ok=True)
    source = shared_data / "wildvision-bench" / "vision_bench_battles.jsonl.gz"
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        head = [next(lines) for _ in range(20)]
    (folder / "log").mkdir(exist_ok=True)
    (folder / "log" / "battles.jsonl").write_text("".join(head), encoding="utf-8")
    bundle = folder / "million.wbb"
    import_files(bundle, [folder / "log" / "battles.jsonl"], "arena-battles")
    with closing(sqlite3.connect(bundle)) as connection, connection:
        (import_id,) = connection.execute("SELECT id FROM imports").fetchone()
        (known,) = connection.execute("SELECT count(*) FROM models").fetchone()
        connection.executemany(
            "INSERT INTO models (name, metadata) VALUES (?, '{}')",
            [(f"synthetic-model-{n:03d}",) for n in range(MILLION_MODELS - known)],
        )
        (present,) = connection.execute("SELECT count(*) FROM prior_judgments").fetchone()
        indexes = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' "
            "AND tbl_name = 'prior_judgments' AND sql IS NOT NULL"
        ).fetchall()
        for name, _ in indexes:
            connection.execute(f"DROP INDEX {name}")
        connection.execute(
            "CREATE TEMP TABLE contestant AS "
            "SELECT row_number() OVER (ORDER BY id) - 1 AS position, id FROM models"
        )
        connection.execute(
            """
            WITH RECURSIVE battle(number) AS (
                SELECT 0 UNION ALL SELECT number + 1 FROM battle WHERE number + 1 < :count
            ),
            drawn AS (
                SELECT number, (number * 2654435761 + 12345) % 4294967291 AS draw FROM battle
            )
            INSERT INTO prior_judgments (import_id, item_id, kind, criterion, turn_index,
                model_a_id, model_b_id, outcome, strength, label, metadata)
            SELECT :import_id, NULL, 'human', 'overall', NULL, model_a.id, model_b.id,
                CASE draw % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' ELSE 'tie' END, 1,
                CASE draw % 3 WHEN 0 THEN 'model_a' WHEN 1 THEN 'model_b' ELSE 'tie' END,
                '{"question_id": "synthetic-' || number || '"}'
            FROM drawn
            JOIN contestant AS model_a ON model_a.position = draw / 3 % :models
            JOIN contestant AS model_b
                ON model_b.position
                    = (draw / 3 % :models + 1 + draw / 300 % (:models - 1)) % :models
            """,
            {"count": MILLION_BATTLES - present, "import_id": import_id, "models": MILLION_MODELS},
        )
        for _, sql in indexes:
            connection.execute(sql)
    return bundle


@pytest.fixture(scope="session")
def million_battles_bundle(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return million_battles(shared_data, tmp_path_factory.mktemp("million-battles"))


def items_without_outputs(folder: Path) -> Path:
    bundle = folder / "items.wbb"
    lines = [item_line(f"q{n}", outputs=[], judgments=[]) for n in range(5)]
    import_files(bundle, [write_jsonl(folder / "src", lines)], "jsonl")
    return bundle


def empty(folder: Path) -> Path:
    bundle = folder / "empty.wbb"
    Bundle.create(bundle).close()
    return bundle


@pytest.mark.parametrize(
    "shape",
    [
        "judgments without items",
        "items without outputs",
        "empty",
    ],
)
def test_the_app_opens_and_closes_on_every_bundle_shape(
    shape: str,
    shared_data: Path,
    tmp_path: Path,
    isolated_home: Path,
) -> None:
    if shape == "judgments without items":
        bundle = judgments_without_items(shared_data, tmp_path)
    elif shape == "items without outputs":
        bundle = items_without_outputs(tmp_path)
    else:
        bundle = empty(tmp_path)
    target = tmp_path / "shot.png"
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    completed = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-c",
            "import sys; from workbench.cli import main; sys.exit(main())",
            *("open", str(bundle), "--screenshot", str(target), "--page", "items"),
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )
    # a native crash at exit is -11 (139 from a shell), after the picture was written
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert target.stat().st_size > 0


#: ``workbench open B --screenshot S --page items`` with one change: the picture is taken once the
#: window's panels are reading the bundle (at once, as a rule) instead of once they are idle, so
#: the window closes with the leaderboard's worker still reading the million battles
OPEN_WHILE_READING = textwrap.dedent(
    """
    import sys

    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from workbench.cli import main
    from workbench.gui import app


    said = []


    def until_the_panels_read(window, timeout_s=None):
        # the screenshot waits twice (before and after a first draw): say it once
        while not window.analysis.busy:
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        if not said:
            print("panels reading", flush=True)
            said.append(True)
        return True


    app.wait_until_idle = until_the_panels_read
    sys.exit(main())
    """
)


def test_the_app_opens_on_a_million_battles_without_items_and_closes_while_reading_them(
    million_battles_bundle: Path, tmp_path: Path, isolated_home: Path
) -> None:
    target = tmp_path / "shot.png"
    completed = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-c",
            OPEN_WHILE_READING,
            *("open", str(million_battles_bundle), "--screenshot", str(target)),
            *("--page", "items"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=HANG_GUARD_SECONDS,
    )
    # a native crash at exit is -11 (139 from a shell), after the picture was written
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.splitlines() == ["panels reading"], completed.stderr[-2000:]
    assert target.stat().st_size > 0


def test_a_bundle_of_judgments_without_items_says_so_and_opens_on_its_leaderboard(
    qtbot: QtBot, shared_data: Path, tmp_path: Path
) -> None:
    bundle = judgments_without_items(shared_data, tmp_path)
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle)
    window.show()
    hint = window.item_list.empty_hint
    assert hint.showing
    assert hint.text() == no_items_text(BATTLES)
    assert hint.text().startswith("No items; 2,000 judgments")
    assert "Leaderboard" in hint.text()
    assert window.analysis.docks["leaderboard"].isVisible()
    window.close()


def test_an_empty_bundle_says_how_to_fill_it_and_a_bundle_with_items_says_nothing(
    qtbot: QtBot, tmp_path: Path
) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(empty(tmp_path))
    window.show()
    assert window.item_list.empty_hint.text() == no_items_text(0)
    assert "import" in window.item_list.empty_hint.text()
    assert not window.analysis.docks["leaderboard"].isVisible()
    window.open_bundle(items_without_outputs(tmp_path))
    assert window.item_list.empty_hint.text() == ""
    window.close()
