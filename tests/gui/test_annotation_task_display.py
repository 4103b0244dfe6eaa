"""The task page reuses its widgets for a next task of the same shape, and the page it then
shows is the page a fresh display would show for that task: texts, headings, accessible names,
pictures and placeholders, scroll positions."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from workbench.gui.annotation.task_display import TaskDisplay, image_box, prepare_images
from workbench.gui.safe_text import SafeTextView
from workbench.services.blind_tasks import (
    BlindTask,
    Progress,
    TaskCaption,
    TaskImage,
    TaskTurn,
)

pytestmark = pytest.mark.gui

LABELS = ("Response 1", "Response 2")


def png(colour: str, size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def task(
    token: str,
    *,
    images: tuple[bytes | None, ...] = (),
    captions: tuple[str, ...] = (),
    turns: int = 1,
    judged: int | None = None,
    reference: bool = False,
    responses: int = 2,
) -> BlindTask:
    return BlindTask(
        token=token,
        protocol="arena-battle",
        images=tuple(
            TaskImage(position, data, None if data is None else "png")
            for position, data in enumerate(images)
        ),
        captions=tuple(TaskCaption(0, f"{token} caption {n}") for n, _ in enumerate(captions)),
        turns=tuple(
            TaskTurn(
                index,
                f"**{token}** prompt {index}",
                f"{token} reference {index}" if reference else None,
                tuple(f"{token} answer {index}.{side}" for side in range(responses)),
            )
            for index in range(1, turns + 1)
        ),
        judged_turn=judged,
        response_labels=LABELS,
        progress=Progress(0, 1),
    )


def page_state(display: TaskDisplay) -> dict[str, object]:
    """What the page shows, as a reader (or a screen reader) would meet it, turn by turn in
    the order the page lays the turns out."""
    page = display.page.widget()
    assert page is not None
    layout = page.layout()
    assert layout is not None
    laid_out = [
        item.widget() for n in range(layout.count()) if (item := layout.itemAt(n)) is not None
    ]
    assert laid_out == display.turn_panels
    parts = [display.strip, display.captions, *display.turn_panels]
    return {
        "labels": [
            [
                label.text()
                for label in part.findChildren(QLabel)
                if label.isVisibleTo(display) and label.pixmap().isNull()
            ]
            for part in parts
        ],
        "texts": [
            [
                (view.accessibleName(), view.source_text, view.toPlainText())
                for view in part.findChildren(SafeTextView)
                if view.isVisibleTo(display)
            ]
            for part in parts
        ],
        "tiles": [
            (
                tile.position,
                tile.decoded is not None and not tile.decoded.error,
                tile.picture.text(),
                tile.picture.styleSheet(),
                tile.picture.pixmap().size().toTuple(),
                tile.cursor().shape(),
            )
            for tile in display.tiles
        ],
        "styles": [panel.styleSheet() for panel in display.turn_panels],
        "areas": (display.strip.isVisibleTo(display), display.captions.isVisibleTo(display)),
        "scrolls": [
            scroll.verticalScrollBar().value()
            for panel in display.turn_panels
            for scroll in panel.scrolls + panel.response_scrolls
        ]
        + [display.page.verticalScrollBar().value()],
    }


def shown(qtbot: QtBot, *tasks: BlindTask) -> TaskDisplay:
    display = TaskDisplay()
    qtbot.addWidget(display)
    display.resize(1000, 700)
    display.show()
    for each in tasks:
        display.show_task(each, prepare_images(each))
        qtbot.wait(1)
    return display


def test_a_next_task_of_the_same_shape_is_shown_in_the_same_widgets(qtbot: QtBot) -> None:
    first, second = task("a", images=(png("red"),)), task("b", images=(png("blue"),))
    display = shown(qtbot, first)
    panels, tiles, content = list(display.turn_panels), list(display.tiles), display.page.widget()
    responses = list(display.turn_panels[0].responses)
    display.show_task(second, prepare_images(second))
    assert display.page.widget() is content
    assert display.turn_panels == panels and display.tiles == tiles
    assert display.turn_panels[0].responses == responses
    assert [view.source_text for view in responses] == ["b answer 1.0", "b answer 1.1"]
    assert display.turn_panels[0].prompt.toPlainText() == "b prompt 1"  # markdown rendered


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (task("a"), task("b")),
        (task("a", images=(png("red"),)), task("b", images=(png("blue", (500, 90)),))),
        (task("a", images=(None, png("red"))), task("b", images=(png("blue"), None))),
        (task("a", images=(b"not an image",)), task("b", images=(png("green"),))),
        (task("a", images=(png("green"),)), task("b", images=(b"not an image",))),
        (task("a", captions=("x", "y")), task("b", captions=("x", "y"))),
        (
            task("a", turns=2, judged=2, reference=True),
            task("b", turns=2, judged=2, reference=True),
        ),
        # shapes that differ: the page is built anew
        (task("a", images=(png("red"),)), task("b", images=(png("red"), png("blue")))),
        (task("a", turns=2, judged=2), task("b", turns=3, judged=3)),
        (task("a", turns=3, judged=3), task("b", turns=2, judged=2)),
        (task("a", turns=2, judged=2), task("b")),
        (task("a", turns=2, judged=None), task("b", turns=2, judged=2)),
        (task("a", images=(png("red"), png("blue"))), task("b")),
        (task("a", turns=2, judged=2), task("b", turns=2, judged=2, reference=True)),
        (task("a", reference=True), task("b")),
        (task("a", captions=("x",)), task("b")),
        (task("a", responses=2), task("b", responses=1)),
    ],
)
def test_the_page_after_a_task_is_the_page_a_fresh_display_shows(
    qtbot: QtBot, before: BlindTask, after: BlindTask
) -> None:
    reused = shown(qtbot, before, after)
    fresh = shown(qtbot, after)
    assert page_state(reused) == page_state(fresh)


def test_only_the_panels_that_do_not_fit_are_built(qtbot: QtBot) -> None:
    display = shown(qtbot, task("a"))
    first = display.turn_panels[0]
    display.show_task(task("b", turns=2, judged=2))
    assert display.turn_panels[0] is first
    assert first.heading.text() == "Turn 1 (the conversation so far)  ·  Instruction"
    assert first.styleSheet() == "" and display.turn_panels[1].styleSheet() != ""
    display.show_task(task("c", turns=2, judged=2, reference=True))
    assert display.turn_panels[0] is not first  # a reference to show: another shape
    kept = display.turn_panels[0]
    display.show_task(task("d", reference=True))
    assert display.turn_panels == [kept]
    assert kept.heading.text() == "Turn 1  ·  Instruction"
    assert kept.styleSheet() == ""


def test_panels_left_over_are_kept_empty_and_used_again(qtbot: QtBot) -> None:
    display = shown(qtbot, task("a", turns=3, judged=3))
    later = display.turn_panels[1:]
    display.show_task(task("b"))
    assert len(display.turn_panels) == 1
    for spare in later:
        assert spare.isHidden()
        assert [v.source_text for v in [spare.prompt, *spare.responses]] == ["", "", ""]
    display.show_task(task("c", turns=3, judged=3))
    assert display.turn_panels[1:] == later
    assert page_state(display) == page_state(shown(qtbot, task("c", turns=3, judged=3)))


def test_a_reused_page_starts_at_the_top_of_every_text(qtbot: QtBot) -> None:
    long = "\n\n".join(f"line {n}" for n in range(300))
    first = task("a", turns=2, judged=2)
    first = replace(
        first, turns=tuple(TaskTurn(t.index, long, None, (long, long)) for t in first.turns)
    )
    display = shown(qtbot, first)
    display.resize(1000, 400)
    qtbot.wait(1)
    scrolls = [s for p in display.turn_panels for s in p.scrolls + p.response_scrolls]
    moved = [s for s in scrolls if s.verticalScrollBar().maximum() > 0]
    assert moved, "the long texts should scroll inside their areas"
    for scroll in moved:
        scroll.verticalScrollBar().setValue(scroll.verticalScrollBar().maximum())
    display.page.verticalScrollBar().setValue(display.page.verticalScrollBar().maximum())
    display.show_task(task("b", turns=2, judged=2))
    assert display.turn_panels[0].scrolls[0] is scrolls[0]  # reused, not rebuilt
    assert all(s.verticalScrollBar().value() == 0 for s in scrolls)
    assert display.page.verticalScrollBar().value() == 0


def test_a_reused_tile_zooms_the_new_image_and_a_missing_one_does_not_zoom(qtbot: QtBot) -> None:
    display = shown(qtbot, task("a", images=(png("red"),)))
    tile = display.tiles[0]
    display.show_task(task("b", images=(png("blue"),)))
    assert display.tiles[0] is tile
    with qtbot.waitSignal(display.imageClicked, timeout=HANG_GUARD_MS) as blocker:
        qtbot.mouseClick(tile, Qt.MouseButton.LeftButton)
    decoded, position = blocker.args[0]
    assert position == 0 and decoded.full.pixelColor(0, 0).name() == "#0000ff"
    display.show_task(task("c", images=(None,)))
    assert display.tiles[0] is tile and tile.decoded is None
    assert tile.picture.text() == "Missing image"
    with qtbot.assertNotEmitted(display.imageClicked):
        qtbot.mouseClick(tile, Qt.MouseButton.LeftButton)
    assert display.first_image() is None


def test_tiles_are_kept_across_tasks_with_fewer_and_more_images(qtbot: QtBot) -> None:
    """Campaigns mix tasks of one and two images: the strip's tiles are kept, the one a task
    does not need hidden and holding no image, and the page is the one a fresh display shows
    (each tile in the box for its task's number of images)."""
    two = task("a", images=(png("red"), png("blue")))
    display = shown(qtbot, two)
    first, second = display.tiles
    one = task("b", images=(png("green"),))
    display.show_task(one, prepare_images(one))
    assert display.tiles == [first] and second.isHidden()
    one_box = image_box(1, display.max_tile_height)  # a share of the page's height at most
    assert first.picture.maximumSize() == one_box == first.picture.minimumSize()
    assert second.decoded is None and second.picture.pixmap().isNull()
    assert page_state(display) == page_state(shown(qtbot, one))
    again = task("c", images=(None, png("red")))
    display.show_task(again, prepare_images(again))
    assert display.tiles == [first, second] and not second.isHidden()
    two_box = image_box(2, display.max_tile_height)
    assert first.picture.maximumSize() == two_box == second.picture.maximumSize()
    assert page_state(display) == page_state(shown(qtbot, again))
    display.show_task(task("d"))
    assert display.tiles == [] and not display.strip.isVisibleTo(display)


def test_turning_reuse_off_builds_every_page_anew(qtbot: QtBot) -> None:
    display = shown(qtbot, task("a"))
    panel = display.turn_panels[0]
    display.reuse_widgets = False
    display.show_task(task("b"))
    assert display.turn_panels[0] is not panel
    assert display.turn_panels[0].responses[0].source_text == "b answer 1.0"
