"""Read-only queries over a bundle that more than one part of the app needs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import distinct, func, join, select
from sqlalchemy.orm import Session

from workbench.domain import JudgmentOrigin
from workbench.storage.batching import chunked
from workbench.storage.judgments import OutcomeFilter, count_judgments
from workbench.storage.models import (
    Caption,
    Image,
    Import,
    Item,
    ItemImage,
    Model,
    Output,
    Reference,
    Source,
    Turn,
)


def _per_source(session: Session, statement: Any) -> dict[str, int]:
    return {name: count for name, count in session.execute(statement)}


def bundle_counts(session: Session) -> dict[str, Any]:
    """Counts of what a bundle holds, in total and per source (``workbench info``). Judgments
    are counted as the item list counts them, with the total split by where each came from
    (``judgments_imported``, ``judgments_campaign``, ``judgments_judge_run``,
    ``judgments_adjudication``)."""
    item_source = select(Item.id, Source.name.label("source")).join(Source).subquery()

    def by_source(count_column: Any, join_from: Any, on: Any, *where: Any) -> dict[str, int]:
        statement = (
            select(item_source.c.source, count_column)
            .select_from(join_from)
            .join(item_source, on)
            .where(*where)
            .group_by(item_source.c.source)
        )
        return _per_source(session, statement)

    reference_turns = join(Reference, Turn, Reference.turn_id == Turn.id)
    output_turns = join(Output, Turn, Output.turn_id == Turn.id)
    sources = [name for (name,) in session.execute(select(Source.name).order_by(Source.name))]
    per_source: dict[str, dict[str, int]] = {name: {} for name in sources}
    columns = {
        "items": by_source(func.count(), Item, Item.id == item_source.c.id),
        "turns": by_source(func.count(), Turn, Turn.item_id == item_source.c.id),
        "image_slots": by_source(func.count(), ItemImage, ItemImage.item_id == item_source.c.id),
        "images_missing": by_source(
            func.count(),
            ItemImage,
            ItemImage.item_id == item_source.c.id,
            ItemImage.image_id.is_(None),
        ),
        "images_present": by_source(
            func.count(),
            ItemImage,
            ItemImage.item_id == item_source.c.id,
            ItemImage.image_id.is_not(None),
        ),
        "captions": by_source(func.count(), Caption, Caption.item_id == item_source.c.id),
        "references": by_source(func.count(), reference_turns, Turn.item_id == item_source.c.id),
        "outputs": by_source(func.count(), output_turns, Turn.item_id == item_source.c.id),
        "models": by_source(
            func.count(distinct(Output.model_id)), output_turns, Turn.item_id == item_source.c.id
        ),
    }
    # every judgment the read model shows (imported, voted, judged, adjudicated; derived ones
    # included, as stored), the same count the item list gives each item; a judgment without an
    # item has no source (key None)
    shown = OutcomeFilter(include_derived=True, include_simulated=True)
    per_item_source = count_judgments(session, shown, by="source")
    by_origin = count_judgments(session, shown, by="origin")
    columns["judgments"] = {
        name: count for name, count in per_item_source.items() if name is not None
    }
    for column, values in columns.items():
        for name in sources:
            per_source[name][column] = values.get(name, 0)

    totals = {
        "items": session.scalar(select(func.count()).select_from(Item)),
        "turns": session.scalar(select(func.count()).select_from(Turn)),
        "images_stored": session.scalar(select(func.count()).select_from(Image)),
        "image_slots": session.scalar(select(func.count()).select_from(ItemImage)),
        "images_missing": session.scalar(
            select(func.count()).select_from(ItemImage).where(ItemImage.image_id.is_(None))
        ),
        "captions": session.scalar(select(func.count()).select_from(Caption)),
        "references": session.scalar(select(func.count()).select_from(Reference)),
        "models": session.scalar(select(func.count()).select_from(Model)),
        "outputs": session.scalar(select(func.count()).select_from(Output)),
        "judgments": sum(per_item_source.values()),
        "judgments_without_item": per_item_source.get(None, 0),
        **{
            f"judgments_{origin.value.replace('-', '_')}": by_origin.get(origin.value, 0)
            for origin in JudgmentOrigin
        },
        "imports": session.scalar(select(func.count()).select_from(Import)),
    }
    return {"totals": totals, "sources": per_source}


def missing_image_slots(session: Session, item_ids: Iterable[int]) -> dict[int, int]:
    """Item id -> how many of its image slots have no image (named by the source, not found at
    import), for the items among ``item_ids`` that have any."""
    found: dict[int, int] = {}
    for chunk in chunked(sorted(set(item_ids))):
        for item_id, count in session.execute(
            select(ItemImage.item_id, func.count())
            .where(ItemImage.item_id.in_(chunk), ItemImage.image_id.is_(None))
            .group_by(ItemImage.item_id)
        ):
            found[item_id] = count
    return found
