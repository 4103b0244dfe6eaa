"""The bad-input corpus: small valid inputs for every importer, the ways they are damaged, and
how one damaged input is imported and judged. Shared by the fuzz tests and bench/fuzz_inputs.py.

Every case writes its input into a fresh folder (nothing is stored in the project), imports it
into a new bundle path and into a copy of an existing bundle, and says what went wrong, if
anything: an exception other than WorkbenchError, an unclear message, a changed bundle, a bundle
file left behind, or an import that went through where it must be refused.
"""

from __future__ import annotations

import base64
import copy
import csv
import gzip
import hashlib
import io
import json
import math
import random
import re
import shutil
import sqlite3
import struct
import traceback
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image
from workbench_visit_bench.benchmark import MULTI_IMAGE

from tests.plugins.arena.hf_tables import (
    VISION_ARENA_BATTLE,
    vision_arena_battles,
    write_parquet,
    write_save_to_disk,
)
from tests.plugins.convbench.synthetic import CONVBENCH_COLUMNS
from workbench.errors import WorkbenchError
from workbench.importers.base import ImportRejectedError
from workbench.importers.limits import ReadLimits
from workbench.plugins import Plugin, Registry, registry
from workbench.services.importing import ImportResult, import_files

JsonRows = list[dict[str, Any]]
Build = Callable[[Path], list[Path]]
ImportCheck = Callable[[ImportResult, Path], "str | None"]

#: a problem line longer than this echoes the bad input back instead of describing it
MAX_REASON_CHARS = 600
HUGE_FIELD_CHARS = 10 * 1024 * 1024
XLSX_CELL_CHARS = 32_767
NON_ASCII = "café naïve über"


# --- images ---------------------------------------------------------------------------------


def png_bytes(seed: int, size: tuple[int, int] = (6, 5)) -> bytes:
    image = Image.new("RGB", size, ((seed * 53) % 256, (seed * 97) % 256, (seed * 13) % 256))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
    )


def bomb_png(width: int, height: int) -> bytes:
    """A small, well-formed PNG whose header claims ``width`` x ``height`` pixels."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0" * 64)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", pixels)
        + _png_chunk(b"IEND", b"")
    )


#: bytes that are given where an image is expected, and must be refused
BAD_IMAGES: dict[str, Callable[[], bytes]] = {
    "text-named-png": lambda: b"this is not an image\n",
    "zero-bytes": lambda: b"",
    "truncated-png": lambda: png_bytes(7, (40, 40))[:60],
    "bomb-png-10gpx": lambda: bomb_png(100_000, 100_000),
    "bomb-png-over-limit": lambda: bomb_png(10_000, 10_000),
    "garbage-after-png-magic": lambda: b"\x89PNG\r\n\x1a\n" + random.Random(3).randbytes(200),
    "gif-header-only": lambda: b"GIF89a\x10\x00\x10\x00",
}


# --- writers for each format's valid input ----------------------------------------------------


def _write_gz_or_plain(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if path.name.endswith(".gz") else data)


def _json_text(value: Any, **options: Any) -> str:
    """JSON with non-ASCII text written as is; a lone surrogate (not encodable) as an escape."""
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, **options)
    return text


def _jsonl(rows: Sequence[Any]) -> str:
    return "".join(_json_text(row) + "\n" for row in rows)


def _write_images(folder: Path, names: Sequence[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for seed, name in enumerate(names):
        (folder / name).write_bytes(png_bytes(seed))


def _write_outside(root: Path) -> Path:
    """A real image outside the input folder, which escaping references point at."""
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    secret = outside / "secret.png"
    secret.write_bytes(png_bytes(99))
    return secret


@dataclass
class Inputs:
    """A format's valid input as data, before it is written: JSON rows by file, CSV rows, or a
    sheet. ``write`` writes it under a folder and returns the import sources."""

    files: dict[str, Any]
    write: Callable[[Path, dict[str, Any]], list[Path]]


def canonical_inputs() -> Inputs:
    def row(number: int) -> dict[str, Any]:
        return {
            "format": "vlm-workbench/item",
            "format_version": 1,
            "source": "fuzz",
            "id": f"item-{number}",
            "family": "counting",
            "category": "objects",
            "language": "en",
            "images": [{"path": f"images/item{number}.png"}],
            "captions": [{"text": f"caption {number} {NON_ASCII}", "kind": "dense", "image": 0}],
            "turns": [
                {
                    "prompt": f"How many? {number}",
                    "category": "count",
                    "focus_points": "the number",
                    "references": [{"text": str(number), "verified_correct": True}],
                }
            ],
            "outputs": [
                {"model": "model-one", "text": f"{number} things", "turn": 1},
                {"model": "model-two", "text": f"{number + 1} things", "turn": 1},
            ],
            "judgments": [
                {
                    "kind": "human",
                    "model_a": "model-one",
                    "model_b": "model-two",
                    "outcome": "a",
                    "strength": 1,
                    "score": 1.0,
                    "turn": 1,
                    "rater": "rater-1",
                    "label": "A",
                    "group": f"g{number}",
                }
            ],
            "models": [{"name": "model-one", "display_name": "Model One"}],
            "metadata": {"note": NON_ASCII},
        }

    def write(root: Path, files: dict[str, Any]) -> list[Path]:
        _write_images(root / "images", [f"item{n}.png" for n in range(1, 4)])
        path = root / "items.jsonl"
        path.write_text(_jsonl(files["items.jsonl"]), encoding="utf-8")
        return [path]

    return Inputs({"items.jsonl": [row(n) for n in range(1, 4)]}, write)


#: the published multi-image CSV's columns, as the importer declares them
VISIT_COLUMNS = MULTI_IMAGE.columns
IMAGE_URL = "https://example.org/visit_images/{}"


def _write_csv(path: Path, columns: Sequence[str], rows: Sequence[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([row.get(column, "") for column in columns])


def visit_inputs() -> Inputs:
    def row(number: int) -> dict[str, str]:
        names = [f"v{number}_a.png", f"v{number}_b.png"]
        return {
            "instruction_category": "spot_the_diff",
            "images": json.dumps([IMAGE_URL.format(name) for name in names]),
            "is_multiple_images": "True",
            "instruction": f"What changed between the images? ({number}) {NON_ASCII}",
            "gpt4_prediction": "the cube moved",
            "images_dense_captions": json.dumps(["a red cube", "a red cube, moved", None]),
            "images_blip2_captions": json.dumps(["cube", "cube"]),
            "reference_output": "the cube moved left",
            "human_ratings_gpt4_correct": "True",
            "human_ratings_problem_in_caption": "False",
            "human_ratings_problem_in_gpt4": "False",
            "public_images_metadata": "{}",
        }

    def write(root: Path, files: dict[str, Any]) -> list[Path]:
        _write_images(root / "images", [f"v{n}_{s}.png" for n in range(1, 4) for s in "ab"])
        path = root / "visit.csv"
        _write_csv(path, files["columns"], files["visit.csv"])
        return [path]

    return Inputs({"columns": list(VISIT_COLUMNS), "visit.csv": [row(n) for n in (1, 2, 3)]}, write)


PREFERENCE_COLUMNS = (
    "image_url",
    "instruction",
    "A",
    "B",
    "A_model",
    "B_model",
    "model_selection.A",
    "model_selection.B",
    "rater_1",
    "rater_2",
)


def preference_inputs() -> Inputs:
    def row(number: int) -> dict[str, str]:
        return {
            "image_url": IMAGE_URL.format(f"p{number}.png"),
            "instruction": f"Describe the picture ({number}). {NON_ASCII}",
            "A": f"answer A {number}",
            "B": f"answer B {number}",
            "A_model": "model-one",
            "B_model": "model-two",
            "model_selection.A": "True",
            "model_selection.B": "False",
            "rater_1": "A",
            "rater_2": "model-two",
        }

    def write(root: Path, files: dict[str, Any]) -> list[Path]:
        _write_images(root / "images", [f"p{n}.png" for n in range(1, 4)])
        path = root / "preferences.csv"
        _write_csv(path, files["columns"], files["preferences.csv"])
        return [path]

    return Inputs(
        {"columns": list(PREFERENCE_COLUMNS), "preferences.csv": [row(n) for n in (1, 2, 3)]},
        write,
    )


def write_xlsx(path: Path, columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
    import openpyxl

    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("multi_turn_benchmark")
    sheet.append(list(columns))
    for row in rows:
        sheet.append([row.get(column) for column in columns])
    workbook.save(path)
    _fix_zip_times(path)


_FIXED_STAMP = "2024-01-01T00:00:00Z"


def _fix_zip_times(path: Path) -> None:
    """Rewrite an xlsx with fixed times (its entries' and the workbook's created/modified), so
    the file is the same bytes on every run: the truncation offsets and the CI sample depend on
    its size, which the save time used to change by a byte now and then."""
    with zipfile.ZipFile(path) as original:
        parts = [(info.filename, original.read(info)) for info in original.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as fixed:
        for name, data in parts:
            if name == "docProps/core.xml":
                data = re.sub(
                    rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)",
                    rb"\g<1>" + _FIXED_STAMP.encode() + rb"\g<2>",
                    data,
                )
            fixed.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data)


def convbench_inputs() -> Inputs:
    def row(number: int) -> dict[str, Any]:
        values: dict[str, Any] = {
            column: f"{column} {number} {NON_ASCII}" for column in CONVBENCH_COLUMNS
        }
        values["ID"] = number
        values["image_id"] = f"c{number}.png"
        values["instruction_category"] = "Catchy Titles"
        return values

    def write(root: Path, files: dict[str, Any]) -> list[Path]:
        _write_images(root / "images", [f"c{n}.png" for n in range(1, 4)])
        path = root / "ConvBench.xlsx"
        write_xlsx(path, files["columns"], files["ConvBench.xlsx"])
        sides = files.get("pairwise.npy")
        if sides is not None:
            np.save(root / "pairwise.npy", np.asarray(sides, dtype=np.int64))
        return [path]

    return Inputs(
        {
            "columns": list(CONVBENCH_COLUMNS),
            "ConvBench.xlsx": [row(n) for n in (1, 2, 3)],
            "pairwise.npy": [0, 1, 1],
        },
        write,
    )


WILDVISION_ANSWERS = "model_answers/model-one.jsonl.gz"
WILDVISION_JUDGMENTS = "model_judgements/model-one.jsonl.gz"
WILDVISION_BATTLES = "vision_bench_battles.jsonl.gz"


def wildvision_inputs() -> Inputs:
    def answer(number: int, model: str) -> dict[str, Any]:
        return {
            "question_id": f"q{number:04x}",
            "instruction": f"What is shown? {number} {NON_ASCII}",
            "output": f"{model} says {number}",
            "model": model,
            "language": "English",
            "token_len": 12 + number,
        }

    def judgment(number: int) -> dict[str, Any]:
        label = ("A>B", "B>>A", "A=B")[number % 3]
        return {
            "question_id": f"q{number:04x}",
            "model": "model-one",
            "judge": "gpt-4o",
            "games": [
                {
                    "user_prompt": [
                        {"type": "text", "text": "<|User Prompt|> ..."},
                        {"type": "image", "image": f"hash{number}"},
                    ],
                    "judgment": f"My own answer ({NON_ASCII}). My final verdict is: [[{label}]]",
                    "score": label,
                }
            ],
        }

    def battle(number: int) -> dict[str, Any]:
        return {
            "question_id": f"q{number:04x}",
            "model_a": "claude-3-sonnet-20240229",
            "model_b": "model-one",
            "winner": ("model_a", "model_b", "tie")[number % 3],
        }

    def write(root: Path, files: dict[str, Any]) -> list[Path]:
        folder = root / "wildvision"
        for name, rows in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_gz_or_plain(path, _jsonl(rows))
        return [folder]

    return Inputs(
        {
            WILDVISION_ANSWERS: [answer(n, "model-one") for n in (1, 2, 3)],
            "model_answers/model-two.jsonl.gz": [answer(n, "model-two") for n in (1, 2, 3)],
            WILDVISION_JUDGMENTS: [judgment(n) for n in (1, 2, 3)],
            WILDVISION_BATTLES: [battle(n) for n in (1, 2, 3)],
        },
        write,
    )


def battles_inputs(file_name: str = "battles.jsonl") -> Inputs:
    def battle(number: int) -> dict[str, Any]:
        def conversation(model: str) -> list[dict[str, Any]]:
            return [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"What is this? {number} {NON_ASCII}"},
                        {"type": "image", "image": f"b{number}.png"},
                    ],
                },
                {"role": "assistant", "content": f"{model} answer {number}"},
            ]

        return {
            "question_id": f"bq{number}",
            "model_a": "model-one",
            "model_b": "model-two",
            "winner": ("model_a", "model_b", "tie", "tie (bothbad)")[number % 4],
            "judge": "arena_user_1",
            "language": "English",
            "turn": 1,
            "anony": True,
            "tstamp": 1700000000.5 + number,
            "conversation_a": conversation("model-one"),
            "conversation_b": conversation("model-two"),
        }

    def write(root: Path, files: dict[str, Any]) -> list[Path]:
        _write_images(root, [f"b{n}.png" for n in range(1, 4)])
        path = root / file_name
        rows = files[file_name]
        if file_name.endswith((".json", ".json.gz")):
            _write_gz_or_plain(path, _json_text(rows, indent=1) + "\n")
        else:
            _write_gz_or_plain(path, _jsonl(rows))
        plain = [{"model_a": "model-one", "model_b": "model-three", "winner": "model_b"}]
        (root / "votes_only.jsonl").write_text(_jsonl(plain), encoding="utf-8")
        return [path, root / "votes_only.jsonl"]

    return Inputs({file_name: [battle(n) for n in (1, 2, 3, 4)]}, write)


# --- format specifications ----------------------------------------------------------------------


@dataclass(frozen=True)
class FormatSpec:
    """One import format: how to write its valid input and where its weak spots are."""

    format: str
    inputs: Callable[[], Inputs]
    #: the file whose bytes are damaged by the byte-level cases (relative to the input folder)
    data_file: str
    #: "json" (list of row objects per file), "csv" (columns + rows) or "xlsx"
    kind: str
    #: how a row names its first image, for image cases: (files, ref) -> None
    set_image_ref: Callable[[dict[str, Any], str], None] | None = None
    #: the folder (relative to the input folder) image names are resolved in
    image_folder: str = "images"
    #: keys whose value may be any JSON (free metadata) or take several types
    free_keys: frozenset[str] = frozenset()
    multi_type: dict[str, frozenset[str]] = field(default_factory=dict)
    #: columns (csv/xlsx) that must not be empty
    required_columns: frozenset[str] = frozenset()
    #: (file, path in the first row, column length) for text stored in a String(n) column
    limited: tuple[tuple[str, tuple[Any, ...], int], ...] = ()
    #: columns kept in a judgment's free metadata (JSON there stores any text, NUL included)
    metadata_columns: frozenset[str] = frozenset()
    #: rows of this file may legitimately repeat (battles)
    duplicates_allowed: bool = False


def _set_canonical_image(files: dict[str, Any], ref: str) -> None:
    files["items.jsonl"][0]["images"][0] = {"path": ref}


def _set_visit_image(files: dict[str, Any], ref: str) -> None:
    row = files["visit.csv"][0]
    urls = json.loads(row["images"])
    urls[0] = "https://example.org/visit_images/" + quote(ref, safe="")
    row["images"] = json.dumps(urls)


def _set_preference_image(files: dict[str, Any], ref: str) -> None:
    files["preferences.csv"][0]["image_url"] = "https://example.org/i/" + quote(ref, safe="")


def _set_convbench_image(files: dict[str, Any], ref: str) -> None:
    files["ConvBench.xlsx"][0]["image_id"] = ref


def _set_battle_image(files: dict[str, Any], ref: str) -> None:
    for side in ("conversation_a", "conversation_b"):
        files["battles.jsonl"][0][side][0]["content"][1] = {"type": "image", "image": ref}


SPECS: dict[str, FormatSpec] = {
    spec.format: spec
    for spec in (
        FormatSpec(
            "jsonl",
            canonical_inputs,
            "items.jsonl",
            "json",
            set_image_ref=_set_canonical_image,
            free_keys=frozenset({"metadata"}),
            multi_type={"score": frozenset({"int", "float"})},
            limited=(
                ("items.jsonl", ("source",), 128),
                ("items.jsonl", ("id",), 256),
                ("items.jsonl", ("family",), 256),
                ("items.jsonl", ("language",), 64),
                ("items.jsonl", ("captions", 0, "kind"), 64),
                ("items.jsonl", ("turns", 0, "category"), 256),
                ("items.jsonl", ("outputs", 0, "model"), 256),
                ("items.jsonl", ("outputs", 0, "context"), 64),
                ("items.jsonl", ("judgments", 0, "criterion"), 64),
                ("items.jsonl", ("judgments", 0, "label"), 64),
                ("items.jsonl", ("judgments", 0, "rater"), 128),
                ("items.jsonl", ("judgments", 0, "group"), 256),
                ("items.jsonl", ("models", 0, "display_name"), 256),
            ),
        ),
        FormatSpec(
            "visit-bench",
            visit_inputs,
            "visit.csv",
            "csv",
            set_image_ref=_set_visit_image,
            required_columns=frozenset({"instruction_category", "images", "instruction"}),
            limited=(("visit.csv", ("instruction_category",), 256),),
        ),
        FormatSpec(
            "visit-bench-preferences",
            preference_inputs,
            "preferences.csv",
            "csv",
            set_image_ref=_set_preference_image,
            required_columns=frozenset(
                {"image_url", "instruction", "A", "B", "A_model", "B_model"}
            ),
            limited=(("preferences.csv", ("A_model",), 256),),
            metadata_columns=frozenset({"model_selection.A", "model_selection.B"}),
        ),
        FormatSpec(
            "convbench",
            convbench_inputs,
            "ConvBench.xlsx",
            "xlsx",
            set_image_ref=_set_convbench_image,
            required_columns=frozenset(CONVBENCH_COLUMNS),
            limited=(
                ("ConvBench.xlsx", ("instruction_category",), 256),
                ("ConvBench.xlsx", ("First_turn_instruction_category",), 256),
            ),
        ),
        FormatSpec(
            "wildvision-bench",
            wildvision_inputs,
            f"wildvision/{WILDVISION_JUDGMENTS}",
            "json",
            image_folder="",
            free_keys=frozenset({"user_prompt"}),
            limited=(
                (WILDVISION_ANSWERS, ("model",), 256),
                (WILDVISION_ANSWERS, ("language",), 64),
                (WILDVISION_JUDGMENTS, ("judge",), 128),
                (WILDVISION_BATTLES, ("model_b",), 256),
            ),
            duplicates_allowed=True,
        ),
        FormatSpec(
            "arena-battles",
            battles_inputs,
            "battles.jsonl",
            "json",
            set_image_ref=_set_battle_image,
            image_folder="",
            free_keys=frozenset({"category_tag"}),
            multi_type={
                "question_id": frozenset({"str", "int"}),
                "tstamp": frozenset({"int", "float"}),
                "judge": frozenset({"str", "list"}),
                "content": frozenset({"str", "list"}),
            },
            limited=(
                ("battles.jsonl", ("model_a",), 256),
                ("battles.jsonl", ("language",), 64),
                ("battles.jsonl", ("judge",), 128),
            ),
            duplicates_allowed=True,
        ),
    )
}
FORMATS = tuple(SPECS)


# --- cases --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One damaged input. ``must_refuse``: importing it would be wrong (an error or a rejection
    is the only right answer); otherwise importing it is right too, if ``check_import`` (when
    given) finds nothing wrong with what landed."""

    format: str
    damage: str
    name: str
    build: Build = field(repr=False)
    must_refuse: bool = True
    check_import: ImportCheck | None = field(default=None, repr=False)
    #: lowered read limits for the format's importer, so a bomb can be built small
    limits: ReadLimits | None = None
    #: a refusal must mention one of these (case-insensitive), e.g. what the payload really is
    refusal_mentions: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.format}:{self.damage}:{self.name}"


def built(spec: FormatSpec, edit: Callable[[dict[str, Any], Path], None] | None = None) -> Build:
    """A builder writing the spec's valid input after ``edit`` changed its data."""

    def build(root: Path) -> list[Path]:
        inputs = spec.inputs()
        if edit is not None:
            edit(inputs.files, root)
        return inputs.write(root, inputs.files)

    return build


def _then_damage(spec: FormatSpec, damage: Callable[[bytes], bytes], *, text: bool) -> Build:
    """A builder writing the valid input, then replacing the data file's bytes by
    ``damage(bytes)``; with ``text`` a gzip file is damaged inside and compressed again."""

    def build(root: Path) -> list[Path]:
        sources = built(spec)(root)
        path = root / spec.data_file
        raw = path.read_bytes()
        if text and path.name.endswith(".gz"):
            path.write_bytes(gzip.compress(damage(gzip.decompress(raw)), mtime=0))
        else:
            path.write_bytes(damage(raw))
        return sources

    return build


def _warned(*phrases: str) -> ImportCheck:
    """The import must have warned with one of ``phrases``."""

    def check(result: ImportResult, _bundle: Path) -> str | None:
        text = " ".join(str(w) for w in result.warnings).lower()
        if any(phrase.lower() in text for phrase in phrases):
            return None
        return f"imported without a warning mentioning {' or '.join(phrases)}"

    return check


def _longest_text_stored(chars: int) -> ImportCheck:
    def check(result: ImportResult, bundle: Path) -> str | None:
        with sqlite3.connect(bundle) as connection:
            longest = connection.execute(
                "SELECT max(n) FROM (SELECT max(length(prompt)) n FROM turns "
                "UNION ALL SELECT max(length(text)) FROM outputs "
                "UNION ALL SELECT max(length(text)) FROM captions "
                'UNION ALL SELECT max(length(text)) FROM "references")'
            ).fetchone()[0]
        connection.close()
        if longest is None or longest < chars:
            return f"the {chars}-character field was not stored whole (longest: {longest})"
        return None

    return check


def _is_line_boundary(data: bytes, cut: int) -> bool:
    """Whether cutting ``data`` at ``cut`` leaves only whole lines (so the shorter file is a
    valid file with fewer rows)."""
    head, rest = data[:cut], data[cut:]
    return cut == 0 or not rest.strip() or head.endswith(b"\n") or rest.startswith((b"\n", b"\r\n"))


def truncation_offsets(size: int, count: int) -> list[int]:
    """``count`` cut points spread over a file of ``size`` bytes, always including the very
    start and the last byte."""
    if size <= 1:
        return [0]
    points = {0, 1, size - 1, size // 2}
    rng = random.Random(size)
    while len(points) < min(count, size):
        points.add(rng.randrange(1, size))
    return sorted(points)


def _valid_data_file(spec: FormatSpec, scratch: Path) -> bytes:
    scratch.mkdir(parents=True, exist_ok=True)
    built(spec)(scratch)
    return (scratch / spec.data_file).read_bytes()


def _cut(raw: bytes, at: int) -> bytes:
    return raw[:at]


def _nul_inserted(raw: bytes, at: int) -> bytes:
    return raw[:at] + b"\x00" + raw[at:]


def byte_cases(spec: FormatSpec, offsets: int, scratch: Path) -> Iterator[Case]:
    """Damage to the data file as bytes: truncation at many offsets, garbage, encodings."""
    data = _valid_data_file(spec, scratch / f"valid-{spec.format}")
    compressed = spec.data_file.endswith(".gz")
    binary = spec.kind == "xlsx"
    plain = gzip.decompress(data) if compressed else data
    for cut in truncation_offsets(len(data), offsets):
        clean = cut == 0 or (not binary and not compressed and _is_line_boundary(data, cut))
        yield Case(
            spec.format,
            "truncated",
            f"cut-at-{cut}-of-{len(data)}",
            _then_damage(spec, partial(_cut, at=cut), text=False),
            # a CSV cut inside a row's last field still parses: only the missing line break
            # at its end tells, so a warning naming it is the right answer there
            must_refuse=not clean and spec.kind != "csv",
            # (a cut inside the header leaves a file with no rows, which imports nothing)
            check_import=None if clean else _warned("line break", "no data rows"),
        )
    rng = random.Random(zlib.crc32(spec.format.encode()))
    garbage = rng.randbytes(2048)
    yield Case(
        spec.format,
        "binary-garbage",
        "random-2k",
        _then_damage(spec, lambda _r: garbage, text=False),
    )
    yield Case(
        spec.format,
        "binary-garbage",
        "garbage-appended",
        _then_damage(spec, lambda raw: raw + b"\xff\xfe\x00" + garbage, text=False),
        must_refuse=not binary,
    )
    middle = len(data) // 2
    yield Case(
        spec.format,
        "binary-garbage",
        "byte-flipped",
        _then_damage(
            spec,
            lambda raw: raw[:middle] + bytes([raw[middle] ^ 0xA5]) + raw[middle + 1 :],
            text=False,
        ),
        must_refuse=False,
    )
    yield Case(
        spec.format,
        "empty",
        "zero-bytes",
        _then_damage(spec, lambda _r: b"", text=False),
        must_refuse=False,
    )
    if binary:
        yield Case(
            spec.format,
            "binary-garbage",
            "a-text-file",
            _then_damage(spec, lambda _r: b"ID,x\n1,2\n", text=False),
        )
        return
    yield Case(
        spec.format,
        "empty",
        "whitespace-only",
        _then_damage(spec, lambda _r: b" \n\n \r\n", text=True),
        must_refuse=False,
    )
    yield Case(
        spec.format,
        "encoding",
        "latin-1",
        _then_damage(spec, lambda raw: raw.decode("utf-8").encode("latin-1"), text=True),
    )
    yield Case(
        spec.format,
        "encoding",
        "utf-16-with-bom",
        _then_damage(spec, lambda raw: raw.decode("utf-8").encode("utf-16"), text=True),
    )
    yield Case(
        spec.format,
        "encoding",
        "utf-16-le-no-bom",
        _then_damage(spec, lambda raw: raw.decode("utf-8").encode("utf-16-le"), text=True),
    )
    yield Case(
        spec.format,
        "encoding",
        "utf-8-bom",
        _then_damage(spec, lambda raw: b"\xef\xbb\xbf" + raw, text=True),
        must_refuse=False,
    )
    yield Case(
        spec.format,
        "encoding",
        "crlf-line-ends",
        _then_damage(
            spec, lambda raw: raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), text=True
        ),
        must_refuse=False,
    )
    # inside a text value: the accented sample text, or the first JSON string value
    nul_at = plain.find(b"caf") if b"caf" in plain else plain.index(b'": "') + 4
    yield Case(
        spec.format,
        "encoding",
        "nul-byte-in-text",
        _then_damage(spec, partial(_nul_inserted, at=nul_at), text=True),
    )


WRONG_VALUES: tuple[tuple[str, Any], ...] = (
    ("null", None),
    ("true", True),
    ("zero", 0),
    ("minus-one", -1),
    ("int-2^63", 2**63),
    ("int-2^70", 2**70),
    ("float", 1.5),
    ("nan", math.nan),
    ("infinity", math.inf),
    ("empty-string", ""),
    ("blank-string", "  "),
    ("string", "x"),
    ("nul-string", "a\x00b"),
    ("lone-surrogate", "a\ud800b"),
    ("long-string", "y" * 300),
    ("empty-list", []),
    ("list", [1]),
    ("empty-object", {}),
    ("object", {"a": 1}),
    ("deep-list", [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]),
)


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}[
        type(value)
    ]


def json_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path inside a JSON value (first element of each list only)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*prefix, key)
            yield from json_paths(inner, (*prefix, key))
    elif isinstance(value, list) and value:
        yield (*prefix, 0)
        yield from json_paths(value[0], (*prefix, 0))


def get_path(root: Any, path: Sequence[Any]) -> Any:
    for step in path:
        root = root[step]
    return root


def set_path(root: Any, path: Sequence[Any], value: Any, *, delete: bool = False) -> None:
    parent = get_path(root, path[:-1])
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


def _path_name(path: Sequence[Any]) -> str:
    return ".".join(str(step) for step in path)


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def json_field_cases(spec: FormatSpec) -> Iterator[Case]:
    """Every field of the first row of each JSON file, replaced by each wrong value or removed."""
    files = spec.inputs().files
    for file_name, rows in files.items():
        for path in json_paths(rows[0]):
            original = get_path(rows[0], path)
            free = any(step in spec.free_keys for step in path[:-1])
            key = next((step for step in reversed(path) if isinstance(step, str)), "")
            allowed = spec.multi_type.get(key, frozenset({json_kind(original)}))
            for label, value in WRONG_VALUES:
                kind = json_kind(value)
                refuse = not free and kind != "null" and kind not in allowed

                def edit(
                    files: dict[str, Any],
                    _root: Path,
                    f: str = file_name,
                    p: Sequence[Any] = path,
                    v: Any = value,
                ) -> None:
                    set_path(files[f][0], p, v)

                yield Case(
                    spec.format,
                    "json-wrong-type" if kind not in allowed else "json-odd-value",
                    f"{file_name}:{_path_name(path)}={label}",
                    built(spec, edit),
                    must_refuse=refuse,
                )

            def remove(
                files: dict[str, Any], _root: Path, f: str = file_name, p: Sequence[Any] = path
            ) -> None:
                set_path(files[f][0], p, None, delete=True)

            yield Case(
                spec.format,
                "json-field-missing",
                f"{file_name}:{_path_name(path)}",
                built(spec, remove),
                must_refuse=False,
            )

        def row_as_list(files: dict[str, Any], _root: Path, f: str = file_name) -> None:
            files[f][0] = [1, 2]

        yield Case(
            spec.format,
            "json-wrong-type",
            f"{file_name}:row-is-a-list",
            built(spec, row_as_list),
        )
        yield Case(
            spec.format,
            "json-deep-nesting",
            f"{file_name}:100000-levels",
            _then_json_text(
                spec, file_name, lambda text: "[" * 100_000 + "]" * 100_000 + "\n" + text
            ),
        )


def _then_json_text(spec: FormatSpec, file_name: str, change: Callable[[str], str]) -> Build:
    def build(root: Path) -> list[Path]:
        sources = built(spec)(root)
        path = next(p for p in root.rglob("*") if p.as_posix().endswith(file_name))
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")
        _write_gz_or_plain(path, change(text))
        return sources

    return build


CELL_VALUES: tuple[tuple[str, Any], ...] = (
    ("empty", ""),
    ("blank", "   "),
    ("nan", "NaN"),
    ("none", "None"),
    ("null", "null"),
    ("nul-char", "a\x00b"),
    ("long-300", "z" * 300),
    ("json-list", "[1, 2]"),
    ("json-object", '{"a": 1}'),
    ("bool-text", "TRUE"),
    ("number", "-1"),
    ("quote-inside", 'say "hi"'),
    ("newlines", "line 1\nline 2\r\nline 3"),
    ("escape-url", "https://example.org/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd"),
    ("malformed-url", "http://[broken/x.png"),
    ("url-without-file", "https://example.org/"),
)


def csv_cases(spec: FormatSpec) -> Iterator[Case]:
    inputs = spec.inputs()
    data_file = spec.data_file
    for column in inputs.files["columns"]:
        for label, value in CELL_VALUES:
            empty = value.strip() in ("", "NaN")

            def edit(files: dict[str, Any], _root: Path, c: str = column, v: Any = value) -> None:
                files[data_file][0][c] = v

            yield Case(
                spec.format,
                "cell-missing" if empty or label in ("none", "null") else "cell-odd-value",
                f"{column}={label}",
                built(spec, edit),
                must_refuse=(empty and column in spec.required_columns)
                or (label == "nul-char" and column not in spec.metadata_columns),
            )

        def drop(files: dict[str, Any], _root: Path, c: str = column) -> None:
            files["columns"].remove(c)

        yield Case(
            spec.format,
            "column-missing",
            column,
            built(spec, drop),
            must_refuse=column in spec.required_columns,
        )
    yield Case(
        spec.format,
        "header",
        "repeated-column",
        built(spec, lambda files, _r: files["columns"].append(files["columns"][0])),
    )
    for name, change, refuse in (
        (
            "extra-field",
            lambda t: t.replace("\n", ",extra\n", 2).replace(",extra\n", "\n", 1),
            True,
        ),
        ("missing-field", lambda t: _drop_last_field_of_row(t, 2), True),
        ("unterminated-quote", lambda t: t.rstrip("\n") + ',"never closed\n', True),
        ("header-only", lambda t: t.splitlines(keepends=True)[0], False),
        ("blank-lines", lambda t: t.replace("\n", "\n\n"), False),
    ):
        yield Case(
            spec.format,
            "structure",
            name,
            _then_json_text(spec, data_file, change),
            must_refuse=refuse,
        )
    yield Case(
        spec.format,
        "duplicate-id",
        "row-repeated",
        built(spec, lambda files, _r: files[data_file].append(dict(files[data_file][0]))),
    )
    yield Case(
        spec.format,
        "huge-field",
        "10MB-instruction",
        built(
            spec,
            lambda files, _r: files[data_file][0].__setitem__(
                "instruction", "w" * HUGE_FIELD_CHARS
            ),
        ),
        must_refuse=False,
        check_import=_longest_text_stored(HUGE_FIELD_CHARS),
    )


def _drop_last_field_of_row(text: str, line: int) -> str:
    lines = text.split("\n")
    lines[line] = lines[line].rsplit(",", 1)[0]
    return "\n".join(lines)


XLSX_VALUES: tuple[tuple[str, Any], ...] = (
    ("none", None),
    ("empty", ""),
    ("blank", "   "),
    ("int", 12345),
    ("float", 1.5),
    ("bool", True),
    ("long-300", "z" * 300),
    ("date", "2024-01-01"),
)


def xlsx_cases(spec: FormatSpec) -> Iterator[Case]:
    import datetime

    values = (*XLSX_VALUES, ("datetime", datetime.datetime(2024, 1, 2, 3, 4, 5)))
    for column in CONVBENCH_COLUMNS:
        for label, value in values:
            empty = value is None or (isinstance(value, str) and not value.strip())
            refuse = empty or (
                column == "ID"
                and label in ("float", "bool", "long-300", "date", "datetime", "blank")
            )

            def edit(files: dict[str, Any], _root: Path, c: str = column, v: Any = value) -> None:
                files["ConvBench.xlsx"][0][c] = v

            yield Case(
                spec.format,
                "cell-missing" if empty else "cell-odd-value",
                f"{column}={label}",
                built(spec, edit),
                must_refuse=refuse,
            )

        def drop(files: dict[str, Any], _root: Path, c: str = column) -> None:
            files["columns"].remove(c)

        yield Case(spec.format, "column-missing", column, built(spec, drop))
    yield Case(
        spec.format,
        "duplicate-id",
        "ID-repeated",
        built(spec, lambda files, _r: files["ConvBench.xlsx"][1].__setitem__("ID", 1)),
    )
    yield Case(
        spec.format,
        "huge-field",
        "10MB-caption",
        built(
            spec,
            lambda files, _r: files["ConvBench.xlsx"][0].__setitem__(
                "first_turn_answer", "w" * HUGE_FIELD_CHARS
            ),
        ),
        must_refuse=False,
        # openpyxl, like Excel, keeps at most 32,767 characters of a cell when writing
        check_import=_longest_text_stored(XLSX_CELL_CHARS),
    )
    yield from _pairwise_cases(spec)


def _pairwise_cases(spec: FormatSpec) -> Iterator[Case]:
    def npy_bytes(array: Any) -> bytes:
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=True)
        return buffer.getvalue()

    valid = npy_bytes(np.asarray([0, 1, 1], dtype=np.int64))
    damaged: dict[str, bytes] = {
        "wrong-length": npy_bytes(np.asarray([0, 1], dtype=np.int64)),
        "value-2": npy_bytes(np.asarray([0, 2, 1], dtype=np.int64)),
        "floats": npy_bytes(np.asarray([0.0, 1.0, 1.0])),
        "2d": npy_bytes(np.zeros((3, 1), dtype=np.int64)),
        "pickled-objects": npy_bytes(np.asarray([0, "x", None], dtype=object)),
        "npz-archive": _npz_bytes(),
        "truncated": valid[: len(valid) - 5],
        "header-only": valid[:40],
        "garbage": random.Random(5).randbytes(300),
        "empty": b"",
        "zip-magic-garbage": b"PK\x03\x04" + random.Random(6).randbytes(100),
        "huge-shape-header": _npy_with_shape(10**13),
        "text": b"0\n1\n1\n",
    }
    for name, data in damaged.items():

        def build(root: Path, data: bytes = data) -> list[Path]:
            sources = built(spec)(root)
            (root / "pairwise.npy").write_bytes(data)
            return sources

        yield Case(spec.format, "pairwise-npy", name, build)


def _npz_bytes() -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, sides=np.asarray([0, 1, 1]))
    return buffer.getvalue()


def _npy_with_shape(length: int) -> bytes:
    header = f"{{'descr': '<i8', 'fortran_order': False, 'shape': ({length},), }}"
    header = header.ljust(118) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 24


def image_cases(spec: FormatSpec) -> Iterator[Case]:
    """Bad bytes where an image is expected, and references that try to leave the folder."""
    if spec.set_image_ref is None:
        return
    set_ref = spec.set_image_ref

    def canonical_prefix(ref: str) -> str:
        # the canonical format names images relative to the JSONL file, others by bare name
        return f"images/{ref}" if spec.format == "jsonl" else ref

    for name, make in BAD_IMAGES.items():

        def edit(files: dict[str, Any], root: Path, make: Callable[[], bytes] = make) -> None:
            folder = root / spec.image_folder
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "bad.png").write_bytes(make())
            set_ref(files, canonical_prefix("bad.png"))

        yield Case(spec.format, "image-not-an-image", name, built(spec, edit))

    def escape(
        kind: str,
        make_ref: Callable[[Path], str],
        refuse: bool = True,
        check: ImportCheck | None = None,
    ) -> Case:
        def edit(files: dict[str, Any], root: Path) -> None:
            set_ref(files, make_ref(root))

        return Case(
            spec.format,
            "image-path-escape",
            kind,
            built(spec, edit),
            must_refuse=refuse,
            check_import=check,
        )

    def link(target: Callable[[Path], Path], name: str = "link.png") -> Callable[[Path], str]:
        def make(root: Path) -> str:
            folder = root / spec.image_folder
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).symlink_to(target(root))
            return canonical_prefix(name)

        return make

    yield escape("dot-dot", lambda root: (_write_outside(root), "../outside/secret.png")[1])
    yield escape(
        "dot-dot-deep",
        lambda root: (_write_outside(root), canonical_prefix("../../outside/secret.png"))[1],
    )
    yield escape("absolute-outside", lambda root: str(_write_outside(root)))
    yield escape("absolute-etc-passwd", lambda _root: "/etc/passwd")
    yield escape("symlink-to-outside-file", link(_write_outside))
    yield escape(
        "symlink-to-outside-folder", link(lambda root: _write_outside(root).parent, "dir.png")
    )
    yield escape("symlink-to-etc-passwd", link(lambda _root: Path("/etc/passwd")))
    if spec.kind != "xlsx":  # a worksheet cannot hold a NUL character at all
        yield escape("nul-in-name", lambda _root: "a\x00b.png")
    yield escape("name-5000-chars", lambda _root: "n" * 5000 + ".png")
    yield Case(
        spec.format,
        "missing-file",
        "image-absent",
        built(spec, lambda files, _root: set_ref(files, canonical_prefix("absent.png"))),
        must_refuse=False,
        # arena battles count the missing images of a file in one warning
        check_import=_warned(
            "absent.png" if spec.format != "arena-battles" else "recorded as missing"
        ),
    )


def missing_file_cases(spec: FormatSpec) -> Iterator[Case]:
    def absent(root: Path) -> list[Path]:
        return [root / "does-not-exist" / Path(spec.data_file).name]

    def empty_folder(root: Path) -> list[Path]:
        folder = root / "empty"
        folder.mkdir()
        return [folder]

    yield Case(spec.format, "missing-file", "source-absent", absent)
    yield Case(spec.format, "missing-file", "empty-folder", empty_folder)
    if spec.format == "wildvision-bench":
        for role in ("model_answers", "model_judgements"):

            def without(root: Path, role: str = role) -> list[Path]:
                sources = built(spec)(root)
                shutil.rmtree(sources[0] / role)
                return sources

            yield Case(
                spec.format,
                "missing-file",
                f"no-{role}",
                without,
                must_refuse=role == "model_answers",
            )


def duplicate_json_cases(spec: FormatSpec) -> Iterator[Case]:
    files = spec.inputs().files
    for file_name in files:
        repeatable = spec.duplicates_allowed and "battles" in file_name

        def edit(files: dict[str, Any], _root: Path, f: str = file_name) -> None:
            files[f].append(_copy(files[f][0]))

        yield Case(
            spec.format,
            "duplicate-id",
            f"{file_name}:row-repeated",
            built(spec, edit),
            must_refuse=not repeatable,
        )


def huge_json_cases(spec: FormatSpec) -> Iterator[Case]:
    key = {"jsonl": ("turns", 0, "prompt"), "wildvision-bench": ("output",)}.get(
        spec.format, ("conversation_a", 1, "content")
    )
    file_name = (
        next(iter(spec.inputs().files)) if spec.format != "wildvision-bench" else WILDVISION_ANSWERS
    )

    def edit(files: dict[str, Any], _root: Path) -> None:
        set_path(files[file_name][0], key, "w" * HUGE_FIELD_CHARS)

    yield Case(
        spec.format,
        "huge-field",
        "10MB-text",
        built(spec, edit),
        must_refuse=False,
        check_import=_longest_text_stored(HUGE_FIELD_CHARS),
    )


def too_long_cases(spec: FormatSpec) -> Iterator[Case]:
    """Text longer than its column: SQLite would keep it, PostgreSQL refuses it; both refuse."""
    for file_name, path, length in spec.limited:

        def edit(
            files: dict[str, Any],
            _root: Path,
            f: str = file_name,
            p: Sequence[Any] = path,
            n: int = length,
        ) -> None:
            rows = files[f]
            set_path(rows[0], p, "L" * (n + 1))

        yield Case(
            spec.format, "too-long-for-column", f"{_path_name(path)}>{length}", built(spec, edit)
        )


#: a PostScript program posing as an image; Pillow would hand it to Ghostscript if allowed to
EPS_PAYLOAD = (
    b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n"
    b"(fuzz-eps-ran) print flush\nshowpage\n%%EOF\n"
)
#: a lowered image cap, so an image over the limit can be built small
SMALL_IMAGE_LIMITS = ReadLimits(max_image_bytes=1_000)


def _noise_png(size: int = 64) -> bytes:
    """A valid PNG that does not compress below a few KB."""
    pixels = np.random.default_rng(5).integers(0, 256, (size, size, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def hostile_cases(spec: FormatSpec) -> Iterator[Case]:
    """Hostile inputs: programs posing as images, size and inflation bombs built
    against lowered limits, references to images and turns that do not exist, a model judged
    against itself, an image folder that leaves the source, and a few more of our own."""
    if spec.set_image_ref is not None:
        set_ref = spec.set_image_ref
        prefix = "images/" if spec.format == "jsonl" else ""

        def image_file(
            data: bytes, name: str = "bad.png"
        ) -> Callable[[dict[str, Any], Path], None]:
            def edit(files: dict[str, Any], root: Path) -> None:
                folder = root / spec.image_folder
                folder.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
                set_ref(files, prefix + name)

            return edit

        yield Case(
            spec.format,
            "hostile-image",
            "eps-file-named-png",
            built(spec, image_file(EPS_PAYLOAD)),
            refusal_mentions=("PostScript", "EPS"),
        )
        yield Case(
            spec.format,
            "hostile-image",
            "image-over-size-limit",
            built(spec, image_file(_noise_png())),
            limits=SMALL_IMAGE_LIMITS,
        )

        def directory_as_image(files: dict[str, Any], root: Path) -> None:
            (root / spec.image_folder / "dir.png").mkdir(parents=True)
            set_ref(files, prefix + "dir.png")

        def symlink_loop(files: dict[str, Any], root: Path) -> None:
            folder = root / spec.image_folder
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "loop.png").symlink_to(folder / "loop.png")
            set_ref(files, prefix + "loop.png")

        # our own: names that exist but are no readable file at all
        for name, edit in (
            ("directory-named-png", directory_as_image),
            ("symlink-loop", symlink_loop),
        ):
            yield Case(
                spec.format,
                "hostile-image",
                name,
                built(spec, edit),
                must_refuse=False,
                check_import=_warned("dir.png", "loop.png", "recorded as missing"),
            )
    if spec.format == "jsonl":

        def embedded_eps(files: dict[str, Any], _root: Path) -> None:
            encoded = base64.b64encode(EPS_PAYLOAD).decode("ascii")
            files["items.jsonl"][0]["images"][0] = {"base64": encoded}

        yield Case(
            spec.format,
            "hostile-image",
            "eps-base64",
            built(spec, embedded_eps),
            refusal_mentions=("PostScript", "EPS"),
        )
        for name, path, value in (
            ("caption-image-5-of-1", ("captions", 0, "image"), 5),
            ("caption-image-minus-1", ("captions", 0, "image"), -1),
            ("judgment-turn-99-of-1", ("judgments", 0, "turn"), 99),
            ("judgment-model-against-itself", ("judgments", 0, "model_b"), "model-one"),
            # our own: an output for a turn the item does not have
            ("output-turn-99-of-1", ("outputs", 0, "turn"), 99),
        ):

            def dangle(
                files: dict[str, Any], _root: Path, p: Sequence[Any] = path, v: Any = value
            ) -> None:
                set_path(files["items.jsonl"][0], p, v)

            yield Case(spec.format, "dangling-reference", name, built(spec, dangle))
    if spec.format in ("visit-bench", "convbench"):

        def folder_outside(root: Path) -> list[Path]:
            sources = built(spec)(root)
            outside = root.parent / "outside-images"
            (root / "images").rename(outside)
            (root / "images").symlink_to(outside, target_is_directory=True)
            return sources

        yield Case(spec.format, "image-path-escape", "images-folder-symlink-out", folder_outside)
    if spec.format == "convbench":
        # an xlsx is a zip: its parts inflate past a lowered cap (a zip bomb, built small)
        yield Case(
            spec.format,
            "decompression-bomb",
            "xlsx-past-cap",
            built(spec),
            limits=ReadLimits(max_decompressed_bytes=10_000),
        )
    if spec.format == "wildvision-bench":
        # its .jsonl.gz files inflate past a lowered cap (a 3 MB gzip of 3 GB, built small)
        yield Case(
            spec.format,
            "decompression-bomb",
            "jsonl-gz-past-cap",
            built(spec),
            limits=ReadLimits(max_decompressed_bytes=200),
        )


# --- table files: parquet footers, Arrow buffers, dataset-folder shapes --------------------------


def _table_rows() -> tuple[JsonRows, Any]:
    return vision_arena_battles(), VISION_ARENA_BATTLE


def _write_table_parquet(root: Path, name: str = "battles.parquet", **options: Any) -> Path:
    rows, schema = _table_rows()
    return write_parquet(root / name, rows, schema, **options)


def _write_table_arrow(root: Path) -> Path:
    rows, schema = _table_rows()
    return write_save_to_disk(root, rows, schema)


ARROW_SHARD = "data-00000-of-00001.arrow"


def _damaged_table(
    write: Callable[[Path], Path], relative: str, damage: Callable[[bytes], bytes]
) -> Build:
    def build(root: Path) -> list[Path]:
        source = write(root)
        path = root / relative
        path.write_bytes(damage(path.read_bytes()))
        return [source]

    return build


def _put_int32(position: int, value: int) -> Callable[[bytes], bytes]:
    def damage(data: bytes) -> bytes:
        out = bytearray(data)
        out[position : position + 4] = struct.pack("<i", value)
        return bytes(out)

    return damage


def _imported_battles(count: int) -> ImportCheck:
    def check(result: ImportResult, bundle: Path) -> str | None:
        with sqlite3.connect(f"file:{bundle}?mode=ro", uri=True) as connection:
            found = connection.execute(
                "SELECT count(*) FROM prior_judgments WHERE import_id = ?", (result.import_id,)
            ).fetchone()[0]
        return None if found == count else f"{found} battles imported, expected {count}"

    return check


def _dictionary_bomb(root: Path, value_chars: int, rows: int) -> Path:
    """One long answer stored once in a parquet dictionary and referred to by every row: a few
    KB on disk, ``value_chars * rows`` once decoded row by row."""
    content = pa.DictionaryArray.from_arrays(
        pa.array([0, 1] * rows, pa.int32()), pa.array(["What is shown?", "x" * value_chars])
    )
    role = pa.array(["user", "assistant"] * rows)
    turns = pa.StructArray.from_arrays([role, content], names=["role", "content"])
    conversation = pa.ListArray.from_arrays(pa.array(range(0, 2 * rows + 1, 2), pa.int32()), turns)
    table = pa.table(
        {
            "question_id": [f"q{n}" for n in range(rows)],
            "model_a": ["vlm-a"] * rows,
            "model_b": ["vlm-b"] * rows,
            "winner": ["tie"] * rows,
            "conversation_a": conversation,
            "conversation_b": conversation,
        }
    )
    path = root / "bomb.parquet"
    pq.write_table(table, path, compression="zstd", row_group_size=rows)
    return path


def table_cases(scratch: Path, positions: int = 40) -> Iterator[Case]:
    """Parquet and Arrow files as Hugging Face datasets leave them, damaged where a reader trusts
    them: the parquet footer (row counts, sizes, offsets), the Arrow buffers (offsets, lengths,
    indices), what they declare against lowered limits, and the shapes a dataset folder takes."""
    fmt = "arena-battles"
    sample_folder = scratch / "table-sample"
    sample_folder.mkdir(parents=True, exist_ok=True)
    parquet = _write_table_parquet(sample_folder).read_bytes()
    arrow = (_write_table_arrow(sample_folder / "arrow") / ARROW_SHARD).read_bytes()

    # the footer: its length is the 4 bytes before the closing magic
    footer_length = struct.unpack("<i", parquet[-8:-4])[0]
    footer_start = len(parquet) - 8 - footer_length
    for position in sorted(set(np.linspace(footer_start, len(parquet) - 9, positions, dtype=int))):
        for label, value in (("huge", 0x7FFFFFF0), ("negative", -100_000)):
            yield Case(
                fmt,
                "parquet-footer",
                f"int32-{label}-at-{position}",
                _damaged_table(
                    _write_table_parquet, "battles.parquet", _put_int32(int(position), value)
                ),
                must_refuse=False,
            )
    for cut in (
        len(parquet) - 4,
        len(parquet) - 8,
        footer_start + footer_length // 2,
        footer_start,
    ):
        yield Case(
            fmt,
            "parquet-footer",
            f"cut-at-{cut}",
            _damaged_table(_write_table_parquet, "battles.parquet", partial(_cut, at=cut)),
        )

    def arrow_folder(root: Path) -> Path:
        return _write_table_arrow(root / "dataset")

    shard = f"dataset/{ARROW_SHARD}"
    for position in sorted(set(np.linspace(8, len(arrow) - 4, positions, dtype=int) // 4 * 4)):
        for label, value in (("huge", 0x7FFFFFF0), ("negative", -100_000)):
            yield Case(
                fmt,
                "arrow-buffer",
                f"int32-{label}-at-{position}",
                _damaged_table(arrow_folder, shard, _put_int32(int(position), value)),
                must_refuse=False,
            )
    for cut in np.linspace(1, len(arrow) - 1, 8, dtype=int):
        yield Case(
            fmt,
            "arrow-buffer",
            f"cut-at-{cut}",
            _damaged_table(arrow_folder, shard, partial(_cut, at=int(cut))),
            must_refuse=False,
        )

    # what the file declares, against lowered limits (the real limits' bombs, built small)
    def parquet_only(root: Path) -> list[Path]:
        return [_write_table_parquet(root)]

    def arrow_only(root: Path) -> list[Path]:
        return [arrow_folder(root)]

    yield Case(
        fmt, "table-limits", "parquet-rows-over-limit", parquet_only, limits=ReadLimits(max_rows=2)
    )
    yield Case(
        fmt, "table-limits", "arrow-rows-over-limit", arrow_only, limits=ReadLimits(max_rows=2)
    )
    yield Case(
        fmt,
        "table-limits",
        "parquet-column-inflates-over-limit",
        parquet_only,
        limits=ReadLimits(max_decompressed_bytes=100),
    )
    yield Case(
        fmt,
        "table-limits",
        "dictionary-value-repeated-over-rows",
        lambda root: [_dictionary_bomb(root, 20_000, 400)],
        limits=ReadLimits(max_table_bytes=1_000_000),
    )
    yield Case(
        fmt,
        "table-limits",
        "row-decodes-over-limit",
        lambda root: [_dictionary_bomb(root, 20_000, 4)],
        limits=ReadLimits(max_line_bytes=10_000),
    )

    # dataset folders
    def parquet_and_arrow_copy(root: Path) -> list[Path]:
        folder = root / "dataset"
        _write_table_parquet(folder, "data/test-00000-of-00001.parquet")
        _write_table_arrow(folder / "saved")
        return [folder]

    yield Case(
        fmt,
        "dataset-folder",
        "same-battles-as-parquet-and-arrow",
        parquet_and_arrow_copy,
        must_refuse=False,
        check_import=_imported_battles(3),
    )

    def empty_shard(kind: str) -> Build:
        def build(root: Path) -> list[Path]:
            folder = root / "dataset"
            _write_table_parquet(folder, "data/test-00000-of-00002.parquet")
            (folder / "data" / f"test-00001-of-00002.{kind}").write_bytes(b"")
            return [folder]

        return build

    yield Case(fmt, "dataset-folder", "empty-parquet-shard", empty_shard("parquet"))
    yield Case(fmt, "dataset-folder", "empty-arrow-shard", empty_shard("arrow"))

    def dangling_shard(root: Path) -> list[Path]:
        folder = root / "dataset"
        _write_table_parquet(folder, "data/test-00000-of-00002.parquet")
        (folder / "data" / "test-00001-of-00002.parquet").symlink_to(root / "gone.parquet")
        return [folder]

    yield Case(
        fmt,
        "dataset-folder",
        "dangling-shard-link",
        dangling_shard,
        must_refuse=False,
        check_import=_imported_battles(3),
    )

    def folder_named_like_a_shard(root: Path) -> list[Path]:
        folder = root / "dataset"
        (folder / "data" / "test-00000-of-00001.parquet").mkdir(parents=True)
        return [folder]

    yield Case(fmt, "dataset-folder", "folder-named-parquet", folder_named_like_a_shard)

    def text_named_arrow(root: Path) -> list[Path]:
        folder = arrow_folder(root)
        (folder / ARROW_SHARD).write_text("not arrow", encoding="utf-8")
        return [folder]

    yield Case(fmt, "dataset-folder", "text-named-arrow", text_named_arrow)

    def garbage_state(root: Path) -> list[Path]:
        folder = arrow_folder(root)
        (folder / "state.json").write_text("{", encoding="utf-8")
        (folder / "dataset_info.json").write_bytes(b"\xff\xfe")
        return [folder]

    yield Case(
        fmt,
        "dataset-folder",
        "damaged-state-json",
        garbage_state,
        must_refuse=False,
        check_import=_imported_battles(3),
    )

    def arrow_file_format(root: Path) -> list[Path]:
        rows, schema = _table_rows()
        folder = root / "dataset"
        folder.mkdir()
        table = pa.Table.from_pylist(rows, schema=schema)
        with (
            pa.OSFile(str(folder / "battles.arrow"), "wb") as sink,
            pa.ipc.new_file(sink, schema) as writer,
        ):
            writer.write_table(table, max_chunksize=1)
        return [folder]

    yield Case(
        fmt,
        "dataset-folder",
        "arrow-file-format",
        arrow_file_format,
        must_refuse=False,
        check_import=_imported_battles(3),
    )


def all_cases(scratch: Path, truncation_offsets_per_file: int = 40) -> list[Case]:
    """The whole corpus. ``scratch`` is a folder for the valid files the offsets are taken from."""
    cases: list[Case] = []
    for spec in SPECS.values():
        cases.extend(byte_cases(spec, truncation_offsets_per_file, scratch))
        if spec.kind == "json":
            cases.extend(json_field_cases(spec))
            cases.extend(duplicate_json_cases(spec))
            cases.extend(huge_json_cases(spec))
        elif spec.kind == "csv":
            cases.extend(csv_cases(spec))
        else:
            cases.extend(xlsx_cases(spec))
        cases.extend(image_cases(spec))
        cases.extend(missing_file_cases(spec))
        cases.extend(too_long_cases(spec))
        cases.extend(hostile_cases(spec))
    cases.extend(table_cases(scratch))
    for file_name in ("battles.json", "battles.jsonl.gz", "battles.json.gz"):
        variant = FormatSpec("arena-battles", partial(battles_inputs, file_name), file_name, "json")
        for case in byte_cases(variant, 6, scratch):
            cases.append(
                Case(
                    case.format,
                    case.damage,
                    f"{file_name}:{case.name}",
                    case.build,
                    case.must_refuse,
                    case.check_import,
                )
            )
    names = [case.id for case in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return cases


def sample(cases: Sequence[Case], per_group: int, seed: int = 0) -> list[Case]:
    """Up to ``per_group`` cases of each (format, damage) pair, chosen reproducibly."""
    groups: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        groups.setdefault((case.format, case.damage), []).append(case)
    rng = random.Random(seed)
    chosen: list[Case] = []
    for members in groups.values():
        chosen.extend(members if len(members) <= per_group else rng.sample(members, per_group))
    return chosen


# --- judge answers for the verdict parsers ------------------------------------------------------

#: pieces of verdict formats, mixed with random text so the parsers' patterns are exercised
VERDICT_PIECES = (
    "[[",
    "]]",
    "[[A>>B]]",
    "[[B>A]]",
    "[[A=B]]",
    "[[A]]",
    "[[tie]]",
    "[[7]]",
    "[[11]]",
    "A",
    "B",
    "Unknown",
    "Overall",
    "Overall, Response A is better.",
    "Overall, Response B is better.",
    "Turn 1",
    "Turn 2 score:",
    "Hallucination:",
    "**",
    "`",
    ":",
    "\n",
    " ",
    ">>",
    "=",
)


def random_judge_text(rng: random.Random, pieces: int = 30) -> str:
    """A judge answer as damaged output may look: verdict pieces and random characters."""
    parts = []
    for _ in range(rng.randrange(pieces + 1)):
        if rng.random() < 0.5:
            parts.append(rng.choice(VERDICT_PIECES))
        else:
            parts.append(
                "".join(
                    chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x10FFFF))))
                    for _ in range(rng.randrange(12))
                )
            )
    return "".join(parts)


# --- running a case -----------------------------------------------------------------------------


def make_base_bundle(folder: Path) -> Path:
    """An existing bundle with some content, which failed imports must leave byte-identical."""
    inputs = canonical_inputs()
    for row in inputs.files["items.jsonl"]:
        row["source"] = "existing"
    root = folder / "base-input"
    root.mkdir(parents=True)
    sources = inputs.write(root, inputs.files)
    bundle = folder / "base.wbb"
    import_files(bundle, sources, "jsonl")
    return bundle


@dataclass
class Attempt:
    """One import of a case's input into one bundle."""

    target: str  # "new" or "existing"
    outcome: str  # "error", "rejected", "imported" or "crash"
    message: str = ""
    failures: list[str] = field(default_factory=list)


@dataclass
class CaseRun:
    case: Case
    attempts: list[Attempt]

    @property
    def failures(self) -> list[str]:
        return [f"{a.target}: {failure}" for a in self.attempts for failure in a.failures]

    @property
    def outcome(self) -> str:
        """The worse of the two attempts' outcomes."""
        order = ("crash", "imported", "error", "rejected")
        return min((a.outcome for a in self.attempts), key=order.index)

    @property
    def bundle_unchanged(self) -> bool | None:
        existing = next(a for a in self.attempts if a.target == "existing")
        if existing.outcome == "imported":
            return None
        return not any("changed" in failure for failure in existing.failures)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files_in(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir()}


def _message_problems(error: WorkbenchError, sources: Sequence[Path]) -> list[str]:
    text = str(error)
    problems = []
    if "Traceback" in text:
        problems.append("the message holds a traceback")
    if not text.strip():
        problems.append("the message is empty")
    if isinstance(error, ImportRejectedError):
        for problem in error.problems:
            if problem.file in ("", "?"):
                problems.append(f"a problem names no file: {problem}")
            if "\n" in problem.reason or len(problem.reason) > MAX_REASON_CHARS:
                problems.append(f"a reason is not one short line: {problem.reason[:200]!r}...")
    else:
        first = text.splitlines()[0] if text else ""
        if len(first) > MAX_REASON_CHARS:
            problems.append(f"the message is not one short line: {first[:200]!r}...")
        names = {part for source in sources for part in (source.name, str(source))}
        # a file inside a source folder, named as the report names it (relative to the folder)
        names |= {
            str(path.relative_to(source))
            for source in sources
            if source.is_dir()
            for path in source.rglob("*")
            if path.is_file()
        }
        if not any(name and name in text for name in names):
            problems.append(f"the message names none of the files: {text[:200]!r}")
    return problems


def _plugins_for(case: Case) -> Registry | None:
    """The registry to import ``case`` with: the default one, or its importer given lower limits."""
    if case.limits is None:
        return None
    importer = copy.copy(registry().importer(case.format))
    importer.limits = case.limits
    lowered = Registry()
    lowered.add(Plugin("fuzz-limits", "1", "lowered read limits", importers=(importer,)))
    return lowered


def _attempt(case: Case, target: str, bundle: Path, sources: Sequence[Path]) -> Attempt:
    folder = bundle.parent
    existed = bundle.exists()
    before_digest = _digest(bundle) if existed else None
    before_files = _files_in(folder)
    attempt = Attempt(target, "imported")
    try:
        result = import_files(bundle, sources, case.format, plugins=_plugins_for(case))
    except WorkbenchError as error:
        attempt.outcome = "rejected" if isinstance(error, ImportRejectedError) else "error"
        attempt.message = str(error)
        attempt.failures.extend(_message_problems(error, sources))
        said = " ".join([str(error), *map(str, getattr(error, "problems", ()))]).lower()
        if case.refusal_mentions and not any(
            phrase.lower() in said for phrase in case.refusal_mentions
        ):
            wanted = " or ".join(case.refusal_mentions)
            attempt.failures.append(f"the refusal does not mention {wanted}: {attempt.message!r}")
    except Exception as error:  # the fuzz harness exists to catch exactly these
        attempt.outcome = "crash"
        attempt.message = f"{type(error).__name__}: {str(error)[:300]}"
        frames = traceback.extract_tb(error.__traceback__)
        where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
        attempt.failures.append(f"unexpected {type(error).__name__} at {where}: {str(error)[:200]}")
        return attempt
    else:
        if case.must_refuse:
            attempt.failures.append("imported an input that must be refused")
        elif case.check_import is not None:
            problem = case.check_import(result, bundle)
            if problem:
                attempt.failures.append(problem)
        return attempt
    if existed and _digest(bundle) != before_digest:
        attempt.failures.append("the existing bundle changed")
    left = _files_in(folder) - before_files
    if left:
        attempt.failures.append(f"files left behind: {sorted(left)}")
    return attempt


def run_case(case: Case, workdir: Path, base_bundle: Path) -> CaseRun:
    """Build the case's input in ``workdir`` and import it into a new bundle and into a copy of
    ``base_bundle``."""
    root = workdir / "input"
    root.mkdir(parents=True)
    try:
        sources = case.build(root)
    except Exception as error:  # a broken corpus entry must be visible, not a skipped case
        raise RuntimeError(f"building {case.id} failed: {error}") from error
    new_folder = workdir / "new"
    new_folder.mkdir()
    existing_folder = workdir / "existing"
    existing_folder.mkdir()
    existing = existing_folder / "existing.wbb"
    shutil.copyfile(base_bundle, existing)
    attempts = [
        _attempt(case, "new", new_folder / "fresh.wbb", sources),
        _attempt(case, "existing", existing, sources),
    ]
    return CaseRun(case, attempts)
