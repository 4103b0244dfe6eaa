"""The ``arena-battles`` import format: pairwise battles as FastChat's clean_battle_data.py writes
them (Chatbot Arena, VisionArena, MT-bench judgments), in one JSON list or in JSON Lines, and the
arena datasets published on Hugging Face (VisionArena-Battle/-Chat/-Bench, WildVision-Arena's
battle and chat configs) as parquet or Arrow files, shard folders or downloaded dataset folders.

Each battle is ``model_a``, ``model_b`` and ``winner`` (``model_a``, ``model_b``, ``tie`` or
``tie (bothbad)``), optionally with the two conversations, ``question_id``, ``judge`` (or
``judge_hash``), ``language``, ``category_tag``, ``categories``, ``domain``, ``turn``,
``num_turns``, ``anony``, ``tstamp`` and the images (``image`` or ``images``). A battle with
conversations brings its item (the user turns) and both models' answers; one without is a
judgment alone. A chat row (one ``model``, one ``conversation``) brings an item and its answers;
a prompt row (``conversation`` or ``turns`` without a model) brings an item only.
docs/importers/arena.md says what lands where and why.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.domain import (
    ImageRecord,
    ItemRecord,
    JudgmentKind,
    JudgmentRecord,
    Origin,
    Outcome,
    OutputRecord,
    TurnRecord,
)
from workbench.importers.base import Importer, ImportReport, Record, files_under, relative_name
from workbench.importers.images import ImageProblemError, ImageSpool, resolve_inside
from workbench.importers.tables import is_table_file, read_table_rows, table_files
from workbench_arena.conversations import ConversationTurn, read_conversation, read_prompt_turns
from workbench_arena.embedded_images import EmbeddedImage, embedded_images
from workbench_arena.jsonfiles import RowError, read_rows, require_object, text_field, typed_field

SOURCE = "arena"
FILE_PATTERNS = ("*.json", "*.jsonl", "*.json.gz", "*.jsonl.gz")

#: FastChat's vote types as clean_battle_data.py converts them.
WINNERS = {
    "model_a": Outcome.A,
    "model_b": Outcome.B,
    "tie": Outcome.TIE,
    "tie (bothbad)": Outcome.BOTH_BAD,
}

#: Optional keys copied into the judgment's metadata when present, with their JSON types.
BATTLE_FACTS: dict[str, type | tuple[type, ...]] = {
    "language": str,
    "tstamp": (int, float),
    "anony": bool,
    "turn": int,
    "num_turns": int,
    "category_tag": dict,
    "categories": dict,
    "domain": str,
}

_FACT_ORDER = {key: order for order, key in enumerate(BATTLE_FACTS)}

#: Facts of the conversation rather than of the vote: kept on the item only, not repeated on each
#: of its judgments (VisionArena has 30,000).
ITEM_FACTS = frozenset({"categories", "domain"})

#: A row with these keys alone is a vote and nothing else: the shape of a whole battle log.
_VOTE_ONLY = frozenset({"model_a", "model_b", "winner"})
#: A vote and its question id: a battle log's row in a dataset whose rows name their question.
_VOTE_WITH_ID = _VOTE_ONLY | {"question_id"}


def _plain_text(value: Any) -> bool:
    """True for what :func:`text_field` takes without a word: a string with a visible
    character (checked at a glance, for a battle log's millions of rows)."""
    return type(value) is str and value != "" and not value.isspace()


#: Keys that name a conversation when there is no ``question_id`` (VisionArena-Chat).
ID_KEYS = ("question_id", "conversation_id")


@dataclass
class _ItemDraft:
    """An item being assembled from the battles that share its question id."""

    turns: list[ConversationTurn]
    facts: dict[str, Any]
    origin: Origin
    folder: Path
    #: images carried by the row itself (datasets), shown with the first turn
    embedded: list[EmbeddedImage] = field(default_factory=list)


@dataclass
class _Battles:
    """Everything read so far, kept until the end because later battles may extend an item."""

    items: dict[str, _ItemDraft] = field(default_factory=dict)
    answers: dict[tuple[str, str, int], tuple[str, Origin]] = field(default_factory=dict)
    judgments: list[JudgmentRecord] = field(default_factory=list)
    #: judgments that can be handed on at once: a battle without conversations names no item,
    #: so nothing read later changes it. Only until the first judgment that waits for its item,
    #: so that judgments keep the files' order (online Elo plays them in that order).
    ready: list[JudgmentRecord] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Judge:
    kind: JudgmentKind
    rater: str | None
    prompt: str | None = None


#: a vote whose row names no judge (most of a battle log): one value for all of them
_UNNAMED_PERSON = _Judge(JudgmentKind.HUMAN, None)


def read_judge(value: Any) -> _Judge:
    """Who voted. FastChat writes a person as a string ("arena_user_…", MT-bench's "expert_0",
    "author_2", VisionArena's ``judge_hash``) and an automatic judge as ``[model, prompt
    template]`` ("gpt-4", "pair-v2")."""
    if value is None:
        return _UNNAMED_PERSON
    if isinstance(value, str) and value.strip():
        return _Judge(JudgmentKind.HUMAN, value)
    if (
        isinstance(value, list)
        and value
        and all(isinstance(part, str) and part.strip() for part in value)
    ):
        return _Judge(JudgmentKind.JUDGE, value[0], "/".join(value[1:]) or None)
    raise RowError("judge", "must be a person's id (string) or [judge model, prompt template]")


def row_fingerprint(row: Any) -> bytes:
    """A digest of a whole row (embedded bytes by their hash), to find a row stored twice."""

    def plain(value: Any) -> Any:
        if isinstance(value, (bytes, bytearray)):
            return {"sha256": hashlib.sha256(value).hexdigest()}
        if isinstance(value, dict):
            return {str(key): plain(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        return repr(value)

    text = json.dumps(plain(row), sort_keys=True, ensure_ascii=False, allow_nan=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def table_copy(path: Path) -> tuple[Path, str]:
    """Which copy of a dataset a table file belongs to: its folder and format (the shards of a
    split sit side by side in one format; another copy is another folder or format)."""
    return path.parent, path.suffix


def conversation_id(turns: Sequence[ConversationTurn]) -> str:
    """A stable id for a conversation without a question id: a hash of its user turns."""
    payload = json.dumps([[turn.prompt, list(turn.images)] for turn in turns], ensure_ascii=False)
    return "conv-" + hashlib.sha256(payload.encode()).hexdigest()[:16]


class ArenaBattlesImporter(Importer):
    name = "arena-battles"
    version = "2"
    description = (
        "FastChat / VisionArena battles (JSON list or JSONL) and Hugging Face arena datasets "
        "(parquet, Arrow, dataset folders): votes, conversations, images"
    )

    def files(self, sources: Sequence[Path]) -> list[Path]:
        files: list[Path] = []
        for source in sources:
            # A dataset folder (shards, a save_to_disk folder, a hub snapshot) is read whole;
            # a folder of battle files only at its top, as before.
            tables = table_files(source) if source.is_dir() else []
            files.extend(tables or files_under([source], FILE_PATTERNS))
        return files

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        battles = _Battles()
        spool = report.image_spool(self.limits)
        files = self.files(sources)
        # A dataset folder may hold one split twice (parquet shards and a save_to_disk copy):
        # a table row met again in another copy is the same battle, imported once. Shards of
        # one copy never repeat each other's battles, and repeats inside one copy stay
        # (published battle files repeat rows on purpose), so a folder holding one copy keeps
        # no digests at all: its memory does not grow with its rows.
        copies = {table_copy(path) for path in files if is_table_file(path)}
        seen_rows: dict[bytes, tuple[str, tuple[Path, str]]] | None = (
            {} if len(copies) > 1 else None
        )
        for path in files:
            name = relative_name(path, sources)
            rows = (
                read_table_rows(path, name, report, limits=self.limits)
                if is_table_file(path)
                else read_rows(path, name, report, self.limits)
            )
            repeated: Counter[str] = Counter()
            folder = path.parent
            # the file and its copy, one pair shared by the digests of all its rows
            here: tuple[str, tuple[Path, str]] | None = None
            if seen_rows is not None and is_table_file(path):
                here = (name, table_copy(path))
            for origin, value in rows:
                if seen_rows is not None and here is not None:
                    first, first_copy = seen_rows.setdefault(row_fingerprint(value), here)
                    if first_copy != here[1]:
                        repeated[first] += 1
                        continue
                try:
                    self._row(value, origin, folder, battles, spool, report)
                except RowError as error:
                    report.reject(origin, error.field, error.reason)
                if battles.ready:
                    # a battle log streams: its judgments need not wait for the end
                    yield from battles.ready
                    battles.ready.clear()
            for first, count in repeated.items():
                report.warn(
                    Origin(name),
                    None,
                    f"{count} rows repeat rows of {first} exactly (the same dataset stored "
                    "twice?); each was imported once",
                )
        yield from self._items(battles, report)
        for (item_id, model, turn), (text, origin) in battles.answers.items():
            yield OutputRecord(
                source=SOURCE,
                item_external_id=item_id,
                model=model,
                text=text,
                turn_index=turn,
                origin=origin,
            )
        yield from battles.judgments

    def _row(
        self,
        value: Any,
        origin: Origin,
        folder: Path,
        battles: _Battles,
        spool: ImageSpool,
        report: ImportReport,
    ) -> None:
        """Check one row completely, then add what it brings (nothing if it is rejected)."""
        row = require_object(value)
        if "model_a" in row or "model_b" in row or "winner" in row:
            self._battle(row, origin, folder, battles, spool, report)
        elif "model" in row:
            self._chat(row, origin, folder, battles, spool, report)
        else:
            self._prompt(row, origin, folder, battles, spool)

    def _chat(
        self,
        row: dict[str, Any],
        origin: Origin,
        folder: Path,
        battles: _Battles,
        spool: ImageSpool,
        report: ImportReport,
    ) -> None:
        """A chat row: one model's conversation, an item and that model's answers."""
        model = text_field(row, "model")
        assert model is not None
        if row.get("conversation") is None:
            raise RowError("conversation", "is required with 'model'")
        turns = read_conversation(row["conversation"], "conversation")
        facts = self._facts(row)
        images = embedded_images(row, spool)
        answers = self._check_answers(
            self._item_id(row, turns), [(model, turns, "conversation")], battles
        )
        self._add_item(row, turns, facts, images, origin, folder, battles)
        for key, text in answers.items():
            battles.answers.setdefault(key, (text, origin))

    def _prompt(
        self,
        row: dict[str, Any],
        origin: Origin,
        folder: Path,
        battles: _Battles,
        spool: ImageSpool,
    ) -> None:
        """A benchmark prompt (VisionArena-Bench, Arena-Hard's question.jsonl): an item only."""
        turns = read_prompt_turns(row)
        facts = self._facts(row)
        images = embedded_images(row, spool)
        self._add_item(row, turns, facts, images, origin, folder, battles)

    @staticmethod
    def _facts(row: dict[str, Any]) -> dict[str, Any]:
        facts: dict[str, Any] = dict.fromkeys(BATTLE_FACTS)
        present = BATTLE_FACTS.keys() & row.keys()  # a battle log row has none or a few
        if present:
            for key in sorted(present, key=_FACT_ORDER.__getitem__):
                facts[key] = typed_field(row, key, BATTLE_FACTS[key])
        return facts

    @staticmethod
    def _question_id(row: dict[str, Any]) -> str | int | None:
        for key in ID_KEYS:
            value = typed_field(row, key, (str, int))
            if value is not None:
                return value
        return None

    def _battle(
        self,
        row: dict[str, Any],
        origin: Origin,
        folder: Path,
        battles: _Battles,
        spool: ImageSpool,
        report: ImportReport,
    ) -> None:
        model_a, model_b, winner = row.get("model_a"), row.get("model_b"), row.get("winner")
        if not (_plain_text(model_a) and _plain_text(model_b) and _plain_text(winner)):
            # text_field says what is wrong, in the fields' order
            model_a = text_field(row, "model_a")
            model_b = text_field(row, "model_b")
            winner = text_field(row, "winner")
        if winner not in WINNERS:
            raise RowError("winner", f"{str(winner)[:60]!r} is not one of {', '.join(WINNERS)}")
        assert model_a is not None and model_b is not None
        judge = _UNNAMED_PERSON
        metadata: dict[str, Any] = {}
        item_id: str | None = None
        # a battle log's row (millions of them) has no judge, facts or conversations to read,
        # and at most a question id, read as the general path below reads it
        keys = row.keys()
        if keys <= _VOTE_ONLY:
            pass
        elif keys <= _VOTE_WITH_ID and type(row["question_id"]) in (str, int):
            metadata["question_id"] = row["question_id"]
        else:
            question_id = self._question_id(row)
            judge = read_judge(
                row["judge"] if row.get("judge") is not None else row.get("judge_hash")
            )
            facts = self._facts(row)
            if BATTLE_FACTS.keys() & row.keys():
                metadata = {
                    key: fact
                    for key, fact in facts.items()
                    if fact is not None and key not in ITEM_FACTS
                }
            if question_id is not None:
                metadata["question_id"] = question_id
            if judge.prompt is not None:
                metadata["judge_prompt"] = judge.prompt
            if row.get("conversation_a") is not None or row.get("conversation_b") is not None:
                images = embedded_images(row, spool)
                item_id, turns = self._conversations(
                    row, facts, images, origin, folder, battles, report
                )
                metadata["conversation_turns"] = turns
        held = item_id is not None or battles.judgments
        (battles.judgments if held else battles.ready).append(
            JudgmentRecord(
                source=SOURCE,
                item_external_id=item_id,
                kind=judge.kind,
                model_a=model_a,
                model_b=model_b,
                outcome=WINNERS[winner],
                label=winner,
                rater=judge.rater,
                metadata=metadata,
                origin=origin,
            )
        )

    def _conversations(
        self,
        row: dict[str, Any],
        facts: dict[str, Any],
        images: list[EmbeddedImage],
        origin: Origin,
        folder: Path,
        battles: _Battles,
        report: ImportReport,
    ) -> tuple[str, int]:
        """The item this battle's conversations belong to, and how many user turns they have."""
        for side in ("conversation_a", "conversation_b"):
            if row.get(side) is None:
                raise RowError(side, "is required when the other conversation is given")
        turns_a = read_conversation(row["conversation_a"], "conversation_a")
        turns_b = read_conversation(row["conversation_b"], "conversation_b")
        if len(turns_a) != len(turns_b):
            raise RowError(
                "conversation_b",
                f"has {len(turns_b)} user turns but conversation_a has {len(turns_a)}",
            )
        if [turn.prompt for turn in turns_a] != [turn.prompt for turn in turns_b]:
            report.warn(
                origin,
                "conversation_b",
                "its user messages differ from conversation_a's; the item keeps conversation_a's",
            )
        sides = [
            (row["model_a"], turns_a, "conversation_a"),
            (row["model_b"], turns_b, "conversation_b"),
        ]
        answers = self._check_answers(self._item_id(row, turns_a), sides, battles)
        item_id = self._add_item(row, turns_a, facts, images, origin, folder, battles)
        for key, text in answers.items():
            battles.answers.setdefault(key, (text, origin))
        return item_id, len(turns_a)

    def _item_id(self, row: dict[str, Any], turns: Sequence[ConversationTurn]) -> str:
        question_id = self._question_id(row)
        return str(question_id) if question_id is not None else conversation_id(turns)

    def _add_item(
        self,
        row: dict[str, Any],
        turns: list[ConversationTurn],
        facts: dict[str, Any],
        images: list[EmbeddedImage],
        origin: Origin,
        folder: Path,
        battles: _Battles,
    ) -> str:
        """Check that the conversation fits the item of the same id, then record or extend it.
        Only the last step changes anything, so a rejected row leaves no trace."""
        item_id = self._item_id(row, turns)
        draft = battles.items.get(item_id)
        if draft is not None:
            shared = min(len(draft.turns), len(turns))
            if [t.prompt for t in draft.turns[:shared]] != [t.prompt for t in turns[:shared]]:
                raise RowError(
                    "conversation_a" if "conversation_a" in row else "conversation",
                    f"question '{item_id}' has a different conversation at {draft.origin}",
                )
            # The vote was cast on the picture its row carries; kept under the first row's
            # picture, it would be counted for an image the voter never saw.
            if images and draft.embedded and _hashes(images) != _hashes(draft.embedded):
                raise RowError(
                    "images" if row.get("images") is not None else "image",
                    f"question '{item_id}' has different images at {draft.origin}",
                )
            refs = [list(t.images) for t in turns[:shared]]
            if refs != [list(t.images) for t in draft.turns[:shared]]:
                raise RowError(
                    "conversation_a" if "conversation_a" in row else "conversation",
                    f"question '{item_id}' names different images at {draft.origin}",
                )
        for image in (ref for turn in turns for ref in turn.images):
            _check_image_ref(image, folder)
        if draft is None:
            battles.items[item_id] = _ItemDraft(list(turns), facts, origin, folder, images)
        else:
            if len(turns) > len(draft.turns):
                draft.turns = list(turns)
            if images and not draft.embedded:
                draft.embedded = images
        return item_id

    @staticmethod
    def _check_answers(
        item_id: str,
        sides: Sequence[tuple[str, list[ConversationTurn], str]],
        battles: _Battles,
    ) -> dict[tuple[str, str, int], str]:
        """Each side's answers, refused when a model answers the same turn differently."""
        answers: dict[tuple[str, str, int], str] = {}
        for model, turns, field_name in sides:
            for index, turn in enumerate(turns, start=1):
                if turn.answer is None:
                    continue
                key = (item_id, model, index)
                known = answers.get(key)
                if known is None and key in battles.answers:
                    known = battles.answers[key][0]
                if known is not None and known != turn.answer:
                    raise RowError(
                        field_name,
                        f"model '{model}' answers turn {index} of question '{item_id}' "
                        "differently elsewhere in this import",
                    )
                answers[key] = turn.answer
        return answers

    def _items(self, battles: _Battles, report: ImportReport) -> Iterator[ItemRecord]:
        missing: Counter[str] = Counter()
        for item_id, draft in battles.items.items():
            images: list[ImageRecord] = [
                embedded.record(position) for position, embedded in enumerate(draft.embedded)
            ]
            image_turns: list[int] = [1] * len(images)
            for index, turn in enumerate(draft.turns, start=1):
                for ref in turn.images:
                    image = _image_record(len(images), ref, draft.folder)
                    missing[draft.origin.file] += image.is_missing
                    images.append(image)
                    image_turns.append(index)
            metadata: dict[str, Any] = {}
            if images:
                metadata["image_turns"] = image_turns
            for key in ("category_tag", "categories"):
                if draft.facts.get(key) is not None:
                    metadata[key] = draft.facts[key]
            yield ItemRecord(
                source=SOURCE,
                external_id=item_id,
                turns=tuple(
                    TurnRecord(index=index, prompt=turn.prompt)
                    for index, turn in enumerate(draft.turns, start=1)
                ),
                category=draft.facts.get("domain") or _first_category(draft.facts),
                categories=_flagged_categories(draft.facts),
                language=draft.facts.get("language"),
                images=tuple(images),
                metadata=metadata,
                origin=draft.origin,
            )
        for file_name, count in missing.items():
            if count:
                report.warn(
                    Origin(file_name),
                    "images",
                    f"{count} images named in the conversations are not available (not beside "
                    "the battle file, or given by URL or hash); they are recorded as missing",
                )


def _hashes(images: Sequence[EmbeddedImage]) -> list[str]:
    return [image.sha256 for image in images]


def _check_image_ref(ref: str, folder: Path) -> None:
    """Reject a reference that tries to leave the battle file's folder or a broken data URL."""
    if ref.startswith("data:"):
        _data_url_bytes(ref)
    elif "://" not in ref:
        try:
            resolve_inside(folder, ref)
        except ImageProblemError as error:
            raise RowError("conversation_a", str(error)) from error


def _data_url_bytes(ref: str) -> bytes:
    header, _, payload = ref.partition(",")
    if ";base64" not in header:
        raise RowError("conversation_a", "an image data URL must be base64-encoded")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as error:
        raise RowError(
            "conversation_a", f"an image data URL is not valid base64: {error}"
        ) from error


def _image_record(position: int, ref: str, folder: Path) -> ImageRecord:
    """An image slot: inline bytes from a data URL, a file beside the battle file, or missing
    (URLs and content hashes, which is how arena logs usually name images)."""
    if ref.startswith("data:"):
        return ImageRecord(position, f"inline:{position}", data=_data_url_bytes(ref))
    if "://" in ref:
        return ImageRecord(position, ref)
    return ImageRecord(position, ref, path=resolve_inside(folder, ref))


def _flagged_categories(facts: dict[str, Any]) -> tuple[str, ...]:
    """VisionArena's ``categories`` is a struct of flags, any number of them set: the item
    belongs to every category flagged (a category's board counts it), in the struct's order."""
    flags = facts.get("categories")
    if not isinstance(flags, dict):
        return ()
    return tuple(str(name) for name, flag in flags.items() if flag is True)


def _first_category(facts: dict[str, Any]) -> str | None:
    """The category shown where one is shown: the first flag set (all of them are the item's
    categories, and stay in its metadata)."""
    chosen = _flagged_categories(facts)
    return chosen[0] if chosen else None
