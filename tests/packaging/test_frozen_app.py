"""The frozen one-folder app (packaging/build-desktop-app.sh) starts: it generates the demo
bundle, lists its plugins from the frozen entry points, writes the demo's HTML report (its
templates are data files) and renders a screenshot offscreen.

A full PyInstaller build takes a minute or more, so the test runs only when asked for with
VLM_WORKBENCH_TEST_FROZEN=1 and when PyInstaller is installed."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "packaging" / "dist" / "vlm-workbench"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("VLM_WORKBENCH_TEST_FROZEN") != "1",
        reason="builds the frozen app (minutes): set VLM_WORKBENCH_TEST_FROZEN=1 to run it",
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("PyInstaller") is None,
        reason="PyInstaller is not installed (packaging/build-desktop-app.sh installs it)",
    ),
]


@pytest.fixture(scope="module")
def executable() -> Path:
    subprocess.run(
        ["bash", str(ROOT / "packaging" / "build-desktop-app.sh"), sys.executable],
        check=True,
        timeout=1800,
    )
    built = APP / "workbench"
    assert built.is_file()
    return built


def _run(executable: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    environment.pop("MPLCONFIGDIR", None)
    environment.update(QT_QPA_PLATFORM="offscreen", VLM_WORKBENCH_HOME=str(home))
    return subprocess.run(
        [str(executable), *args],
        env=environment,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )


def test_frozen_app_makes_the_demo_and_a_screenshot(executable: Path, tmp_path: Path) -> None:
    listed = json.loads(_run(executable, tmp_path, "plugins", "--json").stdout)["plugins"]
    # the plugins are found through the entry points of the frozen distribution metadata
    assert {"visit_bench", "convbench", "arena", "chirp"} <= {plugin["name"] for plugin in listed}
    bundle = tmp_path / "demo.wbb"
    _run(executable, tmp_path, "demo", "--out", str(bundle))
    assert bundle.is_file()
    # the report's templates are read from the frozen app's data files
    report = tmp_path / "report.html"
    _run(executable, tmp_path, "report", str(bundle), "--out", str(report), "--bootstrap", "5")
    assert "<h2>Leaderboard</h2>" in report.read_text(encoding="utf-8")
    shot = tmp_path / "shot.png"
    _run(executable, tmp_path, "open", str(bundle), "--screenshot", str(shot))
    with Image.open(shot) as image:
        assert image.width > 200 and image.height > 200
        colours = image.convert("RGB").getcolors(maxcolors=1 << 24)
        assert colours is not None and len(colours) > 10  # something was drawn
    # matplotlib's cache and the app's files went to the user folders, not beside the app
    assert (tmp_path / "cache" / "matplotlib").is_dir()
    assert not list(APP.glob("*.wbb"))
