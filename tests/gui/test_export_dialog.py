"""File > Export…: the dialog writes exactly what ``workbench export`` writes for the same
options, on a worker thread, and shows failures with their details."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from workbench.cli import build_parser
from workbench.export import ImageMode, JudgmentSource
from workbench.gui import export_dialog as export_module
from workbench.gui.export_dialog import ExportDialog

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


def cli_export(bundle: Path, out: Path, arguments: list[str]) -> None:
    args = build_parser().parse_args(["export", str(bundle), "--out", str(out), *arguments])
    assert args.handler(args) == 0


def dialog_export(qtbot: QtBot, dialog: ExportDialog, out: Path) -> None:
    dialog.out_edit.setText(str(out))
    dialog.export_button.click()
    assert dialog.running and dialog.progress_bar.maximum() == 0  # busy indicator
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)


@pytest.fixture
def dialog(qtbot: QtBot, sample_bundle: Path) -> ExportDialog:
    dialog = ExportDialog(sample_bundle)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: not dialog.runner.busy, timeout=HANG_GUARD_MS)  # campaign names read
    return dialog


@pytest.mark.parametrize(
    ("choices", "arguments"),
    [
        ({}, []),
        (
            {"format": "csv", "source": JudgmentSource.HUMAN, "aggregate": True},
            ["--format", "csv", "--source", "human", "--aggregate"],
        ),
        (
            {"format": "items", "images": ImageMode.PATHS},
            ["--format", "items", "--with-images", "paths"],
        ),
        (
            {"format": "jsonl", "images": ImageMode.EMBED, "pseudonymize": True},
            ["--with-images", "embed", "--pseudonymize"],
        ),
        (
            {"format": "arena", "source": JudgmentSource.JUDGE},
            ["--format", "arena", "--source", "judge"],
        ),
    ],
)
def test_the_dialog_writes_what_the_cli_writes(
    qtbot: QtBot,
    dialog: ExportDialog,
    sample_bundle: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    choices: dict[str, Any],
    arguments: list[str],
) -> None:
    monkeypatch.setenv("VLM_WORKBENCH_PSEUDONYM_KEY", "a key for both exports")
    dialog.set_choice(dialog.format_combo, choices.get("format", "jsonl"))
    dialog.set_choice(dialog.source_combo, choices.get("source", JudgmentSource.ALL))
    dialog.set_choice(dialog.images_combo, choices.get("images", ImageMode.NONE))
    dialog.aggregate_check.setChecked(choices.get("aggregate", False))
    dialog.pseudonymize_check.setChecked(choices.get("pseudonymize", False))
    (tmp_path / "gui").mkdir()
    (tmp_path / "cli").mkdir()
    dialog_export(qtbot, dialog, tmp_path / "gui" / "export.out")
    cli_export(sample_bundle, tmp_path / "cli" / "export.out", arguments)

    gui_files = sorted(p.relative_to(tmp_path / "gui") for p in (tmp_path / "gui").rglob("*"))
    cli_files = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*"))
    assert gui_files == cli_files
    for name in gui_files:
        if (tmp_path / "gui" / name).is_file():
            assert (tmp_path / "gui" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert dialog.summary is not None and dialog.summary.records > 0
    assert f"Wrote {dialog.summary.records:,}" in dialog.status_label.text()
    assert dialog.export_button.isEnabled()


def test_options_a_format_cannot_hold_are_not_offered(dialog: ExportDialog) -> None:
    dialog.set_choice(dialog.images_combo, ImageMode.EMBED)
    dialog.aggregate_check.setChecked(True)
    dialog.set_choice(dialog.format_combo, "csv")
    assert dialog.image_mode() is ImageMode.NONE
    assert dialog.aggregate_check.isEnabled()
    dialog.set_choice(dialog.format_combo, "arena")
    assert not dialog.aggregate_check.isEnabled() and not dialog.aggregate_check.isChecked()
    model = dialog.images_combo.model()
    assert isinstance(model, QStandardItemModel)
    offered = [
        ImageMode(dialog.images_combo.itemData(row))
        for row in range(dialog.images_combo.count())
        if model.item(row).isEnabled()
    ]
    assert offered == [ImageMode.NONE]


def test_a_refused_export_is_shown_and_writes_nothing(
    qtbot: QtBot,
    dialog: ExportDialog,
    tmp_path: Path,
) -> None:
    dialog.campaign_combo.setEditText("no-such-campaign")
    dialog_export(qtbot, dialog, tmp_path)  # a folder, not a file
    assert isinstance(dialog.message_box, QMessageBox)
    assert "is a folder" in dialog.message_box.text()
    assert list(tmp_path.iterdir()) == []
    assert dialog.status_label.text() == "Nothing was exported."


def test_an_unexpected_failure_keeps_its_traceback_one_click_away(
    qtbot: QtBot,
    dialog: ExportDialog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: object, **_steps: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(export_module, "run_export", broken)
    dialog_export(qtbot, dialog, tmp_path / "x.jsonl")
    assert dialog.message_box is not None
    assert "RuntimeError: disk on fire" in dialog.message_box.text()
    assert "Traceback" in dialog.message_box.detailedText()


def test_file_export_opens_the_dialog_on_the_open_bundle(open_window: MainWindow) -> None:
    open_window.tools.export_action.trigger()
    dialog = open_window.tools.export_dialog
    assert dialog is not None and dialog.isVisible()
    assert open_window.bundle is not None
    assert dialog.bundle == open_window.bundle.path
    dialog.close()


def test_the_summary_says_whether_arena_battles_count_derived_judgments(tmp_path: Path) -> None:
    from workbench.export.options import ExportSummary

    left_out = ExportSummary(tmp_path / "b.json", "arena", 3, left_out={"derived_judgments": 2})
    assert "Derived judgments: left out, as the leaderboard counts them" in (
        export_module.describe_summary(left_out)
    )
    included = ExportSummary(tmp_path / "b.json", "arena", 5, included={"derived_judgments": 2})
    assert "Derived judgments: included" in export_module.describe_summary(included)
    items = ExportSummary(tmp_path / "i.jsonl", "items", 5)
    assert "erived" not in export_module.describe_summary(items)
