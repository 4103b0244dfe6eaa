"""Which items and models a campaign covers, and on which slots (item, turn) each contestant can
be shown: a model where it answered every turn the task shows, the reference where every one of
those turns has one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.domain.judgments import REFERENCE_SIDE
from workbench.domain.protocols import AnnotationProtocol, Display
from workbench.services.campaign_errors import SelectionError
from workbench.services.scheduling import REFERENCE, Contestant, Slot, contestant_key
from workbench.storage.batching import chunked
from workbench.storage.models import Item, Model, Output, Reference, Source, Turn

#: how users name the reference answer where a model name is expected (the judgments' name too)
REFERENCE_NAME = REFERENCE_SIDE


@dataclass(frozen=True)
class ItemSpec:
    """Items by a user's description: ``"all"``, a source name, or a comma-separated list of
    external ids, each optionally written ``source:id`` where an id exists in several sources."""

    text: str = "all"


@dataclass(frozen=True)
class SelectedItem:
    id: int
    source: str
    external_id: str
    turns: tuple[int, ...]
    referenced_turns: frozenset[int]


@dataclass
class Eligibility:
    """Per slot, the contestants that can be shown there, and the item row behind each slot."""

    contestants: dict[Slot, list[Contestant]]
    item_ids: dict[Slot, int]


def _item_rows(session: Session, selection: ItemSpec) -> list[tuple[int, str, str]]:
    rows = [
        (item_id, source, external_id)
        for item_id, source, external_id in session.execute(
            select(Item.id, Source.name, Item.external_id).join(Source)
        )
    ]
    text = selection.text.strip()
    sources = {source for _, source, _ in rows}
    if text == "all":
        chosen = rows
    elif text in sources:
        chosen = [row for row in rows if row[1] == text]
    else:
        by_id: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
        for row in rows:
            by_id[row[2]].append(row)
            by_id[f"{row[1]}:{row[2]}"].append(row)
        wanted = [part.strip() for part in text.split(",") if part.strip()]
        if not wanted:
            raise SelectionError("no items given: use 'all', a source name or a list of ids")
        unknown = [name for name in wanted if name not in by_id]
        if unknown:
            raise SelectionError(
                f"no item with id {', '.join(unknown[:10])}"
                + (f" (and {len(unknown) - 10} more)" if len(unknown) > 10 else "")
                + f"; sources in this bundle: {', '.join(sorted(sources)) or 'none'}"
            )
        ambiguous = [name for name in wanted if len(by_id[name]) > 1]
        if ambiguous:
            name = ambiguous[0]
            choices = ", ".join(f"{row[1]}:{row[2]}" for row in by_id[name])
            raise SelectionError(f"item id {name} exists in several sources; write {choices}")
        chosen = list({by_id[name][0] for name in wanted})
    if not chosen:
        raise SelectionError("the selection holds no items")
    return sorted(chosen, key=lambda row: (row[1], row[2]))


def resolve_items(session: Session, selection: ItemSpec) -> list[SelectedItem]:
    """The selected items in a stable order (source, external id), with their turns."""
    rows = _item_rows(session, selection)
    turns: dict[int, list[int]] = defaultdict(list)
    referenced: dict[int, set[int]] = defaultdict(set)
    for chunk in chunked([row[0] for row in rows]):
        for item_id, index in session.execute(
            select(Turn.item_id, Turn.index).where(Turn.item_id.in_(chunk))
        ):
            turns[item_id].append(index)
        for item_id, index in session.execute(
            select(Turn.item_id, Turn.index)
            .join(Reference, Reference.turn_id == Turn.id)
            .where(Turn.item_id.in_(chunk))
            .distinct()
        ):
            referenced[item_id].add(index)
    return [
        SelectedItem(
            item_id,
            source,
            external_id,
            tuple(sorted(turns[item_id])),
            frozenset(referenced[item_id]),
        )
        for item_id, source, external_id in rows
    ]


def _answered_turns(
    session: Session, items: Sequence[SelectedItem], context: str
) -> dict[tuple[int, str], set[int]]:
    answered: dict[tuple[int, str], set[int]] = defaultdict(set)
    for chunk in chunked([item.id for item in items]):
        statement = (
            select(Turn.item_id, Turn.index, Model.name)
            .join(Output, Output.turn_id == Turn.id)
            .join(Model, Output.model_id == Model.id)
            .where(Turn.item_id.in_(chunk), Output.context == context)
        )
        for item_id, index, model in session.execute(statement):
            answered[(item_id, model)].add(index)
    return answered


def resolve_contestants(
    session: Session,
    items: Sequence[SelectedItem],
    models: Sequence[str] | None,
    context: str,
) -> list[Contestant]:
    """The contestants by name (``reference`` for the reference answer), or with ``models``
    None every model that answered any selected item."""
    known = set(session.scalars(select(Model.name)))
    if models is None:
        answered = _answered_turns(session, items, context)
        names = sorted({model for _, model in answered})
        if not names:
            raise SelectionError(f"no model answered the selected items (context '{context}')")
        return list(names)
    contestants: list[Contestant] = []
    for name in models:
        if name == REFERENCE_NAME:
            if REFERENCE_NAME in known:
                raise SelectionError(
                    "a model is named 'reference', which is also the name of the reference "
                    "answer; rename the model before using it in a campaign"
                )
            contestants.append(REFERENCE)
        elif name in known:
            contestants.append(name)
        else:
            raise SelectionError(
                f"no model named '{name}' in this bundle (models: "
                + (", ".join(sorted(known)[:20]) or "none")
                + ")"
            )
    return sorted(set(contestants), key=contestant_key)


def eligibility(
    session: Session,
    items: Sequence[SelectedItem],
    contestants: Sequence[Contestant],
    protocol: AnnotationProtocol,
    context: str,
) -> Eligibility:
    """On which slots each contestant can appear under ``protocol``.

    A per-turn task about turn t shows turns 1..t, so a model needs answers for all of them;
    other tasks show (and need) every turn. Protocols that show the reference need it on the
    judged turns; a reference taking part as a response needs it on every turn shown.
    """
    answered = _answered_turns(session, items, context)
    result = Eligibility({}, {})
    for item in items:
        for judged in item.turns if protocol.per_turn else (None,):
            shown = [t for t in item.turns if judged is None or t <= judged]
            judged_turns = shown if judged is None else [judged]
            if (protocol.shows_reference or protocol.display is Display.NONE) and not set(
                judged_turns
            ) <= item.referenced_turns:
                continue
            slot = Slot(item.source, item.external_id, judged)
            eligible = [
                contestant
                for contestant in contestants
                if set(shown)
                <= (
                    item.referenced_turns
                    if contestant is REFERENCE
                    else answered.get((item.id, contestant), set())
                )
            ]
            result.contestants[slot] = eligible
            result.item_ids[slot] = item.id
    return result
