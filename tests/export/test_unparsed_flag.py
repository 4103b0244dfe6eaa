"""A judge's tie counted for want of a readable verdict keeps its flag through an export and an
import of the exported file: the export's metadata says ``unparsed``, and the read model of the
bundle it is imported into flags the imported judgment too."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.stats.bundle_helpers import add_judge_verdicts, build_bundle, item_line
from workbench.export import ExportOptions, export_bundle
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.judgments import OutcomeFilter, read_judgments


def _flags(path: Path, origin: str) -> list[bool]:
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        _, rows = read_judgments(session, OutcomeFilter(origins=(origin,)), columns=("unparsed",))
    return [bool(flag) for (flag,) in rows]


def test_the_unparsed_flag_survives_an_export_and_an_import(tmp_path: Path) -> None:
    line = item_line("q1", [], outputs={"x": "x answers", "y": "y answers"})
    path = build_bundle(tmp_path / "judged", [line])
    add_judge_verdicts(path, "run", [("q1", "x", "y", "a"), ("q1", "y", "x", "tie")])
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE judge_verdicts SET metadata = json_object('unparsed', 'no verdict found') "
            "WHERE outcome = 'tie'"
        )
    assert _flags(path, "judge-run") == [False, True]

    exported = tmp_path / "items.jsonl"
    export_bundle(path, exported, ExportOptions(format="items"))
    judgments = [
        j for line in exported.read_text().splitlines() for j in json.loads(line)["judgments"]
    ]
    assert [j["metadata"].get("unparsed") for j in judgments] == [None, True]

    again = tmp_path / "again.wbb"
    import_files(again, [exported], "jsonl")
    assert _flags(again, "imported") == [False, True]
