"""The app opens and closes on every shape of bundle without a native crash: judgments without
items (a FastChat battle log without conversations, at 2,000 battles of 10 models and at
1,000,000 of 100), items without outputs, and an empty bundle. Each run is a child process,
because a crash at exit (a Qt object torn down out of order) kills the process with no Python
frame and no exception a test could catch. The million-battle shape opens on its leaderboard
over a million battles, minutes on two cores, so it is marked ``long``."""

from __future__ import annotations

import gzip
import os
import random
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
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
    imported as the app imports them, then battles between 98 more models added with plain
    sqlite3 inserts (seeded draws), as rows of the same import, shaped as the importer writes
    them (a question id in their metadata)."""
    folder.mkdir(parents=True, exist_ok=True)
    source = shared_data / "wildvision-bench" / "vision_bench_battles.jsonl.gz"
    with gzip.open(source, "rt", encoding="utf-8") as lines:
        head = [next(lines) for _ in range(20)]
    (folder / "log").mkdir(exist_ok=True)
    (folder / "log" / "battles.jsonl").write_text("".join(head), encoding="utf-8")
    bundle = folder / "million.wbb"
    import_files(bundle, [folder / "log" / "battles.jsonl"], "arena-battles")
    rng = random.Random(0)
    with closing(sqlite3.connect(bundle)) as connection, connection:
        (import_id,) = connection.execute("SELECT id FROM imports").fetchone()
        (known,) = connection.execute("SELECT count(*) FROM models").fetchone()
        connection.executemany(
            "INSERT INTO models (name, metadata) VALUES (?, '{}')",
            [(f"synthetic-model-{n:03d}",) for n in range(MILLION_MODELS - known)],
        )
        model_ids = [row[0] for row in connection.execute("SELECT id FROM models")]
        (present,) = connection.execute("SELECT count(*) FROM prior_judgments").fetchone()
        outcomes = (("a", "model_a"), ("b", "model_b"), ("tie", "tie"))

        def rows():  # type: ignore[no-untyped-def]
            for number in range(MILLION_BATTLES - present):
                first, second = rng.sample(model_ids, 2)
                outcome, label = outcomes[rng.randrange(3)]
                metadata = f'{{"question_id": "synthetic-{number}"}}'
                yield (import_id, first, second, outcome, label, metadata)

        connection.executemany(
            "INSERT INTO prior_judgments (import_id, item_id, kind, criterion, turn_index, "
            "model_a_id, model_b_id, outcome, strength, label, metadata) "
            "VALUES (?, NULL, 'human', 'overall', NULL, ?, ?, ?, 1, ?, ?)",
            rows(),
        )
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
        pytest.param("1M battles", marks=pytest.mark.long),
    ],
)
def test_the_app_opens_and_closes_on_every_bundle_shape(
    shape: str,
    shared_data: Path,
    tmp_path: Path,
    isolated_home: Path,
    request: pytest.FixtureRequest,
) -> None:
    if shape == "1M battles":
        bundle = request.getfixturevalue("million_battles_bundle")
    elif shape == "judgments without items":
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


def test_a_bundle_of_judgments_without_items_says_so_and_opens_on_its_leaderboard(
    qtbot, shared_data: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
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
    qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
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
