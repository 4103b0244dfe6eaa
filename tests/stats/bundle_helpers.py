"""Small synthetic bundles for the statistics tests: canonical JSONL written into tmp_path and
imported, plus campaign votes and judge verdicts added through the storage models."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.judgment_counts import CAMPAIGN, JUDGE_RUN, count_added
from workbench.storage.models import (
    Annotator,
    Campaign,
    Item,
    JudgeRun,
    JudgeVerdict,
    Model,
    Vote,
)


def item_line(
    item_id: str,
    judgments: list[dict[str, Any]],
    source: str = "tests",
    turns: int = 1,
    category: str | None = "ocr",
    outputs: dict[str, str] | None = None,
    language: str | None = "English",
    family: str | None = None,
) -> dict[str, Any]:
    """One canonical item line; an attribute given as None is left out of the line, as a
    source that has none leaves it out."""
    attributes = {"category": category, "language": language, "family": family}
    return {
        "format": "vlm-workbench/item",
        "format_version": 1,
        "source": source,
        "id": item_id,
        **{key: value for key, value in attributes.items() if value is not None},
        "turns": [
            {"prompt": f"question {index}", "category": f"turn-{index}"}
            for index in range(1, turns + 1)
        ],
        "outputs": [
            {"model": model, "text": text, "turn": turn}
            for model, text in (outputs or {}).items()
            for turn in range(1, turns + 1)
        ],
        "judgments": judgments,
    }


def build_bundle(folder: Path, lines: list[dict[str, Any]], into: Any = None) -> Any:
    """The lines imported into a new bundle in ``folder`` (or at the location ``into``, such as
    a database on the test PostgreSQL server)."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "items.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    bundle = into if into is not None else folder / "bundle.wbb"
    import_files(bundle, [source], "jsonl")
    return bundle


def add_campaign_votes(
    bundle_path: Path, campaign: str, votes: list[tuple[str, str, str | None, str | None, str]]
) -> None:
    """Votes as (annotator, item external id, left model, right model, choice); a choice that
    starts with "retracted:" is stored retracted. A side None is the reference answer."""
    with Bundle.open(bundle_path) as bundle, bundle.session() as session:
        models = {model.name: model.id for model in session.query(Model)}
        items = {item.external_id: item.id for item in session.query(Item)}
        row = Campaign(name=campaign, protocol="pairwise", seed=0)
        session.add(row)
        session.flush()
        handles: dict[str, int] = {}
        for handle, item, left, right, choice in votes:
            if handle not in handles:
                annotator = Annotator(handle=handle)
                session.add(annotator)
                session.flush()
                handles[handle] = annotator.id
            retracted = choice.startswith("retracted:")
            session.add(
                Vote(
                    uuid=uuid.uuid4().hex,
                    campaign_id=row.id,
                    annotator_id=handles[handle],
                    item_id=items[item],
                    turn_index=1,
                    model_a_id=models[left] if left else None,
                    model_b_id=models[right] if right else None,
                    choice=choice.removeprefix("retracted:"),
                    retracted_at=datetime.now(UTC) if retracted else None,
                )
            )
        session.flush()  # written here without the app's vote path, so counted here too
        count_added(session, CAMPAIGN, Vote.campaign_id == row.id)


def add_judge_verdicts(
    bundle_path: Path,
    run: str,
    verdicts: list[tuple[str, str, str, str | None]],
    parameters: dict[str, Any] | None = None,
) -> None:
    """Verdicts as (item external id, model shown as A, model shown as B, outcome); an outcome
    None is stored as a failed call."""
    with Bundle.open(bundle_path) as bundle, bundle.session() as session:
        models = {model.name: model.id for model in session.query(Model)}
        items = {item.external_id: item.id for item in session.query(Item)}
        row = JudgeRun(
            name=run,
            template_name="pairwise",
            template_version="1",
            template_text="...",
            judge_model="test-judge",
            parameters=parameters or {},
        )
        session.add(row)
        session.flush()
        for index, (item, model_a, model_b, outcome) in enumerate(verdicts):
            session.add(
                JudgeVerdict(
                    run_id=row.id,
                    item_id=items[item],
                    turn_index=1,
                    model_a_id=models[model_a],
                    model_b_id=models[model_b],
                    outcome=outcome,
                    position_flip=index % 2 == 1,
                    request_hash=f"{run}-{index}",
                    error=None if outcome else "timeout",
                )
            )
        session.flush()  # written here without the judge runner, so counted here too
        count_added(session, JUDGE_RUN, JudgeVerdict.run_id == row.id)
