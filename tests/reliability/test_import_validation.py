"""Rows that point at what their item does not have are rejected with their row and reason,
instead of being stored as nonsense: a caption of image 5 of a one-image item, a judgment of
turn 99 of a one-turn item, a model judged against itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.importers.base import ImportRejectedError
from workbench.services.importing import import_files


def rejection(tmp_path: Path, **overrides: object) -> str:
    source = write_jsonl(tmp_path / "src", [item_line("q1", **overrides)])
    with pytest.raises(ImportRejectedError) as caught:
        import_files(tmp_path / "b.wbb", [source], "jsonl")
    assert not (tmp_path / "b.wbb").exists()
    return str(caught.value)


@pytest.mark.parametrize("position", [5, 1, -1])
def test_a_caption_of_an_image_the_item_lacks_is_rejected(tmp_path: Path, position: int) -> None:
    message = rejection(tmp_path, captions=[{"text": "a cat", "image": position}])
    assert f"items.jsonl, row 1, field 'captions[0].image': points at image {position}" in message
    assert "the item has 1 image(s)" in message


def judgment(**fields: object) -> dict[str, object]:
    return {"kind": "human", "model_a": "model-x", "model_b": "model-y", "outcome": "a",
            "rater": "r1", **fields}  # fmt: skip


@pytest.mark.parametrize("turn", [99, 2, 0, -1])
def test_a_judgment_of_a_turn_the_item_lacks_is_rejected(tmp_path: Path, turn: int) -> None:
    message = rejection(tmp_path, judgments=[judgment(turn=turn)])
    assert "items.jsonl, row 1, field 'turn'" in message
    assert f"turn {turn}" in message


def test_a_model_judged_against_itself_is_rejected(tmp_path: Path) -> None:
    message = rejection(tmp_path, judgments=[judgment(model_b="model-x")])
    assert "row 1, field 'judgments[0].model_b': is model_a again ('model-x')" in message


def test_valid_references_still_import(tmp_path: Path) -> None:
    line = item_line("q1", judgments=[judgment(turn=1)], captions=[{"text": "c", "image": 0}])
    result = import_files(tmp_path / "b.wbb", [write_jsonl(tmp_path / "s", [line])], "jsonl")
    assert result.counts["judgments_added"] == 1
    assert result.counts["captions_added"] == 1
