"""Import files into a bundle: read and check, then write in one transaction.

The order matters for the user's data: an import of up to :data:`BATCH_RECORDS` records is read
and checked whole (every row and every image) before the bundle is opened for writing; a longer
one streams, each batch checked as it is read and written into the one open transaction, so its
memory does not grow with its size. Anything found wrong (a rejected row in a later batch, an
output whose item does not exist) rolls that transaction back. So a failed import leaves an
existing bundle's data as it was, and a bundle this import would have created is not left
behind.
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import json
import logging
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import Any

from workbench.domain import (
    ImageRecord,
    ItemRecord,
    JudgmentRecord,
    ModelRecord,
    Origin,
    OutputRecord,
)
from workbench.errors import WorkbenchError
from workbench.importers.base import (
    ImportProblem,
    ImportRejectedError,
    ImportReport,
    Record,
    missing_sources,
    relative_name,
    unreadable_sources,
)
from workbench.importers.images import (
    ImageProblemError,
    PreparedImage,
    image_key,
    prepare_image,
)
from workbench.importers.limits import (
    DEFAULT_LIMITS,
    LimitExceededError,
    ReadLimits,
    check_file_size,
)
from workbench.importers.model_names import (
    differing_characters,
    look_alikes,
    normalize_model_name,
)
from workbench.plugins import Registry, registry
from workbench.progress import Progress, WorkCancelledError, no_progress
from workbench.services.flags import flag_model_mentions
from workbench.storage.bundle import Bundle
from workbench.storage.dialects import parse_location
from workbench.storage.errors import BundleExistsError, MigrationDeclinedError
from workbench.storage.import_writer import (
    ImportFileInfo,
    ImportWriter,
    find_import,
    judgment_indexes_built_after,
)
from workbench.storage.models import (
    Caption,
    Item,
    ItemImage,
    Model,
    Output,
    PriorJudgment,
    Reference,
    Source,
    Turn,
)

log = logging.getLogger(__name__)

#: the shared shape (workbench.progress), under the name this module has always used
ProgressCallback = Progress


class ImportCancelledError(WorkCancelledError):
    pass


@dataclass
class ImportResult:
    importer: str
    bundle: Path | str  # the file, or the server URL without its password
    already_imported: bool
    import_id: int
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[ImportProblem] = field(default_factory=list)
    rejections: list[ImportProblem] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "importer": self.importer,
            "bundle": str(self.bundle),
            "already_imported": self.already_imported,
            "import_id": self.import_id,
            "counts": self.counts,
            "warnings": [w.as_dict() for w in self.warnings],
            "rejections": [r.as_dict() for r in self.rejections],
        }


def _hash_file(path: Path, name: str) -> ImportFileInfo:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return ImportFileInfo(name=name, sha256=digest.hexdigest(), size_bytes=path.stat().st_size)


def _utf8_name(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def fingerprint_of(importer: str, files: Sequence[ImportFileInfo]) -> str:
    digest = hashlib.sha256(importer.encode())
    for info in sorted(files, key=lambda f: (f.name, f.sha256)):
        digest.update(f"\n{info.name}\0{info.sha256}".encode())
    return digest.hexdigest()


def _prepare_images(
    records: Sequence[Record],
    report: ImportReport,
    progress: ProgressCallback,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> dict[str, PreparedImage]:
    """Read, verify and hash every image the items name, in parallel threads (Pillow's decoders
    and hashlib release the GIL); images the importer already checked into the report's spool
    are taken as they are. A bad image rejects its item's row."""
    wanted: dict[str, tuple[ItemRecord, ImageRecord]] = {}
    prepared: dict[str, PreparedImage] = {}
    spooled_keys: set[str] = set()
    for record in records:
        if isinstance(record, ItemRecord):
            for image in record.images:
                key = image_key(image)
                if key is None or key in wanted or key in spooled_keys:
                    continue
                if image.sha256 is not None:
                    spooled_keys.add(key)
                    # Checked by the importer as it read the row: only its outcome is taken.
                    spooled = (
                        report.spool.outcome(image.sha256)
                        if report.spool is not None
                        else "image was not kept by the importer"
                    )
                    if isinstance(spooled, PreparedImage):
                        prepared[key] = spooled
                    else:
                        report.reject(record.origin, "images", f"{image.original_ref}: {spooled}")
                    continue
                wanted[key] = (record, image)

    def load(key: str) -> tuple[str, PreparedImage | str]:
        _record, image = wanted[key]
        try:
            checked = prepare_image(_image_bytes(image, limits))
            if image.data is None and image.path is not None:
                # Checked now, read again when written: only one image's bytes are held at a time.
                return key, checked.kept_in_file(image.path)
            return key, checked
        except (ImageProblemError, LimitExceededError) as error:
            return key, str(error)
        except OSError as error:
            return key, f"cannot read image: {error.strerror or error}"

    total = len(wanted)
    with ThreadPoolExecutor(max_workers=4) as pool:
        for done, (key, outcome) in enumerate(pool.map(load, list(wanted)), start=1):
            if isinstance(outcome, PreparedImage):
                prepared[key] = outcome
            else:
                record, image = wanted[key]
                report.reject(record.origin, "images", f"{image.original_ref}: {outcome}")
            if done % 50 == 0 or done == total:
                progress("images", done, total)
            if report.cancel_requested():
                raise ImportCancelledError("import cancelled; the bundle was not changed")
    return prepared


def _image_bytes(image: ImageRecord, limits: ReadLimits) -> bytes:
    """The image's bytes; a file over the limit is refused by its size before it is read."""
    if image.data is not None:
        if len(image.data) > limits.max_image_bytes:
            raise LimitExceededError(
                f"image of {len(image.data):,} bytes is over the limit of "
                f"{limits.max_image_bytes:,}"
            )
        return image.data
    assert image.path is not None  # image_key gave it a key, so it has data or a path
    check_file_size(image.path, limits.max_image_bytes, "image")
    return image.path.read_bytes()


# --- what the bundle can store ---------------------------------------------------------------
# SQLite keeps any text in any column; PostgreSQL enforces String(n) lengths and refuses NUL
# characters; neither can encode an unpaired surrogate (which JSON's "\ud800" escape yields) or
# an integer past 64 bits. Checking here gives one clear row rejection on every backend instead
# of a driver error in the middle of the write.

INT64 = (-(2**63), 2**63 - 1)
_SHOWN_CHARS = 40


def _text_fields(record: Record) -> Iterator[tuple[str, str | None, object]]:
    """(field, text, column) for every text a record stores; the column gives the length."""
    if isinstance(record, ItemRecord):
        yield "source", record.source, Source.__table__.c.name
        yield "id", record.external_id, Item.__table__.c.external_id
        yield "family", record.family, Item.__table__.c.family
        yield "category", record.category, Item.__table__.c.category
        yield "language", record.language, Item.__table__.c.language
        for turn in record.turns:
            where = f"turns[{turn.index - 1}]."
            yield where + "prompt", turn.prompt, Turn.__table__.c.prompt
            yield where + "category", turn.category, Turn.__table__.c.category
            yield where + "focus_points", turn.focus_points, Turn.__table__.c.focus_points
            for number, ref in enumerate(turn.references):
                at = f"{where}references[{number}]."
                yield at + "text", ref.text, Reference.__table__.c.text
                yield at + "kind", ref.kind, Reference.__table__.c.kind
                yield at + "source", ref.source, Reference.__table__.c.source
        for image in record.images:
            yield (
                f"images[{image.position}]",
                image.original_ref,
                ItemImage.__table__.c.original_ref,
            )
        for number, caption in enumerate(record.captions):
            yield f"captions[{number}].text", caption.text, Caption.__table__.c.text
            yield f"captions[{number}].kind", caption.kind, Caption.__table__.c.kind
            yield f"captions[{number}].source", caption.source, Caption.__table__.c.source
    elif isinstance(record, OutputRecord):
        yield "source", record.source, Source.__table__.c.name
        yield "item", record.item_external_id, Item.__table__.c.external_id
        yield "model", record.model, Model.__table__.c.name
        yield "context", record.context, Output.__table__.c.context
        yield "text", record.text, Output.__table__.c.text
    elif isinstance(record, JudgmentRecord):
        # a battle log is millions of these: the columns are looked up once
        for name, attribute, column in _JUDGMENT_TEXTS:
            yield name, getattr(record, attribute), column
    else:
        yield "name", record.name, Model.__table__.c.name
        yield "display_name", record.display_name, Model.__table__.c.display_name


_JUDGMENT_TEXTS = (
    ("source", "source", Source.__table__.c.name),
    ("item", "item_external_id", Item.__table__.c.external_id),
    ("model_a", "model_a", Model.__table__.c.name),
    ("model_b", "model_b", Model.__table__.c.name),
    ("criterion", "criterion", PriorJudgment.__table__.c.criterion),
    ("label", "label", PriorJudgment.__table__.c.label),
    ("rater", "rater", PriorJudgment.__table__.c.rater),
    ("group", "group_key", PriorJudgment.__table__.c.group_key),
    ("raw_text", "raw_text", PriorJudgment.__table__.c.raw_text),
)

#: the length limit of each column texts are stored in (None: unlimited)
_COLUMN_LENGTHS: dict[object, int | None] = {}


def _integer_fields(record: Record) -> Iterator[tuple[str, int | None]]:
    if isinstance(record, ItemRecord):
        for turn in record.turns:
            yield f"turns[{turn.index - 1}].index", turn.index
        for image in record.images:
            yield f"images[{image.position}].position", image.position
        for number, caption in enumerate(record.captions):
            yield f"captions[{number}].image", caption.image_position
    elif isinstance(record, OutputRecord):
        yield "turn", record.turn_index
    elif isinstance(record, JudgmentRecord):
        yield "turn", record.turn_index
        yield "strength", record.strength


def _text_problem(text: str, column: object) -> str | None:
    if "\x00" in text:
        return "holds a NUL character (\\x00), which the bundle cannot store"
    if not text.isascii():  # ASCII encodes as it is: only other text can hold a surrogate
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            return (
                f"holds text that is not valid Unicode ({text[error.start]!r} at character "
                f"{error.start + 1}, an unpaired surrogate)"
            )
    try:
        limit = _COLUMN_LENGTHS[column]
    except KeyError:
        limit = _COLUMN_LENGTHS[column] = getattr(getattr(column, "type", None), "length", None)
    if limit is not None and len(text) > limit:
        return (
            f"is {len(text)} characters long ({text[:_SHOWN_CHARS]!r}...); "
            f"the bundle stores at most {limit} here"
        )
    return None


def _reference_problems(record: Record) -> Iterator[tuple[str, str]]:
    """(field, reason) for a record that points at something it cannot mean: a caption of an
    image the item does not have, turn 0 or below."""
    if isinstance(record, ItemRecord):
        positions = {image.position for image in record.images}
        for number, caption in enumerate(record.captions):
            if caption.image_position is not None and caption.image_position not in positions:
                yield (
                    f"captions[{number}].image",
                    f"points at image {caption.image_position}, but the item has "
                    f"{len(record.images)} image(s), numbered from 0",
                )
    turn = record.turn_index if isinstance(record, JudgmentRecord | OutputRecord) else None
    if turn is not None and turn < 1:
        yield "turn", f"turn {turn} does not exist: turns are numbered from 1"


def _size_problems(record: Record, limits: ReadLimits) -> Iterator[tuple[str, str]]:
    """(field, reason) for an item larger than one item may be, whatever format it came in."""
    if not isinstance(record, ItemRecord):
        return
    if len(record.turns) > limits.max_turns_per_item:
        yield (
            "turns",
            (
                f"has {len(record.turns):,} turns; an item may have at most "
                f"{limits.max_turns_per_item:,}"
            ),
        )
    if len(record.images) > limits.max_images_per_item:
        yield (
            "images",
            (
                f"has {len(record.images):,} images; an item may have at most "
                f"{limits.max_images_per_item:,}"
            ),
        )


def _record_problems(
    record: Record, limits: ReadLimits = DEFAULT_LIMITS
) -> Iterator[tuple[str, str]]:
    """(field, reason) for everything in ``record`` the bundle cannot store as given."""
    if type(record) is JudgmentRecord:
        yield from _judgment_problems(record)
        return
    yield from _size_problems(record, limits)
    for name, text, column in _text_fields(record):
        problem = None if text is None else _known_text_problem(text, column)
        if problem:
            yield name, problem
    for name, number in _integer_fields(record):
        if number is not None and not INT64[0] <= number <= INT64[1]:
            yield name, f"{str(number)[:_SHOWN_CHARS]} is out of range for a 64-bit integer"
    yield from _reference_problems(record)
    score = record.score if isinstance(record, JudgmentRecord) else None
    if score is not None and not math.isfinite(score):
        yield "score", f"must be a finite number, not {score}"
    yield from _metadata_problems(getattr(record, "metadata", None))


def _judgment_problems(record: JudgmentRecord) -> Iterator[tuple[str, str]]:
    """:func:`_record_problems` of a judgment, the same checks in the same order, written out:
    a battle log is millions of judgments, and the general walk over a record's fields cost
    more than reading the battle."""
    for name, attribute, column in _JUDGMENT_TEXTS:
        text = getattr(record, attribute)
        if text is not None and (problem := _known_text_problem(text, column)):
            yield name, problem
    turn, strength, score = record.turn_index, record.strength, record.score
    for name, number in (("turn", turn), ("strength", strength)):
        if number is not None and not INT64[0] <= number <= INT64[1]:
            yield name, f"{str(number)[:_SHOWN_CHARS]} is out of range for a 64-bit integer"
    if turn is not None and turn < 1:
        yield "turn", f"turn {turn} does not exist: turns are numbered from 1"
    if score is not None and not math.isfinite(score):
        yield "score", f"must be a finite number, not {score}"
    yield from _metadata_problems(record.metadata)


def _metadata_problems(metadata: Any) -> Iterator[tuple[str, str]]:
    if metadata:
        try:
            json.dumps(metadata, allow_nan=False)
        except ValueError:
            yield "metadata", "holds NaN or Infinity, which JSON cannot store"
        except (TypeError, RecursionError) as error:
            yield "metadata", f"cannot be stored as JSON: {error}"


#: texts found storable, per column: a battle log repeats a few model names, labels and
#: sources millions of times. Short texts only, and a bounded number of them per column.
_STORABLE_TEXTS: dict[object, set[str]] = {}
_STORABLE_REMEMBERED = 10_000
_STORABLE_LONGEST = 256


def _known_text_problem(text: str, column: object) -> str | None:
    """:func:`_text_problem`, remembering the short texts found storable."""
    known = _STORABLE_TEXTS.get(column)
    if known is None:
        known = _STORABLE_TEXTS[column] = set()
    elif text in known:
        return None
    problem = _text_problem(text, column)
    if problem is None and len(text) <= _STORABLE_LONGEST and len(known) < _STORABLE_REMEMBERED:
        known.add(text)
    return problem


_JUDGMENT_TEXT_VALUES = attrgetter(*(attribute for _name, attribute, _column in _JUDGMENT_TEXTS))


def _known_judgment_texts() -> tuple[set[str], ...]:
    """The texts found storable so far in each of a judgment's text fields, in their order."""
    return tuple(
        _STORABLE_TEXTS.setdefault(column, set()) for _name, _attribute, column in _JUDGMENT_TEXTS
    )


#: the types of a metadata value JSON stores as it is, whatever the value (a float can be NaN)
_PLAIN_METADATA_TYPES = frozenset({str, int, bool, type(None)})


def _plain_metadata(metadata: Any) -> bool:
    """True for metadata JSON stores without a question: a flat dict of texts, integers,
    booleans and nulls under text keys (a battle log's ``{"question_id": ...}``), which
    :func:`_metadata_problems` would serialize only to find nothing. False means only that the
    full check must look."""
    if type(metadata) is not dict:
        return False
    plain = _PLAIN_METADATA_TYPES
    for key, value in metadata.items():
        if type(key) is not str or type(value) not in plain:
            return False
    return True


def _plainly_storable(record: JudgmentRecord, known_texts: tuple[set[str], ...]) -> bool:
    """True when :func:`_judgment_problems` has nothing to say about ``record`` and that is
    plain at a glance: every text one found storable before (``known_texts``, of
    :func:`_known_judgment_texts`), no turn or score, no metadata or only plain metadata
    (:func:`_plain_metadata`), a strength of 1 or 2. False means only that the full check must
    look."""
    if record.turn_index is not None or record.score is not None:
        return False
    if record.metadata and not _plain_metadata(record.metadata):
        return False
    if record.strength not in (1, 2):
        return False
    for value, known in zip(_JUDGMENT_TEXT_VALUES(record), known_texts, strict=True):
        if value is not None and value not in known:
            return False
    return True


#: names whose normal spelling is remembered, at most (a hostile file may name millions)
NAMES_REMEMBERED = 100_000


class _ModelNames:
    """Every model name in one spelling (:mod:`workbench.importers.model_names`), across all
    the batches of one import: each name changed is warned about once, a name left empty is
    rejected, and different names that still look alike are reported once every name is
    known."""

    def __init__(self, report: ImportReport, fallback: Origin) -> None:
        self.report = report
        self.fallback = fallback
        self.changed: dict[str, str] = {}
        self.names: set[str] = set()
        #: each name's normal spelling, as found (a battle log names a few models millions of
        #: times)
        self._normal: dict[str, str] = {}

    def normalized(self, records: Sequence[Record]) -> list[Record]:
        """``records`` with their model names normalized (those left empty rejected)."""
        report, fallback, changed = self.report, self.fallback, self.changed
        normal_of, names = self._normal, self.names
        kept: list[Record] = []
        for record in records:
            if type(record) is JudgmentRecord:
                # a battle log: the same few names, each already in its normal spelling
                model_a, model_b = record.model_a, record.model_b
                if normal_of.get(model_a) == model_a and (
                    model_b is None or normal_of.get(model_b) == model_b
                ):
                    kept.append(record)
                    if model_a:
                        names.add(model_a)
                    if model_b:
                        names.add(model_b)
                    continue
            fields = _MODEL_FIELDS.get(type(record), ())
            renamed: dict[str, Any] = {}
            for name in fields:
                value = getattr(record, name)
                if value is None:
                    continue
                normal = self._normal.get(value)
                if normal is None:
                    normal = normalize_model_name(value)
                    if len(self._normal) < NAMES_REMEMBERED:
                        self._normal[value] = normal
                if normal != value:
                    if not normal:
                        origin = getattr(record, "origin", None) or fallback
                        report.reject(
                            origin, name, "is empty once spaces and invisible characters go"
                        )
                        break
                    if value not in changed:
                        changed[value] = normal
                        origin = getattr(record, "origin", None) or fallback
                        report.warn(
                            origin,
                            name,
                            f"model name {value!r} is stored as {normal!r} (NFC, without "
                            "zero-width characters or surrounding spaces), so one model is not "
                            "split in two",
                        )
                    renamed[name] = normal
            else:
                written = replace(record, **renamed) if renamed else record
                kept.append(written)
                names.update(getattr(written, f) for f in fields if getattr(written, f))
        return kept

    def report_look_alikes(self) -> None:
        for group in look_alikes(self.names):
            self.report.warn(
                self.fallback,
                "model",
                f"model names {', '.join(map(repr, group))} look alike but are different names "
                f"({'; '.join(differing_characters(group)) or 'compatibility forms'}); they are "
                "kept as different models",
            )


#: the fields of each record that name a model
_MODEL_FIELDS: dict[type, tuple[str, ...]] = {
    ModelRecord: ("name",),
    OutputRecord: ("model",),
    JudgmentRecord: ("model_a", "model_b"),
}


def _storable(
    records: Sequence[Record],
    report: ImportReport,
    fallback: Origin,
    limits: ReadLimits = DEFAULT_LIMITS,
) -> list[Record]:
    """The records the bundle can store as given; each of the others is rejected with why.

    A model description has no row of its own, so its problems are reported at the first row
    naming the model (or the first file)."""
    model_origins: dict[str, Origin] = {}
    for record in records:
        if isinstance(record, OutputRecord) and record.origin is not None:
            model_origins.setdefault(record.model, record.origin)
        elif isinstance(record, JudgmentRecord) and record.origin is not None:
            model_origins.setdefault(record.model_a, record.origin)
    kept: list[Record] = []
    plainly, known_texts = _plainly_storable, _known_judgment_texts()
    for record in records:
        if type(record) is JudgmentRecord and plainly(record, known_texts):
            kept.append(record)
            continue
        problems = list(_record_problems(record, limits))
        if not problems:
            kept.append(record)
            continue
        if isinstance(record, ModelRecord):
            origin = model_origins.get(record.name, fallback)
        else:
            origin = record.origin or fallback
        for name, reason in problems:
            report.reject(origin, name, reason)
    return kept


class _FullCollectionPause:
    """Keeps CPython from starting a full garbage collection while an import runs.

    A full collection walks every object the process holds (SQLAlchemy's, pyarrow's, the
    batch's: 100 ms or more each), and CPython starts one whenever the objects that survived the
    young collections grow by a quarter, which a stream of batches of fresh records does again
    and again: a battle log of 300,000 rows met 23 of them, an eighth of the import's CPU. Only
    the automatic full collections are deferred (the young generations are collected as
    usual, and reference counting frees a batch's records when it is written), so memory stays
    bounded; the oldest generation's threshold is restored when the last import running ends.
    The app's own collector (workbench/gui/collector.py) already keeps it out of reach."""

    #: the oldest generation's threshold while deferred: never reached
    OUT_OF_REACH = 2**31 - 1

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._oldest_before = 0

    @contextmanager
    def deferred(self) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                young, middle, self._oldest_before = gc.get_threshold()
                gc.set_threshold(young, middle, self.OUT_OF_REACH)
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    young, middle, _oldest = gc.get_threshold()
                    gc.set_threshold(young, middle, self._oldest_before)


_FULL_COLLECTIONS = _FullCollectionPause()


def import_files(
    bundle_path: str | Path,
    sources: Sequence[str | Path],
    format_name: str,
    *,
    skip_rejected: bool = False,
    progress: ProgressCallback = no_progress,
    cancel_requested: Callable[[], bool] = lambda: False,
    plugins: Registry | None = None,
) -> ImportResult:
    """Import ``sources`` with the importer ``format_name`` into the bundle at ``bundle_path``
    (created if absent).

    With ``skip_rejected`` False (the default) any rejected row stops the import and nothing
    lands; with True the valid rows land and the rejections are returned and recorded.
    Importing the same files again is a no-op that reports ``already_imported``.
    """
    with _FULL_COLLECTIONS.deferred():
        return _import_files(
            bundle_path,
            sources,
            format_name,
            skip_rejected=skip_rejected,
            progress=progress,
            cancel_requested=cancel_requested,
            plugins=plugins,
        )


def _import_files(
    bundle_path: str | Path,
    sources: Sequence[str | Path],
    format_name: str,
    *,
    skip_rejected: bool,
    progress: ProgressCallback,
    cancel_requested: Callable[[], bool],
    plugins: Registry | None,
) -> ImportResult:
    importer = (plugins or registry()).importer(format_name)
    location = parse_location(bundle_path)
    shown = location.path if location.path is not None else location.display
    source_paths = [Path(source) for source in sources]
    absent = missing_sources(source_paths)
    if absent:
        raise WorkbenchError("no such file or folder: " + ", ".join(str(p) for p in absent))
    special = unreadable_sources(source_paths)
    if special:
        shown_special = ", ".join(str(p) for p in special)
        raise WorkbenchError(
            f"not a regular file or folder (a device, pipe or socket): {shown_special}"
        )

    started_at = datetime.now(UTC)
    report = ImportReport(cancel_requested=cancel_requested)
    reading: Iterator[Record] | None = None
    try:
        files = importer.files(source_paths)
        if not files:
            given = ", ".join(str(path) for path in source_paths)
            raise WorkbenchError(f"no files for format '{format_name}' in {given}")
        undecodable = [path for path in files if not _utf8_name(relative_name(path, source_paths))]
        if undecodable:
            # The name is stored with the import (and PostgreSQL, like the fingerprint, needs
            # UTF-8); Python holds such a name with surrogate escapes that cannot be encoded.
            shown_names = ", ".join(ascii(str(path))[1:-1] for path in undecodable[:5])
            raise WorkbenchError(
                f"file names that are not valid UTF-8: {shown_names}; rename them and import again"
            )
        progress("hashing", 0, len(files))
        file_infos = [_hash_file(path, relative_name(path, source_paths)) for path in files]
        fingerprint = fingerprint_of(importer.name, file_infos)

        needs_upgrade = False
        if Bundle.exists(bundle_path):
            try:
                # Not migrated yet: a bundle at an older schema is upgraded (and backed up) only
                # once the input has passed every check, so a refused import leaves it as it was.
                existing = Bundle.open(bundle_path, migrate=False)
            except MigrationDeclinedError:
                existing = None  # an older schema cannot hold this import's fingerprint check
                needs_upgrade = True
            if existing is not None:
                with existing as bundle, bundle.read_session() as session:
                    previous = find_import(session, importer.name, fingerprint)
                    if previous is not None:
                        return ImportResult(
                            importer.name, shown, True, previous.id, previous.counts
                        )

        progress("reading", 0, 0)
        batches = _CheckedBatches(
            importer.read(source_paths, report),
            _ModelNames(report, Origin(file_infos[0].name)),
            report,
            progress,
            skip_rejected,
            importer.limits,
        )
        first = batches.next()
        whole = batches.done  # every record in hand, checked, before the bundle is opened
        if whole and not first.records and report.rejections:
            # --skip-rejected with every row rejected: an empty import (or an empty new bundle)
            # would read as a success
            raise ImportRejectedError(
                report.rejections,
                f"nothing to import: all {len(report.rejections)} row(s) were rejected; "
                "the bundle was not created or changed",
            )
        job = _ImportWrite(importer.name, importer.version, fingerprint, file_infos, first, batches)
        result: ImportResult | None = None
        if not Bundle.exists(bundle_path):
            # A new bundle is built aside and published whole (see Bundle.building): a failure
            # removes only that private file, never a bundle another process created meanwhile.
            try:
                with Bundle.building(bundle_path, bulk=True) as bundle:
                    result = _write(
                        bundle,
                        job,
                        shown,
                        report,
                        skip_rejected,
                        started_at,
                        progress,
                        indexes_after=not whole,
                    )
            except BundleExistsError:
                if not whole:
                    # the batches already written to the private file cannot be read again: the
                    # import starts over, into the bundle that appeared
                    log.info("%s was created meanwhile; importing into it from the start", shown)
                    return import_files(
                        bundle_path,
                        sources,
                        format_name,
                        skip_rejected=skip_rejected,
                        progress=progress,
                        cancel_requested=cancel_requested,
                        plugins=plugins,
                    )
                # Another import created the bundle first: land this one in it, as if it had
                # been there all along.
                log.info("%s was created meanwhile; importing into it", shown)
                result = None
                del report.rejections[job.rejections_before :]
                del report.warnings[job.warnings_before :]
        if result is None:
            if not whole and needs_upgrade:
                # An older schema is upgraded when the bundle is opened for writing, which a
                # refused import must not have done: the rest is read and checked first.
                job.rest = list(batches)
            with Bundle.open(bundle_path) as bundle:
                with bundle.read_session() as session:
                    previous = find_import(session, importer.name, fingerprint)
                if previous is not None:
                    return ImportResult(importer.name, shown, True, previous.id, previous.counts)
                result = _write(bundle, job, shown, report, skip_rejected, started_at, progress)
        progress("done", batches.read, batches.read)
        log.info("imported %s into %s: %s", importer.name, shown, result.counts)
        return result
    finally:
        # Ended here, on the caller's thread, whatever the outcome: a reader left to the
        # garbage collector would stop its threads from whichever thread it interrupts.
        if reading is not None:
            close = getattr(reading, "close", None)
            if close is not None:
                close()
        report.close()


#: Records read, checked and written at a time. An import of at most this many is read and
#: checked whole before the bundle is opened; a longer one streams: each batch is checked and
#: written into the one open transaction, so memory does not grow with the number of rows and a
#: refused or killed import still changes nothing (docs/design.md, "Imports").
BATCH_RECORDS = 20_000


@dataclass
class _Batch:
    """Records checked and ready to write, with the images they name."""

    records: list[Record]
    images: dict[str, PreparedImage]


class _CheckedBatches:
    """An importer's records in batches of :data:`BATCH_RECORDS`, each checked as the whole
    import used to be (names, what the bundle can store, images, rejections) when it is read.
    Look-alike model names are reported with the last batch, once every name is known."""

    def __init__(
        self,
        records: Iterator[Record],
        names: _ModelNames,
        report: ImportReport,
        progress: ProgressCallback,
        skip_rejected: bool,
        limits: ReadLimits,
    ) -> None:
        self._records = records
        self._names = names
        self._report = report
        self._progress = progress
        self._skip_rejected = skip_rejected
        self._limits = limits
        self.read = 0
        self.kept = 0
        self.done = False

    def __iter__(self) -> Iterator[_Batch]:
        while not self.done:
            yield self.next()

    def next(self) -> _Batch:
        report = self._report
        batch: list[Record] = []
        self.done = True
        for record in self._records:
            batch.append(record)
            self.read += 1
            if self.read % 1000 == 0:
                self._progress("reading", self.read, 0)
                if report.cancel_requested():
                    raise ImportCancelledError("import cancelled; the bundle was not changed")
            if len(batch) >= BATCH_RECORDS:
                self.done = False
                break
        fallback = self._names.fallback
        records = self._names.normalized(batch)
        if self.done:
            self._names.report_look_alikes()
        records = _storable(records, report, fallback, self._limits)
        images = _prepare_images(records, report, self._progress, self._limits)
        _stop_if_rejected(report, self._skip_rejected)
        self.kept += len(records)
        return _Batch(records, images)


@dataclass
class _ImportWrite:
    """What is written: the first batch, checked before the bundle is opened, and the rest,
    checked as they are read (nothing more when the first batch is the whole import)."""

    importer: str
    importer_version: str
    fingerprint: str
    files: list[ImportFileInfo]
    first: _Batch
    rest: Iterable[_Batch]
    rejections_before: int = 0
    warnings_before: int = 0


def _write(
    bundle: Bundle,
    job: _ImportWrite,
    shown: Path | str,
    report: ImportReport,
    skip_rejected: bool,
    started_at: datetime,
    progress: ProgressCallback = no_progress,
    *,
    indexes_after: bool = False,
) -> ImportResult:
    """Write the import in one transaction (rolled back whole on any error), batch by batch.

    ``indexes_after``: the bundle is new and the import streams (more than one batch), so the
    judgments' indexes are built once after the last batch instead of row by row."""
    job.rejections_before, job.warnings_before = len(report.rejections), len(report.warnings)
    with bundle.session() as session:
        writer = ImportWriter(session, report)
        import_row = writer.begin(
            importer=job.importer,
            importer_version=job.importer_version,
            fingerprint=job.fingerprint,
            files=job.files,
            started_at=started_at,
        )
        written = 0
        with judgment_indexes_built_after(session) if indexes_after else nullcontext():
            for batch in itertools.chain([job.first], job.rest):
                progress("writing", written, 0)
                writer.add(batch.records, batch.images)
                written += len(batch.records)
                _stop_if_rejected(report, skip_rejected)
        if not written and report.rejections:
            raise ImportRejectedError(
                report.rejections,
                f"nothing to import: all {len(report.rejections)} row(s) were rejected; "
                "the bundle was not created or changed",
            )
        writer.finish()
        # answers that name their model are flagged as they land (services.flags)
        mentions = flag_model_mentions(session, import_row.id)
        if mentions:
            log.info("%d imported answer(s) name their model; flagged", mentions)
        if report.rejections:
            import_row.warnings = {
                **import_row.warnings,
                "rejected": [r.as_dict() for r in report.rejections],
            }
        return ImportResult(
            job.importer,
            shown,
            False,
            import_row.id,
            dict(import_row.counts),
            list(report.warnings),
            list(report.rejections),
        )


def _stop_if_rejected(report: ImportReport, skip_rejected: bool) -> None:
    if report.rejections and not skip_rejected:
        raise ImportRejectedError(report.rejections)
