"""The annotator's seat at 1366x768 and 1024x700: honest counts (answered and skipped apart,
one campaign-wide denominator, the numbers ``workbench campaign status`` gives), no menu
mnemonic on a vote key, and the guidelines overlay covering the page when a session starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QLabel, QMenu, QWidget
from pytestqt.qtbot import QtBot
from sqlalchemy import select

from tests.gui.annotation_bundle import build_annotation_bundle, build_image_bundle
from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from workbench.cli import main
from workbench.gui.annotation.annotator_window import AnnotatorWindow
from workbench.gui.main_window import MainWindow
from workbench.gui.settings import GuiSettings
from workbench.services.monitor import campaign_status
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle
from workbench.storage.models import Vote

pytestmark = pytest.mark.gui

SIZES = [(1366, 768), (1024, 700)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("seats"))


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "b.wbb")
    return tmp_path / "b.wbb"


def open_window(
    qtbot: QtBot, bundle: Bundle, campaign: str, size: tuple[int, int], annotator: str = "ana"
) -> AnnotatorWindow:
    window = AnnotatorWindow(bundle, AnnotationSession(bundle, campaign, annotator))
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return window


def settle(qtbot: QtBot, window: AnnotatorWindow) -> None:
    qtbot.waitUntil(lambda: not window.view.busy, timeout=HANG_GUARD_MS)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_skip_is_not_counted_as_answered_and_the_counts_match_campaign_status(
    qtbot: QtBot, bundle_path: Path, size: tuple[int, int]
) -> None:
    bundle = Bundle.open(bundle_path)
    window = open_window(qtbot, bundle, "arena-battle", size)
    view = window.view
    for _ in range(2):
        view.choose("a")
        settle(qtbot, window)
    view.skip("image does not load")
    settle(qtbot, window)
    status = campaign_status(bundle, "arena-battle")
    row = next(r for r in status["annotators"] if r["annotator"] == "ana")
    assert (row["answered"], row["skipped"]) == (2, 1)
    text = view.progress_label.text()
    assert "2 answered" in text and "1 skipped" in text, text
    assert f"{status['tasks']} tasks" in text, text
    assert "0 flagged" in text, text
    assert view.progress_label.isVisible()
    assert window.rect().contains(view.progress_label.geometry().translated(view.pos()))
    # a flag keeps the task and is counted apart, twice on one task as one flagged task; it
    # stays counted on the task read ahead meanwhile, once the flagged task is answered
    assert view.task is not None
    flagged_token = view.task.token
    for reason in ("broken_image", "offensive"):
        view.flag(reason, None)
        settle(qtbot, window)
    assert view.task.token == flagged_token
    text = view.progress_label.text()
    assert "2 answered" in text and "1 skipped" in text and "1 flagged" in text, text
    view.choose("a")
    settle(qtbot, window)
    text = view.progress_label.text()
    assert "3 answered" in text and "1 skipped" in text and "1 flagged" in text, text
    while view.task is not None:  # the end of the queue: the skip is still not an answer
        view.choose("a")
        settle(qtbot, window)
    status = campaign_status(bundle, "arena-battle")
    row = next(r for r in status["annotators"] if r["annotator"] == "ana")
    final = view.progress_label.text()
    assert f"{row['answered']} answered" in final and f"{row['skipped']} skipped" in final
    assert "1 flagged" in final and "all done" in final
    summary = view.done_label.text()  # the end of the session says what was done
    assert view.done_label.isVisible()
    assert f"You answered {row['answered']} and skipped {row['skipped']}" in summary
    assert f"{status['tasks']} tasks, and flagged 1" in summary
    window.close()


def test_every_annotator_of_a_campaign_sees_the_same_denominator(
    qtbot: QtBot, bundle_path: Path
) -> None:
    bundle = Bundle.open(bundle_path)
    other = AnnotationSession(bundle, "arena-battle", "bob")
    for _ in range(3):  # bob's votes fill tasks that ana then never gets
        task = other.next_task()
        assert task is not None
        other.cast(task.token, "b")
    window = open_window(qtbot, bundle, "arena-battle", (1366, 768))
    tasks = campaign_status(bundle, "arena-battle")["tasks"]
    ana = window.view.progress_label.text()
    bob = other.next_task()
    assert bob is not None
    assert bob.progress.campaign_tasks == tasks
    assert window.view.task is not None
    assert window.view.task.progress.campaign_tasks == tasks
    assert f"{tasks} tasks in the campaign" in ana, ana
    window.close()


# --- mnemonics --------------------------------------------------------------------------------


def open_menus() -> list[QMenu]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible()]


def test_no_menu_mnemonic_takes_a_vote_key(qtbot: QtBot, bundle_path: Path) -> None:
    bundle = Bundle.open(bundle_path)
    window = open_window(qtbot, bundle, "arena-battle", (1366, 768))
    assert window.view.session is not None
    keys = {choice.key.upper() for choice in window.view.session.protocol.choices}
    for action in window.menuBar().actions():
        title = action.text()
        marked = title[title.index("&") + 1].upper() if "&" in title.replace("&&", "") else ""
        assert marked not in keys, title
    # Alt+A, Esc, then A (where the keyboard focus is): the key votes, no menu opens
    first = window.view.task
    qtbot.keyClick(window, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
    for menu in open_menus():
        qtbot.keyClick(menu, Qt.Key.Key_Escape)
    target = QApplication.focusWidget()
    qtbot.keyClick(target if target is not None else window.view, Qt.Key.Key_A)
    settle(qtbot, window)
    assert not open_menus()
    assert window.view.task is not first
    status = campaign_status(bundle, "arena-battle")
    assert next(r for r in status["annotators"] if r["annotator"] == "ana")["answered"] == 1
    window.close()


# --- the guidelines at session start -----------------------------------------------------------

GUIDELINES = "# How to judge\n\nPrefer the response that **answers the question** asked.\n"


def guided_campaign(bundle_path: Path, tmp_path: Path) -> str:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDELINES, encoding="utf-8")
    command = ["campaign", "create", str(bundle_path), "--name", "guided"]
    assert main([*command, "--protocol", "arena-battle", "--guidelines", str(guide)]) == 0
    return "guided"


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_the_guidelines_shown_at_the_start_cover_the_page(
    qtbot: QtBot, bundle_path: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    campaign = guided_campaign(bundle_path, tmp_path)
    bundle = Bundle.open(bundle_path)
    window = open_window(qtbot, bundle, campaign, size)
    overlay = window.view.help_overlay
    assert overlay is not None and overlay.isVisible()
    qtbot.waitUntil(lambda: overlay.geometry() == window.view.rect())
    assert overlay.guidelines is not None and overlay.guidelines.isVisible()
    assert overlay.guidelines_area is not None and overlay.guidelines_area.height() >= 150
    window.resize(size[0] - 100, size[1] - 50)  # and it follows a resize
    qtbot.waitUntil(lambda: overlay.geometry() == window.view.rect())
    window.close()


def test_the_guidelines_cover_the_main_windows_annotation_page(
    qtbot: QtBot, bundle_path: Path, tmp_path: Path
) -> None:
    campaign = guided_campaign(bundle_path, tmp_path)
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle_path)
    window.resize(1366, 768)
    window.show()
    wait_idle(qtbot, window)
    window.annotation.start(campaign, "ana")  # the page is hidden until the session starts
    view = window.annotation.view
    overlay = view.help_overlay
    assert overlay is not None
    qtbot.waitUntil(lambda: overlay.isVisible() and overlay.geometry() == view.rect())
    assert view.width() > 600 and view.height() > 400
    window.close()


# --- images ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def images_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_image_bundle(tmp_path_factory.mktemp("seats-images"))


def to_ten_images(qtbot: QtBot, window: AnnotatorWindow) -> None:
    """Vote until the task with ten images is shown (the bundle's third item)."""
    view = window.view
    while view.task is not None and len(view.task.images) != 10:
        view.choose("a")
        settle(qtbot, window)
    assert view.task is not None


def inside(widget: QWidget, window: AnnotatorWindow) -> bool:
    """Whether ``widget`` is drawn whole inside its scroll area's viewport and the window."""
    strip = window.view.display.strip
    top_left = widget.mapTo(strip.viewport(), widget.rect().topLeft())
    rect = widget.rect().translated(top_left)
    return strip.viewport().rect().contains(rect)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_every_image_of_a_ten_image_task_is_reached_and_zoomed_by_keyboard(
    qtbot: QtBot, images_template: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    copy_bundle(images_template, tmp_path / "i.wbb")
    bundle = Bundle.open(tmp_path / "i.wbb")
    window = open_window(qtbot, bundle, "arena-battle", size)
    to_ten_images(qtbot, window)
    view = window.view
    tiles = view.display.tiles
    assert len(tiles) == 10
    qtbot.keyClick(view, Qt.Key.Key_Tab)  # the rationale first, as before
    assert view.answer_panel is not None and view.answer_panel.comment_field.hasFocus()
    for tile in tiles:  # then each image in turn, scrolled into sight
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert tile.hasFocus(), tile.position
        assert inside(tile, window), tile.position
    assert tiles[9].hasFocus()
    qtbot.keyClick(tiles[9], Qt.Key.Key_Z)  # Z zooms the image with the focus, not image 1
    zoom = view.zoom
    assert zoom is not None and zoom.isVisible()
    assert zoom.windowTitle() == "Image 10"
    assert "image 10 of 10" in zoom.ui.infoLabel.text()
    assert not zoom.ui.nextButton.isEnabled() and zoom.ui.previousButton.isEnabled()
    zoom.activateWindow()  # as a window shown on a desktop is
    qtbot.waitUntil(zoom.isActiveWindow)
    qtbot.keyClick(zoom.ui.imageView, Qt.Key.Key_PageUp)  # previous; the strip follows
    assert zoom.windowTitle() == "Image 9" and view.zoomed_tile() is tiles[8]
    assert inside(tiles[8], window)
    for _ in range(8):
        zoom.ui.previousButton.click()
    assert zoom.windowTitle() == "Image 1" and not zoom.ui.previousButton.isEnabled()
    assert inside(tiles[0], window)
    qtbot.keyClick(zoom.ui.imageView, Qt.Key.Key_PageDown)
    assert zoom.windowTitle() == "Image 2"
    qtbot.keyClick(tiles[4], Qt.Key.Key_Return)  # Enter on a tile zooms that one
    assert zoom.windowTitle() == "Image 5"
    # a vote key with the focus on a tile still votes
    tiles[4].setFocus()
    first = view.task
    qtbot.keyClick(tiles[4], Qt.Key.Key_B)
    settle(qtbot, window)
    assert view.task is not first
    window.close()


# --- who is voting -----------------------------------------------------------------------------


def test_resuming_asks_who_annotates(monkeypatch: pytest.MonkeyPatch, bundle_path: Path) -> None:
    import workbench.gui.app as app

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def record_call(*a: Any, **k: Any) -> int:
        calls.append((a, k))
        return 0

    monkeypatch.setattr(app, "run_app", record_call)
    monkeypatch.setattr(app, "run_annotator", record_call)
    for window in ("main", "annotator"):
        GuiSettings().remember_annotation_session(
            str(bundle_path.resolve()), "arena-battle", "bob", window
        )
        assert app.resume_annotation() == 0
        _args, options = calls.pop()
        assert options.get("ask_annotator") is True, window


def test_the_start_dialog_offers_the_last_annotator_as_a_default_only(
    qtbot: QtBot, bundle_path: Path
) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle_path)
    window.resize(1366, 768)
    window.show()
    wait_idle(qtbot, window)
    dialog = window.annotation.show_start_dialog("arena-battle", "bob")
    assert dialog is not None and dialog.isVisible()
    assert (dialog.campaign, dialog.annotator) == ("arena-battle", "bob")
    assert "bob" in dialog.message.text() and "keyboard" in dialog.message.text()
    assert window.annotation.view.session is None  # nothing starts without the answer
    dialog.annotator_box.setCurrentIndex(dialog.annotator_box.findData("ana"))
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    session = window.annotation.view.session
    assert session is not None and session.annotator_handle == "ana"
    window.close()


def test_the_annotator_window_asks_before_it_opens(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, bundle_path: Path
) -> None:
    from workbench.gui.annotation.start_dialog import StartAnnotatingDialog
    from workbench.gui.app import ask_who_annotates

    seen: list[tuple[str | None, str | None]] = []

    def answer(dialog: StartAnnotatingDialog) -> int:
        seen.append((dialog.campaign, dialog.annotator))
        dialog.annotator_box.setCurrentIndex(dialog.annotator_box.findData("ana"))
        return QDialog.DialogCode.Accepted.value

    monkeypatch.setattr(StartAnnotatingDialog, "exec", answer)
    with Bundle.open(bundle_path) as bundle:
        assert ask_who_annotates(bundle, "arena-battle", "bob") == ("arena-battle", "ana")
        assert seen == [("arena-battle", "bob")]
        monkeypatch.setattr(StartAnnotatingDialog, "exec", lambda _d: 0)  # closed: nothing
        assert ask_who_annotates(bundle, "arena-battle", "bob") is None


# --- undo ------------------------------------------------------------------------------------


@pytest.mark.parametrize("campaign", ["arena-battle", "chirp-five-criteria"])
def test_an_undone_answer_comes_back_selected_and_enter_saves_it(
    qtbot: QtBot, bundle_path: Path, campaign: str
) -> None:
    bundle = Bundle.open(bundle_path)
    window = open_window(qtbot, bundle, campaign, (1366, 768))
    view = window.view
    assert view.answer_panel is not None and view.session is not None
    criteria = len(view.session.protocol.criteria)
    second = view.session.protocol.choices[1]
    view.answer_panel.comment_field.setText("clearer")
    first = view.task
    for _ in range(criteria):
        qtbot.keyClick(view, second.key)
    settle(qtbot, window)
    assert view.task is not first
    view.undo()
    settle(qtbot, window)
    assert view.answer_panel.checked_values() == [second.value] * criteria
    assert view.answer_panel.comment_field.text() == "clearer"
    assert "selected" in view.answer_panel.message.text()
    qtbot.keyClick(view, Qt.Key.Key_Return)  # saved again as it was
    settle(qtbot, window)
    status = campaign_status(bundle, campaign)
    row = next(r for r in status["annotators"] if r["annotator"] == "ana")
    assert row["answered"] == 1
    with bundle.read_session() as session:
        standing = session.execute(
            select(Vote.choice, Vote.comment).where(Vote.retracted_at.is_(None))
        ).all()
    assert [choice for choice, _ in standing] == [second.value] * criteria
    assert "clearer" in [comment for _, comment in standing]  # with the answer, as before
    window.close()


def text_whole(label: QLabel) -> bool:
    """Every line of the label's text shown: at its width, wrapped at words, it needs no more
    height than the label has, and no word is wider than the label."""
    from PySide6.QtCore import QRect

    room = label.contentsRect()
    metrics = label.fontMetrics()
    words = label.text().split()
    needed = metrics.boundingRect(
        QRect(0, 0, room.width(), 100_000), Qt.TextFlag.TextWordWrap, label.text()
    )
    widest = max(metrics.horizontalAdvance(word) for word in words)
    return needed.height() <= room.height() and widest <= room.width()


#: the window a 1024x700 screen gives the app under a window manager (title bar and frame off)
WALKED = [*SIZES, (972, 665)]


@pytest.mark.parametrize("size", WALKED, ids=[f"{w}x{h}" for w, h in WALKED])
def test_the_keys_beside_the_guidelines_are_whole(
    qtbot: QtBot, bundle_path: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    """Seen in a real window at 1366x768: beside the guidelines, the longest key's meaning
    ("Zoom into the image with the focus, else the first (the zoom follows the task)") was
    cut at the guidelines' edge, and the key column ran off the overlay's left edge."""
    campaign = guided_campaign(bundle_path, tmp_path)
    bundle = Bundle.open(bundle_path)
    window = open_window(qtbot, bundle, campaign, size)
    overlay = window.view.help_overlay
    assert overlay is not None
    qtbot.waitUntil(lambda: overlay.isVisible() and overlay.geometry() == window.view.rect())
    layout = overlay.layout()
    assert layout is not None
    layout.activate()  # laid out at its size (as the next paint would)
    area = overlay.guidelines_area
    assert area is not None
    left_of_guidelines = area.mapTo(overlay, area.rect().topLeft()).x()
    labels = [label for label in overlay.findChildren(QLabel) if label.parent() is overlay]
    meanings = [label for label in labels if "Zoom into the image with the focus" in label.text()]
    assert meanings
    for label in labels:
        if not label.text() or label.text() in ("Keys", "Guidelines"):
            continue
        geometry = label.geometry()
        assert geometry.left() >= 0 and text_whole(label), label.text()
        if geometry.top() < area.mapTo(overlay, area.rect().bottomLeft()).y() and (
            label.text() != "Press any key or click to close."
        ):
            assert geometry.right() < left_of_guidelines, label.text()
    window.close()


def test_the_guidelines_at_the_start_take_the_keyboard(
    qtbot: QtBot, bundle_path: Path, tmp_path: Path
) -> None:
    """Seen in a real window: the guidelines opened at the start of a session did not have the
    keyboard (the page took it as the window was shown), so Esc left them up, Z zoomed and a
    vote key chose an answer under them."""
    campaign = guided_campaign(bundle_path, tmp_path)
    bundle = Bundle.open(bundle_path)
    window = open_window(qtbot, bundle, campaign, SIZES[0])
    view = window.view
    overlay = view.help_overlay
    assert overlay is not None
    qtbot.waitUntil(lambda: overlay.isVisible() and view.task is not None)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    assert QApplication.focusWidget() is overlay
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_A)  # the keyboard's next key
    assert not overlay.is_open
    assert view.answer_panel is not None
    assert view.answer_panel.checked_values() == [None] * len(view.answer_panel.checked_values())
    window.close()
