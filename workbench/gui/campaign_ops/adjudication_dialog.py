"""The adjudication dialog: the tasks where annotators disagree, each shown as the annotators
saw it (prompt and both responses in their positions, model names hidden until the coordinator
reveals them) with every vote, and buttons that record the settled answer with a note. Reads and
writes go through ``services.adjudication`` on a worker thread."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.background import BackgroundRunner
from workbench.gui.screen_fit import resize_within_screen
from workbench.services.blind_tasks import BlindTask
from workbench.storage import Bundle


def task_text(task: BlindTask) -> str:
    """The task as plain text: each turn's prompt, then the responses under their labels."""
    parts = []
    for turn in task.turns:
        parts.append(f"Prompt (turn {turn.index}):\n{turn.prompt}")
        for label, response in zip(task.response_labels, turn.responses, strict=False):
            parts.append(f"{label}:\n{response}")
    return "\n\n".join(parts)


def answer_label(answer: Any, labels: dict[str, str]) -> str:
    """An answer as the annotators' buttons and the record buttons name it ("Response 1"),
    not as stored ("a"); a grade, or a value the protocol does not name, as it is."""
    label = labels.get(str(answer))
    return str(answer) if label is None or label == str(answer) else label


def votes_text(row: dict[str, Any], reveal: bool, labels: dict[str, str] | None = None) -> str:
    """The votes, judge and settled answer of a disputed task, under the labels of
    ``labels`` (value -> label, see ``services.adjudication.answer_options``)."""
    labels = labels or {}
    lines = [f"Task {row['task']} · {row['source']}:{row['item']} · {row['criterion']}"]
    if reveal:
        lines.append(f"Response 1 = {row['left'] or 'reference'}; Response 2 = {row['right']}")
    for vote in row["votes"]:
        comment = f" — {vote['comment']}" if vote["comment"] else ""
        lines.append(f"{vote['annotator']}: {answer_label(vote['answer'], labels)}{comment}")
    if row["judge"]:
        judged = answer_label(row["judge"]["answer"], labels)
        lines.append(f"judge {row['judge']['run']}: {judged}")
    settled = row["adjudication"]
    if settled:
        lines.append(
            f"settled: {answer_label(settled['answer'], labels)} by {settled['adjudicator']} "
            f"({settled['adjudicated_at']}): {settled['note']}"
        )
    return "\n".join(lines)


class AdjudicationDialog(QDialog):
    """For the coordinator; ``load`` reads a campaign's disagreements off the GUI thread."""

    def __init__(
        self, bundle: Callable[[], Bundle | None], runner: BackgroundRunner, parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Adjudicate disagreements")
        self.setObjectName("adjudicationDialog")
        resize_within_screen(self, 1000, 640)
        self._bundle = bundle
        self.runner = runner
        self.rows: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None
        self.campaign: str | None = None
        #: answer value -> the label the annotators' and the record buttons show ("Response 1")
        self.labels: dict[str, str] = {}

        self.campaigns = QComboBox(self)
        self.campaigns.setAccessibleName("Campaign")
        self.campaigns.currentTextChanged.connect(lambda name: self.load(name) if name else None)
        self.task_list = QStringListModel(self)
        self.tasks = QListView(self)
        self.tasks.setModel(self.task_list)
        self.tasks.setAccessibleName("Disputed tasks")
        self.tasks.clicked.connect(lambda index: self.show_task(index.row()))
        self.content = QPlainTextEdit(self)
        self.content.setReadOnly(True)
        self.content.setAccessibleName("Task")
        self.votes = QLabel(self)
        self.votes.setTextFormat(Qt.TextFormat.PlainText)
        self.votes.setWordWrap(True)
        self.reveal = QCheckBox("Reveal models", self)
        self.reveal.toggled.connect(lambda _: self._show_votes())
        self.note = QLineEdit(self)
        self.note.setPlaceholderText("Note: why this answer")
        self.adjudicator = QLineEdit(getpass.getuser(), self)
        self.adjudicator.setPlaceholderText("Adjudicator")
        self.buttons = QHBoxLayout()
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)

        left = QVBoxLayout()
        left.addWidget(self.campaigns)
        left.addWidget(self.tasks)
        right = QVBoxLayout()
        right.addWidget(self.content, 3)
        right.addWidget(self.votes)
        right.addWidget(self.reveal)
        fields = QHBoxLayout()
        fields.addWidget(self.note, 3)
        fields.addWidget(self.adjudicator, 1)
        right.addLayout(fields)
        right.addLayout(self.buttons)
        right.addWidget(self.status)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addLayout(right, 3)

    def open_for(self, campaign: str | None = None) -> None:
        """Fill the campaign list and load ``campaign`` (default: the first)."""
        bundle = self._bundle()
        if bundle is None:
            return

        def names() -> list[str]:
            from workbench.services.campaigns import list_campaigns

            return [row["name"] for row in list_campaigns(bundle)]

        def fill(found: list[str]) -> None:
            self.campaigns.blockSignals(True)
            self.campaigns.clear()
            self.campaigns.addItems(found)
            self.campaigns.blockSignals(False)
            chosen = campaign if campaign in found else (found[0] if found else None)
            if chosen:
                self.campaigns.setCurrentText(chosen)
                self.load(chosen)
            else:
                self.status.setText("This bundle has no campaign.")

        self.runner.run(names, fill)

    def load(self, campaign: str, message: str | None = None) -> None:
        """Read the campaign's disagreements; ``message`` is shown once they are in."""
        bundle = self._bundle()
        if bundle is None:
            return

        def read() -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
            from workbench.services.adjudication import answer_options, disagreements

            return disagreements(bundle, campaign), answer_options(bundle, campaign)

        self.runner.run(
            read, lambda result: self._loaded(campaign, result[0], result[1], message), self._failed
        )

    def _loaded(
        self,
        campaign: str,
        rows: list[dict[str, Any]],
        options: list[tuple[str, str]],
        message: str | None = None,
    ) -> None:
        keep = self.current["task"] if self.current and self.campaign == campaign else None
        self.campaign, self.rows = campaign, rows
        self.task_list.setStringList(
            [
                f"Task {row['task']} · {row['source']}:{row['item']}"
                + (" ✓" if row["adjudication"] else "")
                for row in rows
            ]
        )
        while self.buttons.count():
            taken = self.buttons.takeAt(0)
            widget = taken.widget() if taken is not None else None
            if widget is not None:
                widget.deleteLater()
        self.labels = dict(options)
        for value, label in options:
            button = QPushButton(f"Record: {label}", self)
            button.setObjectName(f"record_{value}")
            button.clicked.connect(lambda _=False, v=value: self.record(v))
            self.buttons.addWidget(button)
        summary = f"{len(rows)} disputed task(s)" if rows else "No disagreements."
        self.status.setText(f"{message}; {summary}" if message else summary)
        index = next((i for i, row in enumerate(rows) if row["task"] == keep), 0)
        if rows:
            self.show_task(index)
        else:
            self.current = None
            self.content.clear()
            self.votes.clear()

    def show_task(self, index: int) -> None:
        bundle = self._bundle()
        if bundle is None or not 0 <= index < len(self.rows) or self.campaign is None:
            return
        self.current = self.rows[index]
        self.tasks.setCurrentIndex(self.task_list.index(index))
        self._show_votes()
        campaign, task = self.campaign, self.current["task"]

        def read() -> BlindTask:
            from workbench.services.adjudication import disputed_task

            return disputed_task(bundle, campaign, task)

        self.runner.run(read, lambda blind: self.content.setPlainText(task_text(blind)))

    def _show_votes(self) -> None:
        if self.current is not None:
            self.votes.setText(votes_text(self.current, self.reveal.isChecked(), self.labels))

    def record(self, answer: str) -> None:
        bundle = self._bundle()
        if bundle is None or self.current is None or self.campaign is None:
            return
        campaign, task = self.campaign, self.current["task"]
        note, adjudicator = self.note.text(), self.adjudicator.text()

        def write() -> dict[str, Any]:
            from workbench.services.adjudication import record_adjudication

            return record_adjudication(bundle, campaign, task, answer, note, adjudicator)

        def done(record: dict[str, Any]) -> None:
            self.note.clear()
            self.load(
                campaign,
                f"Task {record['task']}: recorded {answer_label(record['answer'], self.labels)}",
            )

        self.runner.run(write, done, self._failed)

    def _failed(self, error: BaseException) -> None:
        self.status.setText(str(error).splitlines()[0] if str(error) else type(error).__name__)
