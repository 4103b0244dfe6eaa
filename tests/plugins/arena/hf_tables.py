"""Writing small arena datasets in the schemas their Hugging Face dataset cards publish, with
pyarrow, in the three ways a dataset lands on disk (parquet shards, ``save_to_disk``, the hub
cache). Test data only: nothing here is read from the published datasets."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

MESSAGES = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
#: The ``Image`` feature of ``datasets``: a struct of the encoded bytes and the original path.


def schema(fields: list[tuple[str, pa.DataType]]) -> pa.Schema:
    """A table schema from (name, type) pairs; typed, so mixed column types read as DataType."""
    return pa.schema(fields)


IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
CATEGORY_FLAGS = ("captioning", "code", "diagram", "entity_recognition", "homework", "ocr")
CATEGORIES = pa.struct([(name, pa.bool_()) for name in CATEGORY_FLAGS])

#: VisionArena-Battle (lmarena-ai): ``images`` is a list, the voter is ``judge_hash``, the
#: topic a struct of category flags.
VISION_ARENA_BATTLE = schema(
    [
        ("question_id", pa.string()),
        ("tstamp", pa.float64()),
        ("model_a", pa.string()),
        ("model_b", pa.string()),
        ("winner", pa.string()),
        ("judge_hash", pa.string()),
        ("conversation_a", MESSAGES),
        ("conversation_b", MESSAGES),
        ("turn", pa.int64()),
        ("anony", pa.bool_()),
        ("language", pa.string()),
        ("images", pa.list_(IMAGE)),
        ("categories", CATEGORIES),
    ]
)

#: WildVision-Arena-Data, config ``battle``: one ``image``, the voter ``judge``, a ``domain``.
WILDVISION_BATTLE = schema(
    [
        ("question_id", pa.string()),
        ("model_a", pa.string()),
        ("model_b", pa.string()),
        ("conversation_a", MESSAGES),
        ("conversation_b", MESSAGES),
        ("language", pa.string()),
        ("image", IMAGE),
        ("turn", pa.int32()),
        ("anony", pa.bool_()),
        ("winner", pa.string()),
        ("tstamp", pa.int32()),
        ("judge", pa.string()),
        ("domain", pa.string()),
    ]
)

#: WildVision-Arena-Data, config ``chat``: one model, one conversation.
WILDVISION_CHAT = schema(
    [
        ("question_id", pa.string()),
        ("model", pa.string()),
        ("conversation", MESSAGES),
        ("language", pa.string()),
        ("image", IMAGE),
        ("turn", pa.int32()),
    ]
)


def png_bytes(colour: str, size: tuple[int, int] = (8, 6)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def messages(*turns: tuple[str, str]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for prompt, answer in turns:
        out += [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}]
    return out


def flags(*names: str) -> dict[str, bool]:
    return {name: name in names for name in CATEGORY_FLAGS}


def vision_arena_battles() -> list[dict[str, Any]]:
    """Three votes on two conversations; both conversations show the same picture."""
    red = {"bytes": png_bytes("red"), "path": "q1.png"}
    return [
        {
            "question_id": "q1",
            "tstamp": 1718000000.5,
            "model_a": "vlm-a",
            "model_b": "vlm-b",
            "winner": "model_a",
            "judge_hash": "voter-1",
            "conversation_a": messages(("What is shown?", "A red square.")),
            "conversation_b": messages(("What is shown?", "Something.")),
            "turn": 1,
            "anony": True,
            "language": "English",
            "images": [red],
            "categories": flags("captioning"),
        },
        {
            "question_id": "q1",
            "tstamp": 1718000100.0,
            "model_a": "vlm-b",
            "model_b": "vlm-c",
            "winner": "tie (bothbad)",
            "judge_hash": "voter-2",
            "conversation_a": messages(("What is shown?", "Something.")),
            "conversation_b": messages(("What is shown?", "A blue square.")),
            "turn": 1,
            "anony": True,
            "language": "English",
            "images": [red],
            "categories": flags("captioning"),
        },
        {
            "question_id": "q2",
            "tstamp": 1718000200.0,
            "model_a": "vlm-c",
            "model_b": "vlm-a",
            "winner": "model_b",
            "judge_hash": "voter-1",
            "conversation_a": messages(("Lies el letrero", "No."), ("¿Y ahora?", "No.")),
            "conversation_b": messages(("Lies el letrero", "PARE"), ("¿Y ahora?", "Sigue PARE")),
            "turn": 2,
            "anony": False,
            "language": "Spanish",
            "images": [{"bytes": png_bytes("red"), "path": "other-name.png"}],
            "categories": flags("ocr", "entity_recognition"),
        },
    ]


def wildvision_battles() -> list[dict[str, Any]]:
    return [
        {
            "question_id": "w1",
            "model_a": "vlm-a",
            "model_b": "vlm-b",
            "conversation_a": messages(("Count the dots", "3")),
            "conversation_b": messages(("Count the dots", "4")),
            "language": None,
            "image": {"bytes": png_bytes("green"), "path": None},
            "turn": 1,
            "anony": True,
            "winner": "tie",
            "tstamp": 1712000000,
            "judge": "arena_user_9",
            "domain": None,
        },
        {
            "question_id": "w2",
            "model_a": "vlm-b",
            "model_b": "vlm-a",
            "conversation_a": messages(("Describe", "A dog")),
            "conversation_b": messages(("Describe", "A cat")),
            "language": "English",
            "image": {"bytes": png_bytes("blue"), "path": "w2.jpg"},
            "turn": 1,
            "anony": True,
            "winner": "model_b",
            "tstamp": 1712000500,
            "judge": "arena_user_3",
            "domain": "Natural Science",
        },
    ]


def wildvision_chats() -> list[dict[str, Any]]:
    return [
        {
            "question_id": "c1",
            "model": "vlm-a",
            "conversation": messages(("Name the colour", "Blue"), ("Sure?", "Yes")),
            "language": "English",
            "image": {"bytes": png_bytes("blue"), "path": None},
            "turn": 2,
        }
    ]


def write_parquet(
    path: Path, rows: list[dict[str, Any]], schema: pa.Schema, row_group_size: int = 2
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, row_group_size=row_group_size)
    return path


def write_save_to_disk(folder: Path, rows: list[dict[str, Any]], schema: pa.Schema) -> Path:
    """The layout of ``Dataset.save_to_disk``: Arrow IPC *stream* files, dataset_info.json and
    state.json."""
    folder.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    name = "data-00000-of-00001.arrow"
    with pa.OSFile(str(folder / name), "wb") as sink, pa.ipc.new_stream(sink, schema) as writer:
        for batch in table.to_batches(max_chunksize=2):
            writer.write_batch(batch)
    (folder / "dataset_info.json").write_text(json.dumps({"features": {}}), encoding="utf-8")
    state = {"_data_files": [{"filename": name}], "_split": "test"}
    (folder / "state.json").write_text(json.dumps(state), encoding="utf-8")
    return folder


def write_hub_cache(
    cache: Path, repo: str, shards: dict[str, tuple[list[dict[str, Any]], pa.Schema]]
) -> Path:
    """The hub cache of ``huggingface_hub``: files in ``snapshots/<revision>/`` are symlinks
    to content-named files in ``blobs/``. Returns the repository's cache folder."""
    root = cache / ("datasets--" + repo.replace("/", "--"))
    snapshot = root / "snapshots" / ("0" * 40)
    for relative, (rows, schema) in shards.items():
        staged = write_parquet(root / "staging.parquet", rows, schema)
        blob = root / "blobs" / sha256(staged.read_bytes())
        blob.parent.mkdir(parents=True, exist_ok=True)
        staged.rename(blob)
        link = snapshot / relative
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / "main").write_text("0" * 40, encoding="utf-8")
    return root


#: VisionArena-Chat: a conversation id instead of a question id, a list of images.
VISION_ARENA_CHAT = schema(
    [
        ("conversation_id", pa.string()),
        ("model", pa.string()),
        ("conversation", MESSAGES),
        ("turn", pa.int64()),
        ("language", pa.string()),
        ("images", pa.list_(IMAGE)),
        ("categories", CATEGORIES),
    ]
)

#: VisionArena-Bench: prompts with their images, no model and no vote.
VISION_ARENA_BENCH = schema(
    [
        ("question_id", pa.string()),
        ("turns", pa.list_(pa.struct([("content", pa.string())]))),
        ("images", pa.list_(IMAGE)),
        ("categories", CATEGORIES),
    ]
)

#: A conversation written as turns of {user, assistant} rather than as messages.
PAIRED_TURNS = pa.list_(pa.struct([("user", pa.string()), ("assistant", pa.string())]))
PAIRED_CHAT = schema(
    [("question_id", pa.string()), ("model", pa.string()), ("conversation", PAIRED_TURNS)]
)
