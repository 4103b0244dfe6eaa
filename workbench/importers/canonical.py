"""The canonical JSONL format: one item per line, with its images, turns, references, outputs
and optional prior judgments. It is what ``workbench export`` writes for items, and the way to
bring any benchmark in without writing a plugin. docs/formats.md is its reference.

Images are given by a path relative to the JSONL file's folder (which they may not leave), by
base64 bytes, or as ``{"missing": "<original reference>"}``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, overload

from workbench.domain import (
    CaptionRecord,
    ImageRecord,
    ItemRecord,
    JudgmentKind,
    JudgmentRecord,
    ModelRecord,
    Origin,
    Outcome,
    OutputRecord,
    ReferenceRecord,
    TurnRecord,
)
from workbench.importers.base import Importer, ImportReport, Record, files_under
from workbench.importers.images import ImageProblemError, resolve_inside
from workbench.importers.limits import check_rows, read_line

FORMAT_TAG = "vlm-workbench/item"
FORMAT_VERSION = 1


class RowError(ValueError):
    """A problem with one line, with the field it concerns."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def _get(
    obj: dict[str, Any],
    key: str,
    kind: type | tuple[type, ...],
    where: str,
    *,
    required: bool = False,
    default: Any = None,
) -> Any:
    value = obj.get(key)
    if value is None:
        if required:
            raise RowError(f"{where}{key}", "is required")
        return default
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise RowError(f"{where}{key}", f"must be {names}, not {type(value).__name__}")
    return value


@overload
def _text(obj: dict[str, Any], key: str, where: str, *, required: Literal[True]) -> str: ...


@overload
def _text(obj: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None: ...


def _text(obj: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    result: str | None = _get(obj, key, str, where, required=required)
    return result


def _objects(obj: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    values: list[dict[str, Any]] = _get(obj, key, list, where, default=[])
    for index, value in enumerate(values):
        if not isinstance(value, dict):
            raise RowError(f"{where}{key}[{index}]", "must be an object")
    return values


def _categories(data: dict[str, Any]) -> tuple[str, ...]:
    """Every category of an item that has several (a multi-label source's tags)."""
    values = _get(data, "categories", list, "", default=[])
    for index, value in enumerate(values):
        if not isinstance(value, str) or not value:
            raise RowError(f"categories[{index}]", "must be a non-empty string")
    return tuple(values)


def _image(entry: dict[str, Any], position: int, folder: Path, where: str) -> ImageRecord:
    if "path" in entry:
        name = _text(entry, "path", where, required=True)
        assert name is not None
        try:
            path = resolve_inside(folder, name)
        except ImageProblemError as error:
            raise RowError(f"{where}path", str(error)) from error
        return ImageRecord(position, _text(entry, "ref", where) or name, path=path)
    if "base64" in entry:
        encoded = _text(entry, "base64", where, required=True)
        try:
            data = base64.b64decode(encoded or "", validate=True)
        except (binascii.Error, ValueError) as error:
            raise RowError(f"{where}base64", f"is not valid base64: {error}") from error
        return ImageRecord(position, _text(entry, "ref", where) or f"inline:{position}", data=data)
    for key in ("missing", "not_exported"):
        # an image the exporting bundle held but left out is not in this file either: the
        # slot arrives without its picture, as a missing one does
        if key in entry:
            return ImageRecord(position, _text(entry, key, where, required=True) or "")
    raise RowError(where.rstrip("."), "needs one of 'path', 'base64', 'missing' or 'not_exported'")


def _flag(obj: dict[str, Any], key: str, where: str) -> bool | None:
    result: bool | None = _get(obj, key, bool, where)
    return result


def parse_item_line(data: Any, folder: Path, origin: Origin) -> list[Record]:
    """The records of one canonical line. Raises :class:`RowError` naming the bad field."""
    if not isinstance(data, dict):
        raise RowError("", f"a line must hold a JSON object, not {type(data).__name__}")
    tag = data.get("format")
    if tag != FORMAT_TAG:
        raise RowError("format", f"must be '{FORMAT_TAG}'")
    version = _get(data, "format_version", int, "", required=True)
    if version > FORMAT_VERSION:
        raise RowError(
            "format_version", f"{version} is newer than this app reads ({FORMAT_VERSION})"
        )
    source = _text(data, "source", "", required=True)
    external_id = _text(data, "id", "", required=True)
    assert source is not None and external_id is not None
    if not external_id.strip():
        raise RowError("id", "must not be empty")

    images = tuple(
        _image(entry, position, folder, f"images[{position}].")
        for position, entry in enumerate(_objects(data, "images", ""))
    )
    captions = tuple(
        CaptionRecord(
            text=_text(entry, "text", f"captions[{i}].", required=True) or "",
            kind=_text(entry, "kind", f"captions[{i}].") or "instruction-conditioned",
            source=_text(entry, "source", f"captions[{i}].") or "",
            image_position=_get(entry, "image", int, f"captions[{i}]."),
        )
        for i, entry in enumerate(_objects(data, "captions", ""))
    )
    turn_entries = _objects(data, "turns", "")
    if not turn_entries:
        raise RowError("turns", "must hold at least one turn")
    turns = []
    for number, entry in enumerate(turn_entries, start=1):
        where = f"turns[{number - 1}]."
        references = tuple(
            ReferenceRecord(
                text=_text(ref, "text", f"{where}references[{j}].", required=True) or "",
                kind=_text(ref, "kind", f"{where}references[{j}].") or "reference",
                source=_text(ref, "source", f"{where}references[{j}].") or "",
                verified_correct=_flag(ref, "verified_correct", f"{where}references[{j}]."),
                problem_in_caption=_flag(ref, "problem_in_caption", f"{where}references[{j}]."),
                problem_in_reference=_flag(ref, "problem_in_reference", f"{where}references[{j}]."),
            )
            for j, ref in enumerate(_objects(entry, "references", where))
        )
        turns.append(
            TurnRecord(
                index=number,
                prompt=_text(entry, "prompt", where, required=True) or "",
                category=_text(entry, "category", where),
                focus_points=_text(entry, "focus_points", where),
                references=references,
            )
        )
    records: list[Record] = [
        ItemRecord(
            source=source,
            external_id=external_id,
            turns=tuple(turns),
            family=_text(data, "family", ""),
            category=_text(data, "category", ""),
            language=_text(data, "language", ""),
            images=images,
            captions=captions,
            metadata=_get(data, "metadata", dict, "", default={}),
            origin=origin,
            categories=_categories(data),
        )
    ]
    for i, entry in enumerate(_objects(data, "outputs", "")):
        where = f"outputs[{i}]."
        turn = _get(entry, "turn", int, where, default=1)
        if not 1 <= turn <= len(turns):
            raise RowError(f"{where}turn", f"{turn} is not a turn of this item (1..{len(turns)})")
        records.append(
            OutputRecord(
                source=source,
                item_external_id=external_id,
                model=_text(entry, "model", where, required=True) or "",
                text=_text(entry, "text", where, required=True) or "",
                turn_index=turn,
                context=_text(entry, "context", where) or "standard",
                metadata=_get(entry, "metadata", dict, where, default={}),
                origin=origin,
            )
        )
    for i, entry in enumerate(_objects(data, "judgments", "")):
        records.append(_judgment(entry, f"judgments[{i}].", source, external_id, origin))
    for i, entry in enumerate(_objects(data, "models", "")):
        where = f"models[{i}]."
        records.append(
            ModelRecord(
                name=_text(entry, "name", where, required=True) or "",
                display_name=_text(entry, "display_name", where),
                metadata=_get(entry, "metadata", dict, where, default={}),
            )
        )
    return records


def _judgment(
    entry: dict[str, Any], where: str, source: str, external_id: str, origin: Origin
) -> JudgmentRecord:
    kind_text = _text(entry, "kind", where, required=True)
    try:
        kind = JudgmentKind(kind_text)
    except ValueError as error:
        raise RowError(f"{where}kind", "must be 'human' or 'judge'") from error
    outcome_text = _text(entry, "outcome", where)
    try:
        outcome = Outcome(outcome_text) if outcome_text is not None else None
    except ValueError as error:
        allowed = ", ".join(o.value for o in Outcome)
        raise RowError(f"{where}outcome", f"must be one of {allowed} or null") from error
    strength = _get(entry, "strength", int, where, default=1)
    if strength not in (1, 2):
        raise RowError(f"{where}strength", "must be 1 or 2")
    score = _get(entry, "score", (int, float), where)
    model_a, model_b = _text(entry, "model_a", where, required=True), _text(entry, "model_b", where)
    if model_b is not None and model_a == model_b:
        # It would count as a battle. (Published WildVision files do hold their baseline
        # against itself; their importer keeps them as published and the statistics skip them.)
        raise RowError(
            f"{where}model_b",
            f"is model_a again ('{model_a}'): a model is not compared with itself",
        )
    return JudgmentRecord(
        source=source,
        item_external_id=external_id,
        kind=kind,
        model_a=model_a or "",
        model_b=model_b,
        outcome=outcome,
        criterion=_text(entry, "criterion", where) or "overall",
        turn_index=_get(entry, "turn", int, where),
        strength=strength,
        label=_text(entry, "label", where),
        score=float(score) if score is not None else None,
        rater=_text(entry, "rater", where),
        group_key=_text(entry, "group", where),
        raw_text=_text(entry, "raw_text", where),
        metadata=_get(entry, "metadata", dict, where, default={}),
        origin=origin,
    )


def _warn_absent_images(
    line: dict[str, Any], item: ItemRecord, origin: Origin, report: ImportReport
) -> None:
    """An image given by a path that names no file is kept as missing, and said so (an image
    given as ``{"missing": ...}`` is missing on purpose)."""
    for image, entry in zip(item.images, line.get("images") or (), strict=False):
        if image.is_missing and "path" in entry:
            report.warn(
                origin,
                f"images[{image.position}].path",
                f"image '{entry['path']}' is not a file beside the JSONL; kept as missing",
            )


class CanonicalJsonlImporter(Importer):
    name = "jsonl"
    version = "1"
    description = "VLM Workbench canonical item JSONL (docs/formats.md)"

    def files(self, sources: Sequence[Path]) -> list[Path]:
        return files_under(sources, ("*.jsonl",))

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        seen: dict[tuple[str, str], Origin] = {}
        for path in self.files(sources):
            yield from self._read_file(path, report, seen)

    def _read_file(
        self, path: Path, report: ImportReport, seen: dict[tuple[str, str], Origin]
    ) -> Iterator[Record]:
        try:
            handle = path.open("rb")
        except OSError as error:
            report.reject(Origin(path.name), None, f"cannot read file: {error.strerror}")
            return
        with handle:
            # Lines are decoded one by one so that a badly encoded line is rejected alone, at
            # its own row number, instead of failing the file wherever the decoder's buffer ends.
            row = 0
            while raw := read_line(handle, path.name, row + 1, self.limits):
                row += 1
                check_rows(path.name, row, self.limits)
                origin = Origin(path.name, row)
                try:
                    line = raw.decode("utf-8-sig" if row == 1 else "utf-8")
                except UnicodeDecodeError as error:
                    report.reject(
                        origin, None, f"not UTF-8 text: {error.reason} at byte {error.start}"
                    )
                    continue
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                    records = parse_item_line(value, path.parent, origin)
                except json.JSONDecodeError as error:
                    report.reject(
                        origin, None, f"not valid JSON: {error.msg} at column {error.colno}"
                    )
                    continue
                except RecursionError:
                    report.reject(origin, None, "JSON nested too deeply")
                    continue
                except RowError as error:
                    report.reject(origin, error.field or None, error.reason)
                    continue
                item = records[0]
                assert isinstance(item, ItemRecord)
                key = (item.source, item.external_id)
                if key in seen:
                    report.reject(
                        origin,
                        "id",
                        f"duplicate item id '{item.external_id}' (first at {seen[key]})",
                    )
                    continue
                seen[key] = origin
                _warn_absent_images(value, item, origin, report)
                yield from records
