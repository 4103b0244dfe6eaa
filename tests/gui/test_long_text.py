"""Long outputs: the view lays out a bounded start of any text, says how
much is left out, and shows the whole text in a plain-text window on a double-click. Time is
measured by bench/long_outputs.py; here the bound itself is checked (what is laid out)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from workbench.gui.safe_text import (
    DISPLAY_LINE_CHARS,
    PREVIEW_CHARS,
    FullTextDialog,
    SafeTextView,
    broken_long_lines,
    preview,
)

pytestmark = pytest.mark.gui

BULLETS = "".join(f"- point {n} with **bold** and `code`\n" for n in range(8_000))  # ~300 KB
TEN_MEGABYTES = ("word " * 20 + "\n") * 100_000


@pytest.fixture
def view(qtbot: QtBot) -> SafeTextView:
    widget = SafeTextView()
    qtbot.addWidget(widget)
    widget.resize(600, 300)
    widget.show()
    return widget


def test_preview_cuts_at_a_line_break_and_counts_the_rest() -> None:
    shown, left_out = preview(BULLETS)
    assert len(shown) <= PREVIEW_CHARS and shown.endswith("`code`")
    assert len(shown) + left_out == len(BULLETS)
    assert preview("short") == ("short", 0)
    no_breaks = "x" * (PREVIEW_CHARS * 3)
    assert preview(no_breaks) == ("x" * PREVIEW_CHARS, PREVIEW_CHARS * 2)


@pytest.mark.parametrize("text", [BULLETS, TEN_MEGABYTES], ids=["bullet-list", "ten-megabytes"])
def test_a_long_text_lays_out_only_its_start(view: SafeTextView, text: str) -> None:
    view.show_text(text)
    laid_out = view.document().characterCount()
    assert laid_out < PREVIEW_CHARS + 200
    assert view.truncated and view.show_all_action.isEnabled()
    left_out = len(text) - len(preview(text)[0])
    assert f"{left_out:,} more characters" in view.toPlainText()
    assert view.source_text == text  # the whole text is kept, for copy and for "show all"


def test_a_short_text_is_whole_and_has_no_note(view: SafeTextView) -> None:
    view.show_text("- one\n- two\n")
    assert not view.truncated and not view.show_all_action.isEnabled()
    assert "more characters" not in view.toPlainText()


def test_double_click_shows_the_whole_text_as_plain_text(qtbot: QtBot, view: SafeTextView) -> None:
    hostile = "<img src=/dev/zero> **not bold**\n" * 1_000
    view.show_text(hostile)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(10, 10))
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, FullTextDialog))
    qtbot.addWidget(dialog)
    assert dialog.view.toPlainText() == hostile.rstrip("\n") or dialog.view.toPlainText() == hostile
    assert dialog.view.isReadOnly()
    assert dialog.windowTitle() == "Full text"  # never a model name: annotators see it too
    dialog.close()


def test_one_ten_megabyte_line_is_shown_in_pieces_and_copied_whole(qtbot: QtBot) -> None:
    line = "x" * 10_000_000
    assert broken_long_lines(line)[1] == 1
    dialog = FullTextDialog(line, "Full text")
    qtbot.addWidget(dialog)
    assert dialog.view.blockCount() == 10_000_000 // DISPLAY_LINE_CHARS
    dialog.copy_all()
    assert QApplication.clipboard().text() == line


def test_raw_mode_is_bounded_too(view: SafeTextView) -> None:
    view.show_text(TEN_MEGABYTES, raw=True)
    assert view.document().characterCount() < PREVIEW_CHARS + 200
