"""The blind annotation view: nothing names a model for any task of any protocol, and keys
vote, undo, skip and resume for every protocol the installed plugins offer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot
from sqlalchemy import select

from tests.gui.annotation_bundle import build_annotation_bundle, forbidden_strings
from tests.gui.annotation_probe import leaks, press, shown_texts, widget_strings
from tests.patience import HANG_GUARD_MS
from workbench.domain.protocols import AnnotationProtocol
from workbench.gui.annotation.annotation_view import AnnotationView
from workbench.gui.annotation.skip_dialog import SkipDialog
from workbench.plugins import registry
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle
from workbench.storage.models import Annotator, Vote

pytestmark = pytest.mark.gui

PROTOCOLS = registry().protocols()
PROTOCOL_IDS = [protocol.name for protocol in PROTOCOLS]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_annotation_bundle(tmp_path_factory.mktemp("annotation"))


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    copy_bundle(template, tmp_path / "b.wbb")
    return tmp_path / "b.wbb"


@pytest.fixture
def opened(bundle_path: Path) -> Iterator[Bundle]:
    with Bundle.open(bundle_path) as bundle:
        yield bundle


def start_view(
    qtbot: QtBot, bundle: Bundle, campaign: str, annotator: str = "ana"
) -> AnnotationView:
    view = AnnotationView()
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    qtbot.waitExposed(view, timeout=HANG_GUARD_MS)
    view.activateWindow()
    qtbot.waitUntil(
        view.isActiveWindow, timeout=HANG_GUARD_MS
    )  # shortcuts (Ctrl+Z, Ctrl+S) need an active window
    view.start(AnnotationSession(bundle, campaign, annotator))
    return view


def standing_votes(bundle: Bundle, annotator: str = "ana") -> list[Vote]:
    with bundle.read_session() as session:
        return list(
            session.scalars(
                select(Vote)
                .join(Annotator, Vote.annotator_id == Annotator.id)
                .where(Annotator.handle == annotator, Vote.retracted_at.is_(None))
                .order_by(Vote.id)
            )
        )


def answer_by_keys(
    qtbot: QtBot, view: AnnotationView, protocol: AnnotationProtocol, pick: int = 0
) -> list[tuple[str | None, float | None]]:
    """Answer the shown task with keys only; returns the expected stored (choice, grade) per
    criterion."""
    if protocol.grade_scale is not None:
        grade = int(protocol.grade_scale.values()[(pick + 7) % len(protocol.grade_scale.values())])
        for digit in str(grade):
            press(qtbot, view, digit)
        press(qtbot, view, Qt.Key.Key_Return)
        return [(None, float(grade))]
    plain = [c for c in protocol.choices if c.value not in protocol.comment_required_for]
    expected: list[tuple[str | None, float | None]] = []
    for index, _criterion in enumerate(protocol.criteria):
        choice = plain[(pick + index) % len(plain)]
        press(qtbot, view, choice.key)
        expected.append((choice.value, None))
    return expected


# --- blindness -------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=PROTOCOL_IDS)
def test_no_model_name_or_id_anywhere_in_the_view_for_every_task(
    qtbot: QtBot, opened: Bundle, bundle_path: Path, protocol: AnnotationProtocol
) -> None:
    forbidden = forbidden_strings(bundle_path)
    view = start_view(qtbot, opened, protocol.name)
    press(qtbot, view, Qt.Key.Key_F1)  # the help overlay is part of the tree too
    assert view.help_overlay is not None and view.help_overlay.isVisible()
    press(qtbot, view, Qt.Key.Key_Escape)
    seen = 0
    while view.task is not None:
        strings = widget_strings(view)
        assert any("Response" in text or "Reference" in text for text in strings)
        assert leaks(strings, forbidden) == []
        seen += 1
        answer_by_keys(qtbot, view, protocol, pick=seen)
        assert seen <= view.task.progress.total if view.task else True
    assert view.session is not None
    assert seen == view.session.progress().total > 0
    assert leaks(widget_strings(view), forbidden) == []  # the "all done" page


def test_the_walk_finds_a_model_name_that_is_shown(
    qtbot: QtBot, opened: Bundle, bundle_path: Path
) -> None:
    """The probe is not blind itself: a name put into a tooltip is found."""
    view = start_view(qtbot, opened, "arena-battle")
    name = forbidden_strings(bundle_path)[-1]
    view.progress_label.setToolTip(f"by {name}")
    assert leaks(widget_strings(view), [name])


# --- voting with keys, undo, skip and resume ---------------------------------------------------


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=PROTOCOL_IDS)
def test_vote_undo_skip_and_resume_with_keys(
    qtbot: QtBot, opened: Bundle, bundle_path: Path, protocol: AnnotationProtocol
) -> None:
    view = start_view(qtbot, opened, protocol.name)
    first_task = shown_texts(view)
    assert view.task is not None
    total = view.task.progress.total

    expected = answer_by_keys(qtbot, view, protocol)
    votes = standing_votes(opened)
    assert [(vote.choice, vote.grade) for vote in votes] == expected
    assert {vote.criterion for vote in votes} == {c.name for c in protocol.criteria}
    assert view.progress_label.text().startswith("1 answered · 0 skipped")
    assert f"{total - 1} left for you" in view.progress_label.text() or total == 1
    assert shown_texts(view) != first_task or total == 1

    press(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert standing_votes(opened) == []
    assert shown_texts(view) == first_task
    assert view.progress_label.text().startswith("0 answered · 0 skipped")
    assert f"{total} left for you" in view.progress_label.text()

    dialog = view.request_skip()
    assert dialog is not None
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()  # a reason is required
    dialog.reason_box.setEditText("Outside my expertise")
    ok.click()
    qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
    skipped = standing_votes(opened)
    assert [(vote.skip_reason, vote.choice) for vote in skipped] == [("Outside my expertise", None)]
    assert shown_texts(view) != first_task or total == 1
    assert view.progress_label.text().startswith("0 answered · 1 skipped")

    answer_by_keys(qtbot, view, protocol, pick=1)
    waiting = shown_texts(view)
    progress = view.progress_label.text()
    view.end()

    with Bundle.open(bundle_path) as reopened:
        resumed = start_view(qtbot, reopened, protocol.name)
        assert shown_texts(resumed) == waiting
        assert resumed.progress_label.text() == progress
        resumed.end()


def test_ctrl_s_opens_the_skip_dialog(qtbot: QtBot, opened: Bundle) -> None:
    view = start_view(qtbot, opened, "arena-battle")
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=HANG_GUARD_MS)
    press(qtbot, view, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    dialog = view.findChild(SkipDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert standing_votes(opened) == []


def test_chirp_steps_through_the_criteria_and_casts_once_all_are_answered(
    qtbot: QtBot, opened: Bundle
) -> None:
    view = start_view(qtbot, opened, "chirp-five-criteria")
    assert view.session is not None
    criteria = view.session.protocol.criteria
    assert len(criteria) == 5
    for key in ("1", "2", "3", "1"):
        press(qtbot, view, key)
    assert standing_votes(opened) == []  # four of five: nothing is stored yet
    assert view.current_criterion == 4
    assert view.answer_panel is not None
    assert view.answer_panel.criterion_labels[4].text().startswith("▶")
    press(qtbot, view, Qt.Key.Key_Up)  # revise the fourth
    press(qtbot, view, "2")
    assert standing_votes(opened) == []
    assert view.current_criterion == 4
    press(qtbot, view, "3")
    votes = {vote.criterion: vote.choice for vote in standing_votes(opened)}
    assert votes == dict(
        zip(
            [criterion.name for criterion in criteria],
            ["a", "b", "tie", "b", "tie"],
            strict=True,
        )
    )


def test_convbench_grade_is_typed_and_saved_with_enter(qtbot: QtBot, opened: Bundle) -> None:
    view = start_view(qtbot, opened, "convbench-turn-grade")
    task = view.task
    assert task is not None
    assert task.judged_turn == task.turns[-1].index
    press(qtbot, view, Qt.Key.Key_Return)  # nothing typed yet
    assert standing_votes(opened) == []
    assert view.answer_panel is not None
    assert "grade" in view.answer_panel.message.text().lower()
    press(qtbot, view, "1")
    press(qtbot, view, "0")
    assert view.answer_panel.grade_field is not None
    assert view.answer_panel.grade_field.text() == "10"
    press(qtbot, view, Qt.Key.Key_Return)
    assert [vote.grade for vote in standing_votes(opened)] == [10.0]
    assert view.answer_panel.grade_field.text() == ""


def test_verification_problem_needs_a_comment(qtbot: QtBot, opened: Bundle) -> None:
    view = start_view(qtbot, opened, "visit-bench-verification")
    assert view.session is not None
    protocol = view.session.protocol
    problem = protocol.choice("problem_in_caption")
    press(qtbot, view, problem.key)
    assert standing_votes(opened) == []
    assert view.answer_panel is not None
    assert view.answer_panel.comment_field.hasFocus()
    assert "comment" in view.answer_panel.message.text()
    qtbot.keyClicks(view.answer_panel.comment_field, "the caption names the wrong colour")
    press(qtbot, view, Qt.Key.Key_Return)
    [vote] = standing_votes(opened)
    assert (vote.choice, vote.comment) == (
        "problem_in_caption",
        "the caption names the wrong colour",
    )


def test_an_optional_rationale_is_saved_with_the_answer(qtbot: QtBot, opened: Bundle) -> None:
    view = start_view(qtbot, opened, "arena-battle")
    view.setFocus()
    press(qtbot, view, Qt.Key.Key_Tab)
    assert view.answer_panel is not None
    field = view.answer_panel.comment_field
    assert field.hasFocus()
    qtbot.keyClicks(field, "clearer and correct")
    assert view.answers == {}  # the letters went into the rationale, not to the choices
    press(qtbot, view, Qt.Key.Key_Escape)  # back to the view, where keys are choices
    assert not field.hasFocus()
    press(qtbot, view, "B")
    [vote] = standing_votes(opened)
    assert (vote.choice, vote.comment) == ("b", "clearer and correct")
    assert field.text() == ""


def test_help_overlay_lists_the_protocols_keys(qtbot: QtBot, opened: Bundle) -> None:
    view = start_view(qtbot, opened, "arena-battle")
    press(qtbot, view, "?")
    overlay = view.help_overlay
    assert overlay is not None
    assert overlay.isVisible() and overlay.geometry() == view.rect()
    texts = widget_strings(overlay)
    assert view.session is not None
    for choice in view.session.protocol.choices:
        assert choice.key in texts
    assert "Ctrl+Z" in texts and "Ctrl+S" in texts
    press(qtbot, view, "A")  # closes the help, does not vote
    assert not overlay.isVisible()
    assert standing_votes(opened) == []


def test_undo_with_nothing_to_undo_says_so(qtbot: QtBot, opened: Bundle) -> None:
    view = start_view(qtbot, opened, "visit-bench-preference")
    before = shown_texts(view)
    view.undo()
    qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
    assert view.answer_panel is not None
    assert "Nothing to take back" in view.answer_panel.message.text()
    assert shown_texts(view) == before


def test_the_end_of_the_queue_shows_all_done_and_undo_brings_the_last_task_back(
    qtbot: QtBot, opened: Bundle
) -> None:
    view = start_view(qtbot, opened, "arena-battle")
    last = []
    while view.task is not None:
        last = shown_texts(view)
        press(qtbot, view, "T")
    assert view.done_label.isVisible() and "All done" in view.done_label.text()
    assert "all done" in view.progress_label.text()
    press(qtbot, view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert shown_texts(view) == last


def test_other_annotators_votes_do_not_move_this_annotators_queue(
    qtbot: QtBot, opened: Bundle
) -> None:
    view = start_view(qtbot, opened, "visit-bench-preference", annotator="bob")
    first = shown_texts(view)
    other = AnnotationSession(opened, "visit-bench-preference", "ana")
    task = other.next_task()
    assert task is not None
    other.cast(task.token, "a")
    assert shown_texts(view) == first
    press(qtbot, view, "1")
    assert len(standing_votes(opened, "bob")) == 1


def test_the_annotation_package_never_reads_campaign_details() -> None:
    """campaign_details names the models; the view must get by with the blind task."""
    import workbench.gui.annotation as package

    folder = Path(package.__file__).parent
    sources = {path.name: path.read_text(encoding="utf-8") for path in folder.glob("*.py")}
    assert "annotation_view.py" in sources
    assert [name for name, text in sources.items() if "campaign_details" in text] == []


def test_keys_still_vote_after_clicking_into_a_response(qtbot: QtBot, opened: Bundle) -> None:
    view = start_view(qtbot, opened, "arena-battle")
    response = view.display.turn_panels[-1].responses[0]
    qtbot.mouseClick(response.viewport(), Qt.MouseButton.LeftButton)
    assert response.hasFocus()
    press(qtbot, view, "A")
    assert [vote.choice for vote in standing_votes(opened)] == ["a"]


def test_ctrl_shift_f_flags_the_task_without_losing_it_or_the_answers_given(
    qtbot: QtBot, opened: Bundle
) -> None:
    from sqlalchemy import select

    from workbench.gui.annotation.flag_dialog import FlagDialog
    from workbench.storage.models import Flag

    view = start_view(qtbot, opened, "chirp-five-criteria")
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=HANG_GUARD_MS)
    task = view.task
    for key in ("1", "2", "3", "1"):
        press(qtbot, view, key)
    press(
        qtbot,
        view,
        Qt.Key.Key_F,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = view.findChild(FlagDialog)
    assert dialog is not None and dialog.isVisible()
    # by keyboard: down to "Response 2 names its model", Enter
    for _ in range(2):
        qtbot.keyClick(dialog.reason_box, Qt.Key.Key_Down)
    assert dialog.reason_box.currentText() == "Response 2 names its model"
    qtbot.keyClick(dialog.reason_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
    assert view.task is task and standing_votes(opened) == []
    assert view.answer_panel is not None
    assert view.answer_panel.message.text().startswith("Flagged.")
    with opened.read_session() as read:
        flags = list(read.scalars(select(Flag)))
    assert [(flag.reason, flag.origin) for flag in flags] == [("names_model", "annotator")]
    assert flags[0].model_id is not None
    press(qtbot, view, "2")  # the fifth criterion: the vote is cast as usual
    qtbot.waitUntil(lambda: not view.busy, timeout=HANG_GUARD_MS)
    assert len(standing_votes(opened)) == 5
    view.end()
