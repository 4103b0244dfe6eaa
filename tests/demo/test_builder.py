"""Tests of workbench/demo/builder.py: what the demo bundle holds, its labelling, replacing an
existing file, and reproducibility."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

import workbench.demo.builder as builder
from workbench.cli import main
from workbench.demo import (
    DEMO_SOURCE,
    DemoBundleExistsError,
    generate_demo_bundle,
    write_demo_source,
)
from workbench.demo.answerers import BASELINE_ANSWERERS
from workbench.demo.plan import FAMILIES, demo_plan
from workbench.demo.votes import RATERS, answer_style, compared_pairs
from workbench.errors import WorkbenchError
from workbench.services import importing
from workbench.storage import Bundle
from workbench.storage.models import Import, Model, PriorJudgment
from workbench.storage.queries import bundle_counts


def _counts(path: Path) -> dict[str, Any]:
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        return bundle_counts(session)


def test_counts_match_the_declared_plan(demo_bundle: Path) -> None:
    plan = demo_plan(0)
    turns = sum(len(item.turns) for item in plan)
    names = [answerer.name for answerer in BASELINE_ANSWERERS]
    first_answers = builder._answers(plan[0], 0)
    styles = {name: answer_style(first_answers[name]) for name in names}
    pairs = sum(len(compared_pairs(index, names, styles)) for index in range(len(plan)))
    expected = {
        "items": len(plan),
        "turns": turns,
        "image_slots": sum(len(item.images) for item in plan),
        "images_missing": 0,
        "captions": sum(1 + len(item.image_captions) for item in plan),
        "references": turns,
        "outputs": turns * len(BASELINE_ANSWERERS),
        "models": len(BASELINE_ANSWERERS),
        "judgments_imported": pairs * len(RATERS),
        "judgments_without_item": 0,
        "imports": 1,
    }
    counts = _counts(demo_bundle)
    assert {key: counts["totals"][key] for key in expected} == expected
    assert list(counts["sources"]) == [DEMO_SOURCE]
    assert 36 <= len(plan) <= 48


def test_families_languages_and_turn_shapes(demo_items: list[dict[str, Any]]) -> None:
    declared = {family: count for family, _build, count in FAMILIES}
    assert Counter(item["family"] for item in demo_items) == declared
    assert {item["language"] for item in demo_items} == {"English"}
    for item in demo_items:
        if item["family"] == "multi-turn":
            assert [t["category"] for t in item["turns"]] == ["perception", "reasoning", "creation"]
            assert item["turns"][2]["focus_points"]
            assert all(len(t["references"]) == 1 for t in item["turns"])
        else:
            assert len(item["turns"]) == 1
        expected_images = 2 if item["family"] == "spot-the-difference" else 1
        assert len(item["images"]) == expected_images
        assert any(kind == "instruction-conditioned" for _pos, kind, _text in item["captions"])


def test_everything_is_labelled_as_demo(
    demo_bundle: Path, demo_items: list[dict[str, Any]]
) -> None:
    assert all(item["source"] == "demo" for item in demo_items)
    assert all(item["metadata"]["demo"] is True for item in demo_items)
    assert all("demo" in item["metadata"]["note"].lower() for item in demo_items)
    with Bundle.open(demo_bundle) as bundle, bundle.read_session() as session:
        models = session.execute(select(Model.name, Model.display_name, Model.metadata_)).all()
        vote_metadata = session.scalars(select(PriorJudgment.metadata_)).all()
        importer = session.scalar(select(Import.importer))
    assert {name for name, _, _ in models} == {a.name for a in BASELINE_ANSWERERS}
    for name, display_name, metadata in models:
        assert name.startswith("demo/")
        assert display_name.startswith("Demo baseline")
        assert metadata["demo"] is True
    assert vote_metadata and all(m["demo"] is True and m["simulated"] for m in vote_metadata)
    assert importer == "jsonl"


def test_outputs_record_correctness_that_separates_the_baselines(
    demo_bundle: Path, read_answers_and_votes: Any
) -> None:
    outputs, votes = read_answers_and_votes(demo_bundle)
    with Bundle.open(demo_bundle) as bundle, bundle.read_session() as session:
        names = {id_: name for id_, name in session.execute(select(Model.id, Model.name))}
    correct: dict[str, list[bool]] = {}
    for _item, _turn, model_id, _text, metadata in outputs:
        correct.setdefault(names[model_id], []).append(metadata["correct"])
    rate = {name: sum(flags) / len(flags) for name, flags in correct.items()}
    assert rate["demo/oracle-verbose"] == 1.0
    assert rate["demo/careful-counter"] > rate["demo/guesser"]
    assert rate["demo/off-by-one"] < 1.0
    assert {outcome for *_, outcome, _rater, _turn, _meta in votes} >= {"a", "b", "tie"}


def test_existing_file_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    target = tmp_path / "demo.wbb"
    target.write_bytes(b"my own file")
    with pytest.raises(DemoBundleExistsError, match="already exists") as raised:
        generate_demo_bundle(target)
    assert isinstance(raised.value, WorkbenchError)
    assert target.read_bytes() == b"my own file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.wbb"]


def test_a_folder_is_refused_even_with_replace(tmp_path: Path) -> None:
    with pytest.raises(DemoBundleExistsError, match="folder"):
        generate_demo_bundle(tmp_path, replace=True)


def test_replace_overwrites_with_a_complete_bundle(tmp_path: Path) -> None:
    target = tmp_path / "demo.wbb"
    target.write_bytes(b"an old demo")
    assert generate_demo_bundle(target, seed=3, replace=True) == target
    assert _counts(target)["totals"]["items"] == len(demo_plan(3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.wbb"]


def test_a_failed_replace_leaves_the_old_file_and_no_partial_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "demo.wbb"
    target.write_bytes(b"an old demo")
    real_import = importing.import_files

    def import_then_fail(*args: Any, **kwargs: Any) -> Any:
        real_import(*args, **kwargs)  # the partial bundle now exists beside the target
        raise OSError("disk full")

    monkeypatch.setattr(builder, "import_files", import_then_fail)
    with pytest.raises(OSError, match="disk full"):
        generate_demo_bundle(target, replace=True)
    assert target.read_bytes() == b"an old demo"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.wbb"]


def _tree_digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_same_seed_gives_identical_files_and_other_seeds_differ(tmp_path: Path) -> None:
    first = _tree_digest(write_demo_source(tmp_path / "a", seed=0).parent)
    again = _tree_digest(write_demo_source(tmp_path / "b", seed=0).parent)
    other = _tree_digest(write_demo_source(tmp_path / "c", seed=1).parent)
    assert first == again
    assert first.keys() == other.keys()
    assert first["demo.jsonl"] != other["demo.jsonl"]
    changed_images = [
        name for name in first if name.endswith(".png") and first[name] != other[name]
    ]
    assert len(changed_images) > len(first) // 2


def test_same_seed_gives_identical_bundle_records(
    tmp_path: Path, demo_bundle: Path, read_items: Any, read_answers_and_votes: Any
) -> None:
    again = generate_demo_bundle(tmp_path / "again.wbb", seed=0)
    assert read_items(again) == read_items(demo_bundle)
    assert read_answers_and_votes(again) == read_answers_and_votes(demo_bundle)


def test_jsonl_lines_are_canonical_items(tmp_path: Path) -> None:
    path = write_demo_source(tmp_path, seed=0)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == [item.external_id for item in demo_plan(0)]
    for line in lines:
        assert line["format"] == "vlm-workbench/item"
        for image in line["images"]:
            assert (tmp_path / image["path"]).is_file()


def test_cli_demo_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "cli.wbb"
    assert main(["demo", "--out", str(target), "--seed", "2"]) == 0
    assert str(target) in capsys.readouterr().out
    assert main(["demo", "--out", str(target)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["demo", "--out", str(target), "--force"]) == 0
