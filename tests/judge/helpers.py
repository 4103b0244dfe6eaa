"""Small synthetic bundles and a registry with every built-in judge template, for the judge
tests (content is made up and written to tmp_path; real data is read from ../shared/data)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench_arena.judge_templates import JUDGE_TEMPLATES as ARENA
from workbench_chirp.judge_templates import JUDGE_TEMPLATES as CHIRP
from workbench_convbench.judge_templates import JUDGE_TEMPLATES as CONVBENCH
from workbench_visit_bench.judge_templates import JUDGE_TEMPLATES as VISIT_BENCH

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.plugins import Plugin, Registry, load_registry
from workbench.services.importing import import_files

ALL_TEMPLATES = (*VISIT_BENCH, *ARENA, *CONVBENCH, *CHIRP)
FAKE_KEY = "sk-fake-4f9c2a7e1b3d5c6a8e0f"


def registry_with_all_templates() -> Registry:
    """The installed plugins, plus the built-in judge templates their manifests do not list
    yet."""
    registry = load_registry()
    known = {template.name for template in registry.judge_templates()}
    missing = tuple(t for t in ALL_TEMPLATES if t.name not in known)
    if missing:
        registry.add(
            Plugin("test-judge-templates", "0", "built-in templates", judge_templates=missing)
        )
    return registry


def judge_item(
    item_id: str, models: tuple[str, ...], turns: int = 1, **extra: object
) -> dict[str, Any]:
    return item_line(
        item_id,
        captions=[
            {"text": f"A photo for {item_id}.", "kind": "instruction-conditioned", "image": 0}
        ],
        turns=[
            {
                "prompt": f"Question {turn} about {item_id}?",
                "focus_points": "Mention the colour." if turn == turns else None,
                "references": [
                    {"text": f"Reference {turn} for {item_id}.", "kind": "human-verified"}
                ],
            }
            for turn in range(1, turns + 1)
        ],
        outputs=[
            {"model": model, "turn": turn, "text": f"{model} answers {turn} on {item_id}."}
            for model in models
            for turn in range(1, turns + 1)
        ],
        judgments=[],
        **extra,
    )


def build_bundle(
    folder: Path,
    items: int,
    models: tuple[str, ...] = ("model-one", "model-two"),
    turns: int = 1,
    name: str = "judge.wbb",
    metadata: list[dict[str, Any]] | None = None,
) -> Path:
    lines = [
        judge_item(f"q{n:04d}", models, turns, **({"metadata": metadata[n]} if metadata else {}))
        for n in range(items)
    ]
    source = write_jsonl(folder / "src", lines)
    bundle = folder / name
    import_files(bundle, [source], "jsonl")
    return bundle
