"""Tools > Run LLM judge… starts from what was used with the endpoint shown (its model, the
price the user gave for it, the requests at once), switches when another endpoint is typed, and
keeps a started run's choices in the one settings file, never the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.judge.helpers import FAKE_KEY, build_bundle
from workbench.gui.judge_dialog import JudgeDialog
from workbench.judge.cost import Price
from workbench.judge.last_used import remember_endpoint, remembered
from workbench.storage.app_settings import settings_path

pytestmark = pytest.mark.gui

FIRST, SECOND = "http://127.0.0.1:9001/v1", "http://127.0.0.1:9002/v1"


def test_the_dialog_prefills_and_remembers_per_endpoint(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    remember_endpoint(FIRST, "gpt-4o-mini", Price(1, 2), 3)
    remember_endpoint(SECOND, "local-judge", None, 12)
    dialog = JudgeDialog(build_bundle(tmp_path, 2, models=("m-a", "m-b")))
    qtbot.addWidget(dialog)
    # the endpoint used last, with its own model and concurrency
    assert dialog.base_url_edit.text() == SECOND
    assert dialog.model_combo.currentText() == "local-judge"
    assert (dialog.price_edit.text(), dialog.concurrency_spin.value()) == ("", 12)

    dialog.base_url_edit.setText(FIRST)
    dialog.base_url_edit.editingFinished.emit()
    assert dialog.model_combo.currentText() == "gpt-4o-mini"
    assert (dialog.price_edit.text(), dialog.concurrency_spin.value()) == ("1,2", 3)
    origin = dialog.prices().origin_for("gpt-4o-mini")
    assert origin is not None and origin.by_user

    # a remembered price belongs to its model
    dialog.model_combo.setCurrentText("gpt-4o")
    assert dialog.price_edit.text() == ""

    # what a started run keeps
    dialog.price_edit.setText("4,8")
    dialog.concurrency_spin.setValue(6)
    dialog._remember_endpoint(dialog.settings())  # what Start does once the run is launched
    memory = remembered(FIRST)
    assert (memory.model, memory.price, memory.concurrency) == ("gpt-4o", Price(4, 8), 6)
    assert remembered(SECOND).concurrency == 12
    assert FAKE_KEY not in settings_path().read_text(encoding="utf-8")
