"""The convbench importer on small synthetic folders: what each row becomes, and how every kind
of malformed file or row is reported instead of failing the read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from workbench_convbench.importer import ConvBenchImporter
from workbench_convbench.pairwise import PAIRWISE_SIDE_KEY

from workbench.domain import ItemRecord
from workbench.importers.base import ImportProblem, ImportRejectedError, ImportReport
from workbench.plugins import registry
from workbench.services.importing import import_files

from .synthetic import CONVBENCH_COLUMNS, SyntheticConvBench, bundle_digest, synthetic_row


def read(sources: list[Path]) -> tuple[list[ItemRecord], ImportReport]:
    report = ImportReport()
    records = list(ConvBenchImporter().read(sources, report))
    items = [record for record in records if isinstance(record, ItemRecord)]
    assert items == records
    return items, report


def only(problems: list[ImportProblem]) -> ImportProblem:
    assert len(problems) == 1, problems
    return problems[0]


def test_the_plugin_registers_the_convbench_format() -> None:
    assert isinstance(registry().importer("convbench"), ConvBenchImporter)


def test_a_row_becomes_an_item_with_three_turns_references_caption_and_image(
    synthetic: SyntheticConvBench,
) -> None:
    synthetic.write([synthetic_row(7), synthetic_row(8)], pairwise=[1, 0])

    (first, second), report = read([synthetic.root])

    assert report.rejections == [] and report.warnings == []
    row = synthetic_row(7)
    assert (first.source, first.external_id, first.family) == (
        "convbench",
        "7",
        row["instruction_category"],
    )
    assert [turn.index for turn in first.turns] == [1, 2, 3]
    for turn, ordinal in zip(first.turns, ("first", "second", "third"), strict=True):
        title = ordinal.capitalize()
        assert turn.prompt == row[f"The_{ordinal}_turn_instruction"]
        assert turn.category == row[f"{title}_turn_instruction_category"]
        (reference,) = turn.references
        assert (reference.text, reference.kind, reference.source) == (
            row[f"{ordinal}_turn_answer"],
            "reference",
            "convbench",
        )
    assert [turn.focus_points for turn in first.turns] == [None, None, row["third_turn_demands"]]
    (caption,) = first.captions
    assert (caption.text, caption.kind, caption.source) == (
        row["instruction-conditioned-caption"],
        "instruction-conditioned",
        "convbench",
    )
    (image,) = first.images
    assert image.original_ref == row["image_id"]
    assert image.path == synthetic.root / "images" / row["image_id"]
    assert first.metadata["turn_roles"] == ["perception", "reasoning", "creation"]
    assert (first.metadata[PAIRWISE_SIDE_KEY], second.metadata[PAIRWISE_SIDE_KEY]) == (1, 0)
    assert first.origin is not None and (first.origin.file, first.origin.row) == (
        "ConvBench.xlsx",
        2,
    )


def test_the_workbook_file_reads_the_same_as_its_folder(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(1), synthetic_row(2)], pairwise=[0, 1])

    from_folder, _ = read([synthetic.root])
    from_file, _ = read([synthetic.workbook])

    assert from_file == from_folder


def test_a_workbook_named_by_folder_and_by_path_is_read_once(
    synthetic: SyntheticConvBench,
) -> None:
    synthetic.write([synthetic_row(1)], pairwise=[0])

    items, report = read([synthetic.root, synthetic.workbook])

    assert [item.external_id for item in items] == ["1"]
    assert report.rejections == []
    assert len(ConvBenchImporter().files([synthetic.root, synthetic.workbook])) == 2


def test_files_name_the_workbook_and_its_pairwise_file(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(1)], pairwise=[0])
    expected = [synthetic.workbook, synthetic.root / "pairwise.npy"]

    assert ConvBenchImporter().files([synthetic.root]) == expected
    assert ConvBenchImporter().files([synthetic.workbook]) == expected


def test_without_pairwise_file_items_carry_no_side(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(1)])

    (item,), report = read([synthetic.root])

    assert report.rejections == []
    assert PAIRWISE_SIDE_KEY not in item.metadata
    assert ConvBenchImporter().files([synthetic.root]) == [synthetic.workbook]


def test_an_absent_image_is_kept_as_a_missing_slot_and_warned(
    synthetic: SyntheticConvBench,
) -> None:
    synthetic.write([synthetic_row(1), synthetic_row(2, "not_there.png")], images=False)
    synthetic.write_image(synthetic_row(1)["image_id"])

    (present, absent), report = read([synthetic.root])

    assert not present.images[0].is_missing
    assert absent.images[0].is_missing and absent.images[0].original_ref == "not_there.png"
    warning = only(report.warnings)
    assert (warning.file, warning.row, warning.field) == ("ConvBench.xlsx", 3, "image_id")
    assert "not_there.png" in warning.reason
    assert report.rejections == []


def test_an_image_name_leaving_the_folder_is_rejected(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(1, "../../outside.png")])

    items, report = read([synthetic.root])

    assert items == []
    rejection = only(report.rejections)
    assert (rejection.row, rejection.field) == (2, "image_id")
    assert "outside" in rejection.reason


def test_a_duplicate_id_rejects_the_later_row_naming_the_first(
    synthetic: SyntheticConvBench,
) -> None:
    synthetic.write([synthetic_row(1), synthetic_row(2), synthetic_row(1, "other.png")])

    items, report = read([synthetic.root])

    assert [item.external_id for item in items] == ["1", "2"]
    rejection = only(report.rejections)
    assert (rejection.file, rejection.row, rejection.field) == ("ConvBench.xlsx", 4, "ID")
    assert "duplicate ID 1" in rejection.reason and "row 2" in rejection.reason


@pytest.mark.parametrize("bad_id", ["abc", 2.5, True, "1e3", "3 4"])
def test_a_non_integer_id_is_rejected(synthetic: SyntheticConvBench, bad_id: Any) -> None:
    synthetic.write([synthetic_row(1), synthetic_row(bad_id, "second.png")])

    items, report = read([synthetic.root])

    assert [item.external_id for item in items] == ["1"]
    rejection = only(report.rejections)
    assert (rejection.row, rejection.field) == (3, "ID")
    assert "must be an integer" in rejection.reason


@pytest.mark.parametrize(("cell", "external_id"), [(3.0, "3"), (" 7 ", "7"), ("12", "12")])
def test_integer_valued_ids_are_accepted(
    synthetic: SyntheticConvBench, cell: Any, external_id: str
) -> None:
    synthetic.write([synthetic_row(cell, "picture.png")])

    (item,), report = read([synthetic.root])

    assert report.rejections == []
    assert item.external_id == external_id


@pytest.mark.parametrize("column", CONVBENCH_COLUMNS)
@pytest.mark.parametrize("blank", [None, "   "])
def test_an_empty_required_cell_is_rejected_naming_row_and_column(
    synthetic: SyntheticConvBench, column: str, blank: str | None
) -> None:
    broken = synthetic_row(2, "second.png")
    broken[column] = blank
    synthetic.write([synthetic_row(1), broken, synthetic_row(3)])

    items, report = read([synthetic.root])

    assert [item.external_id for item in items] == ["1", "3"]
    rejection = only(report.rejections)
    assert (rejection.file, rejection.row, rejection.field) == ("ConvBench.xlsx", 3, column)
    assert rejection.reason == "is empty"


def test_every_problem_of_a_row_is_reported(synthetic: SyntheticConvBench) -> None:
    broken = synthetic_row("x")
    broken["first_turn_answer"] = None
    broken["third_turn_demands"] = ""
    synthetic.write([broken])

    items, report = read([synthetic.root])

    assert items == []
    assert [(r.row, r.field) for r in report.rejections] == [
        (2, "ID"),
        (2, "first_turn_answer"),
        (2, "third_turn_demands"),
    ]


def test_numbers_in_text_cells_read_as_excel_shows_them(synthetic: SyntheticConvBench) -> None:
    row = synthetic_row(1)
    row["first_turn_answer"] = 4.0
    row["second_turn_answer"] = 2.5
    synthetic.write([row])

    (item,), _ = read([synthetic.root])

    assert [turn.references[0].text for turn in item.turns[:2]] == ["4", "2.5"]


def test_missing_columns_give_one_rejection_naming_them(synthetic: SyntheticConvBench) -> None:
    columns = [c for c in CONVBENCH_COLUMNS if c not in ("image_id", "third_turn_demands")]
    synthetic.write([synthetic_row(1), synthetic_row(2)], columns=columns)

    items, report = read([synthetic.root])

    assert items == []
    rejection = only(report.rejections)
    assert (rejection.file, rejection.row) == ("ConvBench.xlsx", 1)
    assert "'image_id'" in rejection.reason and "'third_turn_demands'" in rejection.reason


def test_a_truncated_workbook_gives_one_clear_rejection(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(n) for n in range(1, 30)])
    whole = synthetic.workbook.read_bytes()
    synthetic.workbook.write_bytes(whole[: len(whole) // 2])

    items, report = read([synthetic.root])

    assert items == []
    rejection = only(report.rejections)
    assert (rejection.file, rejection.row) == ("ConvBench.xlsx", None)
    assert rejection.reason.startswith("not a readable xlsx: ")


def test_a_file_that_is_no_workbook_gives_one_clear_rejection(tmp_path: Path) -> None:
    text_file = tmp_path / "ConvBench.xlsx"
    text_file.write_text("ID,image_id\n1,a.png\n", encoding="utf-8")

    items, report = read([text_file])

    assert items == []
    assert only(report.rejections).reason.startswith("not a readable xlsx: ")


def test_a_workbook_without_the_sheet_is_rejected(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(1)], sheet="Sheet1")

    items, report = read([synthetic.root])

    assert items == []
    reason = only(report.rejections).reason
    assert "no sheet 'multi_turn_benchmark'" in reason and "'Sheet1'" in reason


def test_trailing_formatted_blank_rows_are_not_rows(synthetic: SyntheticConvBench) -> None:
    synthetic.write(
        [synthetic_row(1), synthetic_row(2)], styled_blank_rows_after=5, pairwise=[0, 1]
    )

    items, report = read([synthetic.root])

    assert len(items) == 2
    assert report.rejections == [] and report.warnings == []


def test_a_blank_row_between_rows_is_warned_and_keeps_its_pairwise_place(
    synthetic: SyntheticConvBench,
) -> None:
    synthetic.write([synthetic_row(1), None, synthetic_row(2)], pairwise=[0, 0, 1])

    items, report = read([synthetic.root])

    assert [(item.external_id, item.metadata[PAIRWISE_SIDE_KEY]) for item in items] == [
        ("1", 0),
        ("2", 1),
    ]
    warning = only(report.warnings)
    assert (warning.row, warning.reason) == (3, "empty row, skipped")


def test_a_pairwise_file_of_the_wrong_length_is_rejected(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(1), synthetic_row(2)], pairwise=[0, 1, 1])

    items, report = read([synthetic.root])

    assert all(PAIRWISE_SIDE_KEY not in item.metadata for item in items)
    rejection = only(report.rejections)
    assert (rejection.file, rejection.row) == ("pairwise.npy", None)
    assert "holds 3 sides" in rejection.reason and "2 conversation rows" in rejection.reason


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (np.array([0, 2]), "only 0 or 1"),
        (np.array([0.0, 1.0]), "must hold integers"),
        (np.array([[0, 1]]), "1-D array"),
    ],
)
def test_a_pairwise_file_with_other_values_is_rejected(
    synthetic: SyntheticConvBench, content: np.ndarray, expected: str
) -> None:
    synthetic.write([synthetic_row(1), synthetic_row(2)], pairwise=content)

    _, report = read([synthetic.root])

    rejection = only(report.rejections)
    assert rejection.file == "pairwise.npy" and expected in rejection.reason


def test_an_unreadable_pairwise_file_is_rejected(synthetic: SyntheticConvBench) -> None:
    synthetic.write([synthetic_row(1)])
    (synthetic.root / "pairwise.npy").write_bytes(b"not numpy")

    _, report = read([synthetic.root])

    rejection = only(report.rejections)
    assert rejection.file == "pairwise.npy" and "not a readable .npy" in rejection.reason


ID_CELLS = st.one_of(
    st.none(),
    st.integers(-5, 40),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.text(alphabet="0123456789 -+.ax", max_size=4),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ids=st.lists(ID_CELLS, min_size=1, max_size=6))
def test_any_id_cells_give_each_row_an_item_or_a_rejection(
    tmp_path_factory: pytest.TempPathFactory, ids: list[Any]
) -> None:
    folder = SyntheticConvBench(tmp_path_factory.mktemp("ids"))
    folder.write([synthetic_row(cell, f"p{n}.png") for n, cell in enumerate(ids)], images=False)

    items, report = read([folder.root])

    rejected_rows = {problem.row for problem in report.rejections}
    assert len(items) + len(rejected_rows) == len(ids)
    assert len({item.external_id for item in items}) == len(items)


# --- through the import service: a failed import changes nothing ------------------------------


def _truncated(folder: SyntheticConvBench) -> None:
    folder.write([synthetic_row(n) for n in range(10, 40)])
    whole = folder.workbook.read_bytes()
    folder.workbook.write_bytes(whole[: len(whole) // 2])


def _missing_column(folder: SyntheticConvBench) -> None:
    folder.write([synthetic_row(10)], columns=CONVBENCH_COLUMNS[:-1])


def _duplicate_id(folder: SyntheticConvBench) -> None:
    folder.write([synthetic_row(10), synthetic_row(10, "again.png")])


def _empty_cell(folder: SyntheticConvBench) -> None:
    row = synthetic_row(10)
    row["second_turn_answer"] = None
    folder.write([synthetic_row(11), row])


def _pairwise_mismatch(folder: SyntheticConvBench) -> None:
    folder.write([synthetic_row(10)], pairwise=[0, 1])


@pytest.mark.parametrize(
    ("make", "where"),
    [
        (_truncated, ("ConvBench.xlsx", None, None)),
        (_missing_column, ("ConvBench.xlsx", 1, None)),
        (_duplicate_id, ("ConvBench.xlsx", 3, "ID")),
        (_empty_cell, ("ConvBench.xlsx", 3, "second_turn_answer")),
        (_pairwise_mismatch, ("pairwise.npy", None, None)),
    ],
)
def test_a_rejected_import_leaves_an_existing_bundle_byte_identical(
    tmp_path: Path, make: Any, where: tuple[Any, ...]
) -> None:
    bundle = tmp_path / "existing.wbb"
    import_files(
        bundle, [SyntheticConvBench(tmp_path / "good").write([synthetic_row(1)]).root], "convbench"
    )
    before = bundle_digest(bundle)
    bad = SyntheticConvBench(tmp_path / "bad")
    make(bad)

    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle, [bad.root], "convbench")

    problem = only(caught.value.problems)
    assert (problem.file, problem.row, problem.field) == where
    assert bundle_digest(bundle) == before
