"""The item view: images (missing, EXIF-rotated, zoomable), captions, references with flags,
outputs side by side in equal columns, multi-turn alignment, raw text and model choice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.gui.sample_bundle import EXIF_STORED_SIZE, HOSTILE_OUTPUT, sample_lines
from tests.patience import HANG_GUARD_MS
from workbench.gui.item_view import DEFAULT_COLUMNS, columns_for
from workbench.gui.plain_text import plain_tooltip
from workbench.services.browse import ItemFlag

if TYPE_CHECKING:
    from workbench.gui.item_view import ItemView
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


def show(qtbot: QtBot, window: MainWindow, external_id: str) -> ItemView:
    assert window.go_to_item(external_id)
    wait_idle(qtbot, window)
    return window.item_view


def line_of(external_id: str) -> dict[str, Any]:
    return next(line for line in sample_lines() if line["id"] == external_id)


def test_images_missing_placeholder_and_exif_orientation(
    qtbot: QtBot, open_window: MainWindow
) -> None:
    view = show(qtbot, open_window, "a1")
    tiles = view.images.visible_tiles()
    assert [tile.state for tile in tiles] == ["shown", "missing", "shown"]
    assert "Missing image" in tiles[1].picture.text()
    assert "gone.png" in tiles[1].picture.text()
    assert tiles[1].toolTip() == plain_tooltip("https://example.invalid/gone.png")
    slot = tiles[2].slot
    assert slot is not None and slot.image_id is not None
    rotated = open_window.loader.cached(slot.image_id)
    assert rotated is not None
    # stored 60x30 with EXIF orientation 6: shown 30x60, the stored left (black) half on top
    assert (rotated.full.width(), rotated.full.height()) == EXIF_STORED_SIZE[::-1]
    assert QColor(rotated.full.pixel(15, 5)).lightness() < 60
    assert QColor(rotated.full.pixel(15, 55)).lightness() > 200


def test_clicking_an_image_opens_a_zoomable_viewer(qtbot: QtBot, open_window: MainWindow) -> None:
    view = show(qtbot, open_window, "a2")
    tile = view.images.visible_tiles()[0]
    with qtbot.waitSignal(tile.clicked, timeout=HANG_GUARD_MS) as clicked:
        qtbot.mouseClick(tile, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    dialog = view.open_image(clicked.args[0])
    assert dialog is not None
    qtbot.addWidget(dialog)
    image_view = dialog.ui.imageView
    dialog.ui.actualSizeButton.click()
    assert image_view.scale_factor == pytest.approx(1.0)
    dialog.ui.zoomInButton.click()
    assert image_view.scale_factor > 1.0
    qtbot.keyClick(image_view, Qt.Key.Key_Minus)
    assert image_view.scale_factor == pytest.approx(1.0)
    dialog.ui.fitButton.click()
    assert image_view.scale_factor <= 1.0
    assert dialog.ui.infoLabel.text() == "64 × 40 px"


def test_caption_reference_flags_and_outputs_side_by_side(
    qtbot: QtBot, open_window: MainWindow
) -> None:
    view = show(qtbot, open_window, "a1")
    line = line_of("a1")
    assert [block.text.source_text for block in view.captions if block.isVisible()] == [
        line["captions"][0]["text"]
    ]
    (section,) = view.visible_turns()
    assert section.title.text() == "Instruction"
    assert section.prompt.source_text == line["turns"][0]["prompt"]
    reference = section.references[0]
    assert reference.text.toPlainText() == "There are two squares."  # markdown rendered
    flags = reference.title.text()
    assert "verified correct: no" in flags and "problem in reference: yes" in flags
    columns = section.visible_columns()
    assert [column.header.text() for column in columns] == ["model-one", "model-two"]
    widths = {column.width() for column in columns}
    assert len(widths) == 1, f"columns differ in width: {widths}"
    assert columns[1].text_views()[0].source_text == HOSTILE_OUTPUT
    assert "missing image" in view.header.text() and "reference problem" in view.header.text()


def test_multi_turn_items_are_aligned_turn_by_turn(qtbot: QtBot, open_window: MainWindow) -> None:
    # room for two answers side by side (a narrower pane wraps them, as the test below shows)
    open_window.item_view.setMinimumWidth(560)
    view = show(qtbot, open_window, "a2")
    line = line_of("a2")
    sections = view.visible_turns()
    assert [s.title.text() for s in sections] == [
        "Turn 1 · perception",
        "Turn 2 · reasoning",
        "Turn 3 · creation",
    ]
    for number, section in enumerate(sections, start=1):
        assert section.prompt.source_text == line["turns"][number - 1]["prompt"]
        answers = {
            column.header.text(): column.text_views()[0].source_text
            for column in section.visible_columns()
        }
        expected = {
            output["model"]: output["text"]
            for output in line["outputs"]
            if output["turn"] == number
        }
        assert answers == expected
        # the same model sits in the same column in every turn
        assert list(answers) == ["model-one", "model-three"]
        tops = [column.mapTo(view, QPoint(0, 0)).y() for column in section.visible_columns()]
        assert len(set(tops)) == 1
    assert sections[2].focus.isVisible() and "is short" in sections[2].focus.source_text
    assert not sections[0].focus.isVisible()
    # fewer turns next: the extra sections are hidden, not left behind
    bar = view.scroll_area.verticalScrollBar()
    bar.setValue(bar.maximum())
    view = show(qtbot, open_window, "b2")
    assert len(view.visible_turns()) == 1
    # a new item starts at its top; the scroll area has a name of its own, so QWidget.scroll()
    # (a method the widget keeps) is not shadowed
    assert view.scroll_area.verticalScrollBar().value() == 0
    assert callable(view.scroll)


def test_raw_text_toggle(qtbot: QtBot, open_window: MainWindow) -> None:
    view = show(qtbot, open_window, "a1")
    output = view.visible_turns()[0].visible_columns()[0].text_views()[0]
    assert output.toPlainText().startswith("Count")  # the heading is rendered
    open_window.ui.rawTextAction.trigger()
    assert output.toPlainText().startswith("# Count")
    assert all(v.raw for v in view.text_views())
    open_window.ui.rawTextAction.trigger()
    assert output.toPlainText().startswith("Count")


def test_choosing_models_and_following_a_model_pair(qtbot: QtBot, open_window: MainWindow) -> None:
    view = show(qtbot, open_window, "a1")
    assert view.shown_models == ["model-one", "model-two"]
    view.set_chosen_models(["model-two"])
    assert [c.header.text() for c in view.visible_turns()[0].visible_columns()] == ["model-two"]
    open_window.selection.set_model_pair(("model-two", "model-one"))
    assert view.shown_models == ["model-two", "model-one"]
    open_window.selection.set_model_pair(None)
    view.set_chosen_models([])
    assert view.shown_models == ["model-one", "model-two"]
    many = [f"m{n}" for n in range(1, DEFAULT_COLUMNS + 3)]
    assert columns_for(many, ["m-unknown"], None) == many[:DEFAULT_COLUMNS]
    assert columns_for(["m1", "m2"], ["m2", "m9"], None) == ["m2"]


def test_a_text_only_item_has_no_image_slot(qtbot: QtBot, open_window: MainWindow) -> None:
    show(qtbot, open_window, "a1")  # three image slots first, so the tiles exist
    view = show(qtbot, open_window, "b2")
    assert "images" not in line_of("b2")
    assert view.images.visible_tiles() == []
    assert view.images.isHidden()
    assert "missing image" not in view.header.text()


def test_a_reference_without_checks_does_not_contradict_its_kind() -> None:
    from workbench.gui.item_view import reference_flags_text
    from workbench.services.browse import ReferenceView

    reference = ReferenceView("A cat.", "human-verified", "reference_output", None, None, None)
    text = reference_flags_text(reference)
    assert "not verified" not in text and "no checks recorded" in text


def test_the_disagreement_flag_follows_the_item_from_a_worker(
    qtbot: QtBot, open_window: MainWindow
) -> None:
    """The item is shown with its SQL flags; the disagreement flag (statistics stack) is read
    on a worker and added to the header of the item if it is still shown."""
    view = open_window.item_view
    assert open_window.go_to_item("b1")
    wait_idle(qtbot, open_window)
    assert view.detail is not None
    assert view.detail.external_id == "b1"
    assert "disagreement" in view.header.text()
    assert ItemFlag.DISAGREEMENT in view.detail.flags
    assert open_window.go_to_item("a1")
    wait_idle(qtbot, open_window)
    assert "disagreement" not in view.header.text()
    assert open_window.browser is not None
    b1 = open_window.browser.find_item("b1")
    assert b1 is not None
    view.add_flag(b1, ItemFlag.DISAGREEMENT)  # a late answer
    assert "disagreement" not in view.header.text()  # for an item no longer shown: dropped


def test_a_narrow_pane_wraps_images_and_answers_instead_of_scrolling_sideways(
    qtbot: QtBot, open_window: MainWindow
) -> None:
    # the item pane of a 1024x700 window is about 300 px wide; of a 1366x768 one, about 520
    view = show(qtbot, open_window, "a1")
    for pane_width in (300, 520):
        view.setFixedWidth(pane_width)

        def narrower_than_pane(w: int = pane_width) -> bool:
            return view.scroll_area.viewport().width() < w

        qtbot.waitUntil(narrower_than_pane, timeout=HANG_GUARD_MS)
        wait_idle(qtbot, open_window)
        viewport = view.scroll_area.viewport().width()
        assert view.scroll_area.horizontalScrollBar().maximum() == 0, (
            f"the item scrolls sideways at {pane_width} px: page {view.page.width()} px, "
            f"viewport {viewport} px"
        )
        tiles = view.images.visible_tiles()
        assert max(tile.geometry().right() for tile in tiles) <= view.images.width()
        (section,) = view.visible_turns()
        columns = section.visible_columns()
        rows = {column.y() for column in columns}
        # two answers side by side need 2 x 200 px: at 300 px they stack, at 520 they sit in a row
        assert len(rows) == (2 if pane_width == 300 else 1)


def test_fitted_tiles_keep_the_preferred_size_when_there_is_room_and_never_overflow() -> None:
    from workbench.gui.image_grid import MIN_PICTURE_WIDTH, fitted_tiles, tile_size

    assert fitted_tiles(3, None) == (tile_size(3), 3)
    assert fitted_tiles(3, 2000) == (tile_size(3), 3)
    for count in range(1, 7):
        for available in (120, 250, 300, 480, 700, 1000):
            size, columns = fitted_tiles(count, available)
            assert 1 <= columns <= min(count, 4)
            assert columns * (size.width() + 12) + 6 * (columns - 1) <= max(available, 162)
            assert columns == 1 or size.width() >= MIN_PICTURE_WIDTH
            preferred = tile_size(count)
            assert abs(size.height() / size.width() - preferred.height() / preferred.width()) < 0.02
