"""File > Export report…: the dialog writes the report ``workbench report`` writes for the same
filters, on a worker thread with its progress bar following the steps, and shows failures."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from tests.services.report_bundle import build_report_bundle
from workbench.cli import main
from workbench.gui.report_dialog import ReportDialog
from workbench.services.report import STEPS

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


def report_data(path: Path) -> dict[str, Any]:
    html = path.read_text(encoding="utf-8")
    found = re.search(r'id="report-data">(.*?)</script>', html, re.S)
    assert found is not None
    return cast("dict[str, Any]", json.loads(found.group(1)))


@pytest.fixture(scope="module")
def report_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_report_bundle(tmp_path_factory.mktemp("dialog"))


@pytest.fixture
def dialog(qtbot: QtBot, report_bundle: Path) -> ReportDialog:
    dialog = ReportDialog(report_bundle)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=HANG_GUARD_MS)  # choices read
    return dialog


def test_dialog_writes_what_the_command_writes(
    qtbot: QtBot,
    dialog: ReportDialog,
    report_bundle: Path,
    tmp_path: Path,
) -> None:
    combo = dialog.combos["categories"]
    assert combo.findText("ocr") >= 0 and dialog.combos["judge_runs"].findText("judge-1") >= 0
    combo.setCurrentIndex(combo.findText("ocr"))
    dialog.bootstrap_spin.setValue(10)
    dialog.seed_spin.setValue(4)
    out = tmp_path / "dialog.html"
    dialog.out_edit.setText(str(out))
    seen: list[int] = []
    dialog.progress_bar.valueChanged.connect(seen.append)
    dialog.write_button.click()
    assert dialog.running and not dialog.write_button.isEnabled()
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert dialog.progress_bar.value() == len(STEPS)
    assert len(set(seen)) > 2  # the bar followed the steps
    assert "Wrote the report" in dialog.status_label.text()
    expected = tmp_path / "cli.html"
    arguments = ["--category", "ocr", "--bootstrap", "10", "--seed", "4"]
    assert main(["report", str(report_bundle), "--out", str(expected), *arguments]) == 0
    for section in ("leaderboard", "agreement", "categories"):
        assert report_data(out)[section] == report_data(expected)[section]


def test_dialog_reports_an_empty_selection(
    qtbot: QtBot,
    dialog: ReportDialog,
    tmp_path: Path,
) -> None:
    dialog.combos["campaigns"].setEditText("no-such-campaign")
    out = tmp_path / "none.html"
    dialog.out_edit.setText(str(out))
    dialog.write_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert isinstance(dialog.message_box, QMessageBox)
    assert "no pairwise judgments match campaign=no-such-campaign" in dialog.message_box.text()
    assert not out.exists()


def test_file_menu_opens_the_report_dialog(qtbot: QtBot, open_window: MainWindow) -> None:
    entry = open_window.report_entry
    assert entry.action in open_window.ui.fileMenu.actions()
    entry.action.trigger()
    assert entry.dialog is not None and entry.dialog.isVisible()
    assert entry.dialog.out_edit.text().endswith("-report.html")
    dialog = entry.dialog
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=HANG_GUARD_MS)  # choices read
