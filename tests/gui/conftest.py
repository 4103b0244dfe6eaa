"""Fixtures of the GUI tests: Qt runs offscreen, and a sample bundle is built once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.gui.sample_bundle import build_sample_bundle

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


@pytest.fixture(scope="session")
def sample_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_bundle(tmp_path_factory.mktemp("sample"))


def wait_idle(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)


@pytest.fixture
def open_window(qtbot: QtBot, sample_bundle: Path) -> Iterator[MainWindow]:
    """A main window showing the sample bundle, its first query answered."""
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(sample_bundle)
    window.show()
    wait_idle(qtbot, window)
    yield window
    window.close()
