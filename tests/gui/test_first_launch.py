"""The first launch opens the demo it has just generated without backing it up, so no note about
a first backup covers the bundle the app wrote a moment before; a later launch backs up as usual."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

pytestmark = pytest.mark.gui


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    # patched where the command looks them up: it imports them at its top, so patching
    # workbench.gui.app instead worked only when no earlier test in the process had imported
    # the command, and otherwise opened a real window that nothing closed
    import workbench.cli.gui_commands as gui_commands

    calls: list[dict[str, Any]] = []

    def run_app(bundle: Path, **options: Any) -> int:
        calls.append({"bundle": bundle, **options})
        return 0

    monkeypatch.setattr(gui_commands, "run_app", run_app)
    monkeypatch.setattr(gui_commands, "resume_annotation", lambda: None)
    monkeypatch.setattr(gui_commands, "most_recent_location", lambda: None)
    monkeypatch.setattr(
        gui_commands, "generate_demo_bundle", lambda path: Path(path).write_bytes(b"demo")
    )
    return calls


def test_the_demo_written_by_this_launch_is_not_backed_up(launches: list[dict[str, Any]]) -> None:
    from workbench.cli.gui_commands import launch_default
    from workbench.paths import demo_bundle_path

    assert not demo_bundle_path().exists()
    assert launch_default(argparse.Namespace()) == 0
    assert launch_default(argparse.Namespace()) == 0
    first, later = launches
    assert first == {"bundle": demo_bundle_path(), "just_created": True}
    assert later == {"bundle": demo_bundle_path()}


def test_a_window_for_a_just_created_bundle_makes_no_backup(qtbot: QtBot, tmp_path: Path) -> None:
    from tests.importers.canonical_helpers import item_line, write_jsonl
    from workbench.gui.main_window import MainWindow
    from workbench.services.importing import import_files
    from workbench.storage.backups import list_backups

    bundle = tmp_path / "fresh.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "src", [item_line("q1")])], "jsonl")
    window = MainWindow(persist_layout=True, auto_backup=False)
    qtbot.addWidget(window)
    window.open_bundle(bundle)
    qtbot.waitUntil(lambda: window.bundle is not None, timeout=120_000)
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=120_000)
    assert list_backups(bundle) == [] and window.first_backup_note is None
    window.close()
