"""The ``visit-bench-preferences`` import format: VisIT-Bench's human preference CSV.

Each row is one (image, instruction) tuple with two answers, ``A`` by ``A_model`` and ``B`` by
``B_model``, the published ``model_selection.A``/``model_selection.B`` flags, and one column
per rater saying which side that rater chose (5 forced-choice judgments per tuple). Rows are
numbered as a spreadsheet shows them: the header is row 1, the first data row is row 2.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.domain import (
    ItemRecord,
    JudgmentKind,
    JudgmentRecord,
    Origin,
    Outcome,
    OutputRecord,
    TurnRecord,
)
from workbench.importers.base import Importer, ImportReport, Record
from workbench_visit_bench.cells import (
    RowError,
    optional_text,
    parse_flag_text,
    required_text,
)
from workbench_visit_bench.csv_files import (
    CsvFileError,
    CsvRow,
    CsvTable,
    candidate_files,
    open_table,
)
from workbench_visit_bench.identity import (
    SOURCE,
    image_urls_of,
    item_external_id,
    locate_images,
    warn_missing_images,
)

REQUIRED_COLUMNS = ("image_url", "instruction", "A", "B", "A_model", "B_model")
SELECTION_COLUMNS = ("model_selection.A", "model_selection.B")
FIXED_COLUMNS = REQUIRED_COLUMNS + SELECTION_COLUMNS
#: the distinctive columns; a CSV holding them all is taken for a preference file
SIGNATURE = frozenset({"A", "B", "A_model", "B_model"})


def is_preference_header(columns: Sequence[str]) -> bool:
    return set(columns) >= SIGNATURE


def rater_columns(columns: Sequence[str]) -> list[str]:
    """Every column outside the published fixed set is one rater. A column without a name is
    a spreadsheet's or pandas' row index, not a rater."""
    return [column for column in columns if column and column not in FIXED_COLUMNS]


def _selection_value(text: str | None) -> bool | str | None:
    """``model_selection.*`` as published: a boolean when the cell is one, else the text as is."""
    if text is None:
        return None
    flag = parse_flag_text(text)
    return text if flag is None else flag


def _chosen_side(cell: str, model_a: str, model_b: str) -> Outcome | None:
    choice = cell.strip()
    if choice.upper() == "A":
        return Outcome.A
    if choice.upper() == "B":
        return Outcome.B
    named = [
        outcome
        for outcome, model in ((Outcome.A, model_a), (Outcome.B, model_b))
        if choice.casefold() == model.strip().casefold()
    ]
    # two names differing only in letter case cannot be told apart by a rater's cell
    return named[0] if len(named) == 1 else None


def _shown(text: str, limit: int = 60) -> str:
    """``text`` quoted on one line, shortened, for a message."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _image_urls(cells: dict[str, str]) -> list[str]:
    """``image_url`` holds one URL; a JSON list of URLs (a multi-image tuple) is accepted too."""
    text = required_text(cells, "image_url").strip()
    if not text.startswith("["):
        return [text]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise RowError("image_url", f"is not a URL nor a valid JSON list: {error.msg}") from error
    return image_urls_of(value, "image_url")


@dataclass
class _Seen:
    """What earlier rows of this import already yielded, to keep one record per identity."""

    items: set[str] = field(default_factory=set)
    outputs: dict[tuple[str, str], tuple[str, Origin]] = field(default_factory=dict)
    tuples: dict[tuple[str, str, str], Origin] = field(default_factory=dict)


class VisitBenchPreferencesImporter(Importer):
    """Human forced-choice judgments of VisIT-Bench tuples, with the two judged answers and,
    where the bundle lacks it, the item (instruction and image)."""

    name = "visit-bench-preferences"
    version = "1"
    description = "VisIT-Bench human preference CSV (A/B answers, one column per rater)"

    def files(self, sources: Sequence[Path]) -> list[Path]:
        return candidate_files(sources, is_preference_header)

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        seen = _Seen()
        for path in self.files(sources):
            yield from self._read_file(path, report, seen)

    def _read_file(self, path: Path, report: ImportReport, seen: _Seen) -> Iterator[Record]:
        try:
            table = open_table(path)
        except CsvFileError as error:
            report.reject(Origin(path.name, error.row), None, error.reason)
            return
        if not table.has_columns(REQUIRED_COLUMNS, "preference", report):
            return
        raters = rater_columns(table.columns)
        if not raters:
            report.reject(
                table.origin(),
                None,
                f"preference CSV has no rater columns (columns besides {', '.join(FIXED_COLUMNS)})",
            )
            return
        try:
            for row in table.rows(report):
                try:
                    yield from self._row_records(table, row, raters, report, seen)
                except RowError as error:
                    report.reject(table.origin(row.number), error.field, error.reason)
        except CsvFileError as error:
            report.reject(table.origin(error.row), None, error.reason)

    def _row_records(
        self,
        table: CsvTable,
        row: CsvRow,
        raters: Sequence[str],
        report: ImportReport,
        seen: _Seen,
    ) -> list[Record]:
        """The records of one row, all checked before any is returned, so a bad row adds
        nothing and leaves ``seen`` as it was."""
        cells = row.cells
        origin = table.origin(row.number)
        urls = _image_urls(cells)
        instruction = required_text(cells, "instruction")
        answers = {side: required_text(cells, side) for side in ("A", "B")}
        models = {side: required_text(cells, f"{side}_model").strip() for side in ("A", "B")}
        if models["A"] == models["B"]:
            raise RowError("B_model", f"is the same model as A_model ('{models['A']}')")
        try:
            external_id = item_external_id(urls, instruction)
        except ValueError as error:  # a URL that names no file, or cannot be parsed
            raise RowError("image_url", str(error)) from error

        tuple_key = (external_id, models["A"], models["B"])
        if tuple_key in seen.tuples:
            raise RowError(
                "A_model", f"repeats the tuple of {seen.tuples[tuple_key]} (same item and models)"
            )
        for side in ("A", "B"):
            earlier = seen.outputs.get((external_id, models[side]))
            if earlier is not None and earlier[0] != answers[side]:
                raise RowError(
                    side,
                    f"differs from {models[side]}'s answer to the same item at {earlier[1]}",
                )
        choices = []
        for rater in raters:
            cell = optional_text(cells, rater)
            if cell is None:
                continue
            outcome = _chosen_side(cell, models["A"], models["B"])
            if outcome is None:
                raise RowError(
                    rater,
                    f"{_shown(cell.strip())} is not a choice: expected A, B, "
                    f"{_shown(models['A'])} or {_shown(models['B'])}",
                )
            choices.append((rater, cell.strip(), outcome))
        images = locate_images(table.path, urls, "image_url")

        records: list[Record] = []
        if external_id not in seen.items:
            records.append(
                ItemRecord(
                    source=SOURCE,
                    external_id=external_id,
                    turns=(TurnRecord(index=1, prompt=instruction),),
                    images=images,
                    metadata={"image_urls": urls},
                    origin=origin,
                )
            )
            warn_missing_images(images, "image_url", origin, report)
        for side in ("A", "B"):
            if (external_id, models[side]) not in seen.outputs:
                records.append(
                    OutputRecord(
                        source=SOURCE,
                        item_external_id=external_id,
                        model=models[side],
                        text=answers[side],
                        origin=origin,
                    )
                )
        selection = {
            column: _selection_value(optional_text(cells, column))
            for column in SELECTION_COLUMNS
            if column in table.columns
        }
        group_key = "|".join(tuple_key)
        records.extend(
            JudgmentRecord(
                source=SOURCE,
                item_external_id=external_id,
                kind=JudgmentKind.HUMAN,
                model_a=models["A"],
                model_b=models["B"],
                outcome=outcome,
                # a preference judges the whole tuple: no turn, as campaign votes and judge
                # runs on a whole item store it
                turn_index=None,
                label=label,
                rater=rater,
                group_key=group_key,
                metadata={key: value for key, value in selection.items() if value is not None},
                origin=origin,
            )
            for rater, label, outcome in choices
        )
        if not choices:
            report.warn(origin, None, "no rater chose a side; the answers are kept")

        seen.items.add(external_id)
        seen.tuples[tuple_key] = origin
        for side in ("A", "B"):
            seen.outputs.setdefault((external_id, models[side]), (answers[side], origin))
        return records
