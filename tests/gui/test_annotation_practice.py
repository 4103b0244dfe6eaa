"""The practice round in the annotation page (workbench/gui/annotation/annotation_view.py):
offered at the start, one practice task at a time with keys, feedback after each answer, then
the real tasks; no vote is written for practice and no model name is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from sqlalchemy import func, select

from tests.gui.annotation_bundle import build_annotation_bundle, forbidden_strings
from tests.gui.annotation_probe import leaks, press, shown_texts, widget_strings
from tests.gui.conftest import wait_idle
from tests.gui.test_annotation_annotator_mode import walk
from tests.patience import HANG_GUARD_MS
from tests.services.campaign_helpers import MODELS
from workbench.cli import main
from workbench.gui.annotation.annotator_window import AnnotatorWindow
from workbench.gui.annotation.new_campaign_dialog import NewCampaignDialog
from workbench.gui.main_window import MainWindow
from workbench.services.campaigns import campaign_details
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle
from workbench.storage.models import Campaign, Vote

pytestmark = pytest.mark.gui

PRACTICE_FILE = "practice.jsonl"
EXPLANATIONS = ("The first answer names the colour.", "Only the second one counts right.")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("practice")
    path = build_annotation_bundle(folder)
    practice = folder / PRACTICE_FILE
    rows = [
        {"item": "q001", "answer": "a", "first": MODELS[0], "second": MODELS[1]},
        {"item": "q001", "answer": "b", "first": MODELS[1], "second": MODELS[2]},
    ]
    practice.write_text(
        "".join(
            json.dumps({**row, "explanation": why}) + "\n"
            for row, why in zip(rows, EXPLANATIONS, strict=True)
        ),
        encoding="utf-8",
    )
    base = ["campaign", "create", str(path), "--protocol", "arena-battle", "--items", "q000"]
    extra = ["--practice-file", str(practice)]
    assert main([*base, "--name", "required", *extra, "--practice-required"]) == 0
    assert main([*base, "--name", "optional", *extra]) == 0
    return path


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "b.wbb")
    return tmp_path / "b.wbb"


def vote_rows(bundle: Bundle) -> int:
    with bundle.read_session() as session:
        return session.scalar(select(func.count()).select_from(Vote)) or 0


def open_window(qtbot: QtBot, bundle: Bundle, campaign: str, annotator: str) -> AnnotatorWindow:
    window = AnnotatorWindow(bundle, AnnotationSession(bundle, campaign, annotator))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window, timeout=HANG_GUARD_MS)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=HANG_GUARD_MS)  # Ctrl+S needs an active window
    return window


def test_practice_round_with_keys_then_real_tasks(qtbot: QtBot, bundle_path: Path) -> None:
    bundle = Bundle.open(bundle_path)
    forbidden = forbidden_strings(bundle_path)
    expected = [
        row["answer"] for row in campaign_details(bundle, "required")["settings"]["practice"]
    ]
    window = open_window(qtbot, bundle, "required", "ana")
    view = window.view
    assert view.session is not None
    protocol = view.session.protocol
    assert view.practice_index == -1 and view.task is None
    assert "Practice round: 2 tasks" in view.done_label.text()
    assert "skips" not in view.done_label.text()  # this campaign asks for the practice round
    press(qtbot, view, "S", Qt.KeyboardModifier.ControlModifier)
    assert view.practicing and "asks you to do the practice round" in view.done_label.text()

    press(qtbot, view, Qt.Key.Key_Return)
    assert view.practice_index == 0 and view.task is not None
    assert view.progress_label.text() == "Practice task 1 of 2: not counted"
    assert any("q001" in text for text in shown_texts(view))
    assert not any("q000" in text for text in shown_texts(view))
    # the practice page is as blind as a real one, through every action and key
    assert leaks(widget_strings(window), forbidden) == []
    walk(qtbot, window, forbidden)
    assert view.practice_index == 0 and vote_rows(bundle) == 0
    if view.help_overlay.isVisible():  # the walk ends with F1
        view.toggle_help()
    window.activateWindow()
    view.setFocus()

    wrong = next(c for c in protocol.choices if c.value in "ab" and c.value != expected[0])
    press(qtbot, view, wrong.key)
    assert view.feedback_label.isVisible()
    label = protocol.choice(expected[0]).label
    assert view.feedback_label.text().startswith(f"Not quite: expected '{label}'.")
    assert EXPLANATIONS[0] in view.feedback_label.text()
    assert leaks(widget_strings(window), forbidden) == []
    press(qtbot, view, wrong.key)  # the feedback stays until Enter: no second answer
    assert view.practice_index == 0

    press(qtbot, view, Qt.Key.Key_Return)
    assert view.practice_index == 1 and not view.feedback_label.isVisible()
    assert view.answer_panel.message.text() == ""
    press(qtbot, view, protocol.choice(expected[1]).key)
    assert view.feedback_label.text().startswith("Correct.")
    assert EXPLANATIONS[1] in view.feedback_label.text()
    assert vote_rows(bundle) == 0

    press(qtbot, view, Qt.Key.Key_Return)  # the round ends: the real tasks start
    assert not view.practicing and view.task is not None
    assert view.progress_label.text().startswith("0 answered · 0 skipped")
    assert any("q000" in text for text in shown_texts(view))
    assert vote_rows(bundle) == 0
    settings = campaign_details(bundle, "required")["settings"]
    assert settings["practice_done"] == {"ana": "completed"}
    press(qtbot, view, "A")
    assert vote_rows(bundle) == 1  # real answers count
    window.close()
    # remembered: the next session goes straight to the real tasks
    again = open_window(qtbot, bundle, "required", "ana")
    assert not again.view.practicing and again.view.task is not None
    again.close()
    bundle.close()


def test_an_optional_practice_round_can_be_skipped(qtbot: QtBot, bundle_path: Path) -> None:
    bundle = Bundle.open(bundle_path)
    window = open_window(qtbot, bundle, "optional", "bob")
    view = window.view
    assert "Ctrl+S skips the practice round." in view.done_label.text()
    press(qtbot, view, "S", Qt.KeyboardModifier.ControlModifier)
    assert not view.practicing and view.task is not None
    assert campaign_details(bundle, "optional")["settings"]["practice_done"] == {"bob": "skipped"}
    assert vote_rows(bundle) == 0
    window.close()
    bundle.close()


def test_new_campaign_dialog_draws_a_practice_round(
    qtbot: QtBot, bundle_path: Path, template: Path, tmp_path: Path
) -> None:
    with Bundle.open(bundle_path) as bundle:
        dialog = NewCampaignDialog(bundle, ["src"], list(MODELS[:3]))
        qtbot.addWidget(dialog)
        dialog.name_field.setText("practised")
        dialog.protocol_box.setCurrentIndex(dialog.protocol_box.findData("arena-battle"))
        dialog.items_box.setEditText("q000")
        dialog.practice_file_field.setText(str(tmp_path / "missing.jsonl"))
        dialog.accept()  # an unreadable file: one line, nothing created
        assert "cannot read" in dialog.message.text() and dialog.summary is None
        dialog.practice_file_field.setText(str(template.parent / PRACTICE_FILE))
        dialog.practice_spin.setValue(1)
        dialog.practice_optional_box.setChecked(False)
        dialog.accept()
        qtbot.waitUntil(lambda: not dialog.creating, timeout=HANG_GUARD_MS)
        assert dialog.summary is not None and dialog.summary.practice_tasks == 1
        settings = campaign_details(bundle, "practised")["settings"]
        assert len(settings["practice"]) == 1 and settings["practice_optional"] is False


def test_the_main_window_offers_the_practice_round_too(qtbot: QtBot, bundle_path: Path) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle_path)
    window.show()
    qtbot.waitExposed(window, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)
    window.annotation.start("required", "bob")
    view = window.annotation.view
    assert view.practicing and "Practice round: 2 tasks" in view.done_label.text()
    press(qtbot, view, Qt.Key.Key_Return)
    assert view.practice_index == 0 and view.task is not None
    assert leaks(widget_strings(window, visible_only=True), forbidden_strings(bundle_path)) == []
    window.annotation.leave()
    window.close()


def test_a_practice_task_whose_item_is_gone_says_so(qtbot: QtBot, bundle_path: Path) -> None:
    bundle = Bundle.open(bundle_path)
    with bundle.session() as session:
        campaign = session.scalars(select(Campaign).where(Campaign.name == "optional")).one()
        practice = [dict(row) for row in campaign.settings["practice"]]
        practice[0]["item"] = "no-such-item"
        campaign.settings = {**campaign.settings, "practice": practice}
    window = open_window(qtbot, bundle, "optional", "ana")
    view = window.view
    press(qtbot, view, Qt.Key.Key_Return)
    assert view.practice_index == -1 and view.task is None
    assert "Cannot show the practice task" in view.done_label.text()
    assert "no longer in this bundle" in view.done_label.text()
    window.close()
    bundle.close()
