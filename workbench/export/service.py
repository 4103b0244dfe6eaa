"""``export_bundle``: read a bundle and write one export file, atomically (a failed or
cancelled export leaves no file and no temporary file behind, and an existing file untouched)."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from sqlalchemy.orm import Session

from workbench.export.aggregate import CSV_COLUMNS as AGGREGATE_COLUMNS
from workbench.export.aggregate import aggregated_texts
from workbench.export.arena import battles
from workbench.export.atomic import atomic_text_file
from workbench.export.canonical_json import dumps
from workbench.export.images import ImageWriter
from workbench.export.items import item_texts
from workbench.export.judgments import check_judgment_options, count_judged_items, iter_judgments
from workbench.export.options import (
    FORMAT_DESCRIPTIONS,
    ExportError,
    ExportOptions,
    ExportSummary,
    ImageMode,
)
from workbench.export.pairwise import pairwise_texts, records_by_item, write_csv
from workbench.export.target import check_export_target
from workbench.progress import CancelRequested, Progress, Steps, never_cancelled, no_progress
from workbench.storage.bundle import Bundle
from workbench.storage.dialects import parse_location

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Run:
    """What every format's writer reads from and reports into during one export."""

    session: Session
    images: ImageWriter
    options: ExportOptions
    steps: Steps
    #: what the format leaves out
    left_out: Counter[str] = field(default_factory=Counter)
    #: what the format wrote only because the options asked for it
    included: Counter[str] = field(default_factory=Counter)


#: a writer writes the judgments of ``iter_judgments`` to the handle as it reads them, counting
#: into the run's ``left_out`` and ``included``, and returns the number of records written
Writer = Callable[[IO[str], _Run], int]

#: records written between two progress reports (and chances to cancel)
RECORDS_PER_STEP = 1000

_T = TypeVar("_T")


def _stepped(records: Iterable[_T], steps: Steps) -> Iterator[_T]:
    for count, record in enumerate(records):
        if count % RECORDS_PER_STEP == 0:
            steps("writing", count, 0)
        yield record


def _write_lines(handle: IO[str], texts: Iterable[str]) -> int:
    count = 0
    for text in texts:
        handle.write(text + "\n")
        count += 1
    return count


def _items(handle: IO[str], run: _Run) -> int:
    judgments = iter_judgments(run.session, run.options, by_item=True)
    texts = item_texts(run.session, judgments, run.images, run.steps, run.left_out)
    return _write_lines(handle, _stepped(texts, run.steps))


def _groups(run: _Run) -> Iterator[list[dict[str, Any]]]:
    total = count_judged_items(run.session, run.options)
    judgments = iter_judgments(run.session, run.options, by_item=True)
    return records_by_item(run.session, judgments, run.images, run.steps, total)


def _pairwise(handle: IO[str], run: _Run) -> int:
    groups = _groups(run)
    texts = aggregated_texts(groups) if run.options.aggregate else pairwise_texts(groups)
    return _write_lines(handle, _stepped(texts, run.steps))


def _csv(handle: IO[str], run: _Run) -> int:
    groups = _groups(run)
    if run.options.aggregate:
        records = map(json.loads, aggregated_texts(groups))
        return write_csv(handle, _stepped(records, run.steps), AGGREGATE_COLUMNS)
    return write_csv(handle, _stepped(map(json.loads, pairwise_texts(groups)), run.steps))


def _arena(handle: IO[str], run: _Run) -> int:
    # a JSON list, one battle per line, as FastChat's tools and pandas.read_json read it;
    # written as the battles come, in stored order
    handle.write("[\n")
    count = 0
    written = battles(
        run.session,
        iter_judgments(run.session, run.options),
        run.left_out,
        include_derived=run.options.include_derived,
        included=run.included,
    )
    for battle in _stepped(written, run.steps):
        handle.write((",\n" if count else "") + dumps(battle))
        count += 1
    handle.write(("\n" if count else "") + "]\n")
    return count


#: format name -> (writer, what it is)
_WRITERS: dict[str, Writer] = {"items": _items, "jsonl": _pairwise, "csv": _csv, "arena": _arena}
FORMATS: dict[str, tuple[Writer, str]] = {
    name: (_WRITERS[name], description) for name, description in FORMAT_DESCRIPTIONS.items()
}


def export_bundle(
    bundle_path: str | Path,
    out: str | Path,
    options: ExportOptions,
    *,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
    replace_any_file: bool = False,
) -> ExportSummary:
    """Write the export ``options`` describe of the bundle at ``bundle_path`` to ``out``.

    An existing ``out`` is replaced only if it is an earlier export, or with
    ``replace_any_file`` (the command's ``--force``, or a save dialog that asked the user).

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
    if options.include_derived and options.format != "arena":
        raise ExportError(
            "only the arena format leaves derived judgments out, so only it can include them: "
            "leave out --include-derived (the other formats carry every stored judgment, "
            "derived ones marked in their metadata)"
        )
    if options.aggregate and options.format not in ("jsonl", "csv"):
        raise ExportError("only the jsonl and csv formats can aggregate judgments per pair")
    source = parse_location(bundle_path)
    check_export_target(target, source.path, only_exports=not replace_any_file)
    if source.path is not None and not source.path.exists():
        raise ExportError(f"no bundle at {source.path}")
    writer = FORMATS[options.format][0]
    images = ImageWriter(options.images, target.parent)
    steps = Steps(progress, cancel_requested, "export cancelled; no file was written")
    with (
        Bundle.open(bundle_path, migrate=False, read_only=True) as bundle,
        bundle.read_session() as session,
    ):
        steps("judgments", 0, 0)
        # an unknown campaign is refused before a file is opened
        check_judgment_options(session, options)
        run = _Run(session, images, options, steps)
        try:
            with atomic_text_file(target) as handle:
                records = writer(handle, run)
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
        left_out={name: count for name, count in run.left_out.items() if count},
        included={name: count for name, count in run.included.items() if count},
        images=options.images.value,
        images_not_exported=images.not_exported,
    )
    log.info("exported %d %s record(s) to %s", records, options.format, target)
    return summary
