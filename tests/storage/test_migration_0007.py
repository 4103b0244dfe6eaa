"""Schema 0007 gives rows written with the older conventions the one the read model reads: a
VisIT-Bench preference judges the whole item (no turn), a judge run's context is where the read
model reads it, and an unreadable verdict counted as a tie is a flagged judgment, not an error."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import cast

from alembic import command

from tests.stats.bundle_helpers import add_judge_verdicts, build_bundle, item_line
from workbench.storage import Bundle, head_revision
from workbench.storage.bundle import _alembic_config
from workbench.storage.dialects import make_engine, parse_location
from workbench.storage.judgments import OutcomeFilter, read_judgments

TIE_ERROR = "unparsed: no verdict found; counted as a tie"
MISSING_ERROR = "unparsed: no verdict found; no outcome stored"


def _old_bundle(tmp_path: Path) -> Path:
    """A bundle at schema 0005 holding each older convention."""
    line = item_line(
        "q1",
        [{"kind": "human", "model_a": "x", "model_b": "y", "outcome": "a", "rater": "w1"}],
        outputs={"x": "x answers", "y": "y answers"},
    )
    path = build_bundle(tmp_path / "old", [line])
    add_judge_verdicts(
        path,
        "ablation-run",
        [("q1", "x", "y", "tie"), ("q1", "y", "x", "tie"), ("q1", "x", "y", None)],
        parameters={"temperature": 0.0, "selection": {"context": "perfect_perception"}},
    )
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE imports SET importer = 'visit-bench-preferences'")
        connection.execute("UPDATE prior_judgments SET turn_index = 1")
        ids = [row[0] for row in connection.execute("SELECT id FROM judge_verdicts ORDER BY id")]
        connection.execute(
            "UPDATE judge_verdicts SET error = ? WHERE id IN (?, ?)", (TIE_ERROR, *ids[:2])
        )
        connection.execute(
            "UPDATE judge_verdicts SET error = ?, outcome = NULL WHERE id = ?",
            (MISSING_ERROR, ids[2]),
        )
    engine = make_engine(parse_location(path))
    try:
        with engine.begin() as connection:
            command.downgrade(_alembic_config(connection), "0005")
    finally:
        engine.dispose()
    return cast("Path", path)


def test_rows_of_the_older_conventions_read_as_the_one_convention(tmp_path: Path) -> None:
    path = _old_bundle(tmp_path)
    with Bundle.open(path) as bundle:
        assert bundle.revision() == head_revision()
        with bundle.read_session() as session:
            names, rows = read_judgments(session, OutcomeFilter())
    found = [dict(zip(names, row, strict=True)) for row in rows]
    imported = [row for row in found if row["origin"] == "imported"]
    verdicts = [row for row in found if row["origin"] == "judge-run"]
    assert [row["turn"] for row in imported] == [None]
    # the two unreadable answers counted as ties are judgments, flagged; the one with no
    # outcome is none
    assert [(row["outcome"], row["unparsed"]) for row in verdicts] == [("tie", True)] * 2
    assert {row["context"] for row in verdicts} == {"perfect_perception"}
    with sqlite3.connect(path) as connection:
        stored = connection.execute(
            "SELECT error, json_extract(metadata, '$.unparsed') FROM judge_verdicts ORDER BY id"
        ).fetchall()
        parameters = connection.execute("SELECT parameters FROM judge_runs").fetchone()[0]
    assert stored == [
        (None, "no verdict found; counted as a tie"),
        (None, "no verdict found; counted as a tie"),
        (MISSING_ERROR, None),
    ]
    assert '"context": "perfect_perception"' in parameters


def test_a_preference_of_another_importer_keeps_its_turn(tmp_path: Path) -> None:
    path = _old_bundle(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE imports SET importer = 'jsonl'")
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        names, rows = read_judgments(session, OutcomeFilter(origins=("imported",)))
    assert [dict(zip(names, row, strict=True))["turn"] for row in rows] == [1]
