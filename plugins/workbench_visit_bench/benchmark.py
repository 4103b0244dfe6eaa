"""The ``visit-bench`` import format: VisIT-Bench's instances from its published CSVs.

Two schemas are read, told apart by their columns: the multi-image sheet
(``visit_bench_multi_images.csv``) and the single-image sheet (``visit_fully_annotated_example.csv``
has its columns). Rows are numbered as a spreadsheet shows them: the header is row 1, the first
data row is row 2. docs/importers/visit-bench.md describes the mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.domain import CaptionRecord, ItemRecord, Origin, ReferenceRecord, TurnRecord
from workbench.importers.base import Importer, ImportReport, Record
from workbench_visit_bench.cells import (
    RowError,
    is_missing_value,
    optional_flag,
    optional_json,
    optional_text,
    required_json,
    required_text,
    text_list,
)
from workbench_visit_bench.csv_files import CsvFileError, CsvRow, candidate_files, open_table
from workbench_visit_bench.identity import (
    SOURCE,
    image_urls_of,
    item_external_id,
    locate_images,
    warn_missing_images,
)
from workbench_visit_bench.preferences import is_preference_header

#: caption kinds and reference kinds this importer writes
DENSE_CAPTION = "instruction-conditioned"
BLIP2_CAPTION = "blip2"
HUMAN_VERIFIED = "human-verified"
GPT4_CANDIDATE = "gpt4-candidate"


@dataclass(frozen=True)
class Schema:
    """One published CSV layout and how to turn its row into an item."""

    name: str
    columns: tuple[str, ...]
    parse: Callable[[Path, CsvRow], ItemRecord]

    def share_of(self, columns: Sequence[str]) -> float:
        return len(set(self.columns) & set(columns)) / len(self.columns)


def _captions(value: Any, column: str, kind: str, image_count: int) -> tuple[CaptionRecord, ...]:
    """One caption per image from a JSON list that VisIT-Bench pads with NaN past the last
    image; the padding (and any null entry) is skipped."""
    if value is None:
        return ()
    captions = []
    for position, entry in enumerate(text_list(value, column)):
        if is_missing_value(entry):
            continue
        if position >= image_count:
            raise RowError(
                column,
                f"has a caption for image {position + 1} but the row lists {image_count} image(s)",
            )
        captions.append(CaptionRecord(entry, kind=kind, source=column, image_position=position))
    return tuple(captions)


def _multi_image_item(csv_path: Path, row: CsvRow) -> ItemRecord:
    cells = row.cells
    family = required_text(cells, "instruction_category")
    urls = image_urls_of(required_json(cells, "images"), "images")
    images = locate_images(csv_path, urls, "images")
    instruction = required_text(cells, "instruction")
    is_multiple_images = optional_flag(cells, "is_multiple_images")
    dense = _captions(
        optional_json(cells, "images_dense_captions"),
        "images_dense_captions",
        DENSE_CAPTION,
        len(urls),
    )
    blip2 = _captions(
        optional_json(cells, "images_blip2_captions"),
        "images_blip2_captions",
        BLIP2_CAPTION,
        len(urls),
    )
    references = []
    reference_output = optional_text(cells, "reference_output")
    if reference_output is not None:
        references.append(
            ReferenceRecord(reference_output, kind=HUMAN_VERIFIED, source="reference_output")
        )
    flags = {
        "verified_correct": optional_flag(cells, "human_ratings_gpt4_correct"),
        "problem_in_caption": optional_flag(cells, "human_ratings_problem_in_caption"),
        "problem_in_reference": optional_flag(cells, "human_ratings_problem_in_gpt4"),
    }
    gpt4_prediction = optional_text(cells, "gpt4_prediction")
    if gpt4_prediction is not None:
        references.append(
            ReferenceRecord(gpt4_prediction, kind=GPT4_CANDIDATE, source="gpt4_prediction", **flags)
        )
    public_images_metadata = optional_json(cells, "public_images_metadata")
    metadata: dict[str, Any] = {"image_urls": urls}
    if is_multiple_images is not None:
        metadata["is_multiple_images"] = is_multiple_images
    if public_images_metadata is not None:
        metadata["public_images_metadata"] = public_images_metadata
    return ItemRecord(
        source=SOURCE,
        external_id=item_external_id(urls, instruction),
        turns=(TurnRecord(index=1, prompt=instruction, references=tuple(references)),),
        family=family,
        images=images,
        captions=dense + blip2,
        metadata=metadata,
        origin=Origin(csv_path.name, row.number),
    )


def _single_image_item(csv_path: Path, row: CsvRow) -> ItemRecord:
    cells = row.cells
    url = required_text(cells, "image_url").strip()
    images = locate_images(csv_path, [url], "image_url")
    family = required_text(cells, "instruction_category")
    instruction = required_text(cells, "instruction")
    caption = optional_text(cells, "image_dense_caption")
    reference = optional_text(cells, "output_human_annotated")
    return ItemRecord(
        source=SOURCE,
        external_id=item_external_id([url], instruction),
        turns=(
            TurnRecord(
                index=1,
                prompt=instruction,
                references=(
                    (
                        ReferenceRecord(
                            reference, kind=HUMAN_VERIFIED, source="output_human_annotated"
                        ),
                    )
                    if reference is not None
                    else ()
                ),
            ),
        ),
        family=family,
        images=images,
        captions=(
            (
                CaptionRecord(
                    caption, kind=DENSE_CAPTION, source="image_dense_caption", image_position=0
                ),
            )
            if caption is not None
            else ()
        ),
        metadata={"image_urls": [url]},
        origin=Origin(csv_path.name, row.number),
    )


MULTI_IMAGE = Schema(
    name="multi-image",
    columns=(
        "instruction_category",
        "images",
        "is_multiple_images",
        "instruction",
        "gpt4_prediction",
        "images_dense_captions",
        "images_blip2_captions",
        "reference_output",
        "human_ratings_gpt4_correct",
        "human_ratings_problem_in_caption",
        "human_ratings_problem_in_gpt4",
        "public_images_metadata",
    ),
    parse=_multi_image_item,
)
SINGLE_IMAGE = Schema(
    name="single-image",
    columns=(
        "image_url",
        "image_dense_caption",
        "instruction_category",
        "instruction",
        "output_human_annotated",
    ),
    parse=_single_image_item,
)
SCHEMAS = (MULTI_IMAGE, SINGLE_IMAGE)

#: a file is taken for a schema when it has more than half of that schema's columns, so a file
#: missing a column or two is still recognised (and rejected with the missing names)
RECOGNITION_SHARE = 0.5


def recognise_schema(columns: Sequence[str]) -> Schema | None:
    best = max(SCHEMAS, key=lambda schema: schema.share_of(columns))
    return best if best.share_of(columns) > RECOGNITION_SHARE else None


def _images_column(schema: Schema) -> str:
    return "images" if schema is MULTI_IMAGE else "image_url"


class VisitBenchImporter(Importer):
    """VisIT-Bench instances. Sources are CSV files, or folders whose ``*.csv`` files are read
    when their columns match one of the two schemas (other CSVs there are ignored)."""

    name = "visit-bench"
    version = "1"
    description = "VisIT-Bench instances (multi-image and single-image CSVs, images/ beside them)"

    def files(self, sources: Sequence[Path]) -> list[Path]:
        return candidate_files(sources, lambda columns: recognise_schema(columns) is not None)

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        first_seen: dict[str, Origin] = {}
        for path in self.files(sources):
            yield from self._read_file(path, report, first_seen)

    def _read_file(
        self, path: Path, report: ImportReport, first_seen: dict[str, Origin]
    ) -> Iterator[Record]:
        try:
            table = open_table(path)
        except CsvFileError as error:
            report.reject(Origin(path.name, error.row), None, error.reason)
            return
        schema = recognise_schema(table.columns)
        if schema is None:
            hint = (
                "; it is a preference file: import it with --format visit-bench-preferences"
                if is_preference_header(table.columns)
                else ""
            )
            report.reject(
                table.origin(),
                None,
                "columns do not match VisIT-Bench's multi-image or single-image CSV "
                f"(found: {', '.join(table.columns)}){hint}",
            )
            return
        if not table.has_columns(schema.columns, schema.name, report):
            return
        try:
            for row in table.rows(report):
                origin = table.origin(row.number)
                try:
                    item = schema.parse(path, row)
                except RowError as error:
                    report.reject(origin, error.field, error.reason)
                    continue
                first = first_seen.get(item.external_id)
                if first is not None:
                    report.reject(
                        origin,
                        _images_column(schema),
                        f"same item as {first} (id '{item.external_id}': same first image "
                        "and instruction)",
                    )
                    continue
                first_seen[item.external_id] = origin
                warn_missing_images(item.images, _images_column(schema), origin, report)
                yield item
        except CsvFileError as error:
            report.reject(table.origin(error.row), None, error.reason)
