"""The New campaign dialog covers ``workbench campaign create``: one form row per option of the
command, and a live preview of the schedule drawn by the service the command's ``--dry-run``
uses (the same figures), following the options as they change; Create stores what the preview
showed (guidelines, attention checks, assigned annotators), and the dialog fits 1024x700."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QDialogButtonBox, QListWidget, QWidget
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from tests.services.campaign_helpers import MODELS
from tests.services.campaign_ops_bundle import PLUGINS, build_ops_bundle
from workbench.cli import build_parser, main
from workbench.gui.annotation.new_campaign_dialog import OPTIONS, NewCampaignDialog
from workbench.gui.screen_fit import SCREEN_SHARE
from workbench.services.campaign_errors import CampaignError
from workbench.services.campaigns import campaign_details, campaign_guidelines
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

pytestmark = pytest.mark.gui

#: options of ``campaign create`` that are not form rows: the bundle is the open one, the
#: preview is the dry run, and the dialog prints nothing
NOT_ROWS = {"bundle", "--json", "--dry-run", "--help"}


def create_options() -> set[str]:
    parser = build_parser()
    subparsers = parser._subparsers
    assert subparsers is not None
    commands = subparsers._group_actions[0].choices
    assert isinstance(commands, dict)
    campaign = commands["campaign"]
    actions = next(a for a in campaign._actions if isinstance(a, argparse._SubParsersAction))
    create = actions.choices["create"]
    names = {max(action.option_strings, key=len, default=action.dest) for action in create._actions}
    return names - NOT_ROWS


def test_every_option_of_the_command_is_one_row() -> None:
    flags = [option.flag for option in OPTIONS]
    assert len(flags) == len(set(flags))
    assert set(flags) == create_options()


@pytest.fixture
def ops_bundle(tmp_path: Path) -> Path:
    path, _ = build_ops_bundle(tmp_path)
    return path


def settle(qtbot: QtBot, dialog: NewCampaignDialog) -> None:
    """Wait for the preview of the options as they are now."""
    shown = dialog.previews_shown
    dialog.preview_now()
    qtbot.waitUntil(lambda: dialog.previews_shown > shown, timeout=HANG_GUARD_MS)
    assert not dialog.previewing


def inside(widget: QWidget, dialog: QWidget) -> bool:
    top_left = widget.mapTo(dialog, widget.rect().topLeft())
    return widget.isVisible() and dialog.rect().contains(QRect(top_left, widget.size()))


def tick(listing: QListWidget, names: set[str]) -> None:
    for row in range(listing.count()):
        entry = listing.item(row)
        entry.setCheckState(
            Qt.CheckState.Checked if entry.text() in names else Qt.CheckState.Unchecked
        )


def test_the_preview_is_the_dry_run_and_create_stores_it(
    qtbot: QtBot, ops_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps({"item": "q002", "answer": "b", "first": MODELS[0], "second": MODELS[1]}) + "\n",
        encoding="utf-8",
    )
    guidelines = tmp_path / "guidelines.md"
    guidelines.write_text("# Count the objects\n\nPrefer the exact count.\n", encoding="utf-8")
    with Bundle.open(ops_bundle) as bundle:
        dialog = NewCampaignDialog(bundle, ["tests"], list(MODELS[:2]), PLUGINS)
        qtbot.addWidget(dialog)
        dialog.resize(int(1024 * SCREEN_SHARE), int(700 * SCREEN_SHARE))
        dialog.show()
        dialog.name_field.setText("round-2")
        dialog.protocol_box.setCurrentIndex(dialog.protocol_box.findData("arena-battle"))
        dialog.seed_spin.setValue(5)
        settle(qtbot, dialog)
        assert dialog.previewed is not None and dialog.previewed.dry_run
        assert "6 tasks on 6 items, 1 vote(s) each" in dialog.preview.text()
        assert "3 annotator(s) in the bundle" in dialog.preview.text()
        assert "ann-c: 2 task(s)" in dialog.preview.text()
        # the preview follows the options: three votes, two annotators, one attention check
        dialog.votes_spin.setValue(3)
        tick(dialog.annotator_list, {"ann-a", "ann-b"})
        dialog.gold_field.field.setText(str(gold))
        dialog.guidelines_field.field.setText(str(guidelines))
        settle(qtbot, dialog)
        text = dialog.preview.text()
        assert "Attention checks: 1" in text
        assert "2 annotator(s) assigned" in text and "ann-a: 7 task(s)" in text
        assert "3 votes per task need at least 3 annotators" in text
        previewed = dialog.previewed
        # the same figures as the command's dry run
        command = ["campaign", "create", str(ops_bundle), "--name", "round-2"]
        command += ["--protocol", "arena-battle", "--seed", "5", "--votes-per-pair", "3"]
        command += ["--annotators", "ann-a,ann-b", "--gold", str(gold), "--dry-run", "--json"]
        assert main(command) == 0
        assert json.loads(capsys.readouterr().out) == previewed.as_dict()
        # a bad file: the preview says why, Create refuses, nothing is stored
        dialog.gold_field.field.setText(str(tmp_path / "missing.jsonl"))
        settle(qtbot, dialog)
        assert dialog.previewed is None and "No schedule: " in dialog.preview.text()
        dialog.accept()
        assert "missing.jsonl" in dialog.message.text() and dialog.job is None
        dialog.gold_field.field.setText(str(gold))
        # every control is on screen at 1024x700
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert inside(ok, dialog) and inside(dialog.preview, dialog)
        dialog.accept()
        qtbot.waitUntil(lambda: not dialog.creating, timeout=HANG_GUARD_MS)
        assert dialog.summary is not None and not dialog.summary.dry_run
        assert dialog.summary.schedule_sha256 == previewed.schedule_sha256
        assert dialog.summary.tasks == previewed.tasks
        details = campaign_details(bundle, "round-2")
        assert details["votes_per_pair"] == 3
        assert campaign_guidelines(bundle, "round-2") == guidelines.read_text(encoding="utf-8")
        AnnotationSession(bundle, "round-2", "ann-a", PLUGINS)
        with pytest.raises(CampaignError, match="not assigned to campaign 'round-2'"):
            AnnotationSession(bundle, "round-2", "ann-c", PLUGINS)


def test_adaptive_pairing_is_a_choice_of_the_form_stated_in_the_preview(
    qtbot: QtBot, ops_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Bundle.open(ops_bundle) as bundle:
        dialog = NewCampaignDialog(bundle, ["tests"], list(MODELS[:2]), PLUGINS)
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.name_field.setText("adaptive-round")
        dialog.protocol_box.setCurrentIndex(dialog.protocol_box.findData("arena-battle"))
        dialog.pairing_box.setCurrentIndex(dialog.pairing_box.findText("adaptive"))
        dialog.seed_spin.setValue(5)
        settle(qtbot, dialog)
        assert dialog.spec().pair_choice == "adaptive"
        assert "adaptive pairing over all pairs" in dialog.preview.text()
        previewed = dialog.previewed
        assert previewed is not None and previewed.pair_choice == "adaptive"
        command = ["campaign", "create", str(ops_bundle), "--name", "adaptive-round"]
        command += ["--protocol", "arena-battle", "--pairing", "adaptive", "--seed", "5"]
        command += ["--dry-run", "--json"]
        assert main(command) == 0
        assert json.loads(capsys.readouterr().out) == previewed.as_dict()
        # back to uniform: the default entry
        dialog.pairing_box.setCurrentIndex(0)
        assert dialog.spec().pair_choice == "uniform" and dialog.spec().pairing is None


def test_the_dialog_opens_with_the_name_to_type(qtbot: QtBot, ops_bundle: Path) -> None:
    """Seen in a real window: a name typed as the dialog opened went nowhere."""
    from PySide6.QtWidgets import QApplication

    with Bundle.open(ops_bundle) as bundle:
        dialog = NewCampaignDialog(bundle, ["tests"], list(MODELS[:2]), PLUGINS)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()
        qtbot.waitUntil(dialog.isActiveWindow)
        qtbot.keyClicks(QApplication.focusWidget(), "walk-1")
        assert dialog.name_field.text() == "walk-1"
        settle(qtbot, dialog)
        dialog.close()
