"""Export, import into a new bundle, export again: the same bytes, for every image mode, with
votes of every protocol, real judge verdicts and imported judgments in the bundle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import func, select

from tests.export.helpers import ANNOTATORS, PLUGINS, WILDVISION_SOURCE
from workbench.export import ExportOptions, ImageMode, JudgmentSource, export_bundle
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.models import Campaign, ItemImage, PriorJudgment, Vote


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _active_votes(bundle_path: Path) -> list[Vote]:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        return list(session.scalars(select(Vote).where(Vote.retracted_at.is_(None))))


@pytest.mark.parametrize("mode", list(ImageMode))
def test_items_export_round_trip_is_byte_identical(
    voted_bundle: Path, tmp_path: Path, mode: ImageMode
) -> None:
    first = tmp_path / "first" / "items.jsonl"
    export_bundle(voted_bundle, first, ExportOptions(format="items", images=mode))
    copy = tmp_path / "copy.wbb"
    import_files(copy, [first], "jsonl")
    second = tmp_path / "second" / "items.jsonl"
    export_bundle(copy, second, ExportOptions(format="items", images=mode))
    expected = first.read_bytes()
    if mode is ImageMode.NONE:
        # a picture left out of the first export never reached the copy: it arrives missing,
        # and the copy's export says so; nothing else changes
        assert b'"not_exported"' in expected
        expected = expected.replace(b'"not_exported"', b'"missing"')
    assert expected == second.read_bytes()
    if mode is ImageMode.PATHS:
        pictures = sorted(p.name for p in (first.parent / "images").iterdir())
        assert pictures and pictures == sorted(p.name for p in (second.parent / "images").iterdir())
        for name in pictures:
            assert (first.parent / "images" / name).read_bytes() == (
                second.parent / "images" / name
            ).read_bytes()


def test_items_export_carries_every_vote_and_imported_judgment(
    voted_bundle: Path, tmp_path: Path
) -> None:
    out = tmp_path / "items.jsonl"
    export_bundle(voted_bundle, out, ExportOptions(format="items", images=ImageMode.EMBED))
    lines = _lines(out)
    judgments = [j for line in lines for j in line["judgments"]]
    votes = _active_votes(voted_bundle)
    exported_uuids = sorted(
        j["metadata"]["vote_uuid"] for j in judgments if j["metadata"].get("origin") == "campaign"
    )
    assert exported_uuids == sorted(vote.uuid for vote in votes)
    with Bundle.open(voted_bundle) as bundle, bundle.read_session() as session:
        retracted = session.scalars(select(Vote.uuid).where(Vote.retracted_at.is_not(None))).all()
        priors = session.scalar(select(func.count()).select_from(PriorJudgment))
        campaigns = set(session.scalars(select(Campaign.protocol)))
    assert retracted and not set(retracted) & set(exported_uuids)
    assert campaigns == {protocol.name for protocol in PLUGINS.protocols()}
    assert {j["metadata"]["protocol"] for j in judgments if "protocol" in j["metadata"]} == (
        campaigns
    )
    imported = [j for j in judgments if "origin" not in j["metadata"]]
    assert len(imported) == priors
    assert all(line["format_version"] == 1 for line in lines)
    wildvision = [line for line in lines if line["source"] == WILDVISION_SOURCE]
    assert wildvision and all(line["images"] == [{"missing": line["id"]}] for line in wildvision)
    for line in lines:
        named = {o["model"] for o in line["outputs"]} | {
            side for j in line["judgments"] for side in (j["model_a"], j["model_b"]) if side
        }
        assert [model["name"] for model in line["models"]] == sorted(named)


@pytest.mark.parametrize("export_format", ["jsonl", "csv", "arena"])
def test_other_formats_are_deterministic(
    voted_bundle: Path, tmp_path: Path, export_format: str
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for target in (one, two):
        export_bundle(voted_bundle, target, ExportOptions(format=export_format))
    assert one.read_bytes() == two.read_bytes() and one.stat().st_size > 0


def test_pairwise_records_describe_each_vote(voted_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    export_bundle(
        voted_bundle, out, ExportOptions(source=JudgmentSource.HUMAN, images=ImageMode.EMBED)
    )
    records = _lines(out)
    votes = {vote.uuid: vote for vote in _active_votes(voted_bundle)}
    assert len(records) == len(votes)
    assert all(
        r["format"] == "vlm-workbench/pairwise" and r["format_version"] == 1 for r in records
    )
    assert {r["kind"] for r in records} == {"human"}
    assert {r["annotator"] for r in records} == set(ANNOTATORS)
    for record in records:
        vote = votes[record["metadata"]["vote_uuid"]]
        assert record["choice"] == vote.choice and record["score"] == vote.grade
        assert record["cast_at"] == vote.cast_at.isoformat()
        assert record["images"] and "base64" in record["images"][0]
        assert record["shown_left"] == record["model_a"]
        if record["outcome"] == "a":
            assert record["winner"] == record["model_a"]
        if record["turn"] is not None and record["model_a"] != "reference":
            assert record["instruction"].startswith(f"Question {record['turn']} about")
            assert record["output_a"].startswith(f"Answer {record['turn']} to")


def test_csv_reads_back_with_pandas(voted_bundle: Path, tmp_path: Path) -> None:
    jsonl, table = tmp_path / "pairs.jsonl", tmp_path / "pairs.csv"
    export_bundle(voted_bundle, jsonl, ExportOptions())
    export_bundle(voted_bundle, table, ExportOptions(format="csv"))
    frame = pd.read_csv(table)
    records = _lines(jsonl)
    assert len(frame) == len(records)
    assert (frame["format_version"] == 1).all()
    assert frame["choice"].fillna("").tolist() == [r["choice"] or "" for r in records]
    assert frame["model_a"].tolist() == [r["model_a"] for r in records]


def test_filters_by_campaign_and_source(voted_bundle: Path, tmp_path: Path) -> None:
    protocol = PLUGINS.protocols()[0].name
    out = tmp_path / "one-campaign.jsonl"
    export_bundle(voted_bundle, out, ExportOptions(campaign=f"c-{protocol}"))
    records = _lines(out)
    assert records and {r["campaign"] for r in records} == {f"c-{protocol}"}
    judges = tmp_path / "judges.jsonl"
    export_bundle(voted_bundle, judges, ExportOptions(source=JudgmentSource.JUDGE))
    judged = _lines(judges)
    assert judged and {r["kind"] for r in judged} == {"judge"}
    assert {r["judge_model"] for r in judged} == {"gpt-4o"}


def test_a_references_only_export_never_calls_a_stored_image_missing(
    voted_bundle: Path, tmp_path: Path
) -> None:
    out = tmp_path / "items.jsonl"
    summary = export_bundle(voted_bundle, out, ExportOptions(format="items"))
    entries = [entry for line in _lines(out) for entry in line["images"]]
    with Bundle.open(voted_bundle) as bundle, bundle.read_session() as session:
        present, absent = (
            session.scalar(select(func.count()).select_from(ItemImage).where(condition))
            for condition in (ItemImage.image_id.is_not(None), ItemImage.image_id.is_(None))
        )
    assert present and absent
    assert sum("not_exported" in entry for entry in entries) == present
    assert sum("missing" in entry for entry in entries) == absent
    assert summary.images == "none" and summary.images_not_exported == present
