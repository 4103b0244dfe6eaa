"""One item may have at most 1,000 turns and 1,000 images, whatever format it came in: 20,000
turns (a few KB of parquet) ran the inspector past ten minutes at 3 GB."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.importers.base import ImportRejectedError
from workbench.importers.limits import DEFAULT_LIMITS
from workbench.services.importing import import_files


@pytest.mark.parametrize("over", ["turns", "images"])
def test_an_item_over_the_turn_or_image_cap_is_rejected_naming_the_cap(
    tmp_path: Path, over: str
) -> None:
    count = (
        DEFAULT_LIMITS.max_turns_per_item if over == "turns" else DEFAULT_LIMITS.max_images_per_item
    ) + 1
    if over == "turns":
        line = item_line("big", turns=[{"prompt": f"q{n}"} for n in range(count)], captions=[])
    else:
        line = item_line("big", images=[{"path": "images/a.png"}] * count)
    with pytest.raises(ImportRejectedError) as caught:
        import_files(tmp_path / "b.wbb", [write_jsonl(tmp_path / "in", [line])], "jsonl")
    (problem,) = caught.value.problems
    assert problem.field == over
    assert f"has {count:,} {over}; an item may have at most {count - 1:,}" in problem.reason
    assert not (tmp_path / "b.wbb").exists()


def test_an_item_at_the_caps_imports(tmp_path: Path) -> None:
    line = item_line(
        "big",
        turns=[{"prompt": f"q{n}"} for n in range(DEFAULT_LIMITS.max_turns_per_item)],
        images=[{"path": "images/a.png"}] * DEFAULT_LIMITS.max_images_per_item,
    )
    result = import_files(tmp_path / "b.wbb", [write_jsonl(tmp_path / "in", [line])], "jsonl")
    assert not result.rejections
