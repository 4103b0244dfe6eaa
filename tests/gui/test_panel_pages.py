"""The screenshot pages of the analysis panels, rendered from a bundle holding all of
../shared/data (WildVision's GPT-4o judgments, its battles, and the same battles imported as
arena votes)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtWidgets import QApplication

from workbench.cli import main
from workbench.cli.arguments import PAGES as CLI_PAGES

pytestmark = [pytest.mark.gui, pytest.mark.shared_data]


def test_the_cli_offers_every_page_the_app_renders() -> None:
    from workbench.gui.app import PAGES

    assert CLI_PAGES == PAGES


@pytest.mark.parametrize("page", ["leaderboard", "graph", "agreement", "failures"])
def test_each_panel_page_renders_offscreen(
    qapp: QApplication,
    full_bundle: Path,
    tmp_path: Path,
    page: str,
) -> None:
    # in this process (the command as the CLI runs it): the pages share the run's panel
    # workers instead of each starting an app and its workers; the process's own start and exit
    # are tested by tests/gui/test_bundle_shapes.py and tests/gui/test_app.py
    shot = tmp_path / f"{page}.png"
    interval = sys.getswitchinterval()  # the command favours its event loop; later tests not
    try:
        assert main(["open", str(full_bundle), "--screenshot", str(shot), "--page", page]) == 0
    finally:
        sys.setswitchinterval(interval)
    with Image.open(shot) as image:
        assert image.size == (1600, 1000)
