"""Tools > Run LLM judge…: estimate, then a run on the asyncio loop qasync shares with Qt, against
the fake OpenAI server: progress shown, verdicts stored, Cancel stopping cleanly, the window's
event loop kept free (a ``budget`` test), the API key nowhere to be seen afterwards, and an
edited template run and stored as a version of its own."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import qasync
from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
)
from pytestqt.qtbot import QtBot
from sqlalchemy import func, select

from tests.gui.job_status import status
from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import FAKE_KEY, build_bundle
from tests.keyrings import MemoryKeyring
from tests.patience import HANG_GUARD_MS
from workbench.gui.api_key_dialog import ApiKeyDialog
from workbench.gui.jobs import JobControl, JobStatus, jobs_for
from workbench.gui.judge_dialog import JudgeDialog, describe_summary
from workbench.logging_setup import close_log_file, configure_logging, log_file
from workbench.plugins import registry
from workbench.services.judging.runner import JudgeProgress, JudgeSummary, prepare_runtime
from workbench.storage import Bundle
from workbench.storage.models import JudgeRun, JudgeVerdict

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow

pytestmark = pytest.mark.gui

TEMPLATE = "visit-bench-pairwise"
TICK_MS = 10


@pytest.fixture(scope="module")
def shared_loop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """The app's arrangement: an asyncio loop running inside Qt's event loop (here, the one
    pytest-qt spins while a test waits). Taken down again so that later tests can use
    asyncio.run."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    # Stopping or closing a loop made this way quits the application, which stops every later
    # test's thread pools; so the loop is left alone, and its threads are ours to shut down.
    threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="judge-dialog-test")
    loop.set_default_executor(threads)
    asyncio.set_event_loop(loop)
    prepare_runtime()  # what the app does at start-up, in a thread
    yield loop
    asyncio.events._set_running_loop(None)
    asyncio.set_event_loop(None)
    threads.shutdown(wait=True)


@pytest.fixture
def dialog(qtbot: QtBot, shared_loop: qasync.QEventLoop, tmp_path: Path) -> JudgeDialog:
    bundle = build_bundle(tmp_path, 12, models=("m-a", "m-b"))
    dialog = JudgeDialog(bundle)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def configure(dialog: JudgeDialog, server: FakeOpenAIServer, concurrency: int = 4) -> None:
    dialog.base_url_edit.setText(server.base_url)
    dialog.model_combo.setCurrentText("gpt-4o-mini")
    dialog.set_template(TEMPLATE)
    dialog.concurrency_spin.setValue(concurrency)


def estimate(qtbot: QtBot, dialog: JudgeDialog) -> None:
    assert not dialog.start_button.isEnabled()  # no run without an estimate
    dialog.estimate_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert dialog.plan is not None, dialog.message_box and dialog.message_box.text()
    assert dialog.start_button.isEnabled()


def bundle_file(dialog: JudgeDialog) -> Path:
    """The file the dialog judges (the tests' dialogs are opened on a file, not a server)."""
    assert isinstance(dialog.bundle, Path)
    return dialog.bundle


def stored_verdicts(bundle: str | Path) -> int:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return session.scalar(select(func.count()).select_from(JudgeVerdict)) or 0


class TickWatch:
    """A 10 ms QTimer on the GUI thread: the largest gap between its ticks in wall time, and
    in the GUI thread's own CPU time (what the thread itself was busy with between two ticks,
    whatever else the machine runs) while the run was going."""

    def __init__(self, dialog: JudgeDialog) -> None:
        self.dialog = dialog
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.wall_gap = self.cpu_gap = 0.0
        self._last: tuple[float, float] | None = None

    def start(self) -> None:
        self.timer.start()

    def _tick(self) -> None:
        now = (time.perf_counter(), time.thread_time())
        if self._last is not None and self.dialog.runner is not None:
            self.wall_gap = max(self.wall_gap, now[0] - self._last[0])
            self.cpu_gap = max(self.cpu_gap, now[1] - self._last[1])
        self._last = now

    def stop(self) -> None:
        self.timer.stop()


def test_the_dialog_offers_every_template_with_its_text(dialog: JudgeDialog) -> None:
    names = [dialog.template_combo.itemData(row) for row in range(dialog.template_combo.count())]
    assert names == [template.name for template in registry().judge_templates()]
    dialog.set_template(TEMPLATE)
    template = registry().judge_template(TEMPLATE)
    assert dialog.system_edit.toPlainText() == template.system
    assert dialog.user_edit.toPlainText() == template.user
    assert not dialog.system_edit.isReadOnly() and not dialog.user_edit.isReadOnly()
    assert template.extraction is not None and dialog.extraction_text.isReadOnly()
    assert template.extraction.user in dialog.extraction_text.toPlainText()
    assert dialog.template_version.text() == f"version {template.version}"
    assert not dialog.edited_label.isVisible() and not dialog.reset_button.isEnabled()
    assert dialog.run_template() is template


def test_the_swap_box_follows_the_template_default(dialog: JudgeDialog) -> None:
    dialog.set_template("convbench-pairwise")
    assert not dialog.swap_check.isChecked()  # ConvBench fixes the side: one query each
    dialog.set_template(TEMPLATE)
    assert dialog.swap_check.isChecked()


def test_a_run_shows_progress_and_stores_verdicts(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    faults = Faults(latency=0.03, latency_jitter=0.5, malformed_share=0.1)
    with FakeOpenAIServer(faults=faults) as server:
        configure(dialog, server)
        estimate(qtbot, dialog)
        plan = dialog.plan
        assert plan is not None and plan.estimate.requests == 24  # 12 pairs, both orders
        assert "24 to send" in dialog.estimate_label.text()
        assert "$" in dialog.estimate_label.text()  # gpt-4o-mini has a price

        shown: list[int] = []  # every value the bar took, as it took it
        dialog.progress_bar.valueChanged.connect(shown.append)
        dialog.start_button.click()
        assert dialog.running and dialog.cancel_button.isEnabled()
        qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)

    summary = dialog.summary
    assert summary is not None and summary.status == "completed", dialog.status_label.text()
    assert summary.progress.done == 24
    assert stored_verdicts(dialog.bundle) == summary.progress.verdicts == 24
    assert dialog.progress_bar.value() == dialog.progress_bar.maximum() == 24
    assert "Run completed" in dialog.status_label.text()
    assert any(0 < value < 24 for value in shown)  # progress shown while running
    assert not dialog.start_button.isEnabled()  # what is left changed: estimate again


@pytest.mark.budget
def test_a_run_keeps_the_gui_thread_free(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    """The GUI thread's own work between two ticks of a 10 ms timer stays under 50 ms while a
    run goes on: CPU time, so other processes do not count, but under load more answers are
    handled per stretch; hence a budget test (bench/all.py), not a default one."""
    faults = Faults(latency=0.03, latency_jitter=0.5, malformed_share=0.1)
    with FakeOpenAIServer(faults=faults) as server:
        configure(dialog, server)
        estimate(qtbot, dialog)
        watch = TickWatch(dialog)
        watch.start()
        dialog.start_button.click()
        qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
        watch.stop()
    assert dialog.summary is not None and dialog.summary.status == "completed"
    print(
        f"\nlargest tick gap: {watch.wall_gap * 1000:.1f} ms wall, "
        f"{watch.cpu_gap * 1000:.1f} ms CPU"
    )
    assert watch.cpu_gap < 0.05, f"the GUI thread was busy {watch.cpu_gap * 1000:.0f} ms"


def test_cancel_stops_the_run_and_keeps_what_was_answered(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    # two answers, then the run waits on its next requests until it is cancelled
    with FakeOpenAIServer(faults=Faults(answer_then_hold=2)) as server:
        configure(dialog, server, concurrency=2)
        estimate(qtbot, dialog)
        dialog.start_button.click()
        qtbot.waitUntil(
            lambda: dialog.runner is not None and dialog.runner.progress.done >= 2,
            timeout=HANG_GUARD_MS,
        )
        dialog.cancel_button.click()
        assert not dialog.cancel_button.isEnabled()
        dialog.reject()  # refused while the run winds down
        assert dialog.isVisible()
        qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
        sent = server.stats.requests

    summary = dialog.summary
    assert summary is not None and summary.status == "cancelled"
    assert 2 <= summary.progress.done < 24
    assert sent < 24
    assert stored_verdicts(dialog.bundle) == summary.progress.verdicts == summary.progress.done
    # running again resumes: only what is left is estimated
    with FakeOpenAIServer() as server:
        configure(dialog, server)
        estimate(qtbot, dialog)
    assert dialog.plan is not None
    assert dialog.plan.estimate.already_judged == summary.progress.done


def test_the_run_is_a_job_that_the_jobs_list_can_cancel(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    manager = jobs_for(dialog)
    with FakeOpenAIServer(faults=Faults(answer_then_hold=2)) as server:
        configure(dialog, server, concurrency=2)
        estimate(qtbot, dialog)
        dialog.start_button.click()
        job = dialog.run_job
        assert job is not None and job in manager.active()
        assert job.title == f"LLM judge run on {bundle_file(dialog).name}"
        qtbot.waitUntil(lambda: job.done >= 2 and job.total == 24, timeout=HANG_GUARD_MS)
        job.cancel()  # as the list's Cancel button does
        qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert job.status is JobStatus.CANCELLED and dialog.summary is not None
    assert dialog.summary.status == "cancelled" and job.result is dialog.summary
    assert job.text == describe_summary(dialog.summary)
    assert stored_verdicts(dialog.bundle) == dialog.summary.progress.verdicts > 0
    assert dialog.start_button.isEnabled() is False and dialog.estimate_button.isEnabled()


def test_a_coroutine_job_cancelled_while_it_waits_stops_there(
    qtbot: QtBot, shared_loop: qasync.QEventLoop
) -> None:
    manager = jobs_for(None)
    reached: list[str] = []

    async def work(control: JobControl) -> str:
        reached.append("started")
        await asyncio.sleep(30)
        reached.append("woke")
        return "never"

    job = manager.submit_async("Sleep", "Sleep", work)
    assert job.status is JobStatus.RUNNING
    qtbot.waitUntil(lambda: reached == ["started"], timeout=HANG_GUARD_MS)
    job.cancel()  # no handler of its own: the task is cancelled where it waits
    qtbot.waitUntil(lambda: not job.active, timeout=HANG_GUARD_MS)
    assert status(job) is JobStatus.CANCELLED and reached == ["started"]


def test_bad_settings_are_reported_without_running(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    dialog.estimate_button.click()
    assert dialog.message_box is not None
    assert "give the judge model" in dialog.message_box.text()  # none is assumed
    dialog.model_combo.setCurrentText("gpt-4o-mini")
    dialog.campaign_radio.setChecked(True)
    dialog.estimate_button.click()
    assert dialog.message_box is not None
    assert "name the campaign" in dialog.message_box.text()
    dialog.campaign_edit.setText("no-such-campaign")
    dialog.estimate_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert dialog.plan is None and not dialog.start_button.isEnabled()
    assert "no-such-campaign" in dialog.message_box.text()


def widget_texts() -> str:
    texts: list[str] = []
    for widget in QApplication.allWidgets():
        texts += [widget.windowTitle(), widget.toolTip(), widget.statusTip()]
        if isinstance(widget, QLabel | QLineEdit | QAbstractButton):
            texts.append(widget.text())
        if isinstance(widget, QLineEdit):
            texts.append(widget.displayText())
        if isinstance(widget, QPlainTextEdit):
            texts.append(widget.toPlainText())
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(row) for row in range(widget.count())]
        if isinstance(widget, QMessageBox):
            texts += [widget.text(), widget.detailedText()]
    return "\n".join(texts)


def test_the_key_reaches_no_bundle_log_or_widget(
    qtbot: QtBot,
    dialog: JudgeDialog,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    configure_logging(verbose=True)
    root_level = logging.getLogger().level
    try:
        with FakeOpenAIServer(faults=Faults(malformed_share=0.3)) as server:
            keys = ApiKeyDialog(server.base_url)
            qtbot.addWidget(keys)
            keys.key_edit.setText(FAKE_KEY)
            keys.save_button.click()
            configure(dialog, server)
            estimate(qtbot, dialog)
            dialog.start_button.click()
            qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
            assert server.stats.authorization == {f"Bearer {FAKE_KEY}"}  # it was used
        assert dialog.summary is not None and dialog.summary.status == "completed"
        shown = widget_texts()
    finally:
        close_log_file()
        logging.getLogger().setLevel(root_level)
    with sqlite3.connect(dialog.bundle) as connection:  # fold the WAL into the file as well
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    logged = Path(log_file()).read_text(encoding="utf-8")
    assert "judge run" in logged  # the run was logged, so the search means something
    assert "Run completed" in shown
    bundle = bundle_file(dialog)
    files = [bundle, *bundle.parent.glob(bundle.name + "-*")]
    for path in files:
        assert FAKE_KEY.encode() not in path.read_bytes(), path
    assert FAKE_KEY not in logged
    assert FAKE_KEY not in shown


def test_tools_run_llm_judge_opens_the_dialog(open_window: MainWindow) -> None:
    open_window.tools.judge_action.trigger()
    dialog = open_window.tools.judge_dialog
    assert dialog is not None and dialog.isVisible()
    assert open_window.bundle is not None and dialog.bundle == open_window.bundle.path
    dialog.close()


# --- editing the template -------------------------------------------------------------------------

EDIT = "Be especially strict about made-up details."


def type_at_end(qtbot: QtBot, edit: QPlainTextEdit, text: str) -> None:
    edit.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(edit, text)


def judge_runs(bundle: str | Path) -> list[JudgeRun]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return list(session.scalars(select(JudgeRun)).all())


def test_an_edited_template_runs_and_is_stored_as_its_own_version(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    plugin = registry().judge_template(TEMPLATE)
    with FakeOpenAIServer() as server:
        configure(dialog, server)
        type_at_end(qtbot, dialog.user_edit, f" {EDIT}")
        assert dialog.edited_label.isVisible() and dialog.reset_button.isEnabled()
        assert dialog.prompt_group.title().endswith("(edited)")
        version = dialog.template_version.text().removeprefix("version ")
        assert re.fullmatch(re.escape(plugin.version) + r"\+edited\.[0-9a-f]{8}", version)
        assert version in dialog.edited_label.text()
        estimate(qtbot, dialog)
        assert dialog.plan is not None and dialog.plan.template.version == version
        assert version in dialog.estimate_label.text()  # the run is named after it
        dialog.start_button.click()
        assert dialog.user_edit.isReadOnly()  # what runs is what was estimated
        qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
        sent = [text for _, text in server.stats.arrivals]
    assert dialog.summary is not None and dialog.summary.status == "completed"
    assert len(sent) == 24 and all(text.endswith(f" {EDIT}") for text in sent)
    (run,) = judge_runs(dialog.bundle)
    assert (run.template_name, run.template_version) == (TEMPLATE, version)
    stored = json.loads(run.template_text)
    assert stored["user"] == f"{plugin.user} {EDIT}" and stored["system"] == plugin.system
    assert stored["version"] == version
    assert stored_verdicts(dialog.bundle) == 24


def test_reset_restores_the_plugins_text_and_version(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    plugin = registry().judge_template(TEMPLATE)
    dialog.set_template(TEMPLATE)
    type_at_end(qtbot, dialog.system_edit, " Be brief.")
    assert dialog.run_template().system == f"{plugin.system} Be brief."
    # an edit waits while another template is looked at
    other = next(t for t in registry().judge_templates() if t.name != TEMPLATE)
    dialog.set_template(other.name)
    assert not dialog.edited_label.isVisible()
    assert dialog.system_edit.toPlainText() == other.system
    dialog.set_template(TEMPLATE)
    assert dialog.system_edit.toPlainText() == f"{plugin.system} Be brief."
    assert dialog.edited_label.isVisible()

    dialog.reset_button.click()
    assert dialog.prompt_text() == (plugin.system, plugin.user)
    assert not dialog.edited_label.isVisible() and not dialog.reset_button.isEnabled()
    assert dialog.prompt_group.title() == "Prompt template"
    assert dialog.template_version.text() == f"version {plugin.version}"
    dialog.model_combo.setCurrentText("gpt-4o-mini")  # none is assumed
    estimate(qtbot, dialog)  # planning sends nothing: no server needed
    assert dialog.plan is not None and dialog.plan.template.version == plugin.version
    assert dialog.plan.template.as_record() == plugin.as_record()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda user: f"{user}\nAlso weigh {{response_c}}.", "unknown placeholder(s) {response_c}"),
        (lambda user: user.replace("{response_b}", "(none)"), "needs {response_b}"),
        (lambda user: f"{user} {{", "unbalanced braces"),
    ],
    ids=["unknown", "removed", "unbalanced"],
)
def test_a_bad_placeholder_is_refused_and_nothing_runs(
    qtbot: QtBot,
    dialog: JudgeDialog,
    edit: Callable[[str], str],
    message: str,
) -> None:
    plugin = registry().judge_template(TEMPLATE)
    dialog.set_template(TEMPLATE)
    dialog.user_edit.setPlainText(edit(plugin.user))
    assert message in dialog.edited_label.text()  # said while typing
    assert dialog.template_version.text() == f"version {plugin.version}, edited"
    dialog.estimate_button.click()
    assert not dialog.running  # refused before planning
    assert dialog.message_box is not None and message in dialog.message_box.text()
    assert dialog.plan is None and not dialog.start_button.isEnabled()
    dialog.start_button.click()
    assert judge_runs(dialog.bundle) == []


def test_the_dialog_starts_with_limits_and_the_last_endpoint_used(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    # nothing used yet: no endpoint (never a hosted one by default), no model; limits set
    assert dialog.base_url_edit.text() == "" and dialog.model_combo.currentText() == ""
    assert "127.0.0.1" in dialog.base_url_edit.placeholderText()
    assert (dialog.max_requests_spin.value(), dialog.max_cost_spin.value()) == (1000, 5.0)
    with FakeOpenAIServer() as server:
        dialog.model_combo.setCurrentText("gpt-4o-mini")
        dialog.set_template(TEMPLATE)
        estimate(qtbot, dialog)
        text = dialog.estimate_label.text()
        assert "24 to send" in text and "Limits: 1,000 requests, $5.00" in text
        dialog.start_button.click()  # no endpoint given: asked for, nothing runs
        assert dialog.message_box is not None
        assert not dialog.running and "base URL" in dialog.message_box.text()
        dialog.base_url_edit.setText(server.base_url)
        estimate(qtbot, dialog)
        dialog.start_button.click()
        qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert dialog.summary is not None and dialog.summary.status == "completed"
    again = JudgeDialog(dialog.bundle)
    qtbot.addWidget(again)
    assert again.base_url_edit.text() == server.base_url
    assert again.model_combo.currentText() == "gpt-4o-mini"


def test_a_run_above_its_limits_starts_only_once_confirmed(
    qtbot: QtBot,
    dialog: JudgeDialog,
) -> None:
    with FakeOpenAIServer() as server:
        configure(dialog, server)
        dialog.max_requests_spin.setValue(10)
        estimate(qtbot, dialog)
        assert "Above the limits: 24 requests to send, above the limit of 10" in (
            dialog.estimate_label.text()
        )
        dialog.start_button.click()
        box = dialog.confirm_box
        assert box is not None and box.isVisible() and not dialog.running
        assert "stop when it reaches a limit" in box.text()
        box.button(QMessageBox.StandardButton.No).click()
        assert dialog.confirm_box is None and not dialog.running
        assert server.stats.requests == 0
        dialog.start_button.click()
        assert dialog.confirm_box is not None
        dialog.confirm_box.button(QMessageBox.StandardButton.Yes).click()
        assert dialog.running
        qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
        assert server.stats.requests == 10
    assert dialog.summary is not None and dialog.summary.status == "budget_exhausted"


def test_a_summary_with_failures_says_why() -> None:
    progress = JudgeProgress(total=5, done=2)
    progress.note_failure("timeout", "TimeoutError: the attempt took longer than its timeout")
    progress.note_failure("HTTP 500", "InternalServerError: boom")
    progress.note_failure("timeout", "TimeoutError: again")
    text = describe_summary(JudgeSummary("r", "incomplete", 0, progress))
    assert "3 failed" in text
    assert "Failed: 2 timeout, 1 HTTP 500; the first: TimeoutError: the attempt took longer" in text
