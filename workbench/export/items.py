"""The canonical item JSONL (docs/formats.md), as ``workbench import --format jsonl`` reads it:
one line per item with its images, captions, turns and references, every model output, the
descriptions of the models the line names, and its judgments (imported ones, campaign votes
and judge verdicts, as the options select). Lines are ordered by (source, id) and judgments by
their content, so exporting a bundle made by importing an export gives the same bytes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from workbench.export.canonical_json import dumps
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


def item_lines(
    session: Session,
    judgments: list[Judgment],
    images: ImageWriter,
    progress: Progress = no_progress,
) -> Iterator[dict[str, Any]]:
    """The canonical lines of every item, in (source, id) order; ``progress("items", done,
    total)`` before each chunk of items is read (a cancel callback may raise there)."""
    models = _models(session)
    by_item: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for judgment in judgments:
        if judgment.item_id is not None:
            by_item[judgment.item_id].append(judgment.canonical())
    item_ids = sorted(session.scalars(select(Item.id)))
    lines: list[dict[str, Any]] = []
    for start in range(0, len(item_ids), ITEMS_PER_QUERY):
        progress("items", start, len(item_ids))
        chunk = item_ids[start : start + ITEMS_PER_QUERY]
        outputs = _outputs(session, chunk)
        statement = (
            select(Item)
            .where(Item.id.in_(chunk))
            .options(
                selectinload(Item.source),
                selectinload(Item.turns).selectinload(Turn.references),
                selectinload(Item.images),
                selectinload(Item.captions),
            )
        )
        for item in session.scalars(statement):
            item_judgments = sorted(by_item.get(item.id, []), key=dumps)
            named = {entry["model"] for entry in outputs.get(item.id, [])}
            for entry in item_judgments:
                named.update(name for name in (entry["model_a"], entry["model_b"]) if name)
            lines.append(
                {
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
                    "outputs": outputs.get(item.id, []),
                    "judgments": item_judgments,
                    # a model named here but not in the bundle (the reference side) gets the
                    # description an import would give it, so a round trip changes nothing
                    "models": [
                        models.get(name, {"name": name, "display_name": None, "metadata": {}})
                        for name in sorted(named)
                    ],
                }
            )
    lines.sort(key=lambda line: (line["source"], line["id"]))
    yield from lines
