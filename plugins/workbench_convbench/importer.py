"""The ``convbench`` import format: ConvBench.xlsx (sheet ``multi_turn_benchmark``), the images
in ``images/`` beside it, and the optional ``pairwise.npy``. docs/importers/convbench.md says
what lands where and why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.domain import (
    CaptionRecord,
    ImageRecord,
    ItemRecord,
    Origin,
    ReferenceRecord,
    TurnRecord,
)
from workbench.importers.base import Importer, ImportReport, Record
from workbench.importers.images import ImageProblemError, resolve_inside
from workbench_convbench.pairwise import (
    PAIRWISE_FILE_NAME,
    PAIRWISE_SIDE_KEY,
    PairwiseFileError,
    load_pairwise_sides,
)
from workbench_convbench.workbook import SheetRow, UnreadableWorkbookError, read_sheet

SOURCE = "convbench"
SHEET_NAME = "multi_turn_benchmark"
IMAGE_FOLDER = "images"

#: Item metadata key listing what each turn tests, in turn order. It lives on the item because
#: a turn record has no metadata of its own.
TURN_ROLES_KEY = "turn_roles"
TURN_ROLES = ("perception", "reasoning", "creation")

ID_COLUMN = "ID"
FAMILY_COLUMN = "instruction_category"
IMAGE_COLUMN = "image_id"
CAPTION_COLUMN = "instruction-conditioned-caption"

_INTEGER = re.compile(r"[+-]?\d+")


@dataclass(frozen=True, slots=True)
class TurnColumns:
    """The columns that make up one turn of a ConvBench conversation."""

    instruction: str
    category: str
    answer: str
    focus_points: str | None = None


TURN_COLUMNS = (
    TurnColumns(
        "The_first_turn_instruction", "First_turn_instruction_category", "first_turn_answer"
    ),
    TurnColumns(
        "The_second_turn_instruction", "Second_turn_instruction_category", "second_turn_answer"
    ),
    TurnColumns(
        "The_third_turn_instruction",
        "Third_turn_instruction_category",
        "third_turn_answer",
        "third_turn_demands",
    ),
)

#: Every column must be present and every cell filled: ConvBench's judge reads all of them
#: (the caption, each turn's reference, the focus points), and its reports group by the
#: categories.
REQUIRED_COLUMNS = (
    ID_COLUMN,
    FAMILY_COLUMN,
    IMAGE_COLUMN,
    CAPTION_COLUMN,
    *(
        column
        for turn in TURN_COLUMNS
        for column in (turn.instruction, turn.category, turn.answer, turn.focus_points)
        if column is not None
    ),
)


class _RowCells:
    """The cells of one row by column name, collecting every problem instead of stopping at
    the first, so one pass over a file tells the user all that is wrong with a row."""

    def __init__(self, row: SheetRow, columns: dict[str, int]) -> None:
        self.row = row
        self.columns = columns
        self.problems: list[tuple[str, str]] = []

    def value(self, column: str) -> Any:
        return self.row.values[self.columns[column]]

    def text(self, column: str) -> str:
        """The cell as text, kept verbatim; numbers are written as Excel shows them."""
        value = self.value(column)
        if isinstance(value, float) and value.is_integer():
            text = str(int(value))
        elif value is None:
            text = ""
        else:
            text = str(value)
        if not text.strip():
            self.problems.append((column, "is empty"))
        return text

    def label(self, column: str) -> str:
        """A cell that names something (category, file): surrounding spaces are noise."""
        return self.text(column).strip()

    def integer_id(self) -> str:
        value = self.value(ID_COLUMN)
        if isinstance(value, bool):
            number = None
        elif isinstance(value, int):
            number = value
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
            number = int(value.strip())
        else:
            number = None
        if number is None:
            if value is None or (isinstance(value, str) and not value.strip()):
                self.problems.append((ID_COLUMN, "is empty"))
            else:
                self.problems.append((ID_COLUMN, f"must be an integer, not {str(value)[:60]!r}"))
            return ""
        return str(number)


class ConvBenchImporter(Importer):
    name = "convbench"
    version = "1"
    description = "ConvBench: ConvBench.xlsx with images/ and pairwise.npy beside it"

    def files(self, sources: Sequence[Path]) -> list[Path]:
        """The workbooks, and each one's ``pairwise.npy`` when present: the sides it fixes
        belong to the import's provenance as much as the sheet does."""
        found: list[Path] = []
        for workbook in self._workbooks(sources):
            pairwise = workbook.parent / PAIRWISE_FILE_NAME
            for path in (workbook, pairwise):
                if path.is_file() and path not in found:
                    found.append(path)
        return found

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        first_seen: dict[str, Origin] = {}
        for workbook in self._workbooks(sources):
            yield from self._read_workbook(workbook, report, first_seen)

    @staticmethod
    def _workbooks(sources: Sequence[Path]) -> list[Path]:
        """A folder stands for the xlsx files directly inside it (Excel's ``~$`` lock files
        aside); a file stands for itself. A workbook named twice (by its folder and by its
        path) is read once."""
        workbooks: dict[Path, Path] = {}
        for source in sources:
            if source.is_dir():
                candidates = [
                    path
                    for path in sorted(source.glob("*.xlsx"))
                    if path.is_file() and not path.name.startswith("~$")
                ]
            else:
                candidates = [source]
            for path in candidates:
                workbooks.setdefault(path.resolve(), path)
        return list(workbooks.values())

    def _read_workbook(
        self, path: Path, report: ImportReport, first_seen: dict[str, Origin]
    ) -> Iterator[ItemRecord]:
        try:
            sheet = read_sheet(path, SHEET_NAME, self.limits)
        except UnreadableWorkbookError as error:
            report.reject(Origin(path.name), None, str(error))
            return
        columns: dict[str, int] = {}
        for position, name in enumerate(sheet.header):
            columns.setdefault(name, position)
        missing = [column for column in REQUIRED_COLUMNS if column not in columns]
        if missing:
            names = ", ".join(f"'{column}'" for column in missing)
            report.reject(
                Origin(path.name, 1),
                None,
                f"missing column(s) {names} in sheet '{SHEET_NAME}' (the header is row 1)",
            )
            return

        sides = self._pairwise_sides(path, len(sheet.rows), report)
        images_root = path.parent / IMAGE_FOLDER
        for offset, row in enumerate(sheet.rows):
            origin = Origin(path.name, row.number)
            if row.is_blank:
                # A blank row between conversations still takes its place in pairwise.npy, as
                # it does in ConvBench's own pandas-based evaluation script.
                report.warn(origin, None, "empty row, skipped")
                continue
            cells = _RowCells(row, columns)
            external_id = cells.integer_id()
            if external_id and external_id in first_seen:
                report.reject(
                    origin,
                    ID_COLUMN,
                    f"duplicate ID {external_id} (first at {first_seen[external_id]})",
                )
                continue
            side = sides[offset] if sides is not None else None
            item = self._item(cells, external_id, images_root, side, origin)
            if cells.problems:
                for field, reason in cells.problems:
                    report.reject(origin, field, reason)
                continue
            assert item is not None
            first_seen[external_id] = origin
            image = item.images[0]
            if image.is_missing:
                report.warn(
                    origin,
                    IMAGE_COLUMN,
                    f"image '{image.original_ref}' not found in {IMAGE_FOLDER}/; "
                    "imported as a missing image",
                )
            yield item

    @staticmethod
    def _pairwise_sides(path: Path, row_count: int, report: ImportReport) -> list[int] | None:
        """The sides from the pairwise.npy beside ``path``, one per data row in row order, or
        None when it is absent or unusable (then reported)."""
        pairwise = path.parent / PAIRWISE_FILE_NAME
        if not pairwise.is_file():
            return None
        origin = Origin(pairwise.name)
        try:
            sides = load_pairwise_sides(pairwise)
        except PairwiseFileError as error:
            report.reject(origin, None, str(error))
            return None
        if len(sides) != row_count:
            report.reject(
                origin,
                None,
                f"holds {len(sides)} sides but {path.name} has {row_count} conversation rows "
                f"(rows 2 to {row_count + 1}); it needs exactly one per row, in row order",
            )
            return None
        return sides

    @staticmethod
    def _item(
        cells: _RowCells,
        external_id: str,
        images_root: Path,
        pairwise_side: int | None,
        origin: Origin,
    ) -> ItemRecord | None:
        """The item of one row, or None when the row has problems (left in ``cells``)."""
        family = cells.label(FAMILY_COLUMN)
        caption = cells.text(CAPTION_COLUMN)
        image_name = cells.label(IMAGE_COLUMN)
        turns = tuple(
            TurnRecord(
                index=index,
                prompt=cells.text(columns.instruction),
                category=cells.label(columns.category),
                focus_points=(
                    cells.text(columns.focus_points) if columns.focus_points is not None else None
                ),
                references=(
                    ReferenceRecord(
                        text=cells.text(columns.answer), kind="reference", source=SOURCE
                    ),
                ),
            )
            for index, columns in enumerate(TURN_COLUMNS, start=1)
        )
        image_path = None
        if image_name:
            try:
                image_path = resolve_inside(images_root, image_name, source=images_root.parent)
            except ImageProblemError as error:
                cells.problems.append((IMAGE_COLUMN, str(error)))
        if cells.problems:
            return None

        metadata: dict[str, Any] = {TURN_ROLES_KEY: list(TURN_ROLES)}
        if pairwise_side is not None:
            metadata[PAIRWISE_SIDE_KEY] = pairwise_side
        return ItemRecord(
            source=SOURCE,
            external_id=external_id,
            turns=turns,
            family=family,
            images=(ImageRecord(0, image_name, path=image_path),),
            captions=(
                CaptionRecord(
                    caption, kind="instruction-conditioned", source=SOURCE, image_position=0
                ),
            ),
            metadata=metadata,
            origin=origin,
        )
