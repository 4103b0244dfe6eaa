"""The ``visit-bench-preferences`` importer, on a file in VisIT-Bench's published preference
schema built from the published multi-image rows: GPT-4's caption-based answer (A) against the
human-verified reference (B), with rater choices drawn by a seeded generator."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import func, select
from workbench_visit_bench.benchmark import VisitBenchImporter
from workbench_visit_bench.preferences import VisitBenchPreferencesImporter

from tests.plugins.visit_bench.visit_bench_helpers import (
    MULTI_IMAGE_CSV,
    sha256,
    source_counts,
    write_csv,
)
from workbench.importers.base import ImportRejectedError
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.models import Item, Model, Output, PriorJudgment

pytestmark = pytest.mark.shared_data

MODEL_A = "gpt4-from-captions"
MODEL_B = "human-verified-reference"
#: more rater columns than votes per tuple: each tuple is judged by 5 of them, as when a file
#: has one column per crowd worker
RATERS = [f"worker_{n}" for n in range(1, 8)]
VOTES_PER_TUPLE = 5
PREFERENCE_CSV = "visit_bench_human_preferences.csv"


def preference_rows(published: pd.DataFrame, seed: int = 20230811) -> pd.DataFrame:
    """Rows in the published schema: image_url, instruction, A, B, A_model, B_model,
    model_selection.A, model_selection.B, then one column per rater. A rater names the side
    as "A"/"B" or by the model's name; model_selection.* flag the side most raters chose (the
    repository's README: "which model's response aligned more closely with human preference")."""
    rng = np.random.default_rng(seed)
    rows = []
    for _, source in published[published["reference_output"].notna()].iterrows():
        choices = rng.choice(["A", "B", MODEL_A, MODEL_B], size=VOTES_PER_TUPLE)
        votes_for_a = sum(choice in ("A", MODEL_A) for choice in choices)
        raters = rng.choice(RATERS, size=VOTES_PER_TUPLE, replace=False)
        row = {
            "image_url": json.loads(source["images"])[0],
            "instruction": source["instruction"],
            "A": source["gpt4_prediction"],
            "B": source["reference_output"],
            "A_model": MODEL_A,
            "B_model": MODEL_B,
            "model_selection.A": votes_for_a > VOTES_PER_TUPLE / 2,
            "model_selection.B": votes_for_a < VOTES_PER_TUPLE / 2,
        }
        row.update({rater: "" for rater in RATERS})
        row.update(dict(zip(raters, choices, strict=True)))
        rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def published(visit_bench_folder: Path) -> pd.DataFrame:
    return pd.read_csv(visit_bench_folder / MULTI_IMAGE_CSV)


@pytest.fixture
def preferences(published: pd.DataFrame) -> pd.DataFrame:
    return preference_rows(published)


@pytest.fixture
def preference_csv(preferences: pd.DataFrame, tmp_path: Path, visit_bench_folder: Path) -> Path:
    return write_csv(
        preferences, tmp_path / "prefs", PREFERENCE_CSV, with_images_of=visit_bench_folder
    )


def _chose_a(choice: str) -> bool:
    return choice in ("A", MODEL_A)


def test_every_rater_becomes_one_human_judgment_grouped_by_tuple(
    bundle_copy: Path, preference_csv: Path, preferences: pd.DataFrame
) -> None:
    result = import_files(bundle_copy, [preference_csv], "visit-bench-preferences")
    assert result.rejections == []
    assert result.counts["items_existing"] == len(preferences)
    assert "items_added" not in result.counts
    assert result.counts["judgments_human"] == VOTES_PER_TUPLE * len(preferences)
    assert result.counts["outputs_added"] == 2 * len(preferences)

    choices = preferences[RATERS].to_numpy().ravel()
    choices = choices[choices != ""]
    with Bundle.open(bundle_copy) as bundle, bundle.read_session() as session:
        group_sizes = Counter(session.scalars(select(PriorJudgment.group_key)))
        outcomes = Counter(session.scalars(select(PriorJudgment.outcome)))
        model_a = session.scalar(
            select(Model.name).join(PriorJudgment, PriorJudgment.model_a_id == Model.id).limit(1)
        )
        kinds = set(session.scalars(select(PriorJudgment.kind)))
    assert len(group_sizes) == len(preferences)
    assert set(group_sizes.values()) == {VOTES_PER_TUPLE}
    assert outcomes == {
        "a": sum(map(_chose_a, choices)),
        "b": sum(not _chose_a(c) for c in choices),
    }
    assert model_a == MODEL_A and kinds == {"human"}


def test_a_tuple_keeps_its_raters_and_the_published_selection_flags(
    bundle_copy: Path, preference_csv: Path, preferences: pd.DataFrame
) -> None:
    import_files(bundle_copy, [preference_csv], "visit-bench-preferences")
    first = preferences.iloc[0]
    expected = {rater: first[rater] for rater in RATERS if first[rater]}
    with Bundle.open(bundle_copy) as bundle, bundle.read_session() as session:
        group = session.scalar(select(PriorJudgment.group_key).order_by(PriorJudgment.id))
        judgments = session.scalars(
            select(PriorJudgment).where(PriorJudgment.group_key == group)
        ).all()
    assert {j.rater: j.label for j in judgments} == expected
    assert {j.rater: j.outcome for j in judgments} == {
        rater: "a" if _chose_a(choice) else "b" for rater, choice in expected.items()
    }
    assert all(
        j.metadata_
        == {
            "model_selection.A": bool(first["model_selection.A"]),
            "model_selection.B": bool(first["model_selection.B"]),
        }
        for j in judgments
    )


def test_preferences_alone_create_the_same_items_as_the_benchmark(
    tmp_path: Path, preference_csv: Path, preferences: pd.DataFrame, imported: tuple[Any, ...]
) -> None:
    fresh = tmp_path / "fresh.wbb"
    result = import_files(fresh, [preference_csv], "visit-bench-preferences")
    assert result.counts["items_added"] == len(preferences)
    with Bundle.open(fresh) as bundle, bundle.read_session() as session:
        fresh_ids = set(session.scalars(select(Item.external_id)))
        answers = session.scalar(select(func.count()).select_from(Output))
    with Bundle.open(imported[0]) as bundle, bundle.read_session() as session:
        benchmark_ids = set(session.scalars(select(Item.external_id)))
    assert fresh_ids <= benchmark_ids
    assert answers == 2 * len(preferences)
    assert source_counts(fresh)["judgments"] == VOTES_PER_TUPLE * len(preferences)


def test_an_answer_shared_by_several_tuples_is_stored_once(
    tmp_path: Path, preferences: pd.DataFrame, visit_bench_folder: Path
) -> None:
    first = preferences.iloc[[0]].copy()
    third_model = first.assign(B_model="another-model", B="Another answer.").replace({MODEL_B: "B"})
    path = write_csv(
        pd.concat([first, third_model]),
        tmp_path / "p",
        PREFERENCE_CSV,
        with_images_of=visit_bench_folder,
    )
    result = import_files(tmp_path / "b.wbb", [path], "visit-bench-preferences")
    assert result.counts["outputs_added"] == 3
    assert result.counts["judgments_human"] == 2 * VOTES_PER_TUPLE


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"worker_1": "C"}, "worker_1", "'C' is not a choice"),
        ({"B_model": MODEL_A}, "B_model", "same model as A_model"),
        ({"instruction": ""}, "instruction", "required"),
        ({"A": "nan"}, "A", "required"),
    ],
)
def test_a_bad_preference_row_is_rejected_and_nothing_lands(
    bundle_copy: Path,
    tmp_path: Path,
    preferences: pd.DataFrame,
    change: dict[str, str],
    field: str,
    reason: str,
) -> None:
    rows = preferences.copy()
    for column, value in change.items():
        rows.loc[3, column] = value
    path = write_csv(rows, tmp_path / "bad", PREFERENCE_CSV)
    before = sha256(bundle_copy)
    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle_copy, [path], "visit-bench-preferences")
    message = str(caught.value)
    assert f"{PREFERENCE_CSV}, row 5, field '{field}'" in message  # data row 4 is row 5
    assert reason in message
    assert sha256(bundle_copy) == before


def test_a_different_answer_of_the_same_model_to_the_same_item_is_rejected(
    tmp_path: Path, preferences: pd.DataFrame
) -> None:
    first = preferences.iloc[[0]]
    changed = first.assign(B_model="another-model", A="A different answer.")
    path = write_csv(pd.concat([first, changed]), tmp_path / "p", PREFERENCE_CSV)
    with pytest.raises(ImportRejectedError, match=r"row 3, field 'A': differs from"):
        import_files(tmp_path / "b.wbb", [path], "visit-bench-preferences")
    assert not (tmp_path / "b.wbb").exists()


def test_a_file_without_rater_columns_is_rejected(
    tmp_path: Path, preferences: pd.DataFrame
) -> None:
    path = write_csv(preferences.drop(columns=RATERS), tmp_path / "p", PREFERENCE_CSV)
    with pytest.raises(ImportRejectedError, match="no rater columns"):
        import_files(tmp_path / "b.wbb", [path], "visit-bench-preferences")


def test_the_benchmark_importer_passes_over_a_preference_file_in_its_folder(
    tmp_path: Path, preferences: pd.DataFrame, visit_bench_folder: Path, imported: tuple[Any, ...]
) -> None:
    folder = tmp_path / "mixed"
    write_csv(preferences, folder, PREFERENCE_CSV)
    benchmark_files = (MULTI_IMAGE_CSV, "visit_fully_annotated_example.csv")
    for name in benchmark_files:
        (folder / name).symlink_to(visit_bench_folder / name)
    assert [p.name for p in VisitBenchImporter().files([folder])] == sorted(benchmark_files)
    assert [p.name for p in VisitBenchPreferencesImporter().files([folder])] == [PREFERENCE_CSV]
    result = import_files(tmp_path / "b.wbb", [folder], "visit-bench")
    assert result.counts["items_added"] == imported[1].counts["items_added"]
