"""A fresh page per task, for every protocol: after an answer the next task has no answer
selected, an empty rationale and the keyboard focus; the zoom window follows the task."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle, build_image_bundle
from tests.gui.annotation_probe import press
from tests.gui.test_annotation_view import PROTOCOL_IDS, PROTOCOLS, start_view
from tests.patience import HANG_GUARD_MS
from workbench.domain.protocols import AnnotationProtocol
from workbench.gui.annotation.annotation_view import AnnotationView
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("fresh-page"))


def assert_fresh(view: AnnotationView) -> None:
    panel = view.answer_panel
    assert panel is not None
    assert all(value is None for value in panel.checked_values())
    assert all(group.checkedButton() is None for group in panel.groups)
    assert panel.comment_field.text() == ""
    if panel.grade_field is not None:
        assert panel.grade_field.text() == ""
    assert QApplication.focusWidget() is view


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=PROTOCOL_IDS)
def test_every_task_starts_on_a_fresh_page(
    qtbot: QtBot, template: Path, tmp_path: Path, protocol: AnnotationProtocol
) -> None:
    copy_bundle(template, tmp_path / "b.wbb")
    with Bundle.open(tmp_path / "b.wbb") as bundle:
        view = start_view(qtbot, bundle, protocol.name)
        qtbot.waitUntil(view.hasFocus, timeout=HANG_GUARD_MS)
        assert_fresh(view)
        for answered in (1, 2):
            panel = view.answer_panel
            assert panel is not None and view.task is not None
            panel.comment_field.setFocus()
            qtbot.keyClicks(panel.comment_field, "because")
            press(qtbot, view, Qt.Key.Key_Escape)
            if protocol.grade_scale is not None:
                for digit in str(int(protocol.grade_scale.maximum)):
                    press(qtbot, view, digit)
                press(qtbot, view, Qt.Key.Key_Return)
            else:
                choice = next(
                    c for c in protocol.choices if c.value not in protocol.comment_required_for
                )
                for _criterion in protocol.criteria:
                    # the button is checked when pressed, and the vote goes with the last one
                    press(qtbot, view, choice.key)
            if view.task is None:  # a campaign of one task is done after one answer
                assert answered > 1 or view.session.progress().total == 1
                break
            assert f"{answered} answered" in view.progress_label.text()
            assert_fresh(view)
        view.end()


def test_the_zoom_window_follows_the_task(qtbot: QtBot, tmp_path: Path) -> None:
    path = build_image_bundle(tmp_path)
    with Bundle.open(path) as bundle:
        view = start_view(qtbot, bundle, "arena-battle")
        assert view.zoom is None
        press(qtbot, view, "z")
        zoom = view.zoom
        assert zoom is not None and zoom.isVisible()
        first = zoom.ui.infoLabel.text()
        press(qtbot, view, "A")
        assert view.zoom is zoom and zoom.isVisible()
        assert zoom.ui.infoLabel.text() != first  # the next task's image, not the old one
        view.end()
        assert view.zoom is None
