"""Small synthetic bundles for the campaign tests, built through the canonical JSONL importer:
items with two turns, references and captions, answered by a few models with distinctive names
(so a leak of one into a blind task is easy to find)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, overload

from workbench_arena.protocols import PROTOCOLS as ARENA
from workbench_chirp.protocols import PROTOCOLS as CHIRP
from workbench_convbench.protocols import PROTOCOLS as CONVBENCH
from workbench_visit_bench.protocols import PROTOCOLS as VISIT_BENCH

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.plugins import Plugin, Registry, load_registry
from workbench.services.blind_tasks import TaskTurn
from workbench.services.importing import import_files

MODELS = ("alphavision-7b", "betachat-13b", "gammaomni-xl", "deltalens-2")
ALL_PROTOCOLS = (*VISIT_BENCH, *ARENA, *CHIRP, *CONVBENCH)


def registry_with_all_protocols() -> Registry:
    """The installed plugins, plus the built-in protocols their manifests do not list yet."""
    registry = load_registry()
    known = {protocol.name for protocol in registry.protocols()}
    missing = tuple(protocol for protocol in ALL_PROTOCOLS if protocol.name not in known)
    if missing:
        registry.add(Plugin("test-protocols", "0", "built-in protocols", protocols=missing))
    return registry


def campaign_item(item_id: str, models: tuple[str, ...], turns: int = 2) -> dict[str, Any]:
    outputs = [
        {"model": model, "turn": turn, "text": f"Answer {turn} to {item_id}, variant {n}."}
        for n, model in enumerate(models)
        for turn in range(1, turns + 1)
    ]
    return item_line(
        item_id,
        turns=[
            {
                "prompt": f"Question {turn} about {item_id}?",
                "references": [{"text": f"Reference answer {turn} for {item_id}."}],
            }
            for turn in range(1, turns + 1)
        ],
        outputs=outputs,
        judgments=[],
    )


@overload
def build_campaign_bundle(
    folder: Path,
    items: int = ...,
    models: tuple[str, ...] = ...,
    turns: int = ...,
    name: str = ...,
    into: None = None,
) -> Path: ...
@overload
def build_campaign_bundle(
    folder: Path,
    items: int = ...,
    models: tuple[str, ...] = ...,
    turns: int = ...,
    name: str = ...,
    *,
    into: Path | str,
) -> Path | str: ...
def build_campaign_bundle(
    folder: Path,
    items: int = 6,
    models: tuple[str, ...] = MODELS,
    turns: int = 2,
    name: str = "bundle.wbb",
    into: Path | str | None = None,
) -> Path | str:
    """Write the source files under ``folder`` and import them into ``into`` (a file path or a
    server URL), by default into ``folder / name``."""
    lines = [campaign_item(f"q{n:03d}", models, turns) for n in range(items)]
    source = write_jsonl(folder / "src", lines)
    bundle = into if into is not None else folder / name
    import_files(bundle, [source], "jsonl")
    return bundle


def same_task(turns: tuple[TaskTurn, ...], others: tuple[TaskTurn, ...]) -> bool:
    """The same task, whichever order its two answers are shown in."""
    return [(t.prompt, sorted(t.responses)) for t in turns] == [
        (t.prompt, sorted(t.responses)) for t in others
    ]
