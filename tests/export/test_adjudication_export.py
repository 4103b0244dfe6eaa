"""Exports carry settled answers as judgments of origin ``adjudication``, the note as their
text, the task's sides, and the adjudicator hidden like an annotator when pseudonymized."""

from __future__ import annotations

import json
from pathlib import Path

from tests.services.campaign_ops_bundle import CAMPAIGN, PLUGINS, build_ops_bundle
from workbench.export import ExportOptions, export_bundle
from workbench.services.adjudication import disagreements, record_adjudication
from workbench.storage import Bundle

ADJUDICATOR = "lead.secret-handle"


def test_exports_carry_adjudications_and_hide_the_adjudicator(tmp_path: Path) -> None:
    path, _ = build_ops_bundle(tmp_path)
    with Bundle.open(path) as bundle:
        task = disagreements(bundle, CAMPAIGN)[0]
        record_adjudication(
            bundle, CAMPAIGN, task["task"], "b", "left miscounts", ADJUDICATOR, plugins=PLUGINS
        )
    plain, hidden = tmp_path / "plain.jsonl", tmp_path / "hidden.jsonl"
    export_bundle(path, plain, ExportOptions(format="jsonl"))
    export_bundle(path, hidden, ExportOptions(format="jsonl", pseudonym_key=b"k"))

    records = [json.loads(line) for line in plain.read_text("utf-8").splitlines()]
    settled = [r for r in records if r["metadata"].get("origin") == "adjudication"]
    assert len(settled) == 1
    record = settled[0]
    assert record["annotator"] == ADJUDICATOR and record["comment"] == "left miscounts"
    assert (record["model_a"], record["model_b"]) == (task["left"], task["right"])
    assert record["outcome"] == "b" and record["metadata"]["campaign"] == CAMPAIGN
    assert record["group"] == f"campaign:{CAMPAIGN}:task:{task['task']}"
    assert ADJUDICATOR not in hidden.read_text("utf-8")
