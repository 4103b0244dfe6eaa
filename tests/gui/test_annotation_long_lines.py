"""Answers always open at their start, and a long unbroken code line wraps instead of running
off the column's edge (with no scroll bar, the rest of it could not be read): the real
WildVision answer that opened scrolled to its end ("Parse receipt to JSON.", Qwen-VL-Chat), in
a response column of the annotation page and in the inspector's text views."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from workbench.gui.annotation.task_display import CappedScroll
from workbench.gui.safe_text import SafeTextView

pytestmark = pytest.mark.gui

QUESTION = "6d636ae8a985453ea891c7027f104100"
WIDTHS = (300, 520)


@pytest.fixture(scope="module")
def receipt_answer(shared_data: Path) -> str:
    path = shared_data / "wildvision-bench" / "model_answers" / "Qwen_Qwen-VL-Chat.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["question_id"] == QUESTION:
                return str(record["output"])
    raise AssertionError(f"{QUESTION} is not in {path}")


def long_code() -> str:
    row = ",".join(f'{{"name":"item{n}","price":{n}.99}}' for n in range(40))
    return f'Here is the JSON:\n\n```json\n{{"items":[{row}]}}\n```\n\nDone.'


def assert_at_start_and_wrapped(view: SafeTextView) -> None:
    bar = view.horizontalScrollBar()
    assert bar.value() == 0
    # wrapped: nothing lies beyond the column's right edge
    assert bar.maximum() == 0, bar.maximum()
    assert view.document().size().width() <= view.viewport().width() + 1


@pytest.mark.parametrize("width", WIDTHS)
def test_a_long_code_line_wraps_in_a_response_column(
    qtbot: QtBot, receipt_answer: str, width: int
) -> None:
    for text in (receipt_answer, long_code()):
        holder = QWidget()
        qtbot.addWidget(holder)
        view = SafeTextView()
        scroll = CappedScroll(view)
        QVBoxLayout(holder).addWidget(scroll)
        holder.resize(width, 400)
        holder.show()
        qtbot.waitExposed(holder)
        view.show_text(text)
        qtbot.wait(20)
        assert_at_start_and_wrapped(view)
        assert scroll.verticalScrollBar().value() == 0
        holder.resize(width + 200, 400)  # and after a resize
        qtbot.wait(20)
        assert_at_start_and_wrapped(view)


def test_the_inspectors_text_view_wraps_a_long_code_line(qtbot: QtBot, receipt_answer: str) -> None:
    view = SafeTextView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.show()
    qtbot.waitExposed(view)
    view.show_text(long_code())
    qtbot.wait(20)
    assert_at_start_and_wrapped(view)
    view.set_raw(True)
    qtbot.wait(20)
    assert_at_start_and_wrapped(view)
