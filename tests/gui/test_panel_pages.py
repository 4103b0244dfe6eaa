"""The screenshot pages of the analysis panels, rendered from a bundle holding all of
../shared/data (WildVision's GPT-4o judgments, its battles, and the same battles imported as
arena votes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from workbench.cli.arguments import PAGES as CLI_PAGES

pytestmark = [pytest.mark.gui, pytest.mark.shared_data]


def test_the_cli_offers_every_page_the_app_renders() -> None:
    from workbench.gui.app import PAGES

    assert CLI_PAGES == PAGES


@pytest.mark.parametrize("page", ["leaderboard", "graph", "agreement", "failures"])
def test_each_panel_page_renders_offscreen(full_bundle: Path, tmp_path: Path, page: str) -> None:
    shot = tmp_path / f"{page}.png"
    completed = subprocess.run(
        [
            str(Path(sys.executable).with_name("workbench")),
            "open",
            str(full_bundle),
            "--screenshot",
            str(shot),
            "--page",
            page,
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    with Image.open(shot) as image:
        assert image.size == (1600, 1000)
