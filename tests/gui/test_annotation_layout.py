"""The annotation page is laid out for reading: at 1024x700, 1366x768 and 1600x1000 both
responses are on screen side by side, each in its own scroll area, and the images stay inside
the window however many there are."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle, build_image_bundle
from tests.patience import HANG_GUARD_MS
from workbench.gui.annotation.annotator_window import AnnotatorWindow
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

pytestmark = pytest.mark.gui

SIZES = [(1024, 700), (1366, 768), (1600, 1000)]
#: the least height of a response's visible area, in pixels: a few lines of text
MIN_RESPONSE_HEIGHT = 60


@pytest.fixture(scope="module")
def images_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_image_bundle(tmp_path_factory.mktemp("layout-images"))


@pytest.fixture(scope="module")
def turns_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("layout-turns"))


def on_window(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def open_window(qtbot: QtBot, path: Path, campaign: str, size: tuple[int, int]) -> AnnotatorWindow:
    bundle = Bundle.open(path)
    window = AnnotatorWindow(bundle, AnnotationSession(bundle, campaign, "ana"))
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window, timeout=HANG_GUARD_MS)
    qtbot.wait(50)
    return window


def assert_readable(window: AnnotatorWindow, long_response: bool = False) -> None:
    frame = window.rect()
    display = window.view.display
    last = display.turn_panels[-1]
    assert len(last.response_scrolls) == 2
    tops = set()
    for scroll, text in zip(last.response_scrolls, last.responses, strict=True):
        viewport = on_window(scroll.viewport(), window)
        assert scroll.isVisible() and frame.contains(viewport), viewport
        assert viewport.height() >= min(MIN_RESPONSE_HEIGHT, text.height()), viewport
        assert text.source_text.strip()
        tops.add(viewport.top())
    assert len(tops) == 1  # side by side
    left, right = (on_window(s.viewport(), window) for s in last.response_scrolls)
    assert left.right() < right.left()
    if display.tiles:
        assert frame.contains(on_window(display.strip, window))


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_both_responses_and_the_images_fit_with_ten_images(
    qtbot: QtBot, images_bundle: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(images_bundle.read_bytes())
    window = open_window(qtbot, path, "arena-battle", size)
    for _task in range(3):  # 1, 3 and 10 images
        assert window.view.task is not None
        assert_readable(window)
        window.view.choose("a")
        qtbot.waitUntil(lambda: not window.view.busy, timeout=HANG_GUARD_MS)
        qtbot.wait(20)
    window.close()


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_multi_turn_tasks_show_the_judged_turn_side_by_side(
    qtbot: QtBot, turns_bundle: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(turns_bundle.read_bytes())
    window = open_window(qtbot, path, "convbench-turn-pairwise", size)
    view = window.view
    assert view.session is not None
    while len(view.display.turn_panels) < 2:  # the second turn's task shows both turns
        assert view.task is not None
        view.choose(view.session.protocol.choices[0].value)
        qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
    qtbot.wait(50)
    assert_readable(window)
    window.close()


def test_a_long_response_scrolls_inside_its_own_area(
    qtbot: QtBot, images_bundle: Path, tmp_path: Path
) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(images_bundle.read_bytes())
    window = open_window(qtbot, path, "arena-battle", (1366, 768))
    last = window.view.display.turn_panels[-1]
    long_code = "```\n" + "\n".join(f"line {n} " + "x" * 300 for n in range(400)) + "\n```"
    last.responses[0].show_text(long_code)
    qtbot.wait(50)
    scroll = last.response_scrolls[0]
    assert scroll.verticalScrollBar().maximum() > 0  # it scrolls inside
    assert window.rect().contains(on_window(scroll.viewport(), window))
    assert_readable(window)
    window.close()


def test_a_long_campaign_title_is_elided_instead_of_widening_the_window(
    qtbot: QtBot, images_bundle: Path, tmp_path: Path
) -> None:
    """In the main window the annotation page sits beside the item list: a title that only
    fits on one line made the window 1039 px wide at 1024x700, cutting its right edge off."""
    path = tmp_path / "b.wbb"
    path.write_bytes(images_bundle.read_bytes())
    window = open_window(qtbot, path, "arena-battle", (1024, 700))
    view = window.view
    title = "spring-pilot-for-the-reading-group · VisIT-Bench reference verification"
    view.title.setText(title)
    assert view.title.minimumSizeHint().width() < 300
    assert view.minimumSizeHint().width() <= 1024 - 340  # room for the item list beside it
    # the counts beside it are shown whole, flags included: the title gives way
    QApplication.processEvents()
    assert "answered" in view.progress_label.text() and "flagged" in view.progress_label.text()
    assert view.progress_label.width() >= view.progress_label.sizeHint().width()
    # shortened with an ellipsis where narrow, whole where it fits, whole in its tooltip
    view.title.resize(200, view.title.height())
    assert view.title.text().endswith("…") and len(view.title.text()) < len(title)
    assert view.title.toolTip() == view.title.full_text() == title
    view.title.resize(view.title.sizeHint().width() + 10, view.title.height())
    assert view.title.text() == title
    window.close()
