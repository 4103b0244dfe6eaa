"""The canonical item JSONL (docs/formats.md), as ``workbench import --format jsonl`` reads it:
one line per item with its images, captions, turns and references, every model output, the
descriptions of the models the line names, and its judgments (imported ones, campaign votes
and judge verdicts, as the options select). Lines are ordered by (source, id) and judgments by
their content, so exporting a bundle made by importing an export gives the same bytes."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from workbench.export.canonical_json import dumps
from workbench.export.external_sort import sorted_by_key
from workbench.export.images import ImageWriter
from workbench.export.judgments import Judgment
from workbench.importers.canonical import FORMAT_TAG, FORMAT_VERSION
from workbench.progress import Progress, no_progress
from workbench.storage.models import Item, Model, Output, Turn

ITEMS_PER_QUERY = 500


def _models(session: Session) -> dict[str, dict[str, Any]]:
    return {
        model.name: {
            "name": model.name,
            "display_name": model.display_name,
            "metadata": model.metadata_ or {},
        }
        for model in session.scalars(select(Model))
    }


def _outputs(session: Session, item_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    statement = (
        select(Turn.item_id, Turn.index, Model.name, Output)
        .join(Turn, Output.turn_id == Turn.id)
        .join(Model, Output.model_id == Model.id)
        .where(Turn.item_id.in_(item_ids))
    )
    found: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for item_id, turn_index, model, output in session.execute(statement):
        found[item_id].append(
            {
                "model": model,
                "turn": turn_index,
                "context": output.context,
                "text": output.text,
                "metadata": output.metadata_ or {},
            }
        )
    for outputs in found.values():
        outputs.sort(key=lambda entry: (entry["turn"], entry["context"], entry["model"]))
    return found


def _turn(turn: Turn) -> dict[str, Any]:
    return {
        "prompt": turn.prompt,
        "category": turn.category,
        "focus_points": turn.focus_points,
        "references": [
            {
                "text": reference.text,
                "kind": reference.kind,
                "source": reference.source,
                "verified_correct": reference.verified_correct,
                "problem_in_caption": reference.problem_in_caption,
                "problem_in_reference": reference.problem_in_reference,
            }
            for reference in turn.references
        ],
    }


def item_texts(
    session: Session,
    judgments: Iterable[Judgment],
    images: ImageWriter,
    progress: Progress = no_progress,
    left_out: Counter[str] | None = None,
) -> Iterator[str]:
    """The canonical lines of every item as JSON text, in (source, id) order, from
    ``judgments`` ordered by item row id (``iter_judgments(..., by_item=True)``), which are
    consumed as the items they belong to are read; judgments without an item are counted in
    ``left_out["judgments_without_item"]``. ``progress("items", done, total)`` runs before
    each chunk of items is read (a cancel callback may raise there).

    Items are built in row-id order, :data:`ITEMS_PER_QUERY` at a time, with one item's
    judgments in hand, and sorted by (source, id) as text beyond a run on disk
    (:mod:`~workbench.export.external_sort`): the database cannot be asked for that order,
    since its collation of text need not be Python's."""
    missing = left_out if left_out is not None else Counter()
    yield from sorted_by_key(_keyed_lines(session, iter(judgments), images, progress, missing))


def _keyed_lines(
    session: Session,
    judgments: Iterator[Judgment],
    images: ImageWriter,
    progress: Progress,
    left_out: Counter[str],
) -> Iterator[tuple[list[str], str]]:
    models = _models(session)
    item_ids = sorted(session.scalars(select(Item.id)))
    head = next(judgments, None)
    for start in range(0, len(item_ids), ITEMS_PER_QUERY):
        progress("items", start, len(item_ids))
        chunk = item_ids[start : start + ITEMS_PER_QUERY]
        by_item: dict[int, list[dict[str, Any]]] = defaultdict(list)
        # NULL sorts first in SQLite and last in PostgreSQL: skip it wherever it is
        while head is not None and (head.item_id is None or head.item_id <= chunk[-1]):
            if head.item_id is None:
                left_out["judgments_without_item"] += 1
            else:
                by_item[head.item_id].append(head.canonical())
            head = next(judgments, None)
        outputs = _outputs(session, chunk)
        statement = (
            select(Item)
            .where(Item.id.in_(chunk))
            .options(
                selectinload(Item.source),
                selectinload(Item.turns).selectinload(Turn.references),
                selectinload(Item.images),
                selectinload(Item.captions),
                selectinload(Item.tagged_categories),
            )
        )
        for item in session.scalars(statement):
            line = _line(item, by_item.get(item.id, []), outputs.get(item.id, []), models, images)
            yield [line["source"], line["id"]], dumps(line)
    while head is not None:
        # judgments the items above did not take: only those without an item remain
        if head.item_id is not None:
            raise RuntimeError(f"judgment of item {head.item_id} read out of item order")
        left_out["judgments_without_item"] += 1
        head = next(judgments, None)


def _line(
    item: Item,
    judgments: list[dict[str, Any]],
    outputs: list[dict[str, Any]],
    models: dict[str, dict[str, Any]],
    images: ImageWriter,
) -> dict[str, Any]:
    item_judgments = sorted(judgments, key=dumps)
    named = {entry["model"] for entry in outputs}
    for entry in item_judgments:
        named.update(name for name in (entry["model_a"], entry["model_b"]) if name)
    line: dict[str, Any] = {
        "format": FORMAT_TAG,
        "format_version": FORMAT_VERSION,
        "source": item.source.name,
        "id": item.external_id,
        "family": item.family,
        "category": item.category,
        "language": item.language,
        "metadata": item.metadata_ or {},
        "images": [images.entry(slot) for slot in item.images],
        "captions": [
            {
                "text": caption.text,
                "kind": caption.kind,
                "source": caption.source,
                "image": caption.image_position,
            }
            for caption in item.captions
        ],
        "turns": [_turn(turn) for turn in item.turns],
        "outputs": outputs,
        "judgments": item_judgments,
        # a model named here but not in the bundle (the reference side) gets the description
        # an import would give it, so a round trip changes nothing
        "models": [
            models.get(name, {"name": name, "display_name": None, "metadata": {}})
            for name in sorted(named)
        ],
    }
    if item.tagged_categories:  # only items of a multi-label source have them
        line["categories"] = [tagged.category for tagged in item.tagged_categories]
    return line
