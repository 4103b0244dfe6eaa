"""File > Import…: format from the registry, a worker thread with progress, Cancel, and errors
shown with their details."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.gui.sample_bundle import sample_lines, write_sample_jsonl
from tests.patience import HANG_GUARD_MS, HANG_GUARD_SECONDS
from workbench.domain import ItemRecord, Origin, TurnRecord
from workbench.gui.import_dialog import ImportDialog
from workbench.importers.base import Importer, ImportReport, Record
from workbench.plugins import Plugin, Registry, registry
from workbench.storage import Bundle
from workbench.storage.queries import bundle_counts

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


class SlowImporter(Importer):
    """Yields items until told to stop, so a test can press Cancel while it reads."""

    name = "slow"
    version = "1"
    description = "test importer that waits"

    def __init__(self) -> None:
        self.reading = threading.Event()

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        for number in range(1, 1_000_000):
            self.reading.set()
            yield ItemRecord("slow", str(number), (TurnRecord(1, "q"),), origin=Origin("x", 1))


def item_total(bundle: Path) -> int:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return cast("int", bundle_counts(session)["totals"]["items"])


def test_the_formats_come_from_the_plugin_registry(qtbot: QtBot) -> None:
    dialog = ImportDialog(None)
    qtbot.addWidget(dialog)
    offered = [dialog.ui.formatCombo.itemText(i) for i in range(dialog.ui.formatCombo.count())]
    assert offered == [importer.name for importer in registry().importers()]
    dialog.set_format("jsonl")
    assert dialog.ui.formatDescription.text() == registry().importer("jsonl").description


def test_import_runs_in_the_background_and_reports(qtbot: QtBot, tmp_path: Path) -> None:
    source = write_sample_jsonl(tmp_path / "source")
    target = tmp_path / "new.wbb"
    dialog = ImportDialog(target)
    qtbot.addWidget(dialog)
    dialog.set_format("jsonl")
    dialog.add_sources([source])
    texts: list[str] = []
    with qtbot.waitSignal(dialog.imported, timeout=HANG_GUARD_MS) as landed:
        dialog.start_import()
        assert dialog.running and not dialog.ui.importButton.isEnabled()
        assert dialog.ui.cancelButton.isEnabled()
        job = dialog.job
        assert job is not None
        job.changed.connect(lambda: texts.append(job.text))
    assert landed.args == [target]
    assert not dialog.running and dialog.ui.importButton.isEnabled()
    assert f"{len(sample_lines())} items added" in dialog.ui.statusLabel.text()
    assert any(text.startswith("Writing to the bundle") for text in texts), texts
    assert item_total(target) == len(sample_lines())
    # the import's result has a name of its own: QDialog.result() (the exit code) still works
    assert dialog.import_result is not None and not dialog.import_result.already_imported
    assert dialog.result() == 0


def test_a_rejected_import_shows_the_rows_in_the_details(qtbot: QtBot, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "vlm-workbench/item"}\nnot json\n', encoding="utf-8")
    target = tmp_path / "target.wbb"
    dialog = ImportDialog(target)
    qtbot.addWidget(dialog)
    dialog.set_format("jsonl")
    dialog.add_sources([bad])
    dialog.start_import()
    qtbot.waitUntil(lambda: dialog.message_box is not None, timeout=HANG_GUARD_MS)
    box = dialog.message_box
    assert isinstance(box, QMessageBox)
    assert "rejected" in box.text()
    assert "bad.jsonl, row 1" in box.detailedText() and "bad.jsonl, row 2" in box.detailedText()
    assert "not changed" in dialog.ui.statusLabel.text()
    assert not target.exists()


def test_cancel_stops_the_import_and_changes_nothing(qtbot: QtBot, tmp_path: Path) -> None:
    slow = SlowImporter()
    plugins = Registry()
    plugins.add(Plugin("slow", "1", "test", importers=(slow,)))
    source = tmp_path / "anything.txt"
    source.write_text("x", encoding="utf-8")
    target = tmp_path / "cancelled.wbb"
    dialog = ImportDialog(target, plugins=plugins)
    qtbot.addWidget(dialog)
    dialog.add_sources([source])
    dialog.start_import()
    assert slow.reading.wait(HANG_GUARD_SECONDS)
    dialog.ui.cancelButton.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=HANG_GUARD_MS)
    assert "cancelled" in dialog.ui.statusLabel.text()
    assert not target.exists()


def test_import_menu_reloads_the_open_bundle(
    qtbot: QtBot, open_window: MainWindow, tmp_path: Path
) -> None:
    extra = tmp_path / "extra.jsonl"
    extra.write_text(
        '{"format": "vlm-workbench/item", "format_version": 1, "source": "gamma", "id": "g1",'
        ' "turns": [{"prompt": "A new item"}]}\n',
        encoding="utf-8",
    )
    # import into a copy so the session-wide sample bundle stays as the other tests expect
    from workbench.storage.bundle import copy_bundle

    copy = tmp_path / "copy.wbb"
    assert open_window.bundle is not None
    assert open_window.bundle.path is not None
    copy_bundle(open_window.bundle.path, copy)
    open_window.open_bundle(copy)
    wait_idle(qtbot, open_window)
    dialog = open_window.show_import_dialog()
    assert dialog.ui.targetEdit.text() == str(copy)
    dialog.set_format("jsonl")
    dialog.add_sources([extra])
    with qtbot.waitSignal(dialog.imported, timeout=HANG_GUARD_MS):
        dialog.start_import()
    wait_idle(qtbot, open_window)
    assert open_window.item_list.model.total() == len(sample_lines()) + 1
    assert "gamma" in [
        open_window.item_list.ui.sourceFilter.itemText(i)
        for i in range(open_window.item_list.ui.sourceFilter.count())
    ]
