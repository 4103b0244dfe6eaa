"""What a judge run has to judge: the comparisons (from a campaign's schedule, or from models and
items), each in one or both orders, with the case every request shows, read from the bundle.

A side is a model name or :data:`REFERENCE`, the item's reference answer taking part as a
response. Comparisons come in a stable order (source, item id, turn, model names), so ``limit``
and resume pick the same ones every time.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import combinations
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.errors import WorkbenchError
from workbench.judge.cases import CaseTurn, ImageRef, JudgeCase
from workbench.judge.templates import JudgeMode, JudgeTemplate
from workbench.progress import Progress, no_progress
from workbench.services.campaign_items import REFERENCE_NAME, ItemSpec, resolve_items
from workbench.services.campaign_settings import settings_of
from workbench.storage.batching import chunked
from workbench.storage.models import (
    Campaign,
    Caption,
    Image,
    Item,
    ItemImage,
    Model,
    Output,
    Reference,
    ScheduledPair,
    Source,
    Turn,
)


class WorkListError(WorkbenchError):
    pass


class _ReferenceSide(Enum):
    REFERENCE = REFERENCE_NAME

    def __repr__(self) -> str:
        return REFERENCE_NAME


#: the reference answer as one side of a comparison
REFERENCE = _ReferenceSide.REFERENCE
Side = str | _ReferenceSide


def side_name(side: Side | None) -> str | None:
    if side is None:
        return None
    return REFERENCE_NAME if side is REFERENCE else str(side)


@dataclass(frozen=True)
class JudgeScope:
    """What to judge: a campaign's pairs, or ``models`` (None: every model that answered) on
    ``items`` (an item selection: ``all``, a source, or ids), optionally each against ``anchor``.
    ``limit`` caps the number of comparisons (each judged in both orders with ``swap``)."""

    campaign: str | None = None
    models: tuple[str, ...] | None = None
    items: str = "all"
    anchor: str | None = None
    context: str = "standard"
    swap: bool = True
    limit: int | None = None
    #: an evaluator selector (``human``, ``campaign:pilot``...): only the model pairs its
    #: judgments compared on each item (CHIRP's judges on the human survey's matchups)
    matchups_of: str | None = None

    def as_dict(self) -> dict[str, Any]:
        found = {
            "campaign": self.campaign,
            "models": list(self.models) if self.models is not None else None,
            "items": self.items,
            "anchor": self.anchor,
            "context": self.context,
            "swap": self.swap,
        }
        # named only when set, so the runs of earlier versions keep their names
        return found if self.matchups_of is None else {**found, "matchups_of": self.matchups_of}


@dataclass(frozen=True)
class WorkUnit:
    """One request to make: ``side_a`` shown as A (and ``side_b`` as B) on one item (turn)."""

    item_id: int
    judged_turn: int | None
    shown_turns: tuple[int, ...]
    side_a: Side
    side_b: Side | None
    swapped: bool
    case: JudgeCase


@dataclass
class WorkList:
    units: list[WorkUnit]
    comparisons: int
    skipped: Counter[str] = field(default_factory=Counter)
    model_ids: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Comparison:
    item_id: int
    turn: int | None  # the turn a campaign task names, or the per-turn template's turn
    first: Side
    second: Side | None


@dataclass
class _Content:
    """The parts of the selected items a case is built from."""

    keys: dict[int, tuple[str, str]] = field(default_factory=dict)
    metadata: dict[int, dict[str, Any]] = field(default_factory=dict)
    turns: dict[int, list[tuple[int, int, str, str | None]]] = field(default_factory=dict)
    references: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    captions: dict[int, list[tuple[str, int | None, str]]] = field(default_factory=dict)
    images: dict[int, list[ImageRef]] = field(default_factory=dict)
    outputs: dict[tuple[int, str], str] = field(default_factory=dict)


def _load_content(
    session: Session, item_ids: Sequence[int], template: JudgeTemplate, context: str
) -> _Content:
    content = _Content(
        turns=defaultdict(list),
        references=defaultdict(list),
        captions=defaultdict(list),
        images=defaultdict(list),
    )
    for chunk in chunked(sorted(item_ids)):
        for item_id, source, external_id, metadata in session.execute(
            select(Item.id, Source.name, Item.external_id, Item.metadata_)
            .join(Source)
            .where(Item.id.in_(chunk))
        ):
            content.keys[item_id] = (source, external_id)
            content.metadata[item_id] = metadata or {}
        turn_ids: list[int] = []
        for turn_id, item_id, index, prompt, focus in session.execute(
            select(Turn.id, Turn.item_id, Turn.index, Turn.prompt, Turn.focus_points)
            .where(Turn.item_id.in_(chunk))
            .order_by(Turn.item_id, Turn.index)
        ):
            content.turns[item_id].append((turn_id, index, prompt, focus))
            turn_ids.append(turn_id)
        for turn_chunk in chunked(turn_ids):
            for turn_id, kind, text in session.execute(
                select(Reference.turn_id, Reference.kind, Reference.text)
                .where(Reference.turn_id.in_(turn_chunk))
                .order_by(Reference.id)
            ):
                content.references[turn_id].append((kind, text))
            for turn_id, model, text in session.execute(
                select(Output.turn_id, Model.name, Output.text)
                .join(Model, Output.model_id == Model.id)
                .where(Output.turn_id.in_(turn_chunk), Output.context == context)
            ):
                content.outputs[(turn_id, model)] = text
        for item_id, kind, position, text in session.execute(
            select(Caption.item_id, Caption.kind, Caption.image_position, Caption.text)
            .where(Caption.item_id.in_(chunk))
            .order_by(Caption.item_id, Caption.id)
        ):
            content.captions[item_id].append((kind, position, text))
        if template.send_images:
            for item_id, position, image_id, sha256, width, height in session.execute(
                select(
                    ItemImage.item_id,
                    ItemImage.position,
                    Image.id,
                    Image.sha256,
                    Image.width,
                    Image.height,
                )
                .join(Image, ItemImage.image_id == Image.id)
                .where(ItemImage.item_id.in_(chunk))
                .order_by(ItemImage.item_id, ItemImage.position)
            ):
                content.images[item_id].append(ImageRef(position, image_id, sha256, width, height))
    return content


def _preferred(options: list[tuple[str, str]], kinds: Sequence[str]) -> str | None:
    for kind in kinds:
        for option_kind, text in options:
            if option_kind == kind:
                return text
    return options[0][1] if options else None


def _unanswered_reason(gaps: list[int], turns: int, models: int) -> str:
    """Why a comparison of ``models`` models is skipped, in the words a plan summary counts:
    ``gaps`` holds, per model with a gap, how many of the ``turns`` shown it left unanswered."""
    if all(gap == turns for gap in gaps) and len(gaps) == models:
        # most often an item imported without model answers (references only)
        return (
            "the item holds no answer from either model"
            if models == 2
            else "the model did not answer this item"
        )
    if any(gap == turns for gap in gaps):
        return "one of the two models did not answer this item"
    return "a model left a turn of this item unanswered"


class _CaseBuilder:
    def __init__(self, content: _Content, template: JudgeTemplate) -> None:
        self.content = content
        self.template = template

    def shown_turns(self, item_id: int, turn: int | None) -> list[tuple[int, int, str, str | None]]:
        turns = self.content.turns.get(item_id, [])
        return [row for row in turns if turn is None or row[1] <= turn]

    def reference(self, turn_id: int) -> str | None:
        return _preferred(self.content.references.get(turn_id, []), self.template.reference_kinds)

    def answer(self, turn_id: int, side: Side) -> str | None:
        if side is REFERENCE:
            return self.reference(turn_id)
        return self.content.outputs.get((turn_id, str(side)))

    def problem(self, item_id: int, turn: int | None, sides: Sequence[Side]) -> str | None:
        """Why this comparison cannot be shown, or None."""
        shown = self.shown_turns(item_id, turn)
        if not shown or (turn is not None and shown[-1][1] != turn):
            return "the item has no such turn"
        unanswered = {
            side: sum(self.answer(turn_id, side) is None for turn_id, *_ in shown) for side in sides
        }
        if unanswered.get(REFERENCE):
            return "the item has no reference answer on a turn shown"
        gaps = [count for side, count in unanswered.items() if side is not REFERENCE and count]
        if gaps:
            return _unanswered_reason(
                gaps, len(shown), models=len(unanswered) - (REFERENCE in unanswered)
            )
        if self.template.needs_reference and any(
            self.reference(turn_id) is None for turn_id, *_ in shown
        ):
            return "the template needs a reference the item lacks"
        return None

    def captions(self, item_id: int) -> tuple[tuple[int | None, str], ...]:
        captions = self.content.captions.get(item_id, [])
        for kind in self.template.caption_kinds:
            chosen = [(position, text) for k, position, text in captions if k == kind]
            if chosen:
                return tuple(chosen)
        if self.template.caption_kinds:
            return ()
        return tuple((position, text) for _, position, text in captions)

    def case(self, item_id: int, turn: int | None, sides: Sequence[Side]) -> JudgeCase:
        source, external_id = self.content.keys[item_id]
        turns = tuple(
            CaseTurn(
                index,
                prompt,
                self.reference(turn_id),
                focus,
                tuple(self.answer(turn_id, side) or "" for side in sides),
            )
            for turn_id, index, prompt, focus in self.shown_turns(item_id, turn)
        )
        images = tuple(self.content.images.get(item_id, ())) if self.template.send_images else ()
        return JudgeCase(source, external_id, turns, self.captions(item_id), images)


def _model_names(session: Session) -> dict[str, int]:
    return {name: model_id for model_id, name in session.execute(select(Model.id, Model.name))}


def _as_side(name: str, known: dict[str, int]) -> Side:
    if name == REFERENCE_NAME and name not in known:
        return REFERENCE
    if name not in known:
        sample = ", ".join(sorted(known)[:20]) or "none"
        raise WorkListError(f"no model named '{name}' in this bundle (models: {sample})")
    return name


def _side_key(side: Side | None) -> tuple[int, str]:
    return (0, "") if side is REFERENCE else (1, str(side))


def _campaign_comparisons(
    session: Session, selection: JudgeScope, template: JudgeTemplate, names: dict[int, str]
) -> list[_Comparison]:
    campaign = session.scalar(select(Campaign).where(Campaign.name == selection.campaign))
    if campaign is None:
        known = ", ".join(session.scalars(select(Campaign.name).order_by(Campaign.name)))
        raise WorkListError(
            f"no campaign named '{selection.campaign}' in this bundle (campaigns: "
            f"{known or 'none'})"
        )
    display = settings_of(campaign).display
    wanted = "pair" if template.mode is JudgeMode.PAIR else "single"
    if display != wanted:
        raise WorkListError(
            f"campaign '{campaign.name}' shows {display} tasks; template {template.name} judges "
            f"{wanted} ones"
        )
    comparisons = []
    for item_id, turn, left, right in session.execute(
        select(
            ScheduledPair.item_id,
            ScheduledPair.turn_index,
            ScheduledPair.left_model_id,
            ScheduledPair.right_model_id,
        )
        .where(ScheduledPair.campaign_id == campaign.id)
        .distinct()
    ):
        first: Side = REFERENCE if left is None else names[left]
        second: Side | None = None
        if template.mode is JudgeMode.PAIR:
            second = REFERENCE if right is None else names[right]
        comparisons.append(_Comparison(item_id, turn, first, second))
    return comparisons


def _selected_comparisons(
    selection: JudgeScope,
    template: JudgeTemplate,
    known: dict[str, int],
    item_turns: dict[int, list[int]],
    answering: set[str],
) -> list[_Comparison]:
    anchor = _as_side(selection.anchor, known) if selection.anchor else None
    if template.reference_as_response:
        if anchor is not None and anchor is not REFERENCE:
            raise WorkListError(
                f"template {template.name} compares each model with the reference; "
                "it takes no other anchor"
            )
        anchor = REFERENCE
    if template.mode is JudgeMode.SINGLE and anchor is not None:
        raise WorkListError(f"template {template.name} grades one response; it has no anchor")
    models: list[Side]
    if selection.models is not None:
        models = [_as_side(name, known) for name in selection.models]
    else:
        models = [name for name in sorted(answering)]
        if not models:
            raise WorkListError(
                f"no model answered the selected items (context '{selection.context}')"
            )
    if REFERENCE in models and (template.needs_reference or template.mode is JudgeMode.SINGLE):
        raise WorkListError(
            f"template {template.name} "
            + ("grades models" if template.mode is JudgeMode.SINGLE else "shows the reference")
            + "; the reference cannot also be one of the responses"
        )
    if anchor is REFERENCE and template.needs_reference:
        raise WorkListError(
            f"template {template.name} shows the reference; it cannot also be the anchor"
        )
    contestants = sorted({*models} - ({anchor} if anchor is not None else set()), key=_side_key)
    comparisons = []
    for item_id, indexes in item_turns.items():
        turns: list[int | None] = list(indexes) if template.per_turn else [None]
        for turn in turns:
            if template.mode is JudgeMode.SINGLE:
                comparisons += [_Comparison(item_id, turn, m, None) for m in contestants]
            elif anchor is not None:
                comparisons += [_Comparison(item_id, turn, anchor, m) for m in contestants]
            else:
                comparisons += [
                    _Comparison(item_id, turn, a, b) for a, b in combinations(contestants, 2)
                ]
    return comparisons


def _judged_matchups(
    session: Session, selector: str, comparisons: list[_Comparison]
) -> list[_Comparison]:
    """The comparisons whose item and model pair (in either order) the judgments ``selector``
    names compared."""
    # start-up: a judge run loads pandas (outcomes) and the read model only to pick judged matchups
    from workbench.services.outcomes import UnknownSelectorError, parse_selector
    from workbench.storage.judgments import read_judgments

    try:
        chosen = parse_selector(selector)
    except UnknownSelectorError as error:
        raise WorkListError(f"--matchups-of: {error}") from error
    _, rows = read_judgments(session, chosen, columns=("item", "model_a", "model_b"), pairwise=True)
    judged = {(item, frozenset((a, b))) for item, a, b in rows}
    if not judged:
        raise WorkListError(f"--matchups-of {selector}: no pairwise judgments match it")
    return [
        comparison
        for comparison in comparisons
        if (
            comparison.item_id,
            frozenset((side_name(comparison.first), side_name(comparison.second))),
        )
        in judged
    ]


def _ordered(
    comparison: _Comparison, template: JudgeTemplate, metadata: dict[str, Any]
) -> tuple[Side, Side | None]:
    """The comparison's first order: as given, except that a template with a fixed side puts
    the model where the item's metadata says (0: model is A, 1: model is B)."""
    first, second = comparison.first, comparison.second
    if template.fixed_side_key and second is not None:
        model = second if first is REFERENCE else first
        side = metadata.get(template.fixed_side_key)
        if side == 1:
            return REFERENCE, model
        return model, REFERENCE
    return first, second


#: comparisons between two progress reports (and chances to cancel) of :func:`build_work_list`
COMPARISONS_PER_STEP = 1000


def build_work_list(
    session: Session,
    template: JudgeTemplate,
    selection: JudgeScope,
    progress: Progress = no_progress,
) -> WorkList:
    """Every request a run of ``template`` over ``selection`` makes, in a stable order.
    ``progress("work list", done, total)`` runs once the content is read and then per
    :data:`COMPARISONS_PER_STEP` comparisons checked, then built (a cancel callback may raise
    there; the work list only reads)."""
    if selection.limit is not None and selection.limit < 1:
        raise WorkListError("the limit must be at least 1")
    known = _model_names(session)
    names = {model_id: name for name, model_id in known.items()}
    if selection.campaign:
        comparisons = _campaign_comparisons(session, selection, template, names)
        item_ids = sorted({c.item_id for c in comparisons})
    else:
        item_ids = [item.id for item in resolve_items(session, ItemSpec(selection.items))]
        comparisons = []
    content = _load_content(session, item_ids, template, selection.context)
    if not selection.campaign:
        item_turns = {
            item_id: [row[1] for row in content.turns.get(item_id, [])] for item_id in item_ids
        }
        answering = {model for (_turn_id, model) in content.outputs}
        comparisons = _selected_comparisons(selection, template, known, item_turns, answering)
        if selection.matchups_of is not None:
            comparisons = _judged_matchups(session, selection.matchups_of, comparisons)
    builder = _CaseBuilder(content, template)
    skipped: Counter[str] = Counter()
    ready: list[tuple[tuple[Any, ...], _Comparison]] = []
    seen: set[tuple[int, int | None, Side, Side | None]] = set()
    steps = 2 * len(comparisons)  # checked, then built
    for number, comparison in enumerate(comparisons):
        if number % COMPARISONS_PER_STEP == 0:
            progress("work list", number, steps)
        key = (comparison.item_id, comparison.turn, comparison.first, comparison.second)
        if key in seen:
            continue
        seen.add(key)
        sides = [s for s in (comparison.first, comparison.second) if s is not None]
        problem = builder.problem(comparison.item_id, comparison.turn, sides)
        if problem:
            skipped[problem] += 1
            continue
        source, external_id = content.keys[comparison.item_id]
        order = (
            source,
            external_id,
            comparison.turn or 0,
            _side_key(comparison.first),
            _side_key(comparison.second),
        )
        ready.append((order, comparison))
    ready.sort(key=lambda entry: entry[0])
    if selection.limit is not None:
        ready = ready[: selection.limit]
    units: list[WorkUnit] = []
    for number, (_order, comparison) in enumerate(ready):
        if number % COMPARISONS_PER_STEP == 0:
            progress("work list", len(comparisons) + number, steps)
        first, second = _ordered(comparison, template, content.metadata[comparison.item_id])
        orders = [(first, second, False)]
        if second is not None and selection.swap:
            orders.append((second, first, True))
        shown = tuple(row[1] for row in builder.shown_turns(comparison.item_id, comparison.turn))
        for side_a, side_b, swapped in orders:
            sides = [side_a] if side_b is None else [side_a, side_b]
            units.append(
                WorkUnit(
                    comparison.item_id,
                    comparison.turn,
                    shown,
                    side_a,
                    side_b,
                    swapped,
                    builder.case(comparison.item_id, comparison.turn, sides),
                )
            )
    return WorkList(units, len(ready), skipped, known)
