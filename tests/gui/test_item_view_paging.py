"""An item of many turns and images is laid out a page at a time, with a button for more: laying
out 2,000 turns at once blocked the window for over a minute."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.gui.item_view import IMAGES_PER_PAGE, TURNS_PER_PAGE
from workbench.services.importing import import_files

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui

TURNS = 1_000  # the most an item may have
IMAGES = 60


@pytest.fixture
def many_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    line = item_line(
        "many",
        images=[{"path": "images/a.png"}] * IMAGES,
        turns=[{"prompt": f"Question {n}"} for n in range(1, TURNS + 1)],
        outputs=[
            {"model": model, "text": f"{model} answers {n}", "turn": n}
            for n in range(1, TURNS + 1)
            for model in ("model-x", "model-y")
        ],
    )
    bundle = tmp_path / "many.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "input", [line])], "jsonl")
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle)
    window.show()
    wait_idle(qtbot, window)
    yield window
    window.close()


def test_many_turns_and_images_are_shown_a_page_at_a_time(
    qtbot: QtBot, many_window: MainWindow
) -> None:
    assert many_window.go_to_item("many")
    wait_idle(qtbot, many_window)
    view = many_window.item_view
    assert view.detail is not None
    assert len(view.detail.turns) == TURNS
    assert len(view.visible_turns()) == TURNS_PER_PAGE
    assert len(view.turn_sections) == TURNS_PER_PAGE  # no widgets built for the rest
    assert view.more_turns_button.isVisibleTo(view)
    hidden = TURNS - TURNS_PER_PAGE
    assert (
        view.more_turns_button.text() == f"Show {TURNS_PER_PAGE} more turns ({hidden:,} not shown)"
    )
    assert len(view.images.visible_tiles()) == IMAGES_PER_PAGE
    assert view.more_images_button.text() == (
        f"Show {IMAGES_PER_PAGE} more images ({IMAGES - IMAGES_PER_PAGE} not shown)"
    )

    view.more_turns_button.click()
    assert len(view.visible_turns()) == 2 * TURNS_PER_PAGE
    assert view.visible_turns()[-1].prompt.source_text == f"Question {2 * TURNS_PER_PAGE}"
    view.more_images_button.click()
    view.more_images_button.click()
    assert len(view.images.visible_tiles()) == IMAGES
    assert not view.more_images_button.isVisibleTo(view)

    # the next item starts again at the first page
    view.show_item(view.detail)
    assert len(view.visible_turns()) == TURNS_PER_PAGE
