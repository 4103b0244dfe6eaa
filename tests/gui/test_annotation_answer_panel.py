"""The answer panel's message line and criterion labels change their style only when what
they say changes kind: a style sheet set again, even the same one, repolishes the widget on the
GUI thread, and the message line is set three times a task ("", "Saving…", "Saved.")."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject
from pytestqt.qtbot import QtBot

from tests.gui.test_annotation_view import PROTOCOLS
from workbench.gui.annotation.answer_panel import ERROR_STYLE, MESSAGE_STYLE, AnswerPanel

pytestmark = pytest.mark.gui


class StyleChanges(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.StyleChange:
            self.count += 1
        return False


def test_messages_of_the_same_kind_restyle_nothing(qtbot: QtBot) -> None:
    protocol = next(p for p in PROTOCOLS if len(p.criteria) > 1 and p.grade_scale is None)
    panel = AnswerPanel(protocol)
    qtbot.addWidget(panel)
    panel.show()
    panel.show_message("")
    panel.show_answers({}, 0)
    changes = StyleChanges()
    panel.message.installEventFilter(changes)
    for label in panel.criterion_labels:
        label.installEventFilter(changes)
    for _ in range(3):  # three tasks: a fresh page, "Saving…", "Saved."
        panel.clear()
        panel.show_answers({}, 0)
        panel.show_message("Saving…")
        panel.show_message("Saved.")
    assert changes.count == 0
    assert panel.message.text() == "Saved." and panel.message.styleSheet() == MESSAGE_STYLE
    panel.show_message("Not saved: the bundle is busy.", error=True)
    assert changes.count == 1 and panel.message.styleSheet() == ERROR_STYLE
    panel.show_answers({}, 1)  # the marked criterion moves: two labels restyled
    assert changes.count == 3
