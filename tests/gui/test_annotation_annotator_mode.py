"""Annotator mode: the annotator's window (``workbench annotate``, offline packs) and the main
window while annotating offer no menu, shortcut or dock that names a model or leads to an
analysis; leaving the mode in the main window is deliberate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle, forbidden_strings
from tests.gui.annotation_probe import (
    leaks,
    press,
    reachable_actions,
    visible_top_level_strings,
    widget_strings,
)
from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from workbench.gui.annotation.annotation_page import ANNOTATE_PAGE, ITEMS_PAGE
from workbench.gui.annotation.annotator_window import WINDOW_SIZE, AnnotatorWindow
from workbench.gui.app import run_app
from workbench.gui.main_window import MainWindow
from workbench.services.packs import export_pack
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle

pytestmark = pytest.mark.gui

#: words of the actions that lead to an inspector, search, analysis, judge, export or a
#: leaderboard; none may be reachable in annotator mode
ANALYSIS_WORDS = (
    "inspector",
    "item",
    "find",
    "search",
    "leaderboard",
    "graph",
    "agreement",
    "failure",
    "judge",
    "export",
    "import",
    "open",
    "recent",
    "raw text",
    "layout",
    "campaign",
    "api key",
)
#: actions that end the walk (they close the window or leave the mode) and are checked apart
ENDING = ("quit", "leave annotator mode")
#: shortcuts the inspector and panels use, pressed at the window whatever the menus say
PROBE_KEYS = [
    f"Ctrl+{key}" for key in ("1", "2", "3", "4", "5", "F", "E", "J", "I", "O", "G", "L", "R")
] + ["Ctrl+Shift+O", "N", "P", "Ctrl+Down", "Ctrl+Up", "F1"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("annotator-mode"))


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "b.wbb")
    return tmp_path / "b.wbb"


@pytest.fixture
def main_window(qtbot: QtBot, bundle_path: Path) -> Iterator[MainWindow]:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle_path)
    window.show()
    qtbot.waitExposed(window, timeout=HANG_GUARD_MS)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    yield window
    window.close()


def close_dialogs(window: QWidget) -> None:
    for widget in QApplication.topLevelWidgets():
        if widget is not window and widget.isVisible():
            widget.close()


def walk(qtbot: QtBot, window: QWidget, forbidden: list[str]) -> list[str]:
    """Trigger every reachable action and press every probe key; after each, nothing on screen
    names a model and no dock is open. Returns the texts of the actions walked."""
    walked: list[str] = []
    actions = reachable_actions(window)
    for action in actions:
        text = action.text().replace("&", "").casefold()
        assert not any(word in text for word in ANALYSIS_WORDS), action.text()
        walked.append(text)
        assert leaks([action.text(), action.toolTip(), action.statusTip()], forbidden) == []
        if any(text.startswith(word) for word in ENDING) or action.menu() is not None:
            continue
        seen_in_modal: list[str] = []

        def read_and_close_modal(seen: list[str] = seen_in_modal) -> None:
            # a modal dialog (About) runs its own event loop inside trigger()
            modal = QApplication.activeModalWidget()
            if modal is not None:
                seen += visible_top_level_strings()
                modal.close()

        QTimer.singleShot(300, read_and_close_modal)
        action.trigger()
        qtbot.wait(350)
        assert leaks(visible_top_level_strings() + seen_in_modal, forbidden) == [], action.text()
        assert not [d for d in window.findChildren(QDockWidget) if d.isVisible()]
        close_dialogs(window)
        window.activateWindow()
    for keys in PROBE_KEYS:
        sequence = QKeySequence(keys)
        combination = sequence[0]  # type: ignore[index]  # PySide6's stubs omit QKeySequence[i]
        qtbot.keyClick(window, combination.key(), combination.keyboardModifiers())
        assert leaks(visible_top_level_strings(), forbidden) == [], keys
        assert not [d for d in window.findChildren(QDockWidget) if d.isVisible()], keys
        close_dialogs(window)
    return walked


def test_annotator_window_offers_no_way_to_a_model_name(qtbot: QtBot, bundle_path: Path) -> None:
    bundle = Bundle.open(bundle_path)
    window = AnnotatorWindow(bundle, AnnotationSession(bundle, "arena-battle", "ana"))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window, timeout=HANG_GUARD_MS)
    forbidden = forbidden_strings(bundle_path)
    assert window.view.task is not None
    assert leaks(widget_strings(window), forbidden) == []
    walked = walk(qtbot, window, forbidden)
    assert "quit" in walked and any("undo" in text for text in walked)
    assert not window.findChildren(QDockWidget)
    press(qtbot, window.view, "A")  # still annotating after the walk
    assert "answered" in window.view.progress_label.text()
    assert leaks(widget_strings(window), forbidden) == []
    window.close()


def test_the_walk_finds_an_analysis_action(qtbot: QtBot, bundle_path: Path) -> None:
    """The walk is not blind itself: an action into an analysis is caught."""
    bundle = Bundle.open(bundle_path)
    window = AnnotatorWindow(bundle, AnnotationSession(bundle, "arena-battle", "ana"))
    qtbot.addWidget(window)
    window.menuBar().addMenu("&View").addAction("Leaderboard")
    with pytest.raises(AssertionError, match="Leaderboard"):
        walk(qtbot, window, forbidden_strings(bundle_path))
    window.close()


def test_annotating_in_the_main_window_enters_annotator_mode(
    qtbot: QtBot, main_window: MainWindow, bundle_path: Path
) -> None:
    window = main_window
    window.analysis.show_all()
    qtbot.waitUntil(lambda: window.analysis.docks["leaderboard"].isVisible(), timeout=HANG_GUARD_MS)
    forbidden = forbidden_strings(bundle_path)
    page = window.annotation
    page.start("visit-bench-preference-with-reference", "ana")
    assert page.page == ANNOTATE_PAGE
    assert not [d for d in window.findChildren(QDockWidget) if d.isVisible()]
    assert not window.item_view.isVisible() and page.view.hasFocus()
    visible_menus = [a.text() for a in window.menuBar().actions() if a.isVisible()]
    assert visible_menus == ["&Annotate", "&Help"]
    assert leaks(visible_top_level_strings(), forbidden) == []
    walk(qtbot, window, forbidden)
    assert page.page == ANNOTATE_PAGE  # no key left the mode

    press(qtbot, page.view, "1")
    assert "1 answered" in page.view.progress_label.text()

    box = page.request_leave()  # leaving asks first; "No" stays
    box.button(QMessageBox.StandardButton.No).click()
    assert page.page == ANNOTATE_PAGE and page.view.active
    box = page.request_leave()
    box.button(QMessageBox.StandardButton.Yes).click()
    assert page.page == ITEMS_PAGE and not page.view.active
    assert window.item_dock.isVisible() and window.item_view.isVisible()
    assert window.analysis.docks["leaderboard"].isVisible()  # as it was before
    assert window.ui.findAction.isEnabled() and window.tools.judge_action.isEnabled()
    assert all(a.isVisible() for a in window.menuBar().actions())


def test_a_pack_opens_in_the_annotator_window(
    qapp: QApplication, bundle_path: Path, tmp_path: Path
) -> None:
    pack = tmp_path / "ana-pack.wbb"
    with Bundle.open(bundle_path) as bundle:
        export_pack(bundle, "arena-battle", "ana", pack)
    assert run_app(pack, screenshot=tmp_path / "p.png") == 0
    # the annotator's window opens at its own size (the main window at 1600x1000)
    assert QImage(str(tmp_path / "p.png")).size().toTuple() == WINDOW_SIZE


def test_annotate_command_renders_the_annotator_window(bundle_path: Path, tmp_path: Path) -> None:
    from workbench.cli import main

    target = tmp_path / "a.png"
    status = main(
        [
            "annotate",
            str(bundle_path),
            "--campaign",
            "arena-battle",
            "--annotator",
            "bob",
            "--screenshot",
            str(target),
            "--size",
            "1024x700",
        ]
    )
    assert status == 0
    assert QImage(str(target)).size().toTuple() == (1024, 700)


def test_annotate_command_refuses_a_bad_size(
    bundle_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.cli import main

    status = main(["annotate", str(bundle_path), "--campaign", "arena-battle", "--size", "big"])
    assert status != 0
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_shortcut_keys_reach_nothing_once_disabled(qtbot: QtBot, main_window: MainWindow) -> None:
    """Ctrl+F (find in the item list) works in the inspector and not in annotator mode."""
    window = main_window
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    focused = QApplication.focusWidget()
    assert focused is not None and window.item_list.isAncestorOf(focused)
    window.annotation.start("arena-battle", "ana")
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    focused = QApplication.focusWidget()
    assert focused is None or not window.item_list.isAncestorOf(focused)


def test_annotator_mode_drops_the_linked_model_pair(qtbot: QtBot, main_window: MainWindow) -> None:
    """A pair chosen in the inspector names models: annotating clears it and takes none."""
    window = main_window
    window.selection.set_model_pair(("model-a", "model-b"))
    window.annotation.start("arena-battle", "ana")
    assert window.selection.model_pair is None
    window.selection.set_model_pair(("model-a", "model-b"))  # a panel left connected
    assert window.selection.model_pair is None
    assert window.item_list.current_query().pair is None
    window.selection.choose_models(("model-a",))  # nor one model
    assert window.item_list.current_query().compared is None
    window.annotation.show_page(ITEMS_PAGE)
    window.selection.set_model_pair(("model-a", "model-b"))
    assert window.selection.model_pair == ("model-a", "model-b")
