"""The import service: one transaction, nothing lands on rejection, re-import is a no-op."""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import select

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.domain import (
    ItemRecord,
    JudgmentKind,
    JudgmentRecord,
    Origin,
    Outcome,
    OutputRecord,
    TurnRecord,
)
from workbench.errors import WorkbenchError
from workbench.importers.base import Importer, ImportRejectedError, ImportReport, Record
from workbench.plugins import Plugin, Registry, UnknownFormatError
from workbench.services.importing import ImportCancelledError, _storable, import_files
from workbench.storage import Bundle
from workbench.storage.models import Import, ItemImage, Output, PriorJudgment
from workbench.storage.queries import bundle_counts


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def bundle_with_one_item(tmp_path: Path) -> Path:
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "first", [item_line("q1")])], "jsonl")
    return bundle


def counts(bundle: Path) -> dict[str, Any]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return cast("dict[str, Any]", bundle_counts(session)["totals"])


def test_import_creates_the_bundle_and_records_provenance(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src", [item_line("q1"), item_line("q2")])
    result = import_files(tmp_path / "new.wbb", [source], "jsonl")
    assert not result.already_imported
    assert result.counts["items_added"] == 2 and result.counts["outputs_added"] == 4
    assert result.counts["images_added"] == 1  # the same picture twice is stored once
    with Bundle.open(tmp_path / "new.wbb") as bundle, bundle.read_session() as session:
        provenance = session.scalars(select(Import)).one()
        assert provenance.importer == "jsonl"
        assert [(f.file_name, f.sha256) for f in provenance.files] == [
            ("items.jsonl", sha256(source))
        ]
        assert provenance.counts == result.counts


def test_reimporting_the_same_file_is_a_no_op(bundle_with_one_item: Path, tmp_path: Path) -> None:
    before = counts(bundle_with_one_item)
    again = import_files(bundle_with_one_item, [tmp_path / "first" / "items.jsonl"], "jsonl")
    assert again.already_imported
    assert counts(bundle_with_one_item) == before


def test_same_items_from_another_file_are_not_duplicated(
    bundle_with_one_item: Path, tmp_path: Path
) -> None:
    changed = item_line("q1", outputs=[{"model": "model-x", "text": "It is red!"}])
    result = import_files(bundle_with_one_item, [write_jsonl(tmp_path / "b", [changed])], "jsonl")
    assert result.counts["items_existing"] == 1
    assert result.counts["outputs_replaced"] == 1
    assert counts(bundle_with_one_item)["outputs"] == 2
    with Bundle.open(bundle_with_one_item) as bundle, bundle.read_session() as session:
        texts = sorted(session.scalars(select(Output.text)))
    assert texts == ["Blue.", "It is red!"]


def test_a_rejected_row_leaves_an_existing_bundle_byte_identical(
    bundle_with_one_item: Path, tmp_path: Path
) -> None:
    before = sha256(bundle_with_one_item)
    source = write_jsonl(tmp_path / "bad", [item_line("q2"), "{oops"])
    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle_with_one_item, [source], "jsonl")
    assert "items.jsonl, row 2: not valid JSON" in str(caught.value)
    assert sha256(bundle_with_one_item) == before


def test_an_image_that_is_not_an_image_rejects_its_row(
    bundle_with_one_item: Path, tmp_path: Path
) -> None:
    before = sha256(bundle_with_one_item)
    folder = tmp_path / "bad-image"
    source = write_jsonl(folder, [item_line("q9", images=[{"path": "images/fake.png"}])])
    (folder / "images" / "fake.png").write_bytes(b"this is text, not a PNG")
    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle_with_one_item, [source], "jsonl")
    message = str(caught.value)
    assert "items.jsonl, row 1, field 'images': images/fake.png" in message
    assert "not an image" in message
    assert sha256(bundle_with_one_item) == before


class OrphanOutputImporter(Importer):
    """Yields a good item and an output for an item that exists nowhere: a problem only the
    writer can find, after other rows were already inserted in the transaction."""

    name = "orphan-test"
    version = "1"
    description = "test importer"

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        yield ItemRecord(
            source="tests",
            external_id="fresh",
            turns=(TurnRecord(1, "What?"),),
            origin=Origin("orphans.txt", 1),
        )
        yield OutputRecord(
            source="tests",
            item_external_id="nowhere",
            model="m",
            text="x",
            origin=Origin("orphans.txt", 2),
        )


def test_unknown_item_found_while_writing_rolls_everything_back(
    bundle_with_one_item: Path, tmp_path: Path
) -> None:
    registry = Registry()
    registry.add(Plugin("test", "1", "test", importers=(OrphanOutputImporter(),)))
    source = tmp_path / "orphans.txt"
    source.write_text("anything")
    before = sha256(bundle_with_one_item)
    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle_with_one_item, [source], "orphan-test", plugins=registry)
    assert "orphans.txt, row 2, field 'item': no item 'nowhere'" in str(caught.value)
    assert sha256(bundle_with_one_item) == before


def test_skip_rejected_lands_the_valid_rows_and_records_the_rest(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src", [item_line("q1"), "{oops", item_line("q3")])
    result = import_files(tmp_path / "b.wbb", [source], "jsonl", skip_rejected=True)
    assert result.counts["items_added"] == 2
    assert [(r.row, r.field) for r in result.rejections] == [(2, None)]
    with Bundle.open(tmp_path / "b.wbb") as bundle, bundle.read_session() as session:
        provenance = session.scalars(select(Import)).one()
        assert provenance.warnings["rejected"][0]["row"] == 2


def test_failed_import_into_a_new_path_leaves_no_file(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "src", ["{oops"])
    with pytest.raises(ImportRejectedError):
        import_files(tmp_path / "never.wbb", [source], "jsonl")
    assert not list(tmp_path.glob("never.wbb*"))


def test_missing_images_are_kept_as_marked_slots(tmp_path: Path) -> None:
    line = item_line("q1", images=[{"path": "images/absent.png"}, {"missing": "http://x/y.jpg"}])
    result = import_files(tmp_path / "b.wbb", [write_jsonl(tmp_path / "s", [line])], "jsonl")
    assert result.counts["images_missing"] == 2
    with Bundle.open(tmp_path / "b.wbb") as bundle, bundle.read_session() as session:
        slots = session.scalars(select(ItemImage).order_by(ItemImage.position)).all()
    assert [(s.image_id, s.original_ref) for s in slots] == [
        (None, "images/absent.png"),
        (None, "http://x/y.jpg"),
    ]


def test_judgments_keep_their_models_and_outcome(tmp_path: Path) -> None:
    import_files(tmp_path / "b.wbb", [write_jsonl(tmp_path / "s", [item_line("q1")])], "jsonl")
    with Bundle.open(tmp_path / "b.wbb") as bundle, bundle.read_session() as session:
        judgment = session.scalars(select(PriorJudgment)).one()
        assert (judgment.kind, judgment.outcome, judgment.rater) == ("human", "a", "r1")


def test_unknown_format_and_missing_source_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError, match=r"unknown import format 'nope'.*jsonl"):
        import_files(tmp_path / "b.wbb", [tmp_path], "nope")
    with pytest.raises(WorkbenchError, match="no such file or folder"):
        import_files(tmp_path / "b.wbb", [tmp_path / "absent.jsonl"], "jsonl")
    assert not (tmp_path / "b.wbb").exists()


def test_cancel_before_writing_changes_nothing(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "s", [item_line("q1")])
    with pytest.raises(ImportCancelledError):
        import_files(tmp_path / "b.wbb", [source], "jsonl", cancel_requested=lambda: True)
    assert not (tmp_path / "b.wbb").exists()


def test_result_serialises_to_json(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "s", [item_line("q1")])
    result = import_files(tmp_path / "b.wbb", [source], "jsonl")
    assert json.loads(json.dumps(result.as_dict()))["counts"]["items_added"] == 1


def test_skip_rejected_with_nothing_valid_leaves_an_existing_bundle_unchanged(
    bundle_with_one_item: Path, tmp_path: Path
) -> None:
    before = sha256(bundle_with_one_item)
    source = write_jsonl(tmp_path / "bad", ["{oops"])
    with pytest.raises(ImportRejectedError, match="nothing to import"):
        import_files(bundle_with_one_item, [source], "jsonl", skip_rejected=True)
    assert sha256(bundle_with_one_item) == before


def _judgment(row: int, **fields: object) -> JudgmentRecord:
    values: dict[str, Any] = {
        "source": "arena",
        "item_external_id": None,
        "kind": JudgmentKind.HUMAN,
        "model_a": "model-a",
        "model_b": "model-b",
        "outcome": Outcome.A,
        "label": "model_a",
        "origin": Origin("battles.jsonl", row),
    }
    return JudgmentRecord(**{**values, **fields})


def test_each_judgment_is_checked_whole_after_the_same_texts_were_storable() -> None:
    """Texts found storable are remembered (a battle log repeats them millions of times); a
    text that is not, in any field, is still refused with its reason."""
    report = ImportReport()
    clean = [_judgment(row) for row in range(1, 4)]
    hostile = [
        _judgment(10, label="model_a\x00"),
        _judgment(11, model_b="model-b\ud800"),
        _judgment(12, rater="r" * 129),
        _judgment(13, turn_index=0),
        _judgment(14, strength=2**70),
        _judgment(15, score=float("nan")),
        _judgment(16, metadata={"tstamp": float("inf")}),
        _judgment(17, rater="r" * 129),  # a text refused once is refused again
    ]
    kept = _storable([*clean, *hostile, *clean], report, Origin("battles.jsonl"))
    assert kept == [*clean, *clean]
    refused = [(problem.row, problem.field) for problem in report.rejections]
    assert refused == [
        (10, "label"),
        (11, "model_b"),
        (12, "rater"),
        (13, "turn"),
        (14, "strength"),
        (15, "score"),
        (16, "metadata"),
        (17, "rater"),
    ]
    assert "NUL" in report.rejections[0].reason
    assert "unpaired surrogate" in report.rejections[1].reason
    assert "at most 128" in report.rejections[2].reason


def test_a_text_repeated_across_judgments_is_checked_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workbench.services import importing

    checked: list[str] = []
    original = importing._text_problem

    def text_problem(text: str, column: object) -> str | None:
        checked.append(text)
        return original(text, column)

    monkeypatch.setattr(importing, "_STORABLE_TEXTS", {})
    monkeypatch.setattr(importing, "_text_problem", text_problem)
    judgments = [_judgment(row, model_a=f"model-{row % 3}") for row in range(1, 1001)]
    assert _storable(judgments, ImportReport(), Origin("battles.jsonl")) == judgments
    # source, criterion, label, model_b and three model_a names: each once
    assert sorted(checked) == sorted(
        ["arena", "overall", "model_a", "model-b", "model-0", "model-1", "model-2"]
    )


def test_plain_metadata_is_not_serialized_to_be_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A battle log's judgments carry a question id each: flat metadata of texts, integers,
    booleans and nulls is storable at a glance; any other metadata is still serialized to be
    checked, and refused when JSON cannot store it."""
    from workbench.services import importing

    checked: list[object] = []
    original = importing._metadata_problems

    def metadata_problems(metadata: Any) -> Iterator[tuple[str, str]]:
        checked.append(metadata)
        return original(metadata)

    monkeypatch.setattr(importing, "_metadata_problems", metadata_problems)
    plain = [
        _judgment(1, metadata={"question_id": 7}),
        _judgment(2, metadata={"question_id": "q-2", "anony": True, "language": None}),
    ]
    other = [
        _judgment(3, metadata={"tstamp": 1.5}),
        _judgment(4, metadata={"question_id": 4, "tstamp": float("nan")}),
        _judgment(5, metadata={"categories": {"ocr": float("inf")}}),
        _judgment(6, metadata={("not", "text"): 1}),
    ]
    report = ImportReport()
    kept = _storable([*plain, *other], report, Origin("battles.jsonl"))
    assert kept == [*plain, other[0]]
    assert checked == [judgment.metadata for judgment in other]
    assert [(problem.row, problem.field) for problem in report.rejections] == [
        (4, "metadata"),
        (5, "metadata"),
        (6, "metadata"),
    ]


def test_no_full_collection_starts_by_itself_while_an_import_runs(tmp_path: Path) -> None:
    from workbench.services.importing import _FullCollectionPause

    before = gc.get_threshold()
    during: list[int] = []

    def progress(stage: str, done: int, total: int) -> None:
        during.append(gc.get_threshold()[2])

    source = write_jsonl(tmp_path / "src", [item_line("q1"), item_line("q2")])
    import_files(tmp_path / "new.wbb", [source], "jsonl", progress=progress)
    assert during and set(during) == {_FullCollectionPause.OUT_OF_REACH}
    assert gc.get_threshold() == before


def test_overlapping_imports_restore_the_threshold_found_before_the_first() -> None:
    from workbench.services.importing import _FullCollectionPause

    pause = _FullCollectionPause()
    before = gc.get_threshold()
    first, second = pause.deferred(), pause.deferred()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first import ends while the second still runs
    assert gc.get_threshold()[2] == _FullCollectionPause.OUT_OF_REACH
    second.__exit__(None, None, None)
    assert gc.get_threshold() == before


def test_a_failed_import_restores_the_threshold(tmp_path: Path) -> None:
    before = gc.get_threshold()
    with pytest.raises(WorkbenchError):
        import_files(tmp_path / "b.wbb", [tmp_path / "absent"], "jsonl")
    assert gc.get_threshold() == before
