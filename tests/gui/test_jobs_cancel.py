"""Cancel in the jobs list for the work that used to be only waited for: an export, a new
campaign, a restore and the automatic backup, and the judge's Estimate, now a job. Each is
paused mid-way (inside its service, on the job manager's worker), cancelled from the list, and
then shown to have changed nothing."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest import MonkeyPatch
from pytestqt.qtbot import QtBot

from tests.gui.annotation_bundle import build_annotation_bundle
from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from workbench.gui.export_dialog import ExportDialog
from workbench.gui.jobs import Job, JobControl, JobManager, JobStatus, jobs_for
from workbench.gui.jobs_view import JobsDialog
from workbench.gui.main_window import MainWindow
from workbench.gui.restore_dialog import DamagedBundleDialog
from workbench.services import campaign_items, campaigns
from workbench.storage import backups
from workbench.storage.backup_names import list_backups
from workbench.storage.bundle import copy_bundle
from workbench.storage.errors import BundleDamagedError
from workbench.storage.integrity import check_file_header

pytestmark = pytest.mark.gui

WAIT = HANG_GUARD_MS


class Pause:
    """Wraps a function so that the worker stops in it (after it ran) until released."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.reached = threading.Event()
        self.release = threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        value = self.function(*args, **kwargs)
        self.reached.set()
        self.release.wait(WAIT / 1000)
        return value


def cancel_in_the_list(qtbot: QtBot, manager: JobManager, job: Job, pause: Pause) -> None:
    """Click the job's Cancel in the jobs list while its work is paused, then let it go on."""
    assert pause.reached.wait(WAIT / 1000)
    listing = JobsDialog(manager)
    qtbot.addWidget(listing)
    row = next(row for row in listing.rows if row.job is job)
    assert row.cancel_button.isEnabled()
    row.cancel_button.click()
    assert job.cancel_requested and not row.cancel_button.isEnabled()
    with qtbot.waitSignal(job.finished, timeout=WAIT):
        pause.release.set()
    assert job.status is JobStatus.CANCELLED
    listing.refresh()
    assert row.state.text() == "Cancelled."


def files_in(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def test_cancelling_an_export_in_the_list_writes_no_file(
    qtbot: QtBot, monkeypatch: MonkeyPatch, sample_bundle: Path, tmp_path: Path
) -> None:
    from workbench.export import judgments as export_judgments
    from workbench.export import service

    pause = Pause(export_judgments.check_judgment_options)
    monkeypatch.setattr(service, "check_judgment_options", pause)
    dialog = ExportDialog(sample_bundle)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=WAIT)
    out = tmp_path / "out" / "pairs.jsonl"
    dialog.out_edit.setText(str(out))
    dialog.export_button.click()
    assert dialog.job is not None and dialog.job.cancellable
    cancel_in_the_list(qtbot, jobs_for(dialog), dialog.job, pause)
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT)
    assert dialog.status_label.text() == "Export cancelled; no file was written."
    assert dialog.export_button.isEnabled() and dialog.summary is None
    assert not out.parent.exists() or list(out.parent.iterdir()) == []


@pytest.fixture
def annotation_window(qtbot: QtBot, tmp_path: Path) -> Iterator[tuple[MainWindow, Path]]:
    path = build_annotation_bundle(tmp_path / "built")
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(path)
    window.show()
    wait_idle(qtbot, window)
    yield window, path
    window.close()


def campaign_rows(path: Path) -> list[int]:
    connection = sqlite3.connect(path)
    try:
        return [
            connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in (
                "campaigns",
                "scheduled_pairs",
                "campaign_counts",
                "campaign_pair_counts",
                "campaign_annotator_counts",
            )
        ]
    finally:
        connection.close()


def test_cancelling_a_new_campaign_in_the_list_stores_nothing(
    qtbot: QtBot, monkeypatch: MonkeyPatch, annotation_window: tuple[MainWindow, Path]
) -> None:
    window, path = annotation_window
    before = campaign_rows(path)
    pause = Pause(campaign_items.eligibility)
    monkeypatch.setattr(campaigns, "eligibility", pause)
    dialog = window.annotation.show_new_campaign_dialog()
    assert dialog is not None
    dialog.name_field.setText("never-made")
    dialog.protocol_box.setCurrentIndex(dialog.protocol_box.findData("arena-battle"))
    dialog.accept()
    assert dialog.job is not None and dialog.job.cancellable
    cancel_in_the_list(qtbot, window.jobs, dialog.job, pause)
    assert dialog.isVisible() and dialog.isEnabled()  # the form stays, to change or close
    assert dialog.message.text() == "Cancelled: the campaign was not created."
    assert campaign_rows(path) == before
    # nothing half-made is in the way: the same campaign can be created at once
    monkeypatch.setattr(campaigns, "eligibility", pause.function)
    dialog.accept()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT)
    assert campaign_rows(path)[0] == before[0] + 1


@pytest.fixture
def damaged(sample_bundle: Path, tmp_path: Path) -> tuple[Path, BundleDamagedError]:
    path = tmp_path / "work.wbb"
    copy_bundle(sample_bundle, path)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    backups.make_backup(path, reason="auto")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(BundleDamagedError) as caught:
        check_file_header(path)
    return path, caught.value


def test_cancelling_a_restore_in_the_list_leaves_the_bundle_as_it_was(
    qtbot: QtBot, monkeypatch: MonkeyPatch, damaged: tuple[Path, BundleDamagedError]
) -> None:
    path, error = damaged
    before = files_in(path.parent)
    # the copy of the backup is made and flushed; the bundle's files are not moved yet
    pause = Pause(backups._fsync)
    monkeypatch.setattr(backups, "_fsync", pause)
    dialog = DamagedBundleDialog(error)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.restore_button is not None
    dialog.restore_button.click()
    assert dialog.job is not None and dialog.job.cancellable
    cancel_in_the_list(qtbot, jobs_for(dialog), dialog.job, pause)
    assert dialog.isVisible() and dialog.buttons.isEnabled()
    assert dialog.problem_label.text() == "Restore cancelled; the bundle was not changed."
    assert files_in(path.parent) == before


def test_cancelling_the_automatic_backup_in_the_list_leaves_no_backup(
    qtbot: QtBot, monkeypatch: MonkeyPatch, sample_bundle: Path, tmp_path: Path
) -> None:
    path = tmp_path / "work.wbb"
    copy_bundle(sample_bundle, path)
    # the copy is written and flushed under its temporary name, not yet renamed
    pause = Pause(backups._fsync)
    monkeypatch.setattr(backups, "_fsync", pause)
    window = MainWindow(persist_layout=False, auto_backup=True)
    qtbot.addWidget(window)
    window.open_bundle(path)
    assert pause.reached.wait(WAIT / 1000)
    (job,) = [job for job in window.jobs.jobs() if job.kind == "Backup"]
    assert any(name.endswith(".partial") for name in files_in(path.parent))
    cancel_in_the_list(qtbot, window.jobs, job, pause)
    assert list_backups(path) == []
    assert not [name for name in files_in(path.parent) if name.endswith(".partial")]
    assert "cancelled" in window.statusBar().currentMessage()
    assert window.bundle is not None  # the bundle is open all the same
    window.close()


def test_work_that_finished_before_its_cancel_took_effect_succeeded(qtbot: QtBot) -> None:
    manager = JobManager()
    started, release = threading.Event(), threading.Event()

    def past_its_last_step(_control: JobControl) -> str:
        started.set()
        release.wait(WAIT / 1000)
        return "written"  # the export was renamed into place: it is done, not cancelled

    job = manager.submit("Export", "Export", past_its_last_step)
    assert started.wait(WAIT / 1000)
    job.cancel()
    with qtbot.waitSignal(job.finished, timeout=WAIT):
        release.set()
    assert job.status is JobStatus.SUCCEEDED and job.result == "written"
    manager.pool.waitForDone(WAIT)
    manager.deleteLater()


def test_cancelling_the_judge_estimate_in_the_list_leaves_no_plan(
    qtbot: QtBot, monkeypatch: MonkeyPatch, tmp_path: Path
) -> None:
    from tests.judge.helpers import build_bundle
    from workbench.gui.judge_dialog import JudgeDialog
    from workbench.services.judging import runner, worklist

    pause = Pause(worklist.build_work_list)
    monkeypatch.setattr(runner, "build_work_list", pause)
    dialog = JudgeDialog(build_bundle(tmp_path, 4, models=("m-a", "m-b")))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.model_combo.setCurrentText("gpt-4o-mini")
    dialog.estimate_button.click()
    assert dialog.estimate_job is not None and dialog.running
    assert not dialog.estimate_button.isEnabled() and dialog.cancel_button.isEnabled()
    cancel_in_the_list(qtbot, jobs_for(dialog), dialog.estimate_job, pause)
    assert not dialog.running and dialog.plan is None
    assert dialog.estimate_label.text() == "Estimate cancelled."
    assert dialog.estimate_button.isEnabled() and not dialog.start_button.isEnabled()
    # the dialog's own Cancel stops an estimate the same way
    again = Pause(pause.function)
    monkeypatch.setattr(runner, "build_work_list", again)
    dialog.estimate_button.click()
    assert again.reached.wait(WAIT / 1000)
    dialog.cancel_button.click()
    again.release.set()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT)
    assert dialog.plan is None and dialog.estimate_label.text() == "Estimate cancelled."
    # and an estimate left to finish gives its plan
    monkeypatch.setattr(runner, "build_work_list", pause.function)
    dialog.estimate_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT)
    assert dialog.plan is not None and dialog.start_button.isEnabled()
