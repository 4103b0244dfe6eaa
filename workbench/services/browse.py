"""Read-only queries the inspector needs: which items match a search and filters in which order,
the columns of one page of the item list, and everything about one item (images, turns,
references with their flags, captions, and each model's outputs turn by turn).

Qt-free, so the GUI asks these functions and never writes SQL itself. Every function takes an
open read session (``Bundle.read_session()``), which may be used from a worker thread.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BindParameter,
    and_,
    bindparam,
    exists,
    func,
    literal,
    or_,
    select,
    union,
)
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.sql.elements import ColumnElement

from workbench.storage.batching import chunked
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import (
    OutcomeFilter,
    counts_per_item,
    judgment_total,
    judgments_of_item,
    kinds_per_item,
    select_judgments,
)
from workbench.storage.models import (
    Caption,
    Image,
    Item,
    ItemCategory,
    ItemImage,
    Model,
    Output,
    Reference,
    Source,
    Turn,
)


class ItemFlag(StrEnum):
    """Something about an item worth a look, shown in the item list and usable as a filter."""

    MISSING_IMAGE = "missing image"
    REFERENCE_PROBLEM = "reference problem"
    DISAGREEMENT = "judge/human disagreement"


class SortKey(StrEnum):
    """The item list's columns, each of which the list can be sorted by."""

    ID = "id"
    SOURCE = "source"
    CATEGORY = "category"
    LANGUAGE = "language"
    OUTPUTS = "outputs"
    JUDGMENTS = "judgments"
    FLAGS = "flags"


@dataclass(frozen=True)
class ItemQuery:
    """A search over the items. Empty fields do not filter.

    ``search`` matches (case-insensitively for ASCII letters) anywhere in an item's instructions,
    references, captions and outputs. ``category`` matches an item's family, its category, or any
    category of an item that has several.
    ``pair`` keeps the items where the two models were compared (a pairwise judgment between
    them, either way round, as the leaderboard counts it): the linked selection's model pair.
    ``compared`` keeps the items where that model was compared with any other (``model``, by
    contrast, keeps the items it answered).
    """

    search: str = ""
    source: str | None = None
    category: str | None = None
    model: str | None = None
    flag: ItemFlag | None = None
    sort: SortKey = SortKey.ID
    descending: bool = False
    pair: tuple[str, str] | None = None
    compared: str | None = None


@dataclass(frozen=True)
class ItemRow:
    """One line of the item list."""

    id: int
    external_id: str
    source: str
    family: str | None
    category: str | None
    language: str | None
    outputs: int
    judgments: int
    flags: frozenset[ItemFlag]

    @property
    def category_label(self) -> str:
        """Family and category together, as the list shows them."""
        parts = [part for part in (self.family, self.category) if part]
        if len(parts) == 2 and parts[0] == parts[1]:
            parts = parts[:1]
        return " · ".join(parts)


@dataclass(frozen=True)
class FilterChoices:
    """The values the item list's filters offer, taken from what the bundle holds."""

    sources: tuple[str, ...]
    categories: tuple[str, ...]
    models: tuple[str, ...]


@dataclass(frozen=True)
class ImageSlot:
    """An image of an item; ``image_id`` is None when the image was missing at import."""

    position: int
    original_ref: str
    image_id: int | None
    width: int | None = None
    height: int | None = None
    format: str | None = None

    @property
    def is_missing(self) -> bool:
        return self.image_id is None


@dataclass(frozen=True)
class CaptionView:
    text: str
    kind: str
    source: str
    image_position: int | None


@dataclass(frozen=True)
class ReferenceView:
    """A reference answer with its verification flags (None where not verified)."""

    text: str
    kind: str
    source: str
    verified_correct: bool | None
    problem_in_caption: bool | None
    problem_in_reference: bool | None

    @property
    def has_problem(self) -> bool:
        return bool(
            self.problem_in_caption or self.problem_in_reference or self.verified_correct is False
        )


@dataclass(frozen=True)
class OutputView:
    model: str
    display_name: str
    context: str
    text: str


@dataclass(frozen=True)
class TurnView:
    index: int
    prompt: str
    category: str | None
    focus_points: str | None
    references: tuple[ReferenceView, ...]
    outputs: tuple[OutputView, ...]

    def outputs_of(self, model: str) -> tuple[OutputView, ...]:
        return tuple(output for output in self.outputs if output.model == model)


@dataclass(frozen=True)
class ItemDetail:
    """Everything the item view shows about one item."""

    id: int
    external_id: str
    source: str
    family: str | None
    category: str | None
    language: str | None
    metadata: dict[str, Any]
    images: tuple[ImageSlot, ...]
    captions: tuple[CaptionView, ...]
    turns: tuple[TurnView, ...]
    flags: frozenset[ItemFlag] = field(default_factory=frozenset)
    judgments: int = 0

    @property
    def models(self) -> tuple[str, ...]:
        """The models with at least one output for this item, by name."""
        return tuple(sorted({output.model for turn in self.turns for output in turn.outputs}))


# --- helpers ----------------------------------------------------------------------------------


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _count_by_item(session: Session, statement: Any, ids: Sequence[int] | None) -> Counter[int]:
    """Run ``statement`` (selecting item_id, count, with an ``item_id`` column to restrict on)
    for all items or only ``ids``."""
    counts: Counter[int] = Counter()
    if ids is None:
        counts.update(dict(session.execute(statement).all()))
        return counts
    for chunk in chunked(ids):
        restricted = statement.where(statement.selected_columns[0].in_(chunk))
        counts.update(dict(session.execute(restricted).all()))
    return counts


def _output_counts(session: Session, ids: Sequence[int] | None) -> Counter[int]:
    statement = (
        select(Turn.item_id, func.count(Output.id))
        .join(Output, Output.turn_id == Turn.id)
        .group_by(Turn.item_id)
    )
    return _count_by_item(session, statement, ids)


def _judgment_counts(session: Session, ids: Sequence[int] | None) -> Counter[int]:
    """Judgments per item, as the judgment read model shows them (derived ones included: the
    inspector counts what is stored)."""
    counts: Counter[int] = Counter()
    if ids is None:
        counts.update(counts_per_item(session))
        return counts
    for chunk in chunked(ids):
        counts.update(counts_per_item(session, chunk))
    return counts


def _ids_where(session: Session, statement: Any, ids: Sequence[int] | None) -> set[int]:
    if ids is None:
        return set(session.scalars(statement))
    found: set[int] = set()
    for chunk in chunked(ids):
        found.update(session.scalars(statement.where(statement.selected_columns[0].in_(chunk))))
    return found


def _missing_image_items(session: Session, ids: Sequence[int] | None) -> set[int]:
    statement = select(ItemImage.item_id).where(ItemImage.image_id.is_(None)).distinct()
    return _ids_where(session, statement, ids)


def _reference_problem_items(session: Session, ids: Sequence[int] | None) -> set[int]:
    statement = (
        select(Turn.item_id)
        .join(Reference, Reference.turn_id == Turn.id)
        .where(
            or_(
                Reference.problem_in_reference.is_(True),
                Reference.problem_in_caption.is_(True),
                Reference.verified_correct.is_(False),
            )
        )
        .distinct()
    )
    return _ids_where(session, statement, ids)


def _disagreement_items(session: Session, ids: Sequence[int] | None) -> set[int]:
    """Items with a comparison where the humans' majority and the judges' majority differ, by
    :func:`workbench.stats.agreement.disagreeing_comparisons` (per criterion, a split is a
    tie). Humans are imported human judgments and campaign votes; judges are imported judge
    judgments and judge verdicts; derived judgments are left out, as in the analyses."""
    kinds = kinds_per_item(session, ids)
    both = sorted(item for item, found in kinds.items() if {"human", "judge"} <= found)
    disagreeing: set[int] = set()
    if not both:  # the frames' stack (pandas, scipy) is loaded only when there is a pair
        return disagreeing
    # start-up: the frames' stack (pandas, scipy), only when an item has both kinds
    from workbench.services.outcomes import judgments_frame
    from workbench.stats.agreement import disagreeing_comparisons

    for chunk in chunked(both):
        frame = judgments_frame(session, OutcomeFilter(items=tuple(chunk)), pairwise=True)
        humans, judges = frame[frame["kind"] == "human"], frame[frame["kind"] == "judge"]
        if humans.empty or judges.empty:
            continue
        found = disagreeing_comparisons(humans, judges)
        disagreeing |= {int(item) for item in found["item"]}
    return disagreeing


_FLAG_FINDERS = {
    ItemFlag.MISSING_IMAGE: _missing_image_items,
    ItemFlag.REFERENCE_PROBLEM: _reference_problem_items,
    ItemFlag.DISAGREEMENT: _disagreement_items,
}


#: The flags read with plain SQL. The disagreement flag compares majorities with the statistics
#: stack (pandas): a list page can be shown with these first and be given that one later.
SQL_FLAGS = frozenset({ItemFlag.MISSING_IMAGE, ItemFlag.REFERENCE_PROBLEM})


def item_flags(
    session: Session,
    ids: Sequence[int] | None = None,
    which: frozenset[ItemFlag] | None = None,
) -> dict[int, set[ItemFlag]]:
    """The flags of the given items (of all items when ``ids`` is None), only those in
    ``which`` when given; unflagged items are absent from the result."""
    flags: dict[int, set[ItemFlag]] = defaultdict(set)
    for flag, finder in _FLAG_FINDERS.items():
        if which is not None and flag not in which:
            continue
        for item_id in finder(session, ids):
            flags[item_id].add(flag)
    return dict(flags)


def flagged_items(session: Session, flag: ItemFlag, ids: Sequence[int]) -> set[int]:
    """Which of ``ids`` carry ``flag``."""
    return _FLAG_FINDERS[flag](session, ids)


# --- the item list ----------------------------------------------------------------------------


def _search_matches(text: str) -> Any:
    """A selectable of the ids of items whose texts contain ``text``."""
    pattern = _like_pattern(text)

    def like(column: Any) -> Any:
        return column.like(pattern, escape="\\")

    return union(
        select(Turn.item_id).where(like(Turn.prompt)),
        select(Turn.item_id).where(like(Turn.focus_points)),
        select(Turn.item_id)
        .join(Reference, Reference.turn_id == Turn.id)
        .where(like(Reference.text)),
        select(Caption.item_id).where(like(Caption.text)),
        select(Turn.item_id).join(Output, Output.turn_id == Turn.id).where(like(Output.text)),
        select(Item.id).where(like(Item.external_id)),
    )


def _items_comparing(*models: str) -> Any:
    """A selectable of the ids of items with a pairwise judgment between the two models (or,
    given one, between it and any other), read through the judgment read model with its
    default filter (derived judgments and adjudications left out), so the items are those
    behind the leaderboard's battles."""
    rows = select_judgments(columns=("item", "model_a", "model_b"), pairwise=True).subquery()
    if len(models) == 1:
        (model,) = models
        return select(rows.c.item).where(or_(rows.c.model_a == model, rows.c.model_b == model))
    first, second = models
    return select(rows.c.item).where(
        or_(
            and_(rows.c.model_a == first, rows.c.model_b == second),
            and_(rows.c.model_a == second, rows.c.model_b == first),
        )
    )


def first_page_in_sql(query: ItemQuery) -> bool:
    """Whether :func:`matching_item_ids` can read the first ids of ``query`` alone (``limit``)
    for less than all of them: its order is SQL's and its filters are plain columns. Sorting by
    a count or filtering by a flag needs every id first; a search or a model filter is an
    ``IN`` over a subquery SQLite reads whole either way, so a first page would cost as much
    as the list."""
    return (
        query.sort in _SQL_ORDERS
        and query.flag is None
        and not query.search.strip()
        and query.model is None
        and query.pair is None
        and query.compared is None
    )


#: the sort keys SQL orders by (the others sort the ids by counts read afterwards)
_SQL_ORDERS = frozenset({SortKey.ID, SortKey.SOURCE, SortKey.CATEGORY, SortKey.LANGUAGE})


def matching_item_ids(session: Session, query: ItemQuery, limit: int | None = None) -> list[int]:
    """The ids of the items matching ``query``, in the order it asks for; items that tie keep
    ascending id order in either direction. With ``limit`` (only where
    :func:`first_page_in_sql`), the first ``limit`` of them, read without the rest: the item
    list shows its first page from these while the whole list is read."""
    if limit is not None and not first_page_in_sql(query):
        raise ValueError(f"the first ids of {query} are read with every id (first_page_in_sql)")
    statement = select(Item.id).join(Source, Item.source_id == Source.id)
    if query.source:
        statement = statement.where(Source.name == query.source)
    if query.category:
        tagged = select(ItemCategory.item_id).where(ItemCategory.category == query.category)
        statement = statement.where(
            or_(
                Item.family == query.category,
                Item.category == query.category,
                Item.id.in_(tagged),
            )
        )
    if query.model:
        with_model = (
            select(Turn.item_id)
            .join(Output, Output.turn_id == Turn.id)
            .join(Model, Output.model_id == Model.id)
            .where(Model.name == query.model)
        )
        statement = statement.where(Item.id.in_(with_model))
    search = query.search.strip()
    if search:
        statement = statement.where(Item.id.in_(_search_matches(search)))
    if query.pair is not None:
        statement = statement.where(Item.id.in_(_items_comparing(*query.pair)))
    if query.compared is not None:
        statement = statement.where(Item.id.in_(_items_comparing(query.compared)))

    sql_order: dict[SortKey, tuple[ColumnElement[Any] | InstrumentedAttribute[Any], ...]] = {
        SortKey.ID: (Item.id,),
        SortKey.SOURCE: (Source.name, Item.id),
        SortKey.CATEGORY: (
            func.coalesce(Item.family, Item.category, literal("")),
            func.coalesce(Item.category, literal("")),
            Item.id,
        ),
        SortKey.LANGUAGE: (func.coalesce(Item.language, literal("")), Item.id),
    }
    if query.sort in sql_order:
        *columns, tie_breaker = sql_order[query.sort]
        if query.descending:
            columns = [column.desc() for column in columns]
            if query.sort is SortKey.ID:
                tie_breaker = tie_breaker.desc()
        statement = statement.order_by(*columns, tie_breaker)
        if limit is not None:
            return list(session.scalars(statement.limit(limit)))
        ids = list(session.scalars(statement))
    else:
        ids = sorted(session.scalars(statement.order_by(Item.id)))

    everything = not (
        query.source or query.category or query.model or search or query.pair or query.compared
    )
    restrict_to = None if everything else ids
    if query.flag is not None:
        flagged = _FLAG_FINDERS[query.flag](session, restrict_to)
        ids = [item_id for item_id in ids if item_id in flagged]
        restrict_to = ids

    if query.sort in sql_order:
        return ids
    counts: Counter[int] | dict[int, int]
    if query.sort is SortKey.OUTPUTS:
        counts = _output_counts(session, restrict_to)
    elif query.sort is SortKey.JUDGMENTS:
        counts = _judgment_counts(session, restrict_to)
    else:
        counts = {
            item_id: len(flags) for item_id, flags in item_flags(session, restrict_to).items()
        }
    # sorted() is stable and ids are ascending, so ties stay in id order either way
    return sorted(ids, key=lambda item_id: counts.get(item_id, 0), reverse=query.descending)


def item_rows(
    session: Session, ids: Sequence[int], flags: frozenset[ItemFlag] | None = None
) -> list[ItemRow]:
    """The item-list columns of ``ids``, in the same order (ids that do not exist are left out);
    with ``flags``, only those flags are looked for (see :data:`SQL_FLAGS`)."""
    if not ids:
        return []
    basics: dict[int, Any] = {}
    for chunk in chunked(ids):
        statement = (
            select(
                Item.id,
                Item.external_id,
                Source.name,
                Item.family,
                Item.category,
                Item.language,
            )
            .join(Source, Item.source_id == Source.id)
            .where(Item.id.in_(chunk))
        )
        basics.update({row[0]: row for row in session.execute(statement)})
    outputs = _output_counts(session, ids)
    judgments = _judgment_counts(session, ids)
    found = item_flags(session, ids, flags)
    rows = []
    for item_id in ids:
        row = basics.get(item_id)
        if row is None:
            continue
        rows.append(
            ItemRow(
                id=item_id,
                external_id=row[1],
                source=row[2],
                family=row[3],
                category=row[4],
                language=row[5],
                outputs=outputs.get(item_id, 0),
                judgments=judgments.get(item_id, 0),
                flags=frozenset(found.get(item_id, ())),
            )
        )
    return rows


def filter_choices(session: Session) -> FilterChoices:
    """Sources, categories (families and categories together) and models, sorted by name."""
    sources = tuple(session.scalars(select(Source.name).order_by(Source.name)))
    categories = sorted(
        {
            value
            for column in (Item.family, Item.category, ItemCategory.category)
            for value in session.scalars(select(column).where(column.is_not(None)).distinct())
            if value
        }
    )
    models = tuple(session.scalars(select(Model.name).order_by(Model.name)))
    return FilterChoices(sources, tuple(categories), models)


def find_item(session: Session, text: str) -> int | None:
    """The row id of the item named ``text``: an external id first (the lowest row id if
    several sources use it), then ``source/external_id``, then a row id given as digits."""
    text = text.strip()
    if not text:
        return None
    found = session.scalar(select(func.min(Item.id)).where(Item.external_id == text))
    if found is not None:
        return found
    if "/" in text:
        source, _, external_id = text.partition("/")
        found = session.scalar(
            select(Item.id)
            .join(Source, Item.source_id == Source.id)
            .where(Source.name == source, Item.external_id == external_id)
        )
        if found is not None:
            return found
    if text.isdigit():
        return session.scalar(select(Item.id).where(Item.id == int(text)))
    return None


# --- one item ---------------------------------------------------------------------------------


# Statements of the item view, built once: showing the next item runs them with a new id
# instead of composing fresh statements, which costs more than the queries themselves.
_ITEM_ID: BindParameter[int] = bindparam("item_id")


_DETAIL_HEAD = (
    select(
        Item.external_id,
        Source.name,
        Item.family,
        Item.category,
        Item.language,
        Item.metadata_,
        exists().where(ItemImage.item_id == _ITEM_ID, ItemImage.image_id.is_(None)),
        exists().where(
            Turn.item_id == _ITEM_ID,
            Reference.turn_id == Turn.id,
            or_(
                Reference.problem_in_reference.is_(True),
                Reference.problem_in_caption.is_(True),
                Reference.verified_correct.is_(False),
            ),
        ),
    )
    .join(Source, Item.source_id == Source.id)
    .where(Item.id == _ITEM_ID)
)
_DETAIL_IMAGES = (
    select(
        ItemImage.position,
        ItemImage.original_ref,
        ItemImage.image_id,
        Image.width,
        Image.height,
        Image.format,
    )
    .outerjoin(Image, ItemImage.image_id == Image.id)
    .where(ItemImage.item_id == _ITEM_ID)
    .order_by(ItemImage.position)
)
_DETAIL_CAPTIONS = (
    select(Caption.text, Caption.kind, Caption.source, Caption.image_position)
    .where(Caption.item_id == _ITEM_ID)
    .order_by(Caption.id)
)
_DETAIL_TURNS = (
    select(Turn.id, Turn.index, Turn.prompt, Turn.category, Turn.focus_points)
    .where(Turn.item_id == _ITEM_ID)
    .order_by(Turn.index)
)
_DETAIL_REFERENCES = (
    select(
        Reference.turn_id,
        Reference.text,
        Reference.kind,
        Reference.source,
        Reference.verified_correct,
        Reference.problem_in_caption,
        Reference.problem_in_reference,
    )
    .join(Turn, Reference.turn_id == Turn.id)
    .where(Turn.item_id == _ITEM_ID)
    .order_by(Reference.id)
)
_DETAIL_OUTPUTS = (
    select(Output.turn_id, Model.name, Model.display_name, Output.context, Output.text)
    .join(Turn, Output.turn_id == Turn.id)
    .join(Model, Output.model_id == Model.id)
    .where(Turn.item_id == _ITEM_ID)
    .order_by(Model.name, Output.context != "standard", Output.context)
)


def item_detail(
    session: Session, item_id: int, flags: frozenset[ItemFlag] | None = None
) -> ItemDetail | None:
    """Everything about one item, or None when no item has this id; with ``flags``, only those
    flags are looked for (see :data:`SQL_FLAGS`)."""
    connection = session.connection()
    parameters = {"item_id": item_id}
    head = connection.execute(_DETAIL_HEAD, parameters).first()
    if head is None:
        return None
    (
        external_id,
        source,
        family,
        category,
        language,
        metadata,
        missing_image,
        reference_problem,
    ) = head
    by_kind = judgments_of_item(session, item_id)
    judgments = sum(by_kind.values())

    images = tuple(ImageSlot(*row) for row in connection.execute(_DETAIL_IMAGES, parameters))
    captions = tuple(CaptionView(*row) for row in connection.execute(_DETAIL_CAPTIONS, parameters))
    turn_rows = connection.execute(_DETAIL_TURNS, parameters).all()
    references: dict[int, list[ReferenceView]] = defaultdict(list)
    for row in connection.execute(_DETAIL_REFERENCES, parameters):
        turn_id, ref_text, ref_kind, ref_source, correct, in_caption, in_reference = row
        references[turn_id].append(
            ReferenceView(ref_text, ref_kind, ref_source, correct, in_caption, in_reference)
        )
    outputs: dict[int, list[OutputView]] = defaultdict(list)
    for turn_id, name, display_name, context, text in connection.execute(
        _DETAIL_OUTPUTS, parameters
    ):
        outputs[turn_id].append(OutputView(name, display_name or name, context, text))

    turns = tuple(
        TurnView(
            index=index,
            prompt=prompt,
            category=turn_category,
            focus_points=focus_points,
            references=tuple(references[turn_id]),
            outputs=tuple(outputs[turn_id]),
        )
        for turn_id, index, prompt, turn_category, focus_points in turn_rows
    )
    wanted = flags is None or ItemFlag.DISAGREEMENT in flags
    found = set()
    if missing_image:
        found.add(ItemFlag.MISSING_IMAGE)
    if reference_problem:
        found.add(ItemFlag.REFERENCE_PROBLEM)
    if wanted and {"human", "judge"} <= set(by_kind) and _disagreement_items(session, [item_id]):
        found.add(ItemFlag.DISAGREEMENT)
    return ItemDetail(
        id=item_id,
        external_id=external_id,
        source=source,
        family=family,
        category=category,
        language=language,
        metadata=dict(metadata or {}),
        images=images,
        captions=captions,
        turns=turns,
        flags=frozenset(found),
        judgments=int(judgments or 0),
    )


def image_bytes(session: Session, image_id: int) -> bytes | None:
    """The stored bytes of an image (as imported, EXIF and all), or None if there is none."""
    return session.scalar(select(Image.data).where(Image.id == image_id))


def item_image_ids(session: Session, item_id: int) -> list[int]:
    """The ids of an item's present images, in display order (for prefetching)."""
    return list(
        session.scalars(
            select(ItemImage.image_id)
            .where(ItemImage.item_id == item_id, ItemImage.image_id.is_not(None))
            .order_by(ItemImage.position)
        )
    )


def item_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Item)) or 0


class BundleBrowser:
    """The queries above bound to one open bundle, each in its own short read transaction.

    Safe to call from several threads at once (each call takes its own connection), which is
    how the GUI runs searches and image reads off its main thread.
    """

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle

    def matching_item_ids(self, query: ItemQuery, limit: int | None = None) -> list[int]:
        with self.bundle.read_session() as session:
            return matching_item_ids(session, query, limit)

    def item_rows(
        self, ids: Sequence[int], flags: frozenset[ItemFlag] | None = None
    ) -> list[ItemRow]:
        with self.bundle.read_session() as session:
            return item_rows(session, ids, flags)

    def flagged_items(self, flag: ItemFlag, ids: Sequence[int]) -> set[int]:
        with self.bundle.read_session() as session:
            return flagged_items(session, flag, ids)

    def item_detail(
        self, item_id: int, flags: frozenset[ItemFlag] | None = None
    ) -> ItemDetail | None:
        with self.bundle.read_session() as session:
            return item_detail(session, item_id, flags)

    def image_bytes(self, image_id: int) -> bytes | None:
        with self.bundle.read_session() as session:
            return image_bytes(session, image_id)

    def item_image_ids(self, item_id: int) -> list[int]:
        with self.bundle.read_session() as session:
            return item_image_ids(session, item_id)

    def filter_choices(self) -> FilterChoices:
        with self.bundle.read_session() as session:
            return filter_choices(session)

    def find_item(self, text: str) -> int | None:
        with self.bundle.read_session() as session:
            return find_item(session, text)

    def item_count(self) -> int:
        with self.bundle.read_session() as session:
            return item_count(session)

    def judgment_total(self) -> int:
        """How many judgments the bundle holds (imported, voted, judged), counted cheaply."""
        with self.bundle.read_session() as session:
            return judgment_total(session)
