"""Guidelines and resuming: a campaign carries markdown guidelines (``campaign create
--guidelines``, ``campaign guidelines``) shown when a session starts and on F1; the session the
app was closed in is the one the next start reopens."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle
from tests.gui.annotation_probe import press
from tests.gui.conftest import wait_idle
from tests.gui.test_annotation_view import start_view
from workbench.cli import main
from workbench.gui.annotation.annotator_window import AnnotatorWindow
from workbench.gui.app import resumable_session
from workbench.gui.main_window import MainWindow
from workbench.gui.settings import GuiSettings
from workbench.services.campaigns import campaign_guidelines
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle

pytestmark = pytest.mark.gui

GUIDELINES = "# How to judge\n\nPrefer the response that **answers the question** asked.\n"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("guidelines"))


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "b.wbb")
    return tmp_path / "b.wbb"


def create(bundle_path: Path, *extra: str) -> int:
    command = ["campaign", "create", str(bundle_path), "--name", "guided"]
    return main([*command, "--protocol", "arena-battle", *extra])


def test_guidelines_are_stored_printed_replaced_and_cleared(
    bundle_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDELINES, encoding="utf-8")
    assert create(bundle_path, "--guidelines", str(guide)) == 0
    capsys.readouterr()
    assert main(["campaign", "guidelines", str(bundle_path), "guided"]) == 0
    assert capsys.readouterr().out == GUIDELINES
    other = tmp_path / "other.md"
    other.write_text("Be brief.", encoding="utf-8")
    assert main(["campaign", "guidelines", str(bundle_path), "guided", "--set", str(other)]) == 0
    with Bundle.open(bundle_path) as bundle:
        assert campaign_guidelines(bundle, "guided") == "Be brief."
    assert main(["campaign", "guidelines", str(bundle_path), "guided", "--clear"]) == 0
    with Bundle.open(bundle_path) as bundle:
        assert campaign_guidelines(bundle, "guided") is None


def test_unreadable_guidelines_create_nothing(
    bundle_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\xff\xfe\x00 not utf-8 \xff")
    assert create(bundle_path, "--guidelines", str(bad)) == 1
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "cannot read the guidelines" in error[0]
    assert main(["campaign", "guidelines", str(bundle_path), "guided"]) == 1  # no campaign


def test_guidelines_show_at_the_start_and_on_f1(
    qtbot: QtBot, bundle_path: Path, tmp_path: Path
) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(GUIDELINES, encoding="utf-8")
    assert create(bundle_path, "--guidelines", str(guide)) == 0
    with Bundle.open(bundle_path) as bundle:
        view = start_view(qtbot, bundle, "guided")
        overlay = view.help_overlay
        assert overlay is not None and overlay.isVisible()
        assert overlay.guidelines is not None
        assert "answers the question" in overlay.guidelines.toPlainText()
        press(qtbot, overlay, Qt.Key.Key_Space)  # any key closes it
        assert not overlay.isVisible()
        press(qtbot, view, Qt.Key.Key_F1)
        assert overlay.isVisible()
        view.end()
        plain = start_view(qtbot, bundle, "arena-battle")  # no guidelines: straight to work
        assert plain.help_overlay is not None and not plain.help_overlay.isVisible()
        assert plain.help_overlay.guidelines is None


def test_the_session_is_remembered_and_resumable(qtbot: QtBot, bundle_path: Path) -> None:
    bundle = Bundle.open(bundle_path)
    window = AnnotatorWindow(
        bundle, AnnotationSession(bundle, "arena-battle", "ana"), location=bundle_path
    )
    qtbot.addWidget(window)
    window.close()
    expected = (str(bundle_path.resolve()), "arena-battle", "ana", "annotator")
    assert GuiSettings().annotation_session() == expected
    assert resumable_session() == expected

    main_window = MainWindow(persist_layout=False)
    qtbot.addWidget(main_window)
    main_window.open_bundle(bundle_path)
    main_window.show()
    wait_idle(qtbot, main_window)
    main_window.annotation.start("chirp-five-criteria", "bob")
    assert resumable_session() == (str(bundle_path.resolve()), "chirp-five-criteria", "bob", "main")
    main_window.annotation.leave()  # leaving deliberately: nothing to resume
    assert resumable_session() is None
    main_window.annotation.start("arena-battle", "bob")
    main_window.close()

    bundle_path.unlink()  # the bundle is gone: start as usual, and forget it
    assert resumable_session() is None
    assert GuiSettings().annotation_session() is None
