"""The blind annotation page: one task at a time from an ``AnnotationSession``, answered with one
key per choice; Ctrl+Z takes back the last answer, Ctrl+S skips with a reason, Z zooms into the
task's image, F1 or ? shows the keys.

Every task starts on a fresh page: no answer selected, the rationale empty, the keyboard focus
on the page and the zoom window (when open) showing the new task's first image.

While the annotator reads a task, the worker leases the one after it and decodes its images
(``AnnotationSession.read_ahead``), so the vote key shows that page at once and the vote is
committed on the worker meanwhile: the page says "Saving…", then "Saved." only once the commit
has returned, and answering keys wait for it. A failed write brings the answered task back, its
answer pending on the page with the reason, to be saved again with Enter. Without a task read
ahead (the worker still at it, or its lease half gone) the vote is committed first and the next
task shown after, as before. A bundle locked by another writer (a large import) never freezes
the window either way.

A campaign with a practice round offers it first to an annotator who has not done it: practice
tasks look exactly like real ones, an answer is checked (never saved) and answered with
feedback, Enter moves on, and Ctrl+S skips the round when the campaign allows it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QMenuBar, QVBoxLayout, QWidget

from workbench.errors import WorkbenchError
from workbench.gui.annotation.answer_panel import AnswerPanel
from workbench.gui.annotation.flag_dialog import FlagDialog
from workbench.gui.annotation.help_overlay import HelpOverlay
from workbench.gui.annotation.skip_dialog import SkipDialog
from workbench.gui.annotation.task_display import (
    PreparedImage,
    TaskDisplay,
    TaskImageTile,
    prepare_images,
)
from workbench.gui.background import BackgroundRunner
from workbench.gui.elided_label import ElidedLabel
from workbench.gui.image_loader import DecodedImage
from workbench.gui.image_viewer import ImageViewerDialog
from workbench.gui.jobs import Access
from workbench.services.blind_tasks import BlindTask, Progress
from workbench.services.campaign_errors import StaleTaskError
from workbench.services.practice import PracticeFeedback
from workbench.services.voting import AnnotationSession, PendingAnswer

log = logging.getLogger(__name__)

SCROLL_KEYS = {Qt.Key.Key_PageUp: -1, Qt.Key.Key_PageDown: 1}


def failure_reason(error: BaseException) -> str:
    """One line saying why a write failed: the message of our own errors, else the database's
    first line (a locked bundle says so), never a traceback or an SQL statement."""
    if isinstance(error, WorkbenchError):
        return str(error)
    detail = str(getattr(error, "orig", None) or error).strip().splitlines()
    first = detail[0] if detail else type(error).__name__
    if "locked" in first or "busy" in first:
        return "the bundle is busy: another program is writing to it"
    return first


def practice_intro_text(tasks: int, optional: bool) -> str:
    text = (
        f"Practice round: {tasks} task{'s' if tasks != 1 else ''} to try the question and the "
        "keys. Practice answers are not saved and do not count; after each one you see the "
        "expected answer and why.\n\nPress Enter to begin."
    )
    return text + ("\nCtrl+S skips the practice round." if optional else "")


def feedback_text(feedback: PracticeFeedback) -> str:
    verdict = "Correct." if feedback.correct else f"Not quite: expected '{feedback.expected}'."
    explanation = f" {feedback.explanation}" if feedback.explanation else ""
    return f"{verdict}{explanation}\nPress Enter for the next task."


def progress_text(progress: Progress) -> str:
    """Answered, skipped and flagged apart (a flagged task is also answered, skipped or still
    open), what is left for this annotator, and the campaign's task count (the same for
    everyone, as ``workbench campaign status`` prints it)."""
    if progress.campaign_tasks is None:  # the practice round: its own tasks
        return f"Task {min(progress.done + 1, progress.total)} of {progress.total}"
    # single spaces around the dots: the line must leave the item list its room at 1024x700
    counts = (
        f"{progress.answered} answered · {progress.skipped} skipped · {progress.flagged} flagged"
    )
    left = "all done" if progress.remaining == 0 else f"{progress.remaining} left for you"
    return f"{counts} · {left} · {progress.campaign_tasks} tasks in the campaign"


#: keys the page itself answers besides the protocol's choices (Z zooms)
VIEW_LETTER_KEYS = frozenset("Z")


def title_off_keys(title: str, keys: frozenset[str]) -> str:
    """``title`` with its menu mnemonic (``&``) on its first letter that is none of ``keys``
    (upper case), or with none: a mnemonic on a vote key takes the key (Alt+A, Esc, then A
    reopens the menu instead of voting, and Enter there runs its first action)."""
    plain = title.replace("&&", "\0").replace("&", "").replace("\0", "&&")
    for index, char in enumerate(plain):
        if char.isalnum() and char.upper() not in keys and plain[max(index - 1, 0)] != "&":
            return plain[:index] + "&" + plain[index:]
    return plain


def keep_mnemonics_off_keys(menu_bar: QMenuBar, keys: frozenset[str]) -> None:
    """Move every menu bar title's mnemonic off ``keys`` (the session's answer keys); the title
    as designed is kept on the action, so another protocol's session starts from it again."""
    for action in menu_bar.actions():
        designed = action.property("designedTitle")
        if not isinstance(designed, str):
            designed = action.text()
            action.setProperty("designedTitle", designed)
        wanted = title_off_keys(designed, keys | VIEW_LETTER_KEYS)
        if action.text() != wanted:
            action.setText(wanted)


def done_text(progress: Progress) -> str:
    """The end of the queue: what this annotator did, in the campaign's terms."""
    summary = ""
    if progress.campaign_tasks is not None:
        summary = (
            f"You answered {progress.answered} and skipped {progress.skipped} of the "
            f"campaign's {progress.campaign_tasks} tasks, and flagged {progress.flagged}.\n"
        )
    return (
        "All done: there is no task left for you in this campaign.\n"
        f"{summary}Ctrl+Z takes back your last answer."
    )


class AnnotationView(QWidget):
    """Shows the session's current task and turns keys and clicks into votes."""

    taskShown = Signal()  # after every change of task (or the end of the queue)
    judgmentsWritten = Signal()  # a vote, skip or undo was committed (the panels refresh)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.session: AnnotationSession | None = None
        self.task: BlindTask | None = None
        self.answers: dict[str, str] = {}
        self.current_criterion = 0
        self.answer_panel: AnswerPanel | None = None
        self.help_overlay: HelpOverlay | None = None
        self.skip_dialog: SkipDialog | None = None
        self.flag_dialog: FlagDialog | None = None
        self._flag_token = ""
        self.zoom: ImageViewerDialog | None = None
        # one at a time, so answers are stored in the order they were given and a read ahead
        # sees the vote before it
        self.runner = BackgroundRunner(self, in_order=True, kind="Read ahead")
        self._saving = False
        #: saving the answer to the task before the one on screen (the page moved on at once)
        self._saving_ahead = False
        #: the answer given on the page while the one before it was still being saved
        self._after_save: Callable[[], None] | None = None
        self._read_ahead = True
        self._reading = False
        #: the decoded images of the task read ahead, with its token
        self._ahead_images: tuple[str, Mapping[int, PreparedImage]] | None = None
        #: the decoded images of the task on screen (kept to go back to it if its vote fails)
        self._shown_images: Mapping[int, PreparedImage] | None = None
        self._skip_token: str | None = None
        #: the image tiles last put in the tab order (see _chain_tiles)
        self._chained_tiles: tuple[QWidget, ...] = ()
        #: the practice task on screen (from 0); -1 before the round starts; None: not practicing
        self.practice_index: int | None = None
        #: the feedback on the practice answer just given (Enter then moves on)
        self.practice_feedback: PracticeFeedback | None = None

        # elided, not wrapped: a long campaign name never widens the window, and a wrapped
        # label's height-for-width cost about a millisecond of every task's layout
        self.title = ElidedLabel(self)
        self.title.setStyleSheet("font-size: 14pt; font-weight: bold;")
        self.progress_label = QLabel(self)
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)
        self.progress_label.setStyleSheet("font-size: 12pt;")
        self.progress_label.setAccessibleName("Progress")
        self.question = QLabel(self)
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        help_hint = QLabel("F1 or ?: keys", self)
        help_hint.setStyleSheet("color: #555;")
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.progress_label)
        header.addSpacing(16)
        header.addWidget(help_hint)
        self.display = TaskDisplay(self)
        self.display.imageClicked.connect(self._open_image)
        self.done_label = QLabel(self)
        self.done_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.done_label.setStyleSheet("font-size: 14pt;")
        self.done_label.setWordWrap(True)
        self.done_label.hide()
        self.feedback_label = QLabel(self)
        self.feedback_label.setObjectName("practiceFeedback")
        self.feedback_label.setTextFormat(Qt.TextFormat.PlainText)
        self.feedback_label.setWordWrap(True)
        self.feedback_label.setStyleSheet("font-size: 12pt; font-weight: bold;")
        self.feedback_label.hide()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(6, 4, 6, 4)
        self._layout.setSpacing(4)
        self._layout.addLayout(header)
        self._layout.addWidget(self.question)
        self._layout.addWidget(self.display, 1)
        self._layout.addWidget(self.done_label, 1)
        self._layout.addWidget(self.feedback_label)

        self.undo_action = self._action("Undo last answer", "Ctrl+Z", self.undo)
        self.skip_action = self._action("Skip task…", "Ctrl+S", self.request_skip)
        self.flag_action = self._action("Flag task…", "Ctrl+Shift+F", self.request_flag)
        self.help_action = self._action("Annotation keys", "", self.toggle_help)
        self._set_enabled(False)

    def _action(self, text: str, keys: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        if keys:
            action.setShortcut(QKeySequence(keys))
            action.setToolTip(f"{text} ({keys})")
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _set_enabled(self, enabled: bool) -> None:
        for action in (self.undo_action, self.skip_action, self.flag_action, self.help_action):
            action.setEnabled(enabled)

    # --- sessions ---------------------------------------------------------------------------

    def start(self, session: AnnotationSession) -> None:
        """Annotate with ``session``: show its current task (where the annotator left off)."""
        self.end()
        self.session = session
        protocol = session.protocol
        self.title.setText(f"{session.campaign_name}  ·  {protocol.title}")
        self.answer_panel = AnswerPanel(protocol, self)
        self.answer_panel.choiceClicked.connect(self._choice_clicked)
        self._layout.addWidget(self.answer_panel)
        self.help_overlay = HelpOverlay(protocol, self, session.guidelines)
        self._set_enabled(True)
        if session.practice.pending:
            self._show_practice_intro()
            if session.guidelines is not None:
                self.help_overlay.toggle()
            return
        try:
            first = session.next_task()
        except WorkbenchError:
            self.end()
            raise
        except Exception as error:  # a locked or unreachable bundle: one line, no traceback
            log.error("starting the annotation session failed", exc_info=error)
            self.end()
            raise WorkbenchError(f"cannot start annotating: {failure_reason(error)}") from None
        self._show(first)
        self.setFocus()
        if session.guidelines is not None:
            self.help_overlay.toggle()  # the guidelines are read before the first task

    def end(self) -> None:
        """Stop annotating (the bundle is about to close, or another campaign starts)."""
        self.session = None
        # a vote being written lands before the bundle closes, and its result is delivered now
        # (to a session that has ended, so it changes nothing) rather than after this view goes
        if self.runner.busy:
            self.runner.wait()
            QCoreApplication.sendPostedEvents()
        self._saving = self._reading = False
        self._ahead_images = self._shown_images = None
        self.task = None
        self.practice_index = None
        self.practice_feedback = None
        self.feedback_label.hide()
        if self.skip_dialog is not None:
            self.skip_dialog.hide()
        if self.flag_dialog is not None:
            self.flag_dialog.hide()
            self.flag_dialog.setParent(None)
            self.flag_dialog.deleteLater()
            self.flag_dialog = None
        for widget in (self.answer_panel, self.help_overlay):
            if widget is not None:
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        self.answer_panel = self.help_overlay = None
        self._chained_tiles = ()
        self.display.show_task(None)
        self._close_zoom()
        self.title.clear()
        self.question.clear()
        self.progress_label.clear()
        self.done_label.hide()
        self._set_enabled(False)

    @property
    def active(self) -> bool:
        return self.session is not None

    def answer_keys(self) -> frozenset[str]:
        """The letters and digits that answer in this session (upper case)."""
        if self.session is None:
            return frozenset()
        return frozenset(choice.key.upper() for choice in self.session.protocol.choices)

    # --- showing ----------------------------------------------------------------------------

    def _show(
        self, task: BlindTask | None, prepared: Mapping[int, PreparedImage] | None = None
    ) -> None:
        assert self.session is not None and self.answer_panel is not None
        self.task = task
        self.answers = {}
        self._after_save = None
        self.current_criterion = 0
        self.practice_feedback = None
        self.feedback_label.hide()
        self.answer_panel.clear()
        self.display.show_task(task, prepared)
        self._chain_tiles()
        self._shown_images = prepared
        finished = task is None
        self.display.setVisible(not finished)
        self.answer_panel.setVisible(not finished)
        self.question.setVisible(not finished)
        self.done_label.setVisible(finished)
        progress = task.progress if task is not None else self.session.progress()
        text = progress_text(progress)
        if self.progress_label.text() != text:
            self.progress_label.setText(text)
        if task is None:
            self.done_label.setText(done_text(progress))
        else:
            self._refresh_answers()
            self.display.scroll_to_judged_turn(task)
        self._zoom_follows()
        self.setFocus()
        self.taskShown.emit()
        if task is not None and not self._saving:
            self._start_reading_ahead()

    def _start_reading_ahead(self) -> None:
        """Lease the task after this one and decode its images on the worker, while the
        annotator reads this one."""
        session = self.session
        if session is None or not self._read_ahead or self._reading or self.practicing:
            return
        self._reading = True
        max_height = self.display.max_tile_height  # read here: the worker touches no widget

        def read() -> tuple[BlindTask | None, Mapping[int, PreparedImage]]:
            following = session.read_ahead()
            known = self._ahead_images  # kept when a failed vote brought its task back
            if following is not None and known is not None and known[0] == following.token:
                return following, known[1]
            return following, prepare_images(following, max_height)

        def done(result: tuple[BlindTask | None, Mapping[int, PreparedImage]]) -> None:
            self._reading = False
            following, prepared = result
            if self.session is session and following is not None:
                self._ahead_images = (following.token, prepared)

        def failed(error: BaseException) -> None:
            # nothing is lost: the vote then commits first and fetches the next task itself
            self._reading = False
            log.warning("reading the next task ahead failed: %s", failure_reason(error))

        self.runner.run(read, done, failed)

    def _refresh_answers(self) -> None:
        assert self.session is not None and self.answer_panel is not None
        protocol = self.session.protocol
        self.answer_panel.show_answers(self.answers, self.current_criterion)
        criterion = protocol.criteria[min(self.current_criterion, len(protocol.criteria) - 1)]
        text = protocol.description
        if len(protocol.criteria) > 1:
            text = f"{criterion.label}: {criterion.description or protocol.description}"
        if self.question.text() != text:  # the same question task after task: no relayout
            self.question.setText(text)
        self.answer_panel.set_comment_required(
            any(value in protocol.comment_required_for for value in self.answers.values())
        )

    # --- the practice round -----------------------------------------------------------------

    @property
    def read_ahead(self) -> bool:
        """Whether the next task is read ahead (False: each vote is committed before the next
        task is fetched, the approach before read-ahead, kept for bench/vote_to_paint.py)."""
        return self._read_ahead

    @read_ahead.setter
    def read_ahead(self, on: bool) -> None:
        self._read_ahead = on
        if on and self.task is not None and not self._saving:
            self._start_reading_ahead()

    @property
    def practicing(self) -> bool:
        return self.practice_index is not None

    def _show_practice_intro(self) -> None:
        assert self.session is not None and self.answer_panel is not None
        practice = self.session.practice
        self.practice_index = -1
        self.task = None
        for widget in (self.display, self.answer_panel, self.question):
            widget.hide()
        self.progress_label.setText("Practice round")
        self.done_label.setText(practice_intro_text(len(practice), practice.optional))
        self.done_label.show()
        self.setFocus()
        self.taskShown.emit()

    def next_practice_task(self) -> None:
        """Show the next practice task, or end the round (remembered) and start the real ones."""
        if self.session is None or self.practice_index is None or self._saving:
            return
        practice = self.session.practice
        index = self.practice_index + 1
        if index >= len(practice):
            self._end_practice(skipped=False)
            return
        try:
            task = practice.task(index)
        except WorkbenchError as error:  # the bundle lost the task's item or model
            self._practice_notice(f"Cannot show the practice task: {error}")
            return
        self.practice_index = index
        self._show(task)
        self.progress_label.setText(f"Practice task {index + 1} of {len(practice)}: not counted")

    def _check_practice(self, answers: dict[str, str | float], comment: str | None) -> None:
        """Answer the practice task: feedback here, nothing written."""
        assert self.session is not None and self.task is not None
        assert self.answer_panel is not None
        try:
            feedback = self.session.check_practice(self.task.token, answers, comment)
        except WorkbenchError as error:
            self.answer_panel.show_message(str(error), error=True)
            return
        self.practice_feedback = feedback
        self.feedback_label.setText(feedback_text(feedback))
        self.feedback_label.setStyleSheet(
            "font-size: 12pt; font-weight: bold; color: "
            + ("#1b5e20;" if feedback.correct else "#b71c1c;")
        )
        self.feedback_label.show()
        self.answer_panel.show_message("Practice answer: not saved.")
        self.setFocus()

    def _practice_notice(self, text: str) -> None:
        """An error line where it can be seen: under the intro, or on the task's message line."""
        if self.task is None:
            self.done_label.setText(
                practice_intro_text(len(self.session.practice), self.session.practice.optional)
                + f"\n\n{text}"
                if self.session is not None
                else text
            )
        elif self.answer_panel is not None:
            self.answer_panel.show_message(text, error=True)

    def _end_practice(self, skipped: bool) -> None:
        assert self.session is not None
        session = self.session
        if skipped and not session.practice.optional:
            self._practice_notice("This campaign asks you to do the practice round first.")
            return

        def finish_and_fetch_first() -> BlindTask | None:
            session.practice.finish(skipped=skipped)
            return session.next_task()

        def started(task: BlindTask | None) -> None:
            self.practice_index = None
            self._show_after_write(task, None, "Practice over: from now on your answers count.")

        self._write(finish_and_fetch_first, started, "Could not start the real tasks", "")

    # --- answering --------------------------------------------------------------------------

    def choose(self, value: str, criterion_index: int | None = None) -> None:
        """Answer the current criterion (or ``criterion_index``) with ``value``; once every
        criterion has an answer the vote is cast."""
        if self.session is None or self.task is None:
            return
        if self._saving:
            self._answer_after_save(lambda: self.choose(value, criterion_index))
            return
        if self.practice_feedback is not None:
            return  # the feedback is on screen: Enter moves on
        criteria = self.session.protocol.criteria
        index = self.current_criterion if criterion_index is None else criterion_index
        index = min(index, len(criteria) - 1)
        self.answers[criteria[index].name] = value
        unanswered = [i for i, c in enumerate(criteria) if c.name not in self.answers]
        if unanswered:
            after = [i for i in unanswered if i > index]
            self.current_criterion = after[0] if after else unanswered[0]
            self._refresh_answers()
            return
        self._refresh_answers()
        self.submit()

    def _choice_clicked(self, criterion_index: int, value: str) -> None:
        self.choose(value, criterion_index)
        if self.answer_panel is not None and not self.answer_panel.comment_field.hasFocus():
            self.setFocus()

    def submit(self) -> None:
        """Cast the answers given so far (or the typed grade) with the rationale; the vote is
        written on a worker and the next task shown once it is committed."""
        if self.session is None or self.task is None or self.answer_panel is None:
            return
        if self._saving:
            self._answer_after_save(self.submit)
            return
        if self.practice_feedback is not None:
            self.next_practice_task()
            return
        protocol = self.session.protocol
        panel = self.answer_panel
        answers: dict[str, str | float] = dict(self.answers)
        if protocol.grade_scale is not None and panel.grade_field is not None:
            typed = panel.grade_field.text().strip()
            if not typed:
                panel.show_message("Type a grade first.", error=True)
                panel.grade_field.setFocus()
                return
            answers = {criterion.name: typed for criterion in protocol.criteria}
        elif len(answers) < len(protocol.criteria):
            panel.show_message("Answer every criterion first.", error=True)
            return
        comment = panel.comment_field.text().strip() or None
        if comment is None and any(v in protocol.comment_required_for for v in answers.values()):
            panel.show_message(
                "This answer needs a comment: type what is wrong, then press Enter.", error=True
            )
            panel.comment_field.setFocus()
            return
        if self.practicing:
            self._check_practice(answers, comment)
            return
        session, token = self.session, self.task.token
        if self._read_ahead and not self._reading:
            try:
                ahead = session.answer_ahead(token, answers, comment=comment)
            except WorkbenchError as error:  # a bad answer: nothing changed
                panel.show_message(f"Not saved: {error}.", error=True)
                return
            if ahead is not None:
                self._commit_ahead(*ahead)
                return

        max_height = self.display.max_tile_height

        def cast_and_fetch_next() -> tuple[BlindTask | None, dict[int, PreparedImage]]:
            receipt, following = session.cast_and_next(token, answers, comment=comment)
            log.debug("vote confirmed: %s", ", ".join(receipt.uuids))
            # decoded here, so that the GUI thread only lays the page out
            return following, prepare_images(following, max_height)

        self._write(
            cast_and_fetch_next,
            lambda shown: self._show_after_write(shown[0], shown[1], "Saved."),
            "Not saved",
            "Your answer is still here: press Enter to save it again.",
        )

    def _answer_after_save(self, answer: Callable[[], None]) -> None:
        """An answer given on the page read ahead while the one before is still being saved: a
        quick annotator's key is kept and given once that save is done, never dropped. While a
        commit-first save runs the page still shows the answered task, so a key there is
        ignored (that answer is already on its way)."""
        if not self._saving_ahead or self.answer_panel is None:
            return
        self._after_save = answer
        self.answer_panel.show_message("Saving the previous answer; this one follows…")

    def _commit_ahead(self, pending: PendingAnswer, following: BlindTask) -> None:
        """Show the task read ahead at once, and commit the answer to the one before on the
        worker; "Saved." only once it is committed. On a failure the answered task comes back
        with its answer pending, as if it had never left the screen."""
        session = self.session
        panel = self.answer_panel
        assert session is not None and panel is not None
        given = dict(self.answers)
        comment_text = panel.comment_field.text()
        grade_text = panel.grade_field.text() if panel.grade_field is not None else None
        answered_images = self._shown_images
        images = self._ahead_images
        prepared = images[1] if images is not None and images[0] == following.token else None
        self._ahead_images = None
        self._saving = True  # before the page: it starts no read-ahead while the vote commits
        self._show(following, prepared)
        self._saving_ahead = True
        panel.show_message("Saving…")

        max_height = self.display.max_tile_height

        def commit() -> tuple[BlindTask | None, dict[int, PreparedImage]]:
            receipt, after = session.commit(pending)
            log.debug("vote confirmed: %s", ", ".join(receipt.uuids))
            return after, prepare_images(after, max_height)

        def done(result: tuple[BlindTask | None, dict[int, PreparedImage]]) -> None:
            self._saving = self._saving_ahead = False
            self.judgmentsWritten.emit()
            if self.session is not session:
                return
            after, after_images = result
            if after is not None:
                self._ahead_images = (after.token, after_images)
            elif self.task is not None:
                self._start_reading_ahead()  # the commit could not read ahead: try again
            if self.answer_panel is not None:
                self.answer_panel.show_message("Saved.")
            self._give_answer_after_save()

        def failed(error: BaseException) -> None:
            self._saving = self._saving_ahead = False
            if self.session is not session:
                return
            if isinstance(error, StaleTaskError):  # answered already elsewhere: carry on here
                self._start_reading_ahead()
                if self.answer_panel is not None:
                    self.answer_panel.show_message(str(error), error=True)
                self._give_answer_after_save()
                return
            # the answered task comes back: an answer given meanwhile to the next one is dropped
            # with it (_show forgets it), and the page says the first one is not saved
            if not isinstance(error, WorkbenchError):
                log.error("saving an answer failed", exc_info=error)
            self._ahead_images = (following.token, prepared) if prepared is not None else None
            self._show(session.take_back(pending), answered_images)
            self.answers = given
            if self.answer_panel is not None:
                self.answer_panel.comment_field.setText(comment_text)
                if grade_text is not None and self.answer_panel.grade_field is not None:
                    self.answer_panel.grade_field.setText(grade_text)
                self._refresh_answers()
                self.answer_panel.show_message(
                    f"Not saved: {failure_reason(error)}. "
                    "Your answer is still here: press Enter to save it again.",
                    error=True,
                )

        self.runner.run(commit, done, failed, access=Access.WRITE, kind="Vote")

    def _give_answer_after_save(self) -> None:
        answer, self._after_save = self._after_save, None
        if answer is not None:
            answer()

    def undo(self) -> None:
        if self.session is None or self._saving:
            return
        if self.practicing:
            if self.answer_panel is not None:
                self.answer_panel.show_message("Practice answers are not saved.", error=True)
            return
        self._write(self.session.undo, self._undone, "Could not take back your answer", "")

    def _undone(self, task: BlindTask | None) -> None:
        if task is None:
            if self.answer_panel is not None:
                self.answer_panel.show_message("Nothing to take back.", error=True)
            return
        session, panel = self.session, self.answer_panel
        assert session is not None and panel is not None
        self._show_after_write(task, None, "Took back your last answer: answer this task again.")
        taken = session.taken_back
        if not taken:  # a skip was taken back: the task shows as new
            return
        # the answer taken back is selected again: change it, or Enter saves it as it was
        protocol = session.protocol
        if protocol.grade_scale is not None and panel.grade_field is not None:
            grade = next(iter(taken.values()))
            panel.grade_field.setText(f"{float(grade):g}")
        else:
            self.answers = {name: str(value) for name, value in taken.items()}
            self.current_criterion = len(protocol.criteria) - 1
            self._refresh_answers()
        panel.comment_field.setText(session.taken_back_comment or "")
        panel.show_message(
            "Took back your last answer; it is selected: change it, or press Enter to save it."
        )

    # --- writing off the GUI thread ---------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Whether an answer, skip or undo is being saved (keys that answer wait for it), or
        the next task being read ahead (they do not wait for that)."""
        return self._saving or self._reading

    def _write(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None],
        failure: str,
        hint: str,
    ) -> None:
        """Run ``work`` (a write, then the next task) on the worker, so that a bundle locked by
        another writer never freezes the window; ``on_done(result)`` then runs here. On a
        failure the answer stays pending on the page, with the reason and ``hint``."""
        session = self.session
        assert session is not None
        self._saving = True
        if self.answer_panel is not None:
            self.answer_panel.show_message("Saving…")

        def done(value: Any) -> None:
            self._saving = False
            self.judgmentsWritten.emit()
            if self.session is session:
                on_done(value)

        def failed(error: BaseException) -> None:
            self._saving = False
            if self.session is not session:
                return
            if isinstance(error, StaleTaskError):
                message = str(error)
                self._write(
                    session.next_task,
                    lambda task: self._show_after_write(task, None, message, error=True),
                    "Cannot show the next task",
                    "",
                )
                return
            if not isinstance(error, WorkbenchError):
                log.error("saving an answer failed", exc_info=error)
            if self.answer_panel is not None:
                text = f"{failure}: {failure_reason(error)}. {hint}".strip()
                self.answer_panel.show_message(text, error=True)

        self.runner.run(work, done, failed, access=Access.WRITE, kind="Annotation write")

    def _show_after_write(
        self,
        task: BlindTask | None,
        prepared: Mapping[int, PreparedImage] | None,
        message: str,
        error: bool = False,
    ) -> None:
        self._show(task, prepared)
        self.setFocus()
        if self.answer_panel is not None:
            self.answer_panel.show_message(message, error=error)

    def request_skip(self) -> SkipDialog | None:
        """Open the dialog asking why; the task is skipped when it is accepted. In the practice
        round, Ctrl+S skips the round instead (when the campaign allows it)."""
        if self.session is not None and self.practicing and not self._saving:
            self._end_practice(skipped=True)
            return None
        if self.session is None or self.task is None:
            return None
        if self.skip_dialog is None:
            self.skip_dialog = SkipDialog(self)
            self.skip_dialog.accepted.connect(self._skip_accepted)
            self.skip_dialog.rejected.connect(self.setFocus)
        self.skip_dialog.reset()
        self._skip_token = self.task.token
        self.skip_dialog.open()
        return self.skip_dialog

    def request_flag(self) -> FlagDialog | None:
        """Open the dialog that flags the task on screen; the task stays, to be answered."""
        if self.session is None or self.task is None or self.practicing:
            return None
        if self.flag_dialog is None:
            self.flag_dialog = FlagDialog(len(self.task.response_labels), self)
            self.flag_dialog.accepted.connect(self._flag_accepted)
            self.flag_dialog.rejected.connect(self.setFocus)
        self.flag_dialog.reset()
        self._flag_token = self.task.token
        self.flag_dialog.open()
        return self.flag_dialog

    def _flag_accepted(self) -> None:
        if self.flag_dialog is not None:
            reason, response, note = self.flag_dialog.chosen()
            self.flag(reason, response, note, self._flag_token)

    def flag(
        self, reason: str, response: int | None, note: str = "", token: str | None = None
    ) -> None:
        """Flag the task (not skipping it): the answer given so far stays selected."""
        if self.session is None or self.task is None or self._saving:
            return
        session, token = self.session, token or self.task.token

        def flagged(progress: Progress) -> None:
            self.setFocus()
            if self.task is not None and self.task.token == token:
                self.progress_label.setText(progress_text(progress))
            if self.answer_panel is not None:
                self.answer_panel.show_message("Flagged. The task is still yours to answer.")

        self._write(
            lambda: session.flag(token, reason, response, note),
            flagged,
            "Not flagged",
            "Press Ctrl+Shift+F to try again.",
        )

    def _skip_accepted(self) -> None:
        if self.skip_dialog is not None:
            self.skip(self.skip_dialog.reason(), self._skip_token)

    def skip(self, reason: str, token: str | None = None) -> None:
        if self.session is None or self.task is None or self.answer_panel is None:
            return
        if self._saving:
            return
        session, token = self.session, token or self.task.token

        def skip_and_fetch_next() -> BlindTask | None:
            session.skip(token, reason)
            return session.next_task()

        self._write(
            skip_and_fetch_next,
            lambda task: self._show_after_write(task, None, "Skipped."),
            "Not skipped",
            "Press Ctrl+S to try again.",
        )

    def toggle_help(self) -> None:
        if self.help_overlay is not None:
            self.help_overlay.toggle()

    def _open_image(self, shown: tuple[DecodedImage, int]) -> None:
        """Zoom into the image at ``shown``'s position (a click, or Enter on its tile)."""
        _decoded, position = shown
        tile = next((t for t in self.display.viewable_tiles() if t.position == position), None)
        if tile is not None:
            self._zoom_into(tile)

    def _zoom_into(self, tile: TaskImageTile) -> None:
        """Show ``tile``'s image in the zoom window (opened if need be), with its place among
        the task's images for Previous / Next, and mark it in the strip."""
        viewable = self.display.viewable_tiles()
        if tile not in viewable or tile.decoded is None:
            return
        title = f"Image {tile.position + 1}"
        place = viewable.index(tile)
        if self.zoom is None:
            self.zoom = ImageViewerDialog(tile.decoded.full, title, self)
            self.zoom.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.zoom.destroyed.connect(self._zoom_closed)
            self.zoom.finished.connect(self._zoom_finished)
            self.zoom.stepped.connect(self._zoom_step)
        self.zoom.show_image(tile.decoded.full, title, place, len(viewable))
        self.display.mark_zoomed(tile)
        self.zoom.show()
        self.zoom.raise_()

    def _zoom_step(self, delta: int) -> None:
        """The zoom window's Previous (-1) or Next (+1): the task's image before or after."""
        if self.zoom is None:
            return
        viewable = self.display.viewable_tiles()
        place = self.zoom.position + delta
        if 0 <= place < len(viewable):
            self._zoom_into(viewable[place])

    def _zoom_closed(self) -> None:
        self.zoom = None

    def _zoom_finished(self, _result: int) -> None:
        """The zoom window was closed: no tile is marked as shown in it any more (a bound
        method, not a lambda: a lambda holding the page crashed the interpreter at exit)."""
        self.display.mark_zoomed(None)

    def _close_zoom(self) -> None:
        if self.zoom is not None:
            self.zoom.close()
            self.zoom = None
        self.display.mark_zoomed(None)

    def zoomed_tile(self) -> TaskImageTile | None:
        """The tile whose image the zoom window shows, if it is open."""
        if self.zoom is None:
            return None
        viewable = self.display.viewable_tiles()
        return viewable[self.zoom.position] if self.zoom.position < len(viewable) else None

    def open_zoom(self) -> bool:
        """Zoom into the image whose tile has the keyboard focus, else the task's first image
        that can be shown (the Z key); False if none."""
        viewable = self.display.viewable_tiles()
        if not viewable:
            return False
        focused = next((t for t in viewable if t is QApplication.focusWidget()), viewable[0])
        self._zoom_into(focused)
        return True

    def _zoom_follows(self) -> None:
        """An open zoom window shows the new task's first image, or closes when it has none:
        it never keeps showing an image of an earlier task."""
        if self.zoom is None:
            return
        viewable = self.display.viewable_tiles() if self.task is not None else []
        if not viewable:
            self._close_zoom()
        else:
            self._zoom_into(viewable[0])

    def _chain_tiles(self) -> None:
        """Put the task's image tiles in the tab order after the rationale field (Tab from the
        page still goes to the rationale first); only when the tiles changed."""
        tiles = tuple(self.display.tiles)
        if tiles == self._chained_tiles or self.answer_panel is None:
            return
        self._chained_tiles = tiles
        previous: QWidget = self.answer_panel.comment_field
        for tile in tiles:
            QWidget.setTabOrder(previous, tile)
            previous = tile

    # --- keys -------------------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.session is None or not self._handle_key(event):
            super().keyPressEvent(event)

    def _handle_key(self, event: QKeyEvent) -> bool:
        assert self.session is not None
        key = event.key()
        text = event.text()
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if key == Qt.Key.Key_Escape:
            self.setFocus()
            return True
        if key == Qt.Key.Key_F1 or text == "?":
            self.toggle_help()
            return True
        if key == Qt.Key.Key_Z and modifiers == Qt.KeyboardModifier.NoModifier:
            self.open_zoom()
            return True
        if key in SCROLL_KEYS:
            bar = self.display.scroll_bar()
            bar.setValue(bar.value() + SCROLL_KEYS[Qt.Key(key)] * bar.pageStep())
            return True
        if self._saving and not self._saving_ahead:
            # the answered task is still on the page while its answer is saved: nothing else
            # is answered there (on a page read ahead, an answer waits for the save instead)
            return True
        if self.practice_index == -1 and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.next_practice_task()
            return True
        if self.task is None or modifiers not in (
            Qt.KeyboardModifier.NoModifier,
            Qt.KeyboardModifier.ShiftModifier,
        ):
            return False
        protocol = self.session.protocol
        panel = self.answer_panel
        assert panel is not None
        if protocol.grade_scale is not None and panel.grade_field is not None:
            if text.isdigit() or key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if text.isdigit():
                    panel.grade_field.setFocus()
                    panel.grade_field.insert(text)
                else:
                    self.submit()
                return True
            return False
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and len(protocol.criteria) > 1:
            step = -1 if key == Qt.Key.Key_Up else 1
            self.current_criterion = max(
                0, min(len(protocol.criteria) - 1, self.current_criterion + step)
            )
            self._refresh_answers()
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.submit()
            return True
        choice = protocol.choice_for_key(text) if len(text) == 1 else None
        if choice is None:
            return False
        self.choose(choice.value)
        return True
