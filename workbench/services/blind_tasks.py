"""The blind task: everything the annotation view may show for one scheduled pair, and nothing
else. It holds no model name or id, no output or item id, no file name and no statistic of the
outputs; responses are bare texts in their scheduled positions ("Response 1" is the left one),
and the task is named by a random token that only the annotation session can resolve.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy import Row, bindparam, or_, select
from sqlalchemy.orm import Session

from workbench.domain.protocols import AnnotationProtocol
from workbench.storage.models import (
    Caption,
    Image,
    ItemImage,
    Output,
    Reference,
    ScheduledPair,
    Turn,
)

#: captions of this kind are the ones written for the instruction (VisIT-Bench's dense captions);
#: when an item has any, only they are shown
INSTRUCTION_CAPTION_KIND = "instruction-conditioned"


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the annotator has come: tasks answered or skipped (``done``, of which
    ``skipped`` were skipped), tasks left for them, the campaign's task count (``None``
    outside a campaign, as in the practice round): one denominator for every annotator, the
    one ``workbench campaign status`` prints; and the tasks they flagged (counted apart: a
    flagged task is still answered or skipped)."""

    done: int
    remaining: int
    skipped: int = 0
    campaign_tasks: int | None = None
    flagged: int = 0

    @property
    def total(self) -> int:
        return self.done + self.remaining

    @property
    def answered(self) -> int:
        return self.done - self.skipped

    def after_answer(self) -> Progress:
        """The progress once one more task is answered (not recounted: see ``services.voting``)."""
        return replace(self, done=self.done + 1, remaining=max(self.remaining - 1, 0))


@dataclass(frozen=True, slots=True)
class TaskImage:
    """An image of the task, in display order; ``data`` is None when it was missing at import."""

    position: int
    data: bytes | None
    format: str | None


@dataclass(frozen=True, slots=True)
class TaskCaption:
    """A caption of the images (``image_position`` None: of all of them)."""

    image_position: int | None
    text: str


@dataclass(frozen=True, slots=True)
class TaskTurn:
    """One turn of the conversation as shown: the user's prompt, the reference answer when the
    protocol shows it, and the responses in their positions (none, one, or two)."""

    index: int
    prompt: str
    reference: str | None
    responses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BlindTask:
    """One task for the annotation view.

    ``judged_turn`` is the turn the question is about (per-turn protocols: the last of ``turns``,
    the earlier ones are the conversation so far); None means the whole conversation is judged.
    ``response_labels`` name the positions of ``TaskTurn.responses``.
    """

    token: str
    protocol: str
    images: tuple[TaskImage, ...]
    captions: tuple[TaskCaption, ...]
    turns: tuple[TaskTurn, ...]
    judged_turn: int | None
    response_labels: tuple[str, ...]
    progress: Progress


# Built once: a statement keeps its compiled form's cache key, so each task only binds values
# (the annotation worker builds a task per vote; building these anew cost more CPU than running
# them).
_IMAGES = (
    select(ItemImage.position, Image.data, Image.format)
    .outerjoin(Image, ItemImage.image_id == Image.id)
    .where(ItemImage.item_id == bindparam("item"))
    .order_by(ItemImage.position)
)
_CAPTIONS = (
    select(Caption.image_position, Caption.text, Caption.kind)
    .where(Caption.item_id == bindparam("item"))
    .order_by(Caption.image_position, Caption.id)
)
_TURNS = (
    select(Turn.id, Turn.index, Turn.prompt)
    .where(Turn.item_id == bindparam("item"))
    .order_by(Turn.index)
)
# The references and answers of the item's turns, named by the item and the two models rather
# than by lists of ids: a list is spliced into the SQL at every execution (SQLAlchemy's
# "expanding" parameters), which cost more CPU per task than SQLite's work. Rows of turns after
# the judged one are read and not shown.
_ITEM_TURNS = select(Turn.id).where(Turn.item_id == bindparam("item")).scalar_subquery()
_REFERENCES = select(Reference.id, Reference.turn_id, Reference.kind, Reference.text).where(
    Reference.turn_id.in_(_ITEM_TURNS)
)
_OUTPUTS = select(Output.turn_id, Output.model_id, Output.text).where(
    Output.turn_id.in_(_ITEM_TURNS),
    or_(Output.model_id == bindparam("first"), Output.model_id == bindparam("second")),
    Output.context == bindparam("context"),
)


def _references(session: Session, item_id: int, kinds: tuple[str, ...]) -> dict[int, str]:
    """Per turn of the item, the reference to show: the first of ``kinds`` it has, else its
    first one."""
    rank = {kind: position for position, kind in enumerate(kinds)}
    chosen: dict[int, tuple[int, int, str]] = {}
    rows = session.connection().execute(_REFERENCES, {"item": item_id})
    for reference_id, turn_id, kind, text in rows:
        key = (rank.get(kind, len(kinds)), reference_id, text)
        if turn_id not in chosen or key < chosen[turn_id]:
            chosen[turn_id] = key
    return {turn_id: text for turn_id, (_, _, text) in chosen.items()}


def build_task(
    session: Session,
    pair: ScheduledPair | Row[int, int | None, int | None, int | None],
    protocol: AnnotationProtocol,
    output_context: str,
    token: str,
    progress: Progress,
    swapped: bool = False,
) -> BlindTask:
    """The blind task of ``pair``. A side with no model is the reference answer (pairwise
    protocols) or absent (single-output and verification protocols). ``swapped`` shows the
    pair's right side first (Response 1). ``pair`` may be the row of its columns alone (item,
    turn, left and right model), which the annotation worker reads without an ORM object."""
    # Core statements on the connection: the ORM's execution path, which they do not use, cost
    # more CPU per task than SQLite's work on them
    connection = session.connection()
    images = tuple(
        TaskImage(position, data, image_format)
        for position, data, image_format in connection.execute(_IMAGES, {"item": pair.item_id})
    )
    captions: tuple[TaskCaption, ...] = ()
    if protocol.shows_caption:
        rows = connection.execute(_CAPTIONS, {"item": pair.item_id}).all()
        preferred = [row for row in rows if row.kind == INSTRUCTION_CAPTION_KIND] or rows
        captions = tuple(TaskCaption(row.image_position, row.text) for row in preferred)

    # (id, index, prompt) unpacked by position: "index" is also a method of a row
    turns: list[tuple[int, int, str]] = [
        (turn_id, index, prompt)
        for turn_id, index, prompt in connection.execute(_TURNS, {"item": pair.item_id})
        if pair.turn_index is None or index <= pair.turn_index
    ]
    references = _references(session, pair.item_id, protocol.reference_kinds)
    sides = [pair.left_model_id, pair.right_model_id][: protocol.output_count]
    if swapped:
        sides.reverse()
    answers: dict[tuple[int, int], str] = {}
    wanted_models = [model_id for model_id in sides if model_id is not None]
    if wanted_models:
        first, second = wanted_models[0], wanted_models[-1]
        values = {"item": pair.item_id, "first": first, "second": second, "context": output_context}
        for turn_id, model_id, text in connection.execute(_OUTPUTS, values):
            answers[(turn_id, model_id)] = text
    shown_turns = []
    for turn_id, index, prompt in turns:
        responses = tuple(
            references.get(turn_id, "")
            if model_id is None
            else answers.get((turn_id, model_id), "")
            for model_id in sides
        )
        reference = references.get(turn_id) if protocol.shows_reference else None
        shown_turns.append(TaskTurn(index, prompt, reference, responses))
    return BlindTask(
        token=token,
        protocol=protocol.name,
        images=images,
        captions=captions,
        turns=tuple(shown_turns),
        judged_turn=pair.turn_index,
        response_labels=protocol.response_labels,
        progress=progress,
    )
