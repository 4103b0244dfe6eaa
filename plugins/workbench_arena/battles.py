"""The ``arena-battles`` import format: pairwise battles as FastChat's clean_battle_data.py writes
them (Chatbot Arena, VisionArena, MT-bench judgments), in one JSON list or in JSON Lines.

Each battle is ``model_a``, ``model_b`` and ``winner`` (``model_a``, ``model_b``, ``tie`` or
``tie (bothbad)``), optionally with the two conversations, ``question_id``, ``judge``,
``language``, ``category_tag``, ``turn``, ``anony`` and ``tstamp``. A battle with conversations
brings its item (the user turns) and both models' answers; one without is a judgment alone.
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
from workbench.importers.images import ImageProblemError, resolve_inside
from workbench_arena.conversations import ConversationTurn, read_conversation
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
    "category_tag": dict,
}


@dataclass
class _ItemDraft:
    """An item being assembled from the battles that share its question id."""

    turns: list[ConversationTurn]
    language: str | None
    category_tag: dict[str, Any] | None
    origin: Origin
    folder: Path


@dataclass
class _Battles:
    """Everything read so far, kept until the end because later battles may extend an item."""

    items: dict[str, _ItemDraft] = field(default_factory=dict)
    answers: dict[tuple[str, str, int], tuple[str, Origin]] = field(default_factory=dict)
    judgments: list[JudgmentRecord] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Judge:
    kind: JudgmentKind
    rater: str | None
    prompt: str | None = None


def read_judge(value: Any) -> _Judge:
    """Who voted. FastChat writes a person as a string ("arena_user_…", MT-bench's "expert_0",
    "author_2") and an automatic judge as ``[model, prompt template]`` ("gpt-4", "pair-v2")."""
    if value is None:
        return _Judge(JudgmentKind.HUMAN, None)
    if isinstance(value, str) and value.strip():
        return _Judge(JudgmentKind.HUMAN, value)
    if (
        isinstance(value, list)
        and value
        and all(isinstance(part, str) and part.strip() for part in value)
    ):
        return _Judge(JudgmentKind.JUDGE, value[0], "/".join(value[1:]) or None)
    raise RowError("judge", "must be a person's id (string) or [judge model, prompt template]")


def conversation_id(turns: Sequence[ConversationTurn]) -> str:
    """A stable id for a conversation without a question id: a hash of its user turns."""
    payload = json.dumps([[turn.prompt, list(turn.images)] for turn in turns], ensure_ascii=False)
    return "conv-" + hashlib.sha256(payload.encode()).hexdigest()[:16]


class ArenaBattlesImporter(Importer):
    name = "arena-battles"
    version = "1"
    description = "FastChat / VisionArena battles (JSON list or JSONL): votes and conversations"

    def files(self, sources: Sequence[Path]) -> list[Path]:
        return files_under(sources, FILE_PATTERNS)

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        battles = _Battles()
        for path in self.files(sources):
            name = relative_name(path, sources)
            for origin, value in read_rows(path, name, report):
                try:
                    self._battle(value, origin, path.parent, battles, report)
                except RowError as error:
                    report.reject(origin, error.field, error.reason)
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

    def _battle(
        self, value: Any, origin: Origin, folder: Path, battles: _Battles, report: ImportReport
    ) -> None:
        """Check one battle completely, then add what it brings (nothing if it is rejected)."""
        row = require_object(value)
        model_a = text_field(row, "model_a")
        model_b = text_field(row, "model_b")
        winner = text_field(row, "winner")
        if winner not in WINNERS:
            raise RowError("winner", f"{winner[:60]!r} is not one of {', '.join(WINNERS)}")
        assert model_a is not None and model_b is not None
        question_id = typed_field(row, "question_id", (str, int))
        judge = read_judge(row.get("judge"))
        facts = {key: typed_field(row, key, kind) for key, kind in BATTLE_FACTS.items()}
        metadata: dict[str, Any] = {key: fact for key, fact in facts.items() if fact is not None}
        if question_id is not None:
            metadata["question_id"] = question_id
        if judge.prompt is not None:
            metadata["judge_prompt"] = judge.prompt

        item_id: str | None = None
        if row.get("conversation_a") is not None or row.get("conversation_b") is not None:
            item_id, turns = self._conversations(
                row, question_id, facts, origin, folder, battles, report
            )
            metadata["conversation_turns"] = turns
        battles.judgments.append(
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
        question_id: str | int | None,
        facts: dict[str, Any],
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
        item_id = str(question_id) if question_id is not None else conversation_id(turns_a)
        draft = battles.items.get(item_id)
        if draft is not None:
            shared = min(len(draft.turns), len(turns_a))
            if [t.prompt for t in draft.turns[:shared]] != [t.prompt for t in turns_a[:shared]]:
                raise RowError(
                    "conversation_a",
                    f"question '{item_id}' has a different conversation at {draft.origin}",
                )
        for image in (ref for turn in turns_a for ref in turn.images):
            _check_image_ref(image, folder)

        answers: dict[tuple[str, str, int], str] = {}
        for model, turns in ((row["model_a"], turns_a), (row["model_b"], turns_b)):
            for index, turn in enumerate(turns, start=1):
                if turn.answer is None:
                    continue
                key = (item_id, model, index)
                known = answers.get(key)
                if known is None and key in battles.answers:
                    known = battles.answers[key][0]
                if known is not None and known != turn.answer:
                    raise RowError(
                        "conversation_a" if model == row["model_a"] else "conversation_b",
                        f"model '{model}' answers turn {index} of question '{item_id}' "
                        "differently elsewhere in this import",
                    )
                answers[key] = turn.answer

        # Everything is checked: now the battle may change what has been collected.
        if draft is None:
            battles.items[item_id] = _ItemDraft(
                list(turns_a), facts["language"], facts["category_tag"], origin, folder
            )
        elif len(turns_a) > len(draft.turns):
            draft.turns = list(turns_a)
        for key, text in answers.items():
            battles.answers.setdefault(key, (text, origin))
        return item_id, len(turns_a)

    def _items(self, battles: _Battles, report: ImportReport) -> Iterator[ItemRecord]:
        missing: Counter[str] = Counter()
        for item_id, draft in battles.items.items():
            images: list[ImageRecord] = []
            image_turns: list[int] = []
            for index, turn in enumerate(draft.turns, start=1):
                for ref in turn.images:
                    image = _image_record(len(images), ref, draft.folder)
                    missing[draft.origin.file] += image.is_missing
                    images.append(image)
                    image_turns.append(index)
            metadata: dict[str, Any] = {}
            if images:
                metadata["image_turns"] = image_turns
            if draft.category_tag is not None:
                metadata["category_tag"] = draft.category_tag
            yield ItemRecord(
                source=SOURCE,
                external_id=item_id,
                turns=tuple(
                    TurnRecord(index=index, prompt=turn.prompt)
                    for index, turn in enumerate(draft.turns, start=1)
                ),
                language=draft.language,
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
