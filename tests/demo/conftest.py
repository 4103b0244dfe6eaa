"""A copy of the suite's demo bundle (seed 0, generated once per run) for the module that asks for
it, and a way to read it back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from tests.shared_builds import copy_of
from workbench.storage import Bundle
from workbench.storage.models import Item, ItemImage, Output, PriorJudgment, Turn


@pytest.fixture(scope="module")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory, demo_bundle_template: Path) -> Path:
    return copy_of(demo_bundle_template, tmp_path_factory.mktemp("demo"))


def _read_items(bundle_path: Path) -> list[dict[str, Any]]:
    """Every item of a bundle as plain data: metadata, turns with references, image bytes."""
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        items = session.scalars(
            select(Item)
            .options(
                selectinload(Item.turns).selectinload(Turn.references),
                selectinload(Item.images).selectinload(ItemImage.image),
                selectinload(Item.captions),
                selectinload(Item.source),
            )
            .order_by(Item.external_id)
        ).all()
        return [
            {
                "source": item.source.name,
                "id": item.external_id,
                "family": item.family,
                "category": item.category,
                "language": item.language,
                "metadata": item.metadata_,
                "captions": [(c.image_position, c.kind, c.text) for c in item.captions],
                "turns": [
                    {
                        "prompt": turn.prompt,
                        "category": turn.category,
                        "focus_points": turn.focus_points,
                        "references": [r.text for r in turn.references],
                    }
                    for turn in item.turns
                ],
                "images": [
                    (slot.original_ref, slot.image.sha256, slot.image.width, slot.image.height)
                    for slot in item.images
                    if slot.image is not None
                ],
                "image_bytes": [slot.image.data for slot in item.images if slot.image is not None],
            }
            for item in items
        ]


def _read_answers_and_votes(
    bundle_path: Path,
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        outputs = session.execute(
            select(Item.external_id, Turn.index, Output.model_id, Output.text, Output.metadata_)
            .join(Turn, Output.turn_id == Turn.id)
            .join(Item, Turn.item_id == Item.id)
            .order_by(Item.external_id, Turn.index, Output.model_id)
        ).all()
        votes = session.execute(
            select(
                PriorJudgment.item_id,
                PriorJudgment.model_a_id,
                PriorJudgment.model_b_id,
                PriorJudgment.outcome,
                PriorJudgment.rater,
                PriorJudgment.turn_index,
                PriorJudgment.metadata_,
            ).order_by(PriorJudgment.id)
        ).all()
        return [tuple(row) for row in outputs], [tuple(row) for row in votes]


@pytest.fixture(scope="module")
def demo_items(demo_bundle: Path) -> list[dict[str, Any]]:
    return _read_items(demo_bundle)


@pytest.fixture
def read_items() -> Callable[[Path], list[dict[str, Any]]]:
    return _read_items


@pytest.fixture
def read_answers_and_votes() -> Callable[
    [Path], tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]
]:
    return _read_answers_and_votes
