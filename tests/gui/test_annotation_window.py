"""The annotation page in the main window (Annotate menu, page switching, the start and
new-campaign dialogs, offline packs) and the screenshot of ``--page annotate``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle, forbidden_strings
from tests.gui.annotation_probe import leaks, press, shown_texts, widget_strings
from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from workbench.errors import WorkbenchError
from workbench.gui.annotation.annotation_page import ANNOTATE_PAGE, ITEMS_PAGE
from workbench.gui.annotation.new_campaign_dialog import NewCampaignDialog
from workbench.gui.annotation.start_dialog import NEW_PROFILE, StartAnnotatingDialog
from workbench.gui.app import run_app
from workbench.gui.main_window import MainWindow
from workbench.services.campaigns import list_annotators, list_campaigns
from workbench.services.packs import export_pack
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("annotation-window"))


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "b.wbb")
    return tmp_path / "b.wbb"


@pytest.fixture
def window(qtbot: QtBot, bundle_path: Path) -> Iterator[MainWindow]:
    main = MainWindow(persist_layout=False)
    qtbot.addWidget(main)
    main.open_bundle(bundle_path)
    main.show()
    qtbot.waitExposed(main, timeout=HANG_GUARD_MS)
    main.activateWindow()
    qtbot.waitUntil(main.isActiveWindow, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, main)
    yield main
    main.close()


def dark_pixels(image: QImage) -> int:
    return sum(
        1
        for y in range(image.height())
        for x in range(image.width())
        if QColor(image.pixel(x, y)).lightness() < 100
    )


# --- screenshots ---------------------------------------------------------------------------------


def test_screenshot_cli_renders_the_annotation_view_at_1600x1000(
    bundle_path: Path, tmp_path: Path
) -> None:
    target = tmp_path / "annotate.png"
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM")}
    command = [
        sys.executable,
        "-c",
        "import sys; from workbench.cli import main; sys.exit(main())",
        *("open", str(bundle_path), "--screenshot", str(target), "--page", "annotate"),
        *("--campaign", "chirp-five-criteria", "--annotator", "bob"),
    ]
    completed = subprocess.run(
        command, capture_output=True, text=True, env=environment, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1600, 1000)
    assert dark_pixels(image.copy(0, 0, 1600, 200).scaled(400, 50)) > 20  # text was drawn


def test_screenshot_without_an_annotator_uses_the_first_profile(
    qapp: QApplication, bundle_path: Path, tmp_path: Path
) -> None:
    assert (
        run_app(
            bundle_path, screenshot=tmp_path / "a.png", page="annotate", campaign="arena-battle"
        )
        == 0
    )
    assert QImage(str(tmp_path / "a.png")).size().toTuple() == (1600, 1000)
    with Bundle.open(bundle_path) as bundle:
        assert [a.handle for a in list_annotators(bundle)] == ["ana", "bob"]  # none added


def test_screenshot_of_a_bundle_without_profiles_adds_no_profile(
    qapp: QApplication, tmp_path: Path
) -> None:
    from tests.services.campaign_helpers import MODELS, build_campaign_bundle
    from workbench.services.campaigns import CampaignSpec, create_campaign

    path = build_campaign_bundle(tmp_path, items=1, models=MODELS[:2])
    with Bundle.open(path) as bundle:
        create_campaign(bundle, CampaignSpec("c", "visit-bench-preference", seed=1))
    assert run_app(path, screenshot=tmp_path / "s.png", page="annotate", campaign="c") == 0
    with Bundle.open(path) as bundle:
        assert list_annotators(bundle) == []  # a newcomer's view, read-only


def test_screenshot_of_an_unknown_campaign_fails_with_a_message(
    qapp: QApplication, bundle_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run_app(bundle_path, screenshot=tmp_path / "x.png", page="annotate", campaign="nope")
    assert status == 1
    assert "no campaign named 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(WorkbenchError, match="--campaign"):
        run_app(bundle_path, screenshot=tmp_path / "x.png", page="annotate")


# --- the page in the main window -----------------------------------------------------------------


def test_annotating_hides_the_inspector_and_names_no_model(
    qtbot: QtBot, window: MainWindow, bundle_path: Path
) -> None:
    page = window.annotation
    menu_titles = [action.text() for action in window.ui.menuBar.actions()]
    assert "&Annotate" in menu_titles
    page.start("visit-bench-preference-with-reference", "ana")
    assert page.page == ANNOTATE_PAGE
    assert not window.item_dock.isVisible() and not window.item_view.isVisible()
    assert page.view.isVisible() and page.view.hasFocus()
    assert not window.ui.nextAction.isEnabled()  # N / P do not move the hidden inspector
    exposed = [
        *widget_strings(page.view),
        *widget_strings(page.menu),
        window.windowTitle(),
        window.statusBar().currentMessage(),
    ]
    assert "visit-bench-preference-with-reference" in window.windowTitle()
    assert leaks(exposed, forbidden_strings(bundle_path)) == []

    press(qtbot, page.view, "1")
    assert "1 answered" in page.view.progress_label.text()

    press(qtbot, page.view, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)  # Ctrl+1
    assert page.page == ANNOTATE_PAGE  # leaving annotator mode is a deliberate action
    waiting = shown_texts(page.view)
    page.leave()
    assert page.page == ITEMS_PAGE
    assert window.item_dock.isVisible() and window.item_view.isVisible()
    assert window.ui.nextAction.isEnabled()
    page.start("visit-bench-preference-with-reference", "ana")  # resumes on the same task
    assert page.page == ANNOTATE_PAGE and shown_texts(page.view) == waiting


def test_f1_on_the_annotation_page_shows_the_annotation_keys(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.annotation.start("arena-battle", "ana")
    window.ui.shortcutsAction.trigger()
    overlay = window.annotation.view.help_overlay
    assert overlay is not None and overlay.isVisible()
    assert "X" in widget_strings(overlay)  # arena's "both bad" key


def test_opening_another_bundle_ends_the_annotation(
    qtbot: QtBot, window: MainWindow, bundle_path: Path, tmp_path: Path
) -> None:
    window.annotation.start("arena-battle", "ana")
    other = tmp_path / "other.wbb"
    copy_bundle(bundle_path, other)
    window.open_bundle(other)
    assert window.annotation.page == ITEMS_PAGE
    assert not window.annotation.view.active and window.item_dock.isVisible()


def test_start_dialog_adds_a_profile_and_starts_where_they_left_off(
    qtbot: QtBot, window: MainWindow, bundle_path: Path
) -> None:
    dialog = window.annotation.show_start_dialog()
    assert isinstance(dialog, StartAnnotatingDialog)
    names = [dialog.campaign_box.itemData(i) for i in range(dialog.campaign_box.count())]
    with Bundle.open(bundle_path) as bundle:
        assert names == [campaign["name"] for campaign in list_campaigns(bundle)]
    dialog.campaign_box.setCurrentIndex(names.index("arena-battle"))
    dialog.annotator_box.setCurrentIndex(dialog.annotator_box.findText(NEW_PROFILE))
    assert dialog.handle_field.isVisible()
    dialog.handle_field.setText("cleo")
    dialog.expertise_field.setText("radiologist")
    dialog.accept()
    view = window.annotation.view
    assert window.annotation.page == ANNOTATE_PAGE
    assert view.session is not None and view.session.annotator_handle == "cleo"
    with Bundle.open(bundle_path) as bundle:
        assert "cleo" in [a.handle for a in list_annotators(bundle)]

    again = window.annotation.show_start_dialog()
    assert again is not None
    again.annotator_box.setCurrentIndex(again.annotator_box.findText(NEW_PROFILE))
    again.handle_field.setText("cleo")
    again.accept()  # a profile with that handle exists: the dialog stays and says so
    assert again.isVisible() and "already exists" in again.message.text()
    again.reject()


def test_start_dialog_on_a_pack_fixes_campaign_and_annotator(
    qtbot: QtBot, window: MainWindow, bundle_path: Path, tmp_path: Path
) -> None:
    pack = tmp_path / "ana-pack.wbb"
    with Bundle.open(bundle_path) as bundle:
        export_pack(bundle, "arena-battle", "ana", pack)
    window.open_bundle(pack)
    dialog = window.annotation.show_start_dialog()
    assert dialog is not None
    assert (dialog.campaign, dialog.annotator) == ("arena-battle", "ana")
    assert not dialog.campaign_box.isEnabled() and not dialog.annotator_box.isEnabled()
    dialog.accept()
    view = window.annotation.view
    assert view.task is not None
    press(qtbot, view, "A")
    assert "1 answered" in view.progress_label.text()


def test_new_campaign_dialog_creates_a_campaign(
    qtbot: QtBot, window: MainWindow, bundle_path: Path
) -> None:
    dialog = window.annotation.show_new_campaign_dialog()
    assert isinstance(dialog, NewCampaignDialog)
    dialog.accept()  # no name yet
    assert dialog.isVisible() and "name" in dialog.message.text()
    dialog.name_field.setText("arena-battle")
    dialog.protocol_box.setCurrentIndex(dialog.protocol_box.findData("arena-battle"))
    dialog.accept()  # that name is taken
    qtbot.waitUntil(
        lambda: not dialog.creating,
        timeout=HANG_GUARD_MS,
    )  # a job of the window's
    assert dialog.isVisible() and "already exists" in dialog.message.text()
    dialog.name_field.setText("round-2")
    dialog.votes_spin.setValue(2)
    dialog.seed_spin.setValue(11)
    dialog.accept()
    assert dialog.creating and not dialog.isEnabled()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=HANG_GUARD_MS)
    assert dialog.summary is not None and dialog.summary.tasks > 0
    with Bundle.open(bundle_path) as bundle:
        created = {c["name"]: c for c in list_campaigns(bundle)}["round-2"]
    assert (created["protocol"], created["votes_per_pair"], created["seed"]) == (
        "arena-battle",
        2,
        11,
    )
    assert "Campaign created" in window.statusBar().currentMessage()


def test_new_campaign_dialog_leaves_out_items_missing_an_image(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from tests.services.test_campaigns_missing_images import bundle_with_a_missing_image

    path = bundle_with_a_missing_image(tmp_path)
    main = MainWindow(persist_layout=False)
    qtbot.addWidget(main)
    main.open_bundle(path)
    main.show()
    wait_idle(qtbot, main)
    for name, leave_out in (("seeable", True), ("everything", False)):
        dialog = main.annotation.show_new_campaign_dialog()
        assert dialog is not None and dialog.without_missing_box.isChecked()  # the default
        dialog.name_field.setText(name)
        dialog.protocol_box.setCurrentIndex(dialog.protocol_box.findData("arena-battle"))
        dialog.without_missing_box.setChecked(leave_out)
        dialog.accept()
        qtbot.waitUntil(lambda: not dialog.creating, timeout=HANG_GUARD_MS)  # noqa: B023
        assert dialog.summary is not None
        message = main.statusBar().currentMessage()
        if leave_out:
            assert dialog.summary.left_out_missing_images == 1
            assert "1 items left out: images missing" in message
        else:
            assert dialog.summary.items_missing_images == 1
            assert "warning: 1 items miss an image" in message
    main.close()
