"""A bundle with one campaign per installed protocol, for the annotation view's tests.

Built through the canonical JSONL importer (``tests.services.campaign_helpers``); its model ids
are moved to large, distinctive numbers so that a test can look for them as strings (ids 1, 2,
3 would match "Response 1").
"""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path
from typing import Any

from tests.importers.canonical_helpers import item_line, png_bytes, write_jsonl
from tests.services.campaign_helpers import MODELS, build_campaign_bundle
from workbench.plugins import registry
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.storage import Bundle

MODEL_ID_OFFSET = 918_270
ANNOTATORS = ("ana", "bob")
#: tables and columns that name a model by id
MODEL_ID_COLUMNS = (
    ("outputs", "model_id"),
    ("prior_judgments", "model_a_id"),
    ("prior_judgments", "model_b_id"),
)


def _move_model_ids(path: Path) -> None:
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA foreign_keys = OFF")
        with connection:
            connection.execute("UPDATE models SET id = id + ?", (MODEL_ID_OFFSET,))
            for table, column in MODEL_ID_COLUMNS:
                connection.execute(
                    f"UPDATE {table} SET {column} = {column} + ? WHERE {column} IS NOT NULL",
                    (MODEL_ID_OFFSET,),
                )
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        connection.close()


def build_annotation_bundle(folder: Path) -> Path:
    """Two items with two turns each, three models, and a campaign named after each protocol
    (seed 3, all pairs)."""
    path = build_campaign_bundle(folder, items=2, models=MODELS[:3])
    _move_model_ids(path)
    with Bundle.open(path) as bundle:
        for handle in ANNOTATORS:
            add_annotator(bundle, handle)
        for protocol in registry().protocols():
            create_campaign(bundle, CampaignSpec(protocol.name, protocol.name, seed=3))
    return path


def forbidden_strings(path: Path) -> list[str]:
    """What must never appear in the annotation view: every model's name and id."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("SELECT id, name FROM models").fetchall()
    finally:
        connection.close()
    assert rows and all(model_id > MODEL_ID_OFFSET for model_id, _ in rows)
    return [str(model_id) for model_id, _ in rows] + [name for _, name in rows]


def image_item(item_id: str, images: int, width: int, models: tuple[str, ...]) -> dict[str, Any]:
    """A one-turn item with ``images`` inline images ``width`` pixels wide (so each item's
    images can be told apart by size), no family or language (optional fields left out)."""
    line = item_line(
        item_id,
        images=[
            {"base64": base64.b64encode(png_bytes("navy", (width + i, 30))).decode()}
            for i in range(images)
        ],
        captions=[{"text": f"Caption of {item_id}."}],
        turns=[{"prompt": f"What is in {item_id}?"}],
        outputs=[{"model": m, "text": f"{item_id} by variant {n}."} for n, m in enumerate(models)],
        judgments=[],
    )
    del line["family"], line["language"]
    return line


def build_image_bundle(folder: Path, protocol: str = "arena-battle") -> Path:
    """Three items of 1, 3 and 10 images (widths 100, 200, 300 px) and one campaign named after
    ``protocol``, annotator "ana"."""
    models = MODELS[:2]
    counts = (1, 3, 10)
    lines = [image_item(f"img{n}", count, 100 * (n + 1), models) for n, count in enumerate(counts)]
    source = write_jsonl(folder / "src", lines)
    path = folder / "images.wbb"
    import_files(path, [source], "jsonl")
    with Bundle.open(path) as bundle:
        add_annotator(bundle, "ana")
        create_campaign(bundle, CampaignSpec(protocol, protocol, seed=1))
    return path
