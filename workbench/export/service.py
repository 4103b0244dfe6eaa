"""``export_bundle``: read a bundle and write one export file, atomically (a failed or
cancelled export leaves no file and no temporary file behind, and an existing file untouched)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from sqlalchemy.orm import Session

from workbench.export.aggregate import CSV_COLUMNS as AGGREGATE_COLUMNS
from workbench.export.aggregate import aggregate_pairs
from workbench.export.arena import battles, is_battle
from workbench.export.atomic import atomic_text_file
from workbench.export.canonical_json import dumps, json_line
from workbench.export.images import ImageWriter
from workbench.export.items import item_lines
from workbench.export.judgments import Judgment, collect_judgments
from workbench.export.options import (
    FORMAT_DESCRIPTIONS,
    ExportError,
    ExportOptions,
    ExportSummary,
    ImageMode,
)
from workbench.export.pairwise import pairwise_records, write_csv
from workbench.export.target import check_export_target
from workbench.progress import CancelRequested, Progress, Steps, never_cancelled, no_progress
from workbench.storage.bundle import Bundle
from workbench.storage.dialects import parse_location

log = logging.getLogger(__name__)

Writer = Callable[[IO[str], Session, list[Judgment], ImageWriter, ExportOptions, Steps], int]

#: records written between two progress reports (and chances to cancel)
RECORDS_PER_STEP = 1000


def _stepped(records: Iterable[dict[str, Any]], steps: Steps) -> Iterator[dict[str, Any]]:
    for count, record in enumerate(records):
        if count % RECORDS_PER_STEP == 0:
            steps("writing", count, 0)
        yield record


def _write_lines(handle: IO[str], lines: Iterator[dict[str, Any]]) -> int:
    count = 0
    for line in lines:
        handle.write(json_line(line))
        count += 1
    return count


def _items(
    handle: IO[str],
    session: Session,
    found: list[Judgment],
    images: ImageWriter,
    options: ExportOptions,
    steps: Steps,
) -> int:
    return _write_lines(handle, _stepped(item_lines(session, found, images, steps), steps))


def _pairwise(
    handle: IO[str],
    session: Session,
    found: list[Judgment],
    images: ImageWriter,
    options: ExportOptions,
    steps: Steps,
) -> int:
    records = pairwise_records(session, found, images, steps)
    lines = aggregate_pairs(records) if options.aggregate else records
    return _write_lines(handle, _stepped(lines, steps))


def _csv(
    handle: IO[str],
    session: Session,
    found: list[Judgment],
    images: ImageWriter,
    options: ExportOptions,
    steps: Steps,
) -> int:
    records = pairwise_records(session, found, images, steps)
    if options.aggregate:
        return write_csv(handle, _stepped(aggregate_pairs(records), steps), AGGREGATE_COLUMNS)
    return write_csv(handle, _stepped(records, steps))


def _arena(
    handle: IO[str],
    session: Session,
    found: list[Judgment],
    images: ImageWriter,
    options: ExportOptions,
    steps: Steps,
) -> int:
    # a JSON list, one battle per line, as FastChat's tools and pandas.read_json read it
    rows = [dumps(battle) for battle in _stepped(battles(session, found), steps)]
    handle.write("[\n" + ",\n".join(rows) + ("\n" if rows else "") + "]\n")
    return len(rows)


#: format name -> (writer, what it is)
_WRITERS: dict[str, Writer] = {"items": _items, "jsonl": _pairwise, "csv": _csv, "arena": _arena}
FORMATS: dict[str, tuple[Writer, str]] = {
    name: (_WRITERS[name], description) for name, description in FORMAT_DESCRIPTIONS.items()
}


def _left_out(found: list[Judgment], export_format: str) -> dict[str, int]:
    if export_format == "items":
        without_item = sum(1 for judgment in found if judgment.item_id is None)
        return {"judgments_without_item": without_item} if without_item else {}
    if export_format == "arena":
        not_battles = sum(1 for judgment in found if not is_battle(judgment))
        return {"judgments_not_pairwise": not_battles} if not_battles else {}
    return {}


def export_bundle(
    bundle_path: str | Path,
    out: str | Path,
    options: ExportOptions,
    *,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> ExportSummary:
    """Write the export ``options`` describe of the bundle at ``bundle_path`` to ``out``.

    ``progress(phase, done, total)`` is called as the judgments are read ("judgments"), items
    are gathered ("items") and records written ("writing"); when ``cancel_requested()`` turns
    true, the export stops at the next of those steps with
    :class:`~workbench.progress.WorkCancelledError`, leaving no file (nor image file it wrote)
    behind and an existing ``out`` as it was."""
    target = Path(out)
    if options.format not in FORMATS:
        raise ExportError(
            f"unknown export format '{options.format}' (use one of {', '.join(FORMATS)})"
        )
    if options.format == "csv" and options.images is ImageMode.EMBED:
        raise ExportError("a CSV cannot embed images: use --with-images paths or none")
    if options.format == "arena" and options.images is not ImageMode.NONE:
        raise ExportError("Arena battles carry no images: leave out --with-images")
    if options.aggregate and options.format not in ("jsonl", "csv"):
        raise ExportError("only the jsonl and csv formats can aggregate judgments per pair")
    source = parse_location(bundle_path)
    check_export_target(target, source.path)
    if source.path is not None and not source.path.exists():
        raise ExportError(f"no bundle at {source.path}")
    writer = FORMATS[options.format][0]
    images = ImageWriter(options.images, target.parent)
    steps = Steps(progress, cancel_requested, "export cancelled; no file was written")
    with Bundle.open(bundle_path, migrate=False) as bundle, bundle.read_session() as session:
        steps("judgments", 0, 0)
        found = collect_judgments(session, options)
        try:
            with atomic_text_file(target) as handle:
                records = writer(handle, session, found, images, options, steps)
                # the last chance: once renamed into place, the export is whole and stays
                steps.check()
        except OSError as error:  # a full disk, a read-only folder, a place like /proc
            images.remove_created()
            raise ExportError(f"cannot write {target}: {error.strerror or error}") from None
        except BaseException:
            images.remove_created()
            raise
    summary = ExportSummary(
        path=target,
        format=options.format,
        records=records,
        images_written=len(images.written),
        left_out=_left_out(found, options.format),
    )
    log.info("exported %d %s record(s) to %s", records, options.format, target)
    return summary
