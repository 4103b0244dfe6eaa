"""The suite keeps out of the user's folders: a pytest run whose HOME is a fresh folder (so
that the app's platformdirs folders would be under it) leaves nothing of the app's there, even
from CLI commands run in-process by module fixtures, and closes every log file it opened."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from workbench.paths import APP_NAME, HOME_OVERRIDE

PROJECT_ROOT = Path(__file__).resolve().parents[1]
#: what moves the user's folders; the run gets none of them, only a HOME of its own
_MOVERS: tuple[str, ...] = (
    HOME_OVERRIDE,
    "MPLCONFIGDIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
)
_MOVERS += ("XDG_CACHE_HOME",)


def test_a_test_run_writes_nothing_into_the_users_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_home = tmp_path / "user"
    user_home.mkdir()
    environment = {k: v for k, v in os.environ.items() if k not in _MOVERS}
    environment["HOME"] = str(user_home)
    for name in _MOVERS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(user_home))
    # the folders the app would use for this user are under the fresh HOME, so a leak shows
    for kind in ("log", "config", "data", "cache"):
        folder = getattr(platformdirs, f"user_{kind}_dir")(APP_NAME, appauthor=False)
        assert Path(folder).is_relative_to(user_home), folder

    run = subprocess.run(
        [
            *(
                sys.executable,
                "-m",
                "pytest",
                "tests/home_probe.py",
                "-q",
                "-p",
                "no:cacheprovider",
            ),
            *("-W", "error::ResourceWarning"),
            *("-W", "error::pytest.PytestUnraisableExceptionWarning"),
        ],
        cwd=PROJECT_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "2 passed" in run.stdout
    leaked = [path for path in user_home.rglob("*") if APP_NAME in str(path)]
    assert leaked == []
