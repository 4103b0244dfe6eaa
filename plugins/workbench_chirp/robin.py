"""The ``chirp-robin`` import format: CHIRP's questions and models' answers in the layout of the
Robin suite's CHIRP answer generator (CERC-AAI/Robin, branch ``eval``), the LLaVA
question/answer layout.

- Questions: a ``.json`` file holding one JSON list of objects with ``question_id``, ``text``
  (the question) and ``image`` (a file name in the image folder: ``images/`` beside the file,
  or the file's own folder). Each becomes an item of source ``chirp`` with one turn.
- Answers: ``.jsonl`` files, one JSON object a line, with ``question_id``, ``prompt``, ``text``
  (the answer), ``answer_id``, ``model_id`` and ``metadata``. Each becomes ``model_id``'s
  output for that question; ``prompt``, ``answer_id`` and ``metadata`` are kept in the output's
  metadata.

Rows are numbered as an editor shows them: a list element by its position (1-based), a line by
its line number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from workbench.domain import ImageRecord, ItemRecord, Origin, OutputRecord, TurnRecord
from workbench.importers.base import Importer, ImportReport, Record, files_under
from workbench.importers.images import ImageProblemError, resolve_inside
from workbench.importers.limits import check_file_size
from workbench_chirp.score_manifest import SOURCE

IMAGES_FOLDER = "images"
QUESTION_FIELDS = ("question_id", "text", "image")
ANSWER_FIELDS = ("question_id", "text", "model_id")


class RowError(ValueError):
    def __init__(self, field: str | None, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def _question_id(row: dict[str, Any]) -> str:
    value = row.get("question_id")
    if isinstance(value, bool) or not isinstance(value, (int, str)) or str(value).strip() == "":
        raise RowError("question_id", "must be a number or a non-empty string")
    return str(value).strip()


def _text(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RowError(key, "is required and must be a non-empty string")
    return value


def _missing(row: Any, fields: Sequence[str]) -> list[str]:
    if not isinstance(row, dict):
        raise RowError(None, f"must be a JSON object, not {type(row).__name__}")
    return [name for name in fields if name not in row]


class RobinChirpImporter(Importer):
    """CHIRP questions (with their images) and model answers in the Robin suite's layout."""

    name = "chirp-robin"
    version = "1"
    description = "CHIRP questions (.json list) and answers (.jsonl) in the Robin suite's layout"

    def files(self, sources: Sequence[Path]) -> list[Path]:
        return [
            path
            for path in files_under(sources, ("*.json", "*.jsonl"))
            if path.suffix in (".json", ".jsonl")
        ]

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        files = self.files(sources)
        for path in (p for p in files if p.suffix == ".json"):
            yield from self._questions(path, report)
        for path in (p for p in files if p.suffix == ".jsonl"):
            yield from self._answers(path, report)

    def _questions(self, path: Path, report: ImportReport) -> Iterator[ItemRecord]:
        check_file_size(path, self.limits.max_file_bytes)
        try:
            rows = json.loads(path.read_text("utf-8-sig"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            report.reject(Origin(path.name), None, f"not a JSON file: {error}")
            return
        if not isinstance(rows, list):
            report.reject(Origin(path.name), None, "must hold one JSON list of questions")
            return
        folder = path.parent / IMAGES_FOLDER
        if not folder.is_dir():
            folder = path.parent
        seen: dict[str, Origin] = {}
        for number, row in enumerate(rows, start=1):
            origin = Origin(path.name, number)
            try:
                missing = _missing(row, QUESTION_FIELDS)
                if missing:
                    raise RowError(", ".join(missing), f"lacks {', '.join(missing)}")
                question_id = _question_id(row)
                if question_id in seen:
                    raise RowError("question_id", f"repeats the question at {seen[question_id]}")
                image = _text(row, "image")
                try:
                    located = resolve_inside(folder, image, source=path.parent)
                except ImageProblemError as error:
                    raise RowError("image", str(error)) from error
                item = ItemRecord(
                    source=SOURCE,
                    external_id=question_id,
                    turns=(TurnRecord(index=1, prompt=_text(row, "text")),),
                    images=(ImageRecord(position=0, original_ref=image, path=located),),
                    origin=origin,
                )
            except RowError as error:
                report.reject(origin, error.field, error.reason)
                continue
            seen[question_id] = origin
            if located is None:
                report.warn(origin, "image", f"image '{image}' not found; imported as missing")
            yield item

    def _answers(self, path: Path, report: ImportReport) -> Iterator[OutputRecord]:
        check_file_size(path, self.limits.max_file_bytes)
        seen: dict[tuple[str, str], Origin] = {}
        try:
            lines = path.read_text("utf-8-sig").splitlines()
        except UnicodeDecodeError as error:
            report.reject(Origin(path.name), None, f"not UTF-8 text: {error}")
            return
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            origin = Origin(path.name, number)
            try:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise RowError(None, f"not valid JSON: {error.msg}") from error
                missing = _missing(row, ANSWER_FIELDS)
                if missing:
                    raise RowError(", ".join(missing), f"lacks {', '.join(missing)}")
                question_id = _question_id(row)
                model = _text(row, "model_id").strip()
                key = (question_id, model)
                if key in seen:
                    raise RowError(
                        "model_id", f"{model} answered question {question_id} at {seen[key]}"
                    )
                metadata = row.get("metadata")
                if metadata is not None and not isinstance(metadata, dict):
                    raise RowError("metadata", "must be a JSON object")
                kept = {
                    name: row[name] for name in ("prompt", "answer_id") if row.get(name) is not None
                }
                output = OutputRecord(
                    source=SOURCE,
                    item_external_id=question_id,
                    model=model,
                    text=_text(row, "text"),
                    metadata={**kept, **({"metadata": metadata} if metadata else {})},
                    origin=origin,
                )
            except RowError as error:
                report.reject(origin, error.field, error.reason)
                continue
            seen[key] = origin
            yield output
