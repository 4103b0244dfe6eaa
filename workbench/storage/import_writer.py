"""Writing an importer's records into a bundle, inside the caller's transaction.

Rows are inserted with Core ``insert`` statements in batches (an ORM unit of work per row would
make a full benchmark import take minutes). Identity rules that make a re-import harmless:
items are matched by (source, external id) and kept as they are when they exist; images by
SHA-256; outputs by (turn, model, context), replaced only when their text changed; judgments
belong to the import that brought them, and an import of the same files is refused earlier
by its fingerprint.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, func, insert, select, text, update
from sqlalchemy.orm import Session

from workbench import __version__
from workbench.domain import (
    ItemRecord,
    JudgmentKind,
    JudgmentRecord,
    ModelRecord,
    Origin,
    Outcome,
    OutputRecord,
)
from workbench.importers.base import ImportReport, Record
from workbench.importers.images import PreparedImage, image_key
from workbench.importers.model_names import differing_characters, look_alikes_of_known
from workbench.storage.batching import chunked, insert_rows
from workbench.storage.judgment_counts import counting_imported
from workbench.storage.models import (
    Caption,
    Image,
    Import,
    ImportFile,
    Item,
    ItemCategory,
    ItemImage,
    Model,
    Output,
    PriorJudgment,
    Reference,
    Source,
    Turn,
)

#: item rows per INSERT ... RETURNING statement
CHUNK = 500


@dataclass(frozen=True, slots=True)
class ImportFileInfo:
    name: str
    sha256: str
    size_bytes: int


def find_import(session: Session, importer: str, fingerprint: str) -> Import | None:
    return session.scalar(
        select(Import).where(Import.importer == importer, Import.fingerprint == fingerprint)
    )


@contextmanager
def judgment_indexes_built_after(session: Session) -> Iterator[None]:
    """The imported judgments' indexes dropped for the block and built again at its end, in
    the caller's transaction (SQLite only; elsewhere nothing changes).

    For a bundle being built by one large import: an index built once over all the rows sorts
    them, while four indexes kept up to date row by row cost SQLite about as much again as the
    rows themselves, more as the table outgrows its page cache. The import's own statements
    need none of them (the kept counts read the new rows by their id range). A failure rolls
    the transaction back, the dropped indexes with it."""
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        yield
        return
    table = cast(Table, PriorJudgment.__table__)  # a declarative model's table is a Table
    indexes = connection.execute(
        text(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = :table "
            "AND sql IS NOT NULL ORDER BY name"
        ),
        {"table": table.name},
    ).all()
    for name, _sql in indexes:
        connection.execute(text(f'DROP INDEX "{name}"'))
    yield
    for _name, sql in indexes:
        connection.execute(text(sql))


#: each kind's and outcome's stored text (an enum's ``.value`` is a slow property, read millions
#: of times by a battle log)
_KIND_VALUES = {kind: kind.value for kind in JudgmentKind}
_OUTCOME_VALUES: dict[Outcome | None, str | None] = {
    None: None,
    **{outcome: outcome.value for outcome in Outcome},
}

#: Images inserted by one statement: their bytes are all held while it runs.
IMAGES_PER_STATEMENT = 32


class ImportWriter:
    """Writes one import, in one or many batches of records inside the caller's transaction:
    :meth:`begin` once, :meth:`add` per batch, :meth:`finish` once (or :meth:`write` for
    everything at once). What identifies a row across batches (models, sources, items, the
    answers this import wrote) is kept here, so a batch boundary changes nothing written."""

    def __init__(self, session: Session, report: ImportReport) -> None:
        self.session = session
        self.report = report
        #: where warnings about the import as a whole point: its first file
        self.origin = Origin("import")
        self.counts: Counter[str] = Counter()
        self._source_ids: dict[str, int] = {}
        self._model_ids: dict[str, int] = {}
        #: the bundle's model names before this import, which new names are compared with
        self._models_before: frozenset[str] = frozenset()
        self._item_ids: dict[tuple[str, str], int] = {}
        #: sources whose items already in the bundle have been looked up
        self._items_loaded: set[int] = set()
        #: (turn, model, context) of the answers this import wrote, and where each came from
        self._outputs_written: dict[tuple[int, int, str], Origin | None] = {}
        self._import_row: Import | None = None

    def write(
        self,
        *,
        importer: str,
        importer_version: str,
        fingerprint: str,
        files: Sequence[ImportFileInfo],
        records: Sequence[Record],
        images: Mapping[str, PreparedImage],
        started_at: datetime,
    ) -> Import:
        self.begin(
            importer=importer,
            importer_version=importer_version,
            fingerprint=fingerprint,
            files=files,
            started_at=started_at,
        )
        self.add(records, images)
        return self.finish()

    def begin(
        self,
        *,
        importer: str,
        importer_version: str,
        fingerprint: str,
        files: Sequence[ImportFileInfo],
        started_at: datetime,
    ) -> Import:
        import_row = Import(
            importer=importer,
            importer_version=importer_version,
            fingerprint=fingerprint,
            app_version=__version__,
            started_at=started_at,
            files=[
                ImportFile(file_name=f.name, sha256=f.sha256, size_bytes=f.size_bytes)
                for f in files
            ],
        )
        self.session.add(import_row)
        self.session.flush()
        if files:
            self.origin = Origin(files[0].name)
        self._source_ids = dict(self.session.execute(select(Source.name, Source.id)).all())
        self._model_ids = dict(self.session.execute(select(Model.name, Model.id)).all())
        self._models_before = frozenset(self._model_ids)
        self._import_row = import_row
        return import_row

    def add(self, records: Sequence[Record], images: Mapping[str, PreparedImage]) -> None:
        """Write one batch: its items before the answers and judgments that point at them."""
        assert self._import_row is not None, "begin() first"
        import_id = self._import_row.id
        items = [r for r in records if isinstance(r, ItemRecord)]
        outputs = [r for r in records if isinstance(r, OutputRecord)]
        judgments = [r for r in records if isinstance(r, JudgmentRecord)]
        models = [r for r in records if isinstance(r, ModelRecord)]

        self._load_sources(
            {r.source for r in items} | {r.source for r in outputs} | {r.source for r in judgments}
        )
        self._load_models(models, outputs, judgments)
        image_ids = self._store_images(images)
        self._load_items(self._source_ids.values())
        self._insert_items(items, image_ids, import_id)
        self._store_outputs(outputs, import_id)
        self._insert_judgments(judgments, import_id)

    def finish(self) -> Import:
        import_row = self._import_row
        assert import_row is not None, "begin() first"
        import_row.counts = dict(sorted(self.counts.items()))
        import_row.warnings = {
            "count": len(self.report.warnings),
            "first": [w.as_dict() for w in self.report.warnings[:50]],
        }
        self.session.flush()
        return import_row

    # --- lookups ------------------------------------------------------------------------------

    def _report_look_alikes_of_known(self, new: set[str], known: Iterable[str]) -> None:
        """A new model name that looks like a model already in the bundle is warned about:
        the import that brings it can only see its own names."""
        for name, alike in look_alikes_of_known(new, known):
            shown = ", ".join(map(repr, alike))
            differing = "; ".join(differing_characters((name, *alike))) or "compatibility forms"
            self.report.warn(
                self.origin,
                "model",
                f"model name {name!r} looks like {shown}, already in the bundle, but is a "
                f"different name ({differing}); it is kept as a different model",
            )

    def _load_sources(self, names: set[str]) -> None:
        for name in sorted(names - self._source_ids.keys()):
            self._source_ids[name] = self.session.execute(
                insert(Source).values(name=name).returning(Source.id)
            ).scalar_one()
            self.counts["sources_added"] += 1

    def _load_models(
        self,
        models: Sequence[ModelRecord],
        outputs: Sequence[OutputRecord],
        judgments: Sequence[JudgmentRecord],
    ) -> None:
        described = {m.name: m for m in models}
        names = set(described) | {o.model for o in outputs}
        for judgment in judgments:
            names.add(judgment.model_a)
            if judgment.model_b is not None:
                names.add(judgment.model_b)
        existing = self._model_ids
        self._report_look_alikes_of_known(names - existing.keys(), self._models_before)
        for name in sorted(names - existing.keys()):
            record = described.get(name)
            existing[name] = self.session.execute(
                insert(Model)
                .values(
                    name=name,
                    display_name=record.display_name if record else None,
                    metadata_=dict(record.metadata) if record else {},
                )
                .returning(Model.id)
            ).scalar_one()
            self.counts["models_added"] += 1

    def _load_items(self, source_ids: Iterable[int]) -> None:
        """The ids of the items already in the bundle, for sources not looked up yet (items
        this import adds are remembered as they are inserted)."""
        wanted = [source_id for source_id in source_ids if source_id not in self._items_loaded]
        if not wanted:
            return
        names = {source_id: name for name, source_id in self._source_ids.items()}
        rows = self.session.execute(
            select(Item.source_id, Item.external_id, Item.id).where(Item.source_id.in_(wanted))
        )
        for src, ext, item_id in rows:
            self._item_ids.setdefault((names[src], ext), item_id)
        self._items_loaded.update(wanted)

    # --- images and items ---------------------------------------------------------------------

    def _store_images(self, images: Mapping[str, PreparedImage]) -> dict[str, int]:
        by_hash = {image.sha256: image for image in images.values()}
        known: dict[str, int] = {}
        for chunk in chunked(sorted(by_hash)):
            known.update(
                self.session.execute(
                    select(Image.sha256, Image.id).where(Image.sha256.in_(chunk))
                ).all()
            )
        # Many rows per statement, and only a few images' bytes read back at a time. A plain
        # executemany (the driver's loop), and the new ids read afterwards: RETURNING makes
        # SQLAlchemy build one multi-row statement per chunk, which cost as much again as
        # SQLite's own work of writing the pages.
        table = cast(Table, Image.__table__)  # a declarative model's table is a Table
        new = sorted(by_hash.keys() - known.keys())
        for chunk in chunked(new, IMAGES_PER_STATEMENT):
            rows = []
            for sha in chunk:
                image = by_hash[sha]
                data = image.content()
                rows.append(
                    {
                        "sha256": sha,
                        "format": image.format,
                        "width": image.width,
                        "height": image.height,
                        "size_bytes": len(data),
                        "data": data,
                    }
                )
            self.session.execute(insert(table), rows)
            self.counts["images_added"] += len(rows)
        for chunk in chunked(new):
            known.update(
                self.session.execute(
                    select(Image.sha256, Image.id).where(Image.sha256.in_(chunk))
                ).all()
            )
        return {key: known[image.sha256] for key, image in images.items()}

    def _insert_items(
        self, items: Sequence[ItemRecord], image_ids: Mapping[str, int], import_id: int
    ) -> None:
        turn_rows: list[dict[str, Any]] = []
        references: list[tuple[int, int, Any]] = []  # (item id, turn index, ReferenceRecord)
        slots: list[dict[str, Any]] = []
        captions: list[dict[str, Any]] = []
        categories: list[dict[str, Any]] = []
        new_items = self._insert_item_rows(items, import_id)
        for record in new_items:
            item_id = self._item_ids[(record.source, record.external_id)]
            categories.extend(
                {"item_id": item_id, "category": name} for name in dict.fromkeys(record.categories)
            )
            for turn in record.turns:
                turn_rows.append(
                    {
                        "item_id": item_id,
                        "index": turn.index,
                        "prompt": turn.prompt,
                        "category": turn.category,
                        "focus_points": turn.focus_points,
                    }
                )
                references.extend((item_id, turn.index, ref) for ref in turn.references)
            for image in record.images:
                slot_key = image_key(image)
                image_id = image_ids.get(slot_key) if slot_key else None
                if image_id is None:
                    self.counts["images_missing"] += 1
                slots.append(
                    {
                        "item_id": item_id,
                        "position": image.position,
                        "image_id": image_id,
                        "original_ref": image.original_ref,
                    }
                )
            captions.extend(
                {
                    "item_id": item_id,
                    "image_position": caption.image_position,
                    "kind": caption.kind,
                    "source": caption.source,
                    "text": caption.text,
                }
                for caption in record.captions
            )
        self._executemany(Turn, turn_rows, "turns_added")
        self._executemany(ItemImage, slots, "item_images_added")
        self._executemany(Caption, captions, "captions_added")
        if categories:  # multi-label sources only
            self._executemany(ItemCategory, categories, "item_categories_added")
        if references:
            turn_ids = self._turn_ids({item_id for item_id, _, _ in references})
            self._executemany(
                Reference,
                [
                    {
                        "turn_id": turn_ids[(item_id, index)],
                        "kind": ref.kind,
                        "source": ref.source,
                        "text": ref.text,
                        "verified_correct": ref.verified_correct,
                        "problem_in_caption": ref.problem_in_caption,
                        "problem_in_reference": ref.problem_in_reference,
                    }
                    for item_id, index, ref in references
                ],
                "references_added",
            )

    def _insert_item_rows(self, items: Sequence[ItemRecord], import_id: int) -> list[ItemRecord]:
        """Insert the items not in the bundle yet (the first of any repeated id), many rows per
        statement, and learn their ids; return them."""
        new_items: list[ItemRecord] = []
        seen: set[tuple[str, str]] = set()
        for record in items:
            key = (record.source, record.external_id)
            if key in self._item_ids or key in seen:
                self.counts["items_existing"] += 1
                continue
            seen.add(key)
            new_items.append(record)
        source_names = {source_id: name for name, source_id in self._source_ids.items()}
        table = cast(Table, Item.__table__)  # a declarative model's table is a Table
        statement = insert(table).returning(table.c.id, table.c.source_id, table.c.external_id)
        for chunk in chunked(new_items, CHUNK):
            rows = [
                {
                    "source_id": self._source_ids[record.source],
                    "import_id": import_id,
                    "external_id": record.external_id,
                    "family": record.family,
                    "category": record.category,
                    "language": record.language,
                    "metadata": dict(record.metadata),
                }
                for record in chunk
            ]
            for item_id, source_id, external_id in self.session.execute(statement, rows):
                self._item_ids[(source_names[source_id], external_id)] = item_id
        if new_items:
            self.counts["items_added"] += len(new_items)
        return new_items

    def _turn_ids(self, item_ids: set[int]) -> dict[tuple[int, int], int]:
        found: dict[tuple[int, int], int] = {}
        for chunk in chunked(sorted(item_ids)):
            rows = self.session.execute(
                select(Turn.item_id, Turn.index, Turn.id).where(Turn.item_id.in_(chunk))
            )
            found.update({(item_id, index): turn_id for item_id, index, turn_id in rows})
        return found

    def _executemany(self, table: type, rows: list[dict[str, Any]], counter: str) -> None:
        for chunk in chunked(rows, 5000):
            self.session.execute(insert(table), list(chunk))
        self.counts[counter] += len(rows)

    # --- outputs and judgments ----------------------------------------------------------------

    def _item_id_of(self, record: OutputRecord | JudgmentRecord, external_id: str) -> int | None:
        item_id = self._item_ids.get((record.source, external_id))
        if item_id is None:
            self.report.reject(
                record.origin,
                "item",
                f"no item '{external_id}' of source '{record.source}' in this import or bundle",
            )
        return item_id

    def _turn_counts(self, item_ids: set[int]) -> dict[int, int]:
        """How many turns each of ``item_ids`` has (items of this import and earlier ones)."""
        counts: dict[int, int] = {}
        ids = sorted(item_ids)
        for chunk in chunked(ids):
            counts.update(
                self.session.execute(
                    select(Turn.item_id, func.count())
                    .where(Turn.item_id.in_(chunk))
                    .group_by(Turn.item_id)
                ).all()
            )
        return counts

    def _store_outputs(self, outputs: Sequence[OutputRecord], import_id: int) -> None:
        located = [(o, self._item_id_of(o, o.item_external_id)) for o in outputs]
        turn_ids = self._turn_ids({item_id for _, item_id in located if item_id is not None})
        wanted: dict[tuple[int, int, str], OutputRecord] = {}
        for output, item_id in located:
            if item_id is None:
                continue
            turn_id = turn_ids.get((item_id, output.turn_index))
            if turn_id is None:
                self.report.reject(output.origin, "turn", f"item has no turn {output.turn_index}")
                continue
            key = (turn_id, self._model_ids[output.model], output.context)
            if key in wanted or key in self._outputs_written:
                first = wanted[key].origin if key in wanted else self._outputs_written[key]
                self.report.reject(
                    output.origin,
                    "output",
                    f"second answer of model '{output.model}' to the same turn (first at {first})",
                )
                continue
            wanted[key] = output
        existing: dict[tuple[int, int, str], tuple[int, str]] = {}
        turn_list = sorted({turn_id for turn_id, _, _ in wanted})
        for chunk in chunked(turn_list):
            rows = self.session.execute(
                select(
                    Output.turn_id, Output.model_id, Output.context, Output.id, Output.text
                ).where(Output.turn_id.in_(chunk))
            )
            existing.update({(t, m, c): (oid, text) for t, m, c, oid, text in rows})
        new_rows = []
        for key, output in wanted.items():
            self._outputs_written[key] = output.origin
            if key in existing:
                output_id, text = existing[key]
                if text == output.text:
                    self.counts["outputs_unchanged"] += 1
                else:
                    self.session.execute(
                        update(Output)
                        .where(Output.id == output_id)
                        .values(text=output.text, import_id=import_id)
                    )
                    self.counts["outputs_replaced"] += 1
                continue
            turn_id, model_id, context = key
            new_rows.append(
                {
                    "turn_id": turn_id,
                    "model_id": model_id,
                    "import_id": import_id,
                    "context": context,
                    "text": output.text,
                    "metadata_": dict(output.metadata),
                }
            )
        self._executemany(Output, new_rows, "outputs_added")

    def _insert_judgments(self, judgments: Sequence[JudgmentRecord], import_id: int) -> None:
        rows = []
        kinds: Counter[JudgmentKind] = Counter()
        located = [
            (j, self._item_id_of(j, j.item_external_id) if j.item_external_id is not None else None)
            for j in judgments
        ]
        turn_counts = self._turn_counts({item_id for _, item_id in located if item_id is not None})
        for judgment, item_id in located:
            if judgment.item_external_id is not None:
                if item_id is None:
                    continue
                turns = turn_counts.get(item_id, 0)
                if judgment.turn_index is not None and judgment.turn_index > turns:
                    self.report.reject(
                        judgment.origin,
                        "turn",
                        f"turn {judgment.turn_index} of item '{judgment.item_external_id}', "
                        f"which has {turns} turn(s)",
                    )
                    continue
            rows.append(
                {
                    "import_id": import_id,
                    "item_id": item_id,
                    "kind": _KIND_VALUES[judgment.kind],
                    "criterion": judgment.criterion,
                    "turn_index": judgment.turn_index,
                    "model_a_id": self._model_ids[judgment.model_a],
                    "model_b_id": (
                        self._model_ids[judgment.model_b] if judgment.model_b is not None else None
                    ),
                    "outcome": _OUTCOME_VALUES[judgment.outcome],
                    "strength": judgment.strength,
                    "label": judgment.label,
                    "score": judgment.score,
                    "rater": judgment.rater,
                    "group_key": judgment.group_key,
                    "raw_text": judgment.raw_text,
                    "metadata": dict(judgment.metadata),
                }
            )
            kinds[judgment.kind] += 1
        # Core inserts into the table: the ORM's bulk path spent more than SQLite on each row
        table = cast(Table, PriorJudgment.__table__)  # a declarative model's table is a Table
        with counting_imported(self.session, import_id):
            insert_rows(self.session, table, rows)
        self.counts["judgments_added"] += len(rows)
        for kind, count in kinds.items():
            self.counts[f"judgments_{_KIND_VALUES[kind]}"] += count
