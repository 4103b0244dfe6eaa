"""The adjudication dialog: the tasks where annotators disagree, each shown as the annotators
saw it, in the annotator's own task display (the images, zoomable, the formatted prompt and both
responses under the same "Response 1" / "Response 2" labels, model names hidden until the
coordinator reveals them), with every vote under those labels, and one button per answer with
the annotators' key for it (Skip moves on without deciding). Reads and writes go through
``services.adjudication`` on a worker thread; images are decoded there too.

Opened at 1366x768 or 1024x700 it fits the screen: the task display gives the responses the
height the dialog has, as it does on the annotator's page."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.domain.protocols import Choice
from workbench.gui.annotation.answer_panel import choice_button_text
from workbench.gui.annotation.task_display import PreparedImage, TaskDisplay, prepare_images
from workbench.gui.background import BackgroundRunner
from workbench.gui.image_loader import DecodedImage
from workbench.gui.image_viewer import ImageViewerDialog
from workbench.gui.jobs import Access
from workbench.gui.screen_fit import resize_within_screen
from workbench.services.adjudication import (
    AnswerOption,
    answer_options,
    disagreements,
    disputed_task,
    record_adjudication,
)
from workbench.services.blind_tasks import BlindTask
from workbench.services.campaigns import list_campaigns
from workbench.storage import Bundle

#: the key that moves to the next disputed task without recording an answer
SKIP_KEY = "S"
#: the task list's width: the rest of the dialog is the task's
TASK_LIST_WIDTH = 220


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
        note = f": {settled['note']}" if settled["note"] else ""
        lines.append(
            f"settled: {answer_label(settled['answer'], labels)} by {settled['adjudicator']} "
            f"({settled['adjudicated_at']}){note}"
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
        self._bundle = bundle
        self.runner = runner
        self.rows: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None
        self.campaign: str | None = None
        #: the task the display shows (None while it is read)
        self.shown_task: BlindTask | None = None
        #: answer value -> the label the annotators' and the record buttons show ("Response 1")
        self.labels: dict[str, str] = {}
        #: answer value -> its record button ("Response 1   [A]")
        self.record_buttons: dict[str, QPushButton] = {}
        self.zoom: ImageViewerDialog | None = None

        self.campaigns = QComboBox(self)
        self.campaigns.setAccessibleName("Campaign")
        self.campaigns.currentTextChanged.connect(lambda name: self.load(name) if name else None)
        self.task_list = QStringListModel(self)
        self.tasks = QListView(self)
        self.tasks.setModel(self.task_list)
        self.tasks.setAccessibleName("Disputed tasks")
        self.tasks.clicked.connect(lambda index: self.show_task(index.row()))
        self.display = TaskDisplay(self)
        self.display.setAccessibleName("Task")
        self.display.imageClicked.connect(self._zoom)
        self.votes = QLabel(self)
        self.votes.setTextFormat(Qt.TextFormat.PlainText)
        self.votes.setWordWrap(True)
        self.votes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reveal = QCheckBox("Reveal models", self)
        self.reveal.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.reveal.toggled.connect(lambda _: self._show_votes())
        self.note = QLineEdit(self)
        self.note.setPlaceholderText("Note: why this answer (type it, then press the answer's key)")
        self.note.setAccessibleName("Note")
        self.adjudicator = QLineEdit(getpass.getuser(), self)
        self.adjudicator.setPlaceholderText("Adjudicator")
        self.adjudicator.setAccessibleName("Adjudicator")
        self.buttons = QHBoxLayout()
        self.skip_button = QPushButton(f"Skip   [{SKIP_KEY}]", self)
        self.skip_button.setObjectName("skipTask")
        self.skip_button.setToolTip(f"The next disputed task, deciding nothing ({SKIP_KEY})")
        self.skip_button.setShortcut(QKeySequence(SKIP_KEY))
        self.skip_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.skip_button.clicked.connect(self.skip)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)

        left = QVBoxLayout()
        left.addWidget(self.campaigns)
        left.addWidget(self.tasks, 1)
        side = QWidget(self)
        side.setLayout(left)
        side.setMaximumWidth(TASK_LIST_WIDTH)
        left.setContentsMargins(0, 0, 0, 0)
        right = QVBoxLayout()
        right.addWidget(self.display, 1)
        right.addWidget(self.votes)
        fields = QHBoxLayout()
        fields.addWidget(self.reveal)
        fields.addWidget(self.note, 3)
        fields.addWidget(self.adjudicator, 1)
        right.addLayout(fields)
        decisions = QHBoxLayout()
        decisions.addLayout(self.buttons)
        decisions.addStretch(1)
        decisions.addWidget(self.skip_button)
        right.addLayout(decisions)
        right.addWidget(self.status)
        layout = QHBoxLayout(self)
        layout.addWidget(side)
        layout.addLayout(right, 1)
        resize_within_screen(self, 1280, 760)

    def open_for(self, campaign: str | None = None) -> None:
        """Fill the campaign list and load ``campaign`` (default: the first)."""
        bundle = self._bundle()
        if bundle is None:
            return

        def names() -> list[str]:
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

    def load(self, campaign: str, message: str | None = None, advance: bool = False) -> None:
        """Read the campaign's disagreements; ``message`` is shown once they are in, and with
        ``advance`` the task after the current one is shown (else the current one again)."""
        bundle = self._bundle()
        if bundle is None:
            return

        def read() -> tuple[list[dict[str, Any]], list[AnswerOption]]:
            return disagreements(bundle, campaign), answer_options(bundle, campaign)

        self.runner.run(
            read,
            lambda result: self._loaded(campaign, result[0], result[1], message, advance),
            self._failed,
        )

    def _loaded(
        self,
        campaign: str,
        rows: list[dict[str, Any]],
        options: list[AnswerOption],
        message: str | None = None,
        advance: bool = False,
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
        self._make_buttons(options)
        summary = f"{len(rows)} disputed task(s)" if rows else "No disagreements."
        self.status.setText(f"{message}; {summary}" if message else summary)
        index = next((i for i, row in enumerate(rows) if row["task"] == keep), 0)
        if advance and keep is not None:
            index = min(index + 1, len(rows) - 1)
        if rows:
            self.show_task(index)
        else:
            self.current = None
            self.shown_task = None
            self.display.show_task(None)
            self.votes.clear()

    def _make_buttons(self, options: list[AnswerOption]) -> None:
        """One button per answer, labelled and keyed as the annotators' buttons are."""
        self.labels = {option.value: option.label for option in options}
        if list(self.record_buttons) == [option.value for option in options]:
            return
        while self.buttons.count():
            taken = self.buttons.takeAt(0)
            widget = taken.widget() if taken is not None else None
            if widget is not None:
                widget.deleteLater()
        self.record_buttons = {}
        for option in options:
            text = choice_button_text(Choice(option.value, option.label, option.key))
            button = QPushButton(text if option.key else option.label, self)
            button.setObjectName(f"record_{option.value}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            if option.key:
                button.setShortcut(QKeySequence(option.key))
                button.setToolTip(f"Record {option.label} as the settled answer ({option.key})")
            button.clicked.connect(lambda _=False, v=option.value: self.record(v))
            self.buttons.addWidget(button)
            self.record_buttons[option.value] = button

    def show_task(self, index: int) -> None:
        bundle = self._bundle()
        if bundle is None or not 0 <= index < len(self.rows) or self.campaign is None:
            return
        self.current = self.rows[index]
        self.tasks.setCurrentIndex(self.task_list.index(index))
        self._show_votes()
        campaign, task = self.campaign, self.current["task"]
        height = self.display.max_tile_height

        def read() -> tuple[BlindTask, dict[int, PreparedImage]]:
            blind = disputed_task(bundle, campaign, task)
            return blind, prepare_images(blind, height)

        def shown(result: tuple[BlindTask, dict[int, PreparedImage]]) -> None:
            if self.current is None or self.current["task"] != task:
                return  # another task was chosen meanwhile
            blind, prepared = result
            self.shown_task = blind
            self.display.show_task(blind, prepared)
            self.display.scroll_to_judged_turn(blind)

        self.shown_task = None
        self.runner.run(read, shown, self._failed)

    def skip(self) -> None:
        """The next disputed task (the first after the last), deciding nothing."""
        if not self.rows or self.current is None:
            return
        index = next(i for i, row in enumerate(self.rows) if row is self.current)
        self.show_task((index + 1) % len(self.rows))

    def _zoom(self, shown: tuple[DecodedImage, int]) -> None:
        decoded, position = shown
        title = f"Image {position + 1}"
        count = len(self.display.tiles)
        if self.zoom is None:
            self.zoom = ImageViewerDialog(decoded.full, title, self)
            self.zoom.stepped.connect(self._zoom_step)
        self.zoom.show_image(decoded.full, title, position, count)
        self.zoom.show()
        self.zoom.raise_()

    def _zoom_step(self, delta: int) -> None:
        if self.zoom is None:
            return
        wanted = self.zoom.position + delta
        for tile in self.display.viewable_tiles():
            if tile.position == wanted and tile.decoded is not None:
                self._zoom((tile.decoded, wanted))

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
            return record_adjudication(bundle, campaign, task, answer, note, adjudicator)

        def done(record: dict[str, Any]) -> None:
            self.note.clear()
            self.load(
                campaign,
                f"Task {record['task']}: recorded {answer_label(record['answer'], self.labels)}",
                advance=True,
            )

        self.runner.run(write, done, self._failed, access=Access.WRITE, kind="Adjudication")

    def _failed(self, error: BaseException) -> None:
        self.status.setText(str(error).splitlines()[0] if str(error) else type(error).__name__)
