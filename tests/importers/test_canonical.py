"""The canonical JSONL importer: what each field becomes, and how bad lines are rejected."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from tests.importers.canonical_helpers import item_line, png_bytes, write_jsonl
from workbench.domain import ItemRecord, JudgmentRecord, Outcome, OutputRecord
from workbench.importers.base import ImportReport
from workbench.importers.canonical import CanonicalJsonlImporter


def read(path: Path) -> tuple[list[Any], ImportReport]:
    report = ImportReport()
    return list(CanonicalJsonlImporter().read([path], report)), report


def test_a_full_line_becomes_item_outputs_and_judgments(tmp_path: Path) -> None:
    records, report = read(write_jsonl(tmp_path, [item_line("q1")]))
    assert report.rejections == []
    item, *rest = records
    assert isinstance(item, ItemRecord)
    assert item.external_id == "q1" and item.family == "counting"
    assert item.images[0].path == tmp_path / "images" / "a.png"
    assert item.turns[0].references[0].verified_correct is True
    assert [r.model for r in rest if isinstance(r, OutputRecord)] == ["model-x", "model-y"]
    (judgment,) = [r for r in rest if isinstance(r, JudgmentRecord)]
    assert judgment.origin is not None
    assert judgment.outcome is Outcome.A and judgment.origin.row == 1


def test_base64_and_missing_images(tmp_path: Path) -> None:
    encoded = base64.b64encode(png_bytes("blue")).decode()
    line = item_line("q1", images=[{"base64": encoded}, {"missing": "http://example.org/x.png"}])
    records, report = read(write_jsonl(tmp_path, [line]))
    assert report.rejections == []
    images = records[0].images
    assert images[0].data == png_bytes("blue")
    assert images[1].is_missing and images[1].original_ref == "http://example.org/x.png"


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"id": None}, "id", "is required"),
        ({"turns": []}, "turns", "at least one turn"),
        ({"turns": "What?"}, "turns", "must be list"),
        ({"format": "other"}, "format", "must be 'vlm-workbench/item'"),
        ({"format_version": 99}, "format_version", "newer than this app"),
        ({"images": [{"path": "../secret.png"}]}, "images[0].path", "outside"),
        ({"images": [{"path": "/etc/passwd"}]}, "images[0].path", "outside"),
        ({"images": [{"base64": "***"}]}, "images[0].base64", "not valid base64"),
        ({"outputs": [{"model": "m", "text": "x", "turn": 2}]}, "outputs[0].turn", "not a turn"),
        ({"judgments": [{"kind": "robot", "model_a": "m"}]}, "judgments[0].kind", "human"),
        (
            {"judgments": [{"kind": "human", "model_a": "m", "outcome": "left"}]},
            "judgments[0].outcome",
            "must be one of",
        ),
    ],
)
def test_bad_fields_are_rejected_with_their_path(
    tmp_path: Path, change: dict[str, Any], field: str, reason: str
) -> None:
    records, report = read(write_jsonl(tmp_path, [item_line("ok"), item_line("bad", **change)]))
    assert [r.external_id for r in records if isinstance(r, ItemRecord)] == ["ok"]
    (problem,) = report.rejections
    assert (problem.file, problem.row, problem.field) == ("items.jsonl", 2, field)
    assert reason in problem.reason


def test_symlink_leaving_the_folder_is_rejected(tmp_path: Path) -> None:
    outside = tmp_path / "outside.png"
    outside.write_bytes(png_bytes())
    folder = tmp_path / "bundle-src"
    path = write_jsonl(folder, [item_line("q1", images=[{"path": "images/link.png"}])])
    (folder / "images" / "link.png").symlink_to(outside)
    _, report = read(path)
    assert "resolves outside" in report.rejections[0].reason


def test_invalid_json_non_object_and_duplicate_ids(tmp_path: Path) -> None:
    lines = [item_line("q1"), "{not json", "[1, 2]", item_line("q1")]
    _, report = read(write_jsonl(tmp_path, lines))
    reasons = [(p.row, p.reason) for p in report.rejections]
    assert reasons[0][0] == 2 and "not valid JSON" in reasons[0][1]
    assert reasons[1][0] == 3 and "JSON object" in reasons[1][1]
    assert (
        reasons[2][0] == 4
        and "duplicate item id 'q1' (first at items.jsonl, row 1)" in reasons[2][1]
    )


def test_bom_is_accepted_and_bad_encoding_is_reported(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [item_line("q1")])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    records, report = read(path)
    assert report.rejections == [] and records[0].external_id == "q1"

    path.write_bytes(path.read_bytes() + b'{"id": "\xff\xfe"}\n')
    _, report = read(path)
    assert "not UTF-8" in report.rejections[0].reason and report.rejections[0].row == 2


def test_model_descriptions_become_model_records(tmp_path: Path) -> None:
    from workbench.domain import ModelRecord

    line = item_line(
        "q1", models=[{"name": "model-x", "display_name": "Model X", "metadata": {"size": "7B"}}]
    )
    records, report = read(write_jsonl(tmp_path, [line]))
    (model,) = [r for r in records if isinstance(r, ModelRecord)]
    assert (model.name, model.display_name, model.metadata) == (
        "model-x",
        "Model X",
        {"size": "7B"},
    )
    assert report.rejections == []
