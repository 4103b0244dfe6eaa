"""Labeled pairwise sets: one record per judgment with everything needed to train or audit on
it without the bundle (the item, its instruction and images, both outputs, who was shown
where, the choice, and who made it when), as JSONL or as a flat, pandas-friendly CSV."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby, islice
from operator import attrgetter
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from workbench.export.canonical_json import dumps
from workbench.export.external_sort import sorted_texts
from workbench.export.images import ImageWriter
from workbench.export.judgments import CAMPAIGN, JUDGE_RUN, Judgment
from workbench.export.spreadsheet import spreadsheet_safe
from workbench.progress import Progress, no_progress
from workbench.storage.models import Item, Model, Output, Turn

PAIRWISE_TAG = "vlm-workbench/pairwise"
PAIRWISE_VERSION = 1
STANDARD_CONTEXT = "standard"
_WINNER_OF_TIE = {"tie": "tie", "both_bad": "both_bad"}
#: items whose texts are read at once
_ITEM_CHUNK = 500

#: the columns that say which pair of answers a CSV row labels, in order (the per-judgment and
#: the aggregated CSV alike)
PAIR_COLUMNS = (
    "source",
    "item_id",
    "turn",
    "criterion",
    "context",
    "instruction",
    "model_a",
    "model_b",
    "output_a",
    "output_b",
)

#: the CSV's columns, in order; nested fields of the JSONL record are flattened or left out
CSV_COLUMNS = (
    "format",
    "format_version",
    "origin",
    "kind",
    *PAIR_COLUMNS,
    "shown_left",
    "shown_right",
    "choice",
    "outcome",
    "winner",
    "strength",
    "score",
    "annotator",
    "judge_model",
    "judge_prompt",
    "judge_run",
    "position_flip",
    "campaign",
    "protocol",
    "shown_at",
    "cast_at",
    "duration_ms",
    "skip_reason",
    "created_at",
    "comment",
    "group",
    "images",
)


@dataclass(frozen=True)
class _ItemView:
    source: str
    external_id: str
    prompts: dict[int, str]
    images: list[dict[str, Any]]
    answers: dict[tuple[int, str, str], str]  # (turn, context, model) -> text


def _item_views(session: Session, item_ids: set[int], images: ImageWriter) -> dict[int, _ItemView]:
    views: dict[int, _ItemView] = {}
    ordered = sorted(item_ids)
    for start in range(0, len(ordered), 500):
        chunk = ordered[start : start + 500]
        answers: dict[int, dict[tuple[int, str, str], str]] = {item: {} for item in chunk}
        statement = (
            select(Turn.item_id, Turn.index, Output.context, Model.name, Output.text)
            .join(Turn, Output.turn_id == Turn.id)
            .join(Model, Output.model_id == Model.id)
            .where(Turn.item_id.in_(chunk))
        )
        for item_id, turn, context, model, text in session.execute(statement):
            answers[item_id][(turn, context, model)] = text
        items = session.scalars(
            select(Item)
            .where(Item.id.in_(chunk))
            .options(selectinload(Item.source), selectinload(Item.turns), selectinload(Item.images))
        )
        for item in items:
            views[item.id] = _ItemView(
                source=item.source.name,
                external_id=item.external_id,
                prompts={turn.index: turn.prompt for turn in item.turns},
                images=[images.entry(slot) for slot in item.images],
                answers=answers[item.id],
            )
    return views


def _winner(judgment: Judgment) -> str | None:
    if judgment.outcome == "a":
        return judgment.model_a
    if judgment.outcome == "b":
        return judgment.model_b
    return _WINNER_OF_TIE.get(judgment.outcome or "")


def _record(judgment: Judgment, view: _ItemView | None) -> dict[str, Any]:
    meta = judgment.metadata
    context = str(meta.get("context", STANDARD_CONTEXT))
    turns: list[dict[str, Any]] = []
    if view is not None:
        covered = [judgment.turn] if judgment.turn is not None else sorted(view.prompts)
        for index in covered:
            turns.append(
                {
                    "index": index,
                    "prompt": view.prompts.get(index),
                    "output_a": view.answers.get((index, context, judgment.model_a)),
                    "output_b": view.answers.get((index, context, judgment.model_b or "")),
                }
            )
    # the judged turn, or the only turn of a single-turn item judged as a whole
    judged = turns[0] if len(turns) == 1 else None
    is_judge = judgment.kind == "judge"
    return {
        "format": PAIRWISE_TAG,
        "format_version": PAIRWISE_VERSION,
        "origin": judgment.origin,
        "kind": judgment.kind,
        "source": view.source if view else None,
        "item_id": view.external_id if view else meta.get("question_id"),
        "turn": judgment.turn,
        "criterion": judgment.criterion,
        "context": context,
        "instruction": judged["prompt"] if judged else None,
        "turns": turns,
        "images": view.images if view else [],
        "model_a": judgment.model_a,
        "model_b": judgment.model_b,
        "output_a": judged["output_a"] if judged else None,
        "output_b": judged["output_b"] if judged else None,
        "shown_left": judgment.model_a,
        "shown_right": judgment.model_b,
        "choice": judgment.label,
        "outcome": judgment.outcome,
        "winner": _winner(judgment),
        "strength": judgment.strength,
        "score": judgment.score,
        "annotator": None if is_judge else judgment.rater,
        "judge_model": judgment.rater if is_judge else None,
        "judge_prompt": meta.get("judge_prompt") if is_judge else None,
        "judge_run": meta.get("judge_run") if judgment.origin == JUDGE_RUN else None,
        "position_flip": meta.get("position_flip") if judgment.origin == JUDGE_RUN else None,
        "campaign": meta.get("campaign") if judgment.origin == CAMPAIGN else None,
        "protocol": meta.get("protocol") if judgment.origin == CAMPAIGN else None,
        "shown_at": meta.get("shown_at") if judgment.origin == CAMPAIGN else None,
        "cast_at": meta.get("cast_at") if judgment.origin == CAMPAIGN else None,
        "duration_ms": meta.get("duration_ms") if judgment.origin == CAMPAIGN else None,
        "skip_reason": meta.get("skip_reason") if judgment.origin == CAMPAIGN else None,
        "created_at": meta.get("created_at") if judgment.origin == JUDGE_RUN else None,
        "comment": judgment.raw_text,
        "group": judgment.group,
        "metadata": meta,
    }


def _item_groups(judgments: Iterable[Judgment]) -> Iterator[tuple[int | None, list[Judgment]]]:
    # the stream is ordered by item, so one item's judgments are consecutive
    for item_id, group in groupby(judgments, key=attrgetter("item_id")):
        yield item_id, list(group)


def records_by_item(
    session: Session,
    judgments: Iterable[Judgment],
    images: ImageWriter,
    progress: Progress = no_progress,
    total: int = 0,
) -> Iterator[list[dict[str, Any]]]:
    """The records of one item's judgments at a time (those without an item together), from
    ``judgments`` grouped by item (``iter_judgments(..., by_item=True)``); the items' texts are
    read :data:`_ITEM_CHUNK` items at a time, after ``progress("items", done, total)``."""
    groups = _item_groups(judgments)
    done = 0
    while chunk := list(islice(groups, _ITEM_CHUNK)):
        items = {item_id for item_id, _ in chunk if item_id is not None}
        views: dict[int, _ItemView] = {}
        if items:
            progress("items", done, total)
            views = _item_views(session, items, images)
            done += len(items)
        for item_id, group in chunk:
            view = views.get(item_id) if item_id is not None else None
            yield [_record(judgment, view) for judgment in group]


def pairwise_texts(groups: Iterable[list[dict[str, Any]]]) -> Iterator[str]:
    """One record per judgment as canonical JSON text, ordered by content (so the order never
    depends on row ids), from the records grouped by item (:func:`records_by_item`).

    Records are kept only as their JSON text; beyond a run of them
    (:mod:`~workbench.export.external_sort`), sorted runs go to a temporary folder and are
    merged, so an export of millions of votes holds one run in memory rather than every
    judgment, record and answer (a cancel raised while the groups are read takes the runs
    with their folder)."""
    yield from sorted_texts(dumps(record) for records in groups for record in records)


def pairwise_records(
    session: Session,
    judgments: Iterable[Judgment],
    images: ImageWriter,
    progress: Progress = no_progress,
    total: int = 0,
) -> Iterator[dict[str, Any]]:
    """The records of :func:`pairwise_texts` as dicts, from judgments grouped by item."""
    groups = records_by_item(session, judgments, images, progress, total)
    yield from map(json.loads, pairwise_texts(groups))


def _csv_value(value: Any) -> Any:
    if isinstance(value, list):
        return ";".join(map(str, value))
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


def _image_cell(entries: list[dict[str, Any]]) -> str:
    return ";".join(
        str(entry.get("path") or entry.get("ref") or entry.get("missing") or "")
        for entry in entries
    )


def write_csv(
    handle: IO[str], records: Iterable[dict[str, Any]], columns: tuple[str, ...] = CSV_COLUMNS
) -> int:
    """The records as CSV with ``columns``; images as their paths (or original references)
    joined by ``;``, lists as ``;``-joined text; text a spreadsheet would run as a formula is
    quoted (see ``spreadsheet``). Returns the number of rows."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(columns)
    count = 0
    for record in records:
        row = dict(record, images=_image_cell(record["images"]))
        writer.writerow([spreadsheet_safe(_csv_value(row[column])) for column in columns])
        count += 1
    return count
