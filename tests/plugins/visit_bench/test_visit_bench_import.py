"""The ``visit-bench`` importer on the published CSVs: what lands in the bundle equals what an
independent reading of the raw files (pandas and json) counts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath

import pandas as pd
import pytest
from sqlalchemy import select

from tests.plugins.visit_bench.visit_bench_helpers import (
    MULTI_IMAGE_CSV,
    SINGLE_IMAGE_CSV,
    sha256,
    source_counts,
)
from workbench.services.importing import ImportResult, import_files
from workbench.storage import Bundle
from workbench.storage.models import Caption, Item, Reference

pytestmark = pytest.mark.shared_data


def _file_name(url: str) -> str:
    return url.rsplit("/", 1)[-1]


def _texts(cell: str) -> int:
    """Captions in a JSON list cell: its non-blank texts (the list is padded with NaN, and
    Winoground's BLIP-2 captions are empty strings)."""
    return sum(isinstance(entry, str) and bool(entry.strip()) for entry in json.loads(cell))


@pytest.fixture(scope="module")
def published(visit_bench_folder: Path) -> dict[str, pd.DataFrame]:
    return {
        "multi": pd.read_csv(visit_bench_folder / MULTI_IMAGE_CSV),
        "single": pd.read_csv(visit_bench_folder / SINGLE_IMAGE_CSV),
    }


@pytest.fixture(scope="module")
def image_urls(published: dict[str, pd.DataFrame]) -> list[str]:
    multi = [url for cell in published["multi"]["images"] for url in json.loads(cell)]
    return multi + list(published["single"]["image_url"])


def test_counts_equal_an_independent_reading_of_the_csvs(
    imported: tuple[Path, ImportResult],
    published: dict[str, pd.DataFrame],
    image_urls: list[str],
    visit_bench_folder: Path,
) -> None:
    multi, single = published["multi"], published["single"]
    present = sum((visit_bench_folder / "images" / _file_name(url)).is_file() for url in image_urls)
    expected = {
        "items": len(multi) + len(single),
        "turns": len(multi) + len(single),
        "image_slots": len(image_urls),
        "images_present": present,
        "images_missing": len(image_urls) - present,
        "captions": sum(map(_texts, multi["images_dense_captions"]))
        + sum(map(_texts, multi["images_blip2_captions"]))
        + int(single["image_dense_caption"].notna().sum()),
        "references": int(multi["reference_output"].notna().sum())
        + int(multi["gpt4_prediction"].notna().sum())
        + int(single["output_human_annotated"].notna().sum()),
        "outputs": 0,
        "models": 0,
        "judgments": 0,
    }
    assert source_counts(imported[0]) == expected
    result = imported[1]
    assert result.rejections == []
    missing_warnings = [w for w in result.warnings if "kept as missing" in w.reason]
    assert len(missing_warnings) == expected["images_missing"]


def test_item_ids_come_from_first_image_and_instruction(
    imported: tuple[Path, ImportResult], published: dict[str, pd.DataFrame]
) -> None:
    def expected_id(url: str, instruction: str) -> str:
        digest = hashlib.sha1(instruction.strip().encode()).hexdigest()[:8]
        return f"{PurePosixPath(_file_name(url)).stem}-{digest}"

    multi, single = published["multi"], published["single"]
    expected = {
        expected_id(json.loads(images)[0], instruction): family
        for images, instruction, family in zip(
            multi["images"], multi["instruction"], multi["instruction_category"], strict=True
        )
    } | {
        expected_id(url, instruction): family
        for url, instruction, family in zip(
            single["image_url"], single["instruction"], single["instruction_category"], strict=True
        )
    }
    with Bundle.open(imported[0]) as bundle, bundle.read_session() as session:
        stored = dict(session.execute(select(Item.external_id, Item.family)).all())
    assert stored == expected


def test_references_carry_the_published_verification_flags(
    imported: tuple[Path, ImportResult], published: dict[str, pd.DataFrame]
) -> None:
    multi = published["multi"]
    with Bundle.open(imported[0]) as bundle, bundle.read_session() as session:
        candidates = session.scalars(
            select(Reference).where(Reference.kind == "gpt4-candidate")
        ).all()
        verified = session.scalars(
            select(Reference.text).where(Reference.kind == "human-verified")
        ).all()
    assert len(candidates) == len(multi)
    for flag, column in (
        ("verified_correct", "human_ratings_gpt4_correct"),
        ("problem_in_caption", "human_ratings_problem_in_caption"),
        ("problem_in_reference", "human_ratings_problem_in_gpt4"),
    ):
        assert sum(getattr(ref, flag) for ref in candidates) == int(multi[column].sum())
    assert sorted(r.text for r in candidates) == sorted(multi["gpt4_prediction"])
    human = list(multi["reference_output"].dropna()) + list(
        published["single"]["output_human_annotated"]
    )
    assert sorted(verified) == sorted(human)


def test_captions_keep_their_image_position(
    imported: tuple[Path, ImportResult], published: dict[str, pd.DataFrame]
) -> None:
    multi = published["multi"]
    first_row = multi.iloc[0]
    dense = [c for c in json.loads(first_row["images_dense_captions"]) if isinstance(c, str)]
    with Bundle.open(imported[0]) as bundle, bundle.read_session() as session:
        positions = dict(
            session.execute(
                select(Caption.text, Caption.image_position).where(
                    Caption.kind == "instruction-conditioned", Caption.text.in_(dense)
                )
            ).all()
        )
    assert positions == {text: position for position, text in enumerate(dense)}


def test_metadata_keeps_urls_and_licence_metadata(
    imported: tuple[Path, ImportResult], published: dict[str, pd.DataFrame]
) -> None:
    multi = published["multi"]
    with Bundle.open(imported[0]) as bundle, bundle.read_session() as session:
        metadata = [m for m in session.scalars(select(Item.metadata_)) if "is_multiple_images" in m]
    assert len(metadata) == len(multi)
    assert sorted(json.dumps(m["image_urls"]) for m in metadata) == sorted(
        json.dumps(json.loads(cell)) for cell in multi["images"]
    )
    assert sorted(json.dumps(m["public_images_metadata"], sort_keys=True) for m in metadata) == (
        sorted(
            json.dumps(json.loads(cell), sort_keys=True) for cell in multi["public_images_metadata"]
        )
    )
    assert all(m["is_multiple_images"] is True for m in metadata)


def test_reimporting_the_same_folder_is_a_no_op(
    bundle_copy: Path, visit_bench_folder: Path
) -> None:
    before_counts = source_counts(bundle_copy)
    before_bytes = sha256(bundle_copy)
    again = import_files(bundle_copy, [visit_bench_folder], "visit-bench")
    assert again.already_imported
    assert source_counts(bundle_copy) == before_counts
    assert sha256(bundle_copy) == before_bytes


def test_the_same_files_named_one_by_one_add_nothing_new(
    bundle_copy: Path, visit_bench_folder: Path, published: dict[str, pd.DataFrame]
) -> None:
    before = source_counts(bundle_copy)
    result = import_files(bundle_copy, [visit_bench_folder / MULTI_IMAGE_CSV], "visit-bench")
    assert not result.already_imported  # another set of files, so it is read...
    assert result.counts["items_existing"] == len(published["multi"])  # ...and matches by id
    assert "items_added" not in result.counts
    assert source_counts(bundle_copy) == before
