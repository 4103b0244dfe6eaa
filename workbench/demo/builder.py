"""Writing the demo bundle: the items become a canonical JSONL file with PNGs beside it, which
goes through the same import service users run, into a temporary bundle that replaces the
target only once it is complete."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import uuid
from pathlib import Path
from typing import Any

from workbench import __version__
from workbench.demo.answerers import BASELINE_ANSWERERS, DemoAnswer
from workbench.demo.judge_run import SimulatedVerdict, simulated_verdicts, store_judge_run
from workbench.demo.keys import DemoItem
from workbench.demo.plan import demo_plan, item_rng
from workbench.demo.votes import answer_style, compared_pairs, simulated_votes
from workbench.errors import WorkbenchError
from workbench.importers.canonical import FORMAT_TAG, FORMAT_VERSION
from workbench.services.importing import import_files
from workbench.storage.bundle import Bundle, remove_bundle_files
from workbench.storage.files import sidecar_paths

log = logging.getLogger(__name__)

DEMO_SOURCE = "demo"
JSONL_NAME = "demo.jsonl"
DEMO_NOTE = (
    "Demo item: procedurally drawn by VLM Workbench with exact references; not part of any "
    "published benchmark."
)
GENERATOR_SOURCE = "demo generator"


class DemoBundleExistsError(WorkbenchError):
    """The target of the demo bundle is taken and the caller did not ask to replace it."""


def _answers(item: DemoItem, seed: int) -> dict[str, list[DemoAnswer]]:
    return {
        answerer.name: [
            answerer.respond(turn.key, item_rng(seed, item.external_id, f"{answerer.name}/{i}"))
            for i, turn in enumerate(item.turns, start=1)
        ]
        for answerer in BASELINE_ANSWERERS
    }


def item_line(
    item: DemoItem, seed: int, pairs: list[tuple[str, str]], answers: dict[str, list[DemoAnswer]]
) -> dict[str, Any]:
    """One canonical JSONL object (docs/formats.md): the item, every baseline's ``answers``,
    and the simulated votes on ``pairs``."""
    captions: list[dict[str, Any]] = [
        {"text": item.caption, "kind": "instruction-conditioned", "source": GENERATOR_SOURCE}
    ]
    captions += [
        {"text": text, "kind": "instruction-conditioned", "source": GENERATOR_SOURCE, "image": i}
        for i, text in enumerate(item.image_captions)
    ]
    reference_flags = {"kind": "reference", "source": GENERATOR_SOURCE, "verified_correct": True}
    return {
        "format": FORMAT_TAG,
        "format_version": FORMAT_VERSION,
        "source": DEMO_SOURCE,
        "id": item.external_id,
        "family": item.family,
        "category": item.category,
        "language": "English",
        "images": [{"path": image.name} for image in item.images],
        "captions": captions,
        "turns": [
            {
                "prompt": turn.prompt,
                "category": turn.category,
                "focus_points": turn.focus_points,
                "references": [{"text": turn.key.reference, **reference_flags}],
            }
            for turn in item.turns
        ],
        "outputs": [
            {
                "model": model,
                "turn": index,
                "text": answer.text,
                "metadata": {"demo": True, "correct": answer.correct},
            }
            for model, turn_answers in answers.items()
            for index, answer in enumerate(turn_answers, start=1)
        ],
        "models": [
            {
                "name": answerer.name,
                "display_name": answerer.display_name,
                "metadata": {"demo": True, "description": answerer.description},
            }
            for answerer in BASELINE_ANSWERERS
        ],
        "judgments": simulated_votes(
            item.external_id,
            pairs,
            answers,
            len(item.turns) > 1,
            item_rng(seed, item.external_id, "votes"),
        ),
        "metadata": {
            "demo": True,
            "note": DEMO_NOTE,
            "generator": f"workbench.demo {__version__}",
            "seed": seed,
            **item.scene,
        },
    }


def _write_source(folder: Path, seed: int) -> tuple[Path, list[SimulatedVerdict]]:
    """Write the canonical JSONL and PNGs; return the JSONL's path and the simulated judge's
    verdicts on the same comparisons the simulated raters voted on."""
    folder.mkdir(parents=True, exist_ok=True)
    names = [answerer.name for answerer in BASELINE_ANSWERERS]
    styles: dict[str, str] = {}
    lines = []
    verdicts: list[SimulatedVerdict] = []
    for index, item in enumerate(demo_plan(seed)):
        for image in item.images:
            (folder / image.name).write_bytes(image.png)
        answers = _answers(item, seed)
        # each baseline keeps one style; the first item shows it
        styles = styles or {name: answer_style(answers[name]) for name in names}
        pairs = compared_pairs(index, names, styles)
        line = item_line(item, seed, pairs, answers)
        lines.append(json.dumps(line, ensure_ascii=False, sort_keys=True))
        verdicts += simulated_verdicts(
            item.external_id,
            pairs,
            answers,
            len(item.turns) > 1,
            item_rng(seed, item.external_id, "judge"),
        )
    path = folder / JSONL_NAME
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, verdicts


def write_demo_source(folder: Path, seed: int = 0) -> Path:
    """Write the demo's canonical JSONL and its PNGs into ``folder``; return the JSONL's path.
    The same seed gives byte-identical files. (The simulated judge run is not part of it: the
    canonical format carries imported judgments, not judge runs.)"""
    return _write_source(folder, seed)[0]


def generate_demo_bundle(path: str | Path, seed: int = 0, replace: bool = False) -> Path:
    """Generate the demo bundle at ``path`` and return the path.

    Raises :class:`DemoBundleExistsError` if ``path`` exists and ``replace`` is False. The
    bundle is built beside ``path`` under a temporary name and renamed over it at the end, so
    a failure leaves whatever was at ``path`` untouched.
    """
    path = Path(path)
    if path.is_dir():
        raise DemoBundleExistsError(f"{path} is a folder; give a file name for the demo bundle")
    if path.exists() and not replace:
        raise DemoBundleExistsError(
            f"{path} already exists; replace it with `workbench demo --force` or choose "
            "another path with --out"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.partial")
    try:
        with tempfile.TemporaryDirectory(prefix="workbench-demo-") as folder:
            source, verdicts = _write_source(Path(folder), seed)
            import_files(partial, [source], "jsonl")
        with Bundle.open(partial) as bundle:
            store_judge_run(bundle, verdicts, seed)
        # A WAL file left beside the old bundle would be replayed into the new one.
        for sidecar in (*sidecar_paths(partial), *sidecar_paths(path)):
            sidecar.unlink(missing_ok=True)
        os.replace(partial, path)
    except BaseException:
        remove_bundle_files(partial)
        raise
    log.info("generated the demo bundle (seed %d) at %s", seed, path)
    return path
