"""The job manager (workbench/gui/jobs.py) and its views (jobs_view.py): progress, Cancel,
errors, the queue, the status-bar indicator and list, closing the window, annotator mode."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle, forbidden_strings
from tests.gui.annotation_probe import leaks, visible_top_level_strings, widget_strings
from tests.gui.conftest import wait_idle
from tests.gui.job_status import status
from tests.gui.sample_bundle import write_sample_jsonl
from tests.gui.test_import_dialog import SlowImporter, item_total
from tests.patience import HANG_GUARD_MS, HANG_GUARD_SECONDS
from tests.services.report_bundle import build_report_bundle
from workbench.errors import WorkbenchError
from workbench.gui.annotation.annotation_page import ANNOTATE_PAGE
from workbench.gui.import_dialog import ImportDialog
from workbench.gui.jobs import Access, JobControl, JobManager, JobStatus, jobs_for
from workbench.gui.jobs_view import JobsDialog, JobsIndicator
from workbench.gui.main_window import MainWindow
from workbench.gui.report_dialog import ReportDialog
from workbench.plugins import Plugin, Registry
from workbench.storage.bundle import copy_bundle

pytestmark = pytest.mark.gui

WAIT = HANG_GUARD_MS


class Gate:
    """Work that reports progress, then waits to be let go (or cancelled)."""

    def __init__(self, total: int = 4) -> None:
        self.total = total
        self.started = threading.Event()
        self.release = threading.Event()
        self.ran = False

    def __call__(self, control: JobControl) -> str:
        self.ran = True
        for step in range(1, self.total + 1):
            control.progress(step - 1, self.total, f"step {step}")
            if step == self.total // 2:
                self.started.set()
                while not self.release.wait(0.01):
                    control.check()
        control.progress(self.total, self.total, "finishing")
        return "the result"


@pytest.fixture
def manager(qtbot: QtBot) -> Iterator[JobManager]:
    manager = JobManager()
    yield manager
    manager.cancel_all()
    manager.wait(WAIT)
    qtbot.wait(20)  # the cancelled jobs' outcomes are delivered before the manager goes
    manager.deleteLater()


def test_a_job_reports_progress_and_finishes(qtbot: QtBot, manager: JobManager) -> None:
    gate = Gate()
    job = manager.submit("Count to four", "Count", gate)
    assert job.status is JobStatus.RUNNING and manager.busy
    assert gate.started.wait(HANG_GUARD_SECONDS)
    qtbot.waitUntil(lambda: job.done == 1 and job.total == 4, timeout=WAIT)
    assert job.text == "step 2"
    dialog = JobsDialog(manager)
    qtbot.addWidget(dialog)
    row = dialog.rows[0]
    assert row.bar.maximum() == 4 and row.bar.value() == 1
    assert row.state.text() == "step 2" and row.cancel_button.isEnabled()
    with qtbot.waitSignal(job.finished, timeout=WAIT):
        gate.release.set()
    assert status(job) is JobStatus.SUCCEEDED and job.result == "the result"
    assert not manager.busy
    dialog.refresh()
    assert row.state.text() == "Done." and row.bar.value() == row.bar.maximum()
    assert not row.cancel_button.isVisible()


def test_cancel_stops_a_running_job(qtbot: QtBot, manager: JobManager) -> None:
    gate = Gate()
    job = manager.submit("Wait", "Wait", gate)
    assert gate.started.wait(HANG_GUARD_SECONDS)
    dialog = JobsDialog(manager)
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(job.finished, timeout=WAIT):
        dialog.rows[0].cancel_button.click()
        assert job.text == "Cancelling…" and not dialog.rows[0].cancel_button.isEnabled()
    assert job.status is JobStatus.CANCELLED and job.result is None
    dialog.refresh()
    assert dialog.rows[0].state.text() == "Cancelled."


def test_a_job_that_cannot_stop_has_no_cancel(qtbot: QtBot, manager: JobManager) -> None:
    gate = Gate()
    job = manager.submit("Copy", "Backup", gate, cancellable=False)
    assert gate.started.wait(HANG_GUARD_SECONDS)
    dialog = JobsDialog(manager)
    qtbot.addWidget(dialog)
    assert not dialog.rows[0].cancel_button.isEnabled()
    job.cancel()
    manager.cancel_all()
    assert job.status is JobStatus.RUNNING and not gate.release.is_set()
    with qtbot.waitSignal(job.finished, timeout=WAIT):
        gate.release.set()
    assert status(job) is JobStatus.SUCCEEDED


def test_failing_jobs_show_their_error(qtbot: QtBot, manager: JobManager) -> None:
    def refused(_control: JobControl) -> None:
        raise WorkbenchError("the folder out/ is not writable")

    def broken(_control: JobControl) -> None:
        raise KeyError("surprise")

    first = manager.submit("Refused", "Export", refused)
    second = manager.submit("Broken", "Export", broken)
    qtbot.waitUntil(lambda: not manager.busy, timeout=WAIT)
    assert first.status is second.status is JobStatus.FAILED
    assert first.error == "the folder out/ is not writable" and first.details == ""
    assert second.error == "KeyError: 'surprise'" and "Traceback" in second.details
    dialog = JobsDialog(manager)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.rows[0].state.text() == "Failed: the folder out/ is not writable"
    assert dialog.rows[1].details_button.isVisible()
    box = dialog.rows[1].show_details()
    assert box.text() == "KeyError: 'surprise'" and "Traceback" in box.detailedText()
    box.close()
    # kept until cleared
    assert len(manager.jobs()) == 2
    dialog.clear_button.click()
    assert manager.jobs() == [] and dialog.rows == [] and dialog.empty_label.isVisible()


def test_two_jobs_queue_and_a_queued_one_can_be_cancelled(
    qtbot: QtBot, manager: JobManager
) -> None:
    first, second, third = Gate(), Gate(), Gate()
    jobs = [
        manager.submit(name, "Work", gate)
        for name, gate in zip("ABC", (first, second, third), strict=True)
    ]
    assert first.started.wait(HANG_GUARD_SECONDS)
    assert [job.status for job in jobs] == [JobStatus.RUNNING, JobStatus.QUEUED, JobStatus.QUEUED]
    assert not second.ran
    indicator = JobsIndicator(manager, lambda: None)
    qtbot.addWidget(indicator)
    assert indicator.button.text() == "3 job(s): A (+2 more)"
    assert indicator.bar.isVisibleTo(indicator)
    jobs[2].cancel()  # a queued job ends at once and never runs
    assert jobs[2].status is JobStatus.CANCELLED
    first.release.set()
    # the next job starts when the GUI thread hears that the first one ended
    qtbot.waitUntil(second.started.is_set, timeout=WAIT)
    assert jobs[1].status is JobStatus.RUNNING
    assert jobs[0].status is JobStatus.SUCCEEDED
    qtbot.waitUntil(lambda: indicator.button.text() == "1 job(s): B", timeout=WAIT)
    second.release.set()
    qtbot.waitUntil(lambda: not manager.busy, timeout=WAIT)
    qtbot.wait(50)
    assert not third.ran
    assert indicator.button.text() == "Jobs" and not indicator.bar.isVisibleTo(indicator)


def test_a_dialog_on_its_own_uses_the_applications_manager(
    qtbot: QtBot, sample_bundle: Path
) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    alone = ImportDialog(None)
    qtbot.addWidget(alone)
    assert jobs_for(window.show_import_dialog()) is window.jobs
    assert jobs_for(alone) is jobs_for(None) is not window.jobs


def test_cancel_in_the_list_stops_an_import_and_leaves_the_bundle_unchanged(
    qtbot: QtBot,
    sample_bundle: Path,
    tmp_path: Path,
) -> None:
    target = tmp_path / "target.wbb"
    copy_bundle(sample_bundle, target)
    before = item_total(target)
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    slow = SlowImporter()
    plugins = Registry()
    plugins.add(Plugin("slow", "1", "test", importers=(slow,)))
    dialog = ImportDialog(target, window, plugins=plugins)
    source = tmp_path / "anything.txt"
    source.write_text("x", encoding="utf-8")
    dialog.add_sources([source])
    dialog.start_import()
    assert slow.reading.wait(HANG_GUARD_SECONDS)
    assert window.jobs_indicator.isVisibleTo(window)
    jobs = window.show_jobs()
    row = jobs.rows[0]
    assert row.title.text() == "Import (slow) into target.wbb"
    row.cancel_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert row.job.status is JobStatus.CANCELLED
    assert "cancelled" in dialog.ui.statusLabel.text()
    assert item_total(target) == before


def test_cancelling_a_report_writes_no_file(qtbot: QtBot, tmp_path: Path) -> None:
    bundle = build_report_bundle(tmp_path)
    dialog = ReportDialog(bundle)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=WAIT)
    out = tmp_path / "cancelled.html"
    dialog.out_edit.setText(str(out))
    dialog.write_button.click()
    assert dialog.job is not None
    dialog.job.cancel()  # stops at the report's next step, before anything is written
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert dialog.job.status is JobStatus.CANCELLED
    assert "no file was written" in dialog.status_label.text()
    assert not out.exists() and list(tmp_path.glob("cancelled*")) == []


def test_closing_the_window_with_a_running_job_asks_then_cancels(
    qtbot: QtBot,
    sample_bundle: Path,
) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(sample_bundle)
    window.show()
    wait_idle(qtbot, window)
    gate = Gate()
    job = window.jobs.submit("Long work", "Work", gate)
    assert gate.started.wait(HANG_GUARD_SECONDS)
    assert not window.close()  # asks instead
    box = window.stop_jobs_box
    assert isinstance(box, QMessageBox) and box.isVisible() and "1 job(s)" in box.text()
    box.button(QMessageBox.StandardButton.No).click()
    qtbot.waitUntil(lambda: window.stop_jobs_box is None, timeout=WAIT)
    assert window.isVisible() and job.status is JobStatus.RUNNING
    window.close()
    box = window.stop_jobs_box
    assert box is not None
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT)
    assert status(job) is JobStatus.CANCELLED and window.bundle is None


def test_closing_with_no_job_running_does_not_ask(qtbot: QtBot) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.show()
    job = window.jobs.submit("Quick", "Work", lambda _control: 1)
    qtbot.waitUntil(lambda: job.status is JobStatus.SUCCEEDED, timeout=WAIT)
    assert window.close() and window.stop_jobs_box is None


def test_annotator_mode_shows_jobs_without_names(qtbot: QtBot, tmp_path: Path) -> None:
    bundle_path = build_annotation_bundle(tmp_path)
    forbidden = forbidden_strings(bundle_path)
    model = forbidden[-1]
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle_path)
    window.show()
    wait_idle(qtbot, window)

    def fails(_control: JobControl) -> None:
        raise WorkbenchError(f"no outputs of {model}")

    failed = window.jobs.submit(f"Export {model} votes to {model}.jsonl", "Export", fails)
    qtbot.waitUntil(lambda: not failed.active, timeout=WAIT)
    written = window.jobs.submit(f"Export to {model}.csv", "Export", lambda _control: None)
    qtbot.waitUntil(lambda: not written.active, timeout=WAIT)
    written.set_outcome(f"Wrote 3 records to {model}.csv.")
    gate = Gate()
    window.jobs.submit(f"Report on {model}", "Report", gate)
    assert gate.started.wait(HANG_GUARD_SECONDS)
    # the list names the model outside annotator mode, which shows models anyway
    shown = window.show_jobs()
    assert leaks(widget_strings(shown), forbidden) != []
    shown.close()

    window.annotation.start("arena-battle", "ana")
    qtbot.waitUntil(lambda: window.annotation.page == ANNOTATE_PAGE, timeout=WAIT)
    window.jobs_indicator.refresh()
    window.jobs_indicator.button.click()
    assert window.jobs_dialog is not None and window.jobs_dialog.isVisible()
    rows = window.jobs_dialog.rows
    assert [row.title.text() for row in rows] == ["Export", "Export", "Report"]
    assert [row.state.text() for row in rows] == ["Failed.", "Done.", "Running…"]
    assert leaks(visible_top_level_strings(), forbidden) == []
    assert leaks(widget_strings(window.jobs_indicator), forbidden) == []
    gate.release.set()
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=WAIT)


def test_the_import_dialog_queues_behind_running_work(qtbot: QtBot, tmp_path: Path) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    gate = Gate()
    window.jobs.submit("Before", "Work", gate)
    assert gate.started.wait(HANG_GUARD_SECONDS)
    dialog = ImportDialog(tmp_path / "new.wbb", window)
    dialog.set_format("jsonl")
    dialog.add_sources([write_sample_jsonl(tmp_path / "source")])
    dialog.start_import()
    job = dialog.job
    assert dialog.running and job is not None
    assert job.status is JobStatus.QUEUED
    assert dialog.ui.statusLabel.text() == "Waiting for the job before it…"
    with qtbot.waitSignal(dialog.imported, timeout=HANG_GUARD_MS):
        gate.release.set()
    assert status(job) is JobStatus.SUCCEEDED
    # the list says how it ended, in the dialog's words
    assert "items added" in job.text and job.text == dialog.ui.statusLabel.text()


def test_asked_to_end_a_window_closes_even_if_a_job_ignores_its_cancel(
    qtbot: QtBot,
) -> None:
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.show()
    started, release = threading.Event(), threading.Event()

    def deaf(_control: JobControl) -> str:  # never asks whether it was cancelled
        started.set()
        release.wait(HANG_GUARD_SECONDS)
        return "late"

    job = window.jobs.submit("Deaf work", "Work", deaf)
    assert started.wait(HANG_GUARD_SECONDS)
    try:
        window.close_cancelling_jobs()
        assert window.stop_jobs_box is None  # no question: the app was asked to end
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=HANG_GUARD_MS)
        assert job.active  # closed without it
    finally:
        release.set()
        window.jobs.pool.waitForDone(HANG_GUARD_MS)


def test_a_reader_runs_beside_a_writer_and_writers_wait_for_each_other(
    qtbot: QtBot,
    manager: JobManager,
) -> None:
    writer, second_writer, reader = Gate(), Gate(), Gate()
    first = manager.submit("Import", "Import", writer)
    second = manager.submit("Restore", "Restore", second_writer)
    read = manager.submit("Export", "Export", reader, access=Access.READ)
    assert writer.started.wait(HANG_GUARD_SECONDS)
    assert reader.started.wait(HANG_GUARD_SECONDS)  # not behind the writer
    assert second.status is JobStatus.QUEUED and not second_writer.ran
    assert manager.running() == [first, read]
    with qtbot.waitSignal(read.finished, timeout=WAIT):
        reader.release.set()
    assert read.status is JobStatus.SUCCEEDED and first.status is JobStatus.RUNNING
    writer.release.set()
    qtbot.waitUntil(second_writer.started.is_set, timeout=WAIT)
    second_writer.release.set()
    qtbot.waitUntil(lambda: not manager.busy, timeout=WAIT)
    assert [job.status for job in (first, second)] == [JobStatus.SUCCEEDED] * 2


def test_a_long_export_does_not_queue_the_automatic_backup_behind_it(
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
    sample_bundle: Path,
    tmp_path: Path,
) -> None:
    from workbench.export import service
    from workbench.export.judgments import check_judgment_options
    from workbench.gui.export_dialog import ExportDialog
    from workbench.storage.backup_names import list_backups

    path = tmp_path / "work.wbb"
    copy_bundle(sample_bundle, path)
    release = threading.Event()
    exporting = threading.Event()

    def held_export(*args: Any, **kwargs: Any) -> None:
        exporting.set()
        release.wait(HANG_GUARD_SECONDS)
        check_judgment_options(*args, **kwargs)

    monkeypatch.setattr(service, "check_judgment_options", held_export)
    window = MainWindow(persist_layout=False, auto_backup=False)
    qtbot.addWidget(window)
    window.open_bundle(path)
    dialog = ExportDialog(path, window)
    dialog.show()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=WAIT)
    dialog.out_edit.setText(str(tmp_path / "out" / "pairs.jsonl"))
    dialog.export_button.click()
    assert exporting.wait(HANG_GUARD_SECONDS)
    window.back_up_in_background(path)
    (backup,) = [job for job in window.jobs.jobs() if job.kind == "Backup"]
    qtbot.waitUntil(lambda: not backup.active, timeout=WAIT)
    assert backup.status is JobStatus.SUCCEEDED and len(list_backups(path)) == 1
    assert dialog.job is not None and dialog.job.status is JobStatus.RUNNING
    release.set()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT)
    assert status(dialog.job) is JobStatus.SUCCEEDED
    window.close()
