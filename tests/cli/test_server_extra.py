"""The PostgreSQL driver is the optional ``server`` extra: without it, local bundles work and a
server location fails with one line that says what to install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Runs the CLI in a fresh interpreter in which importing psycopg fails, as on an install
# without the extra (the test environment itself has it).
_WITHOUT_PSYCOPG = """
import importlib.abc, sys

class NoPsycopg(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "psycopg" or name.startswith("psycopg."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, NoPsycopg())
from workbench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _workbench_without_psycopg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_PSYCOPG, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_server_location_without_the_driver_says_what_to_install() -> None:
    result = _workbench_without_psycopg("info", "postgresql://someone@127.0.0.1:9/none")
    assert result.returncode == 1
    assert "pip install 'vlm-workbench[server]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_local_bundles_work_without_the_driver(tmp_path: Path) -> None:
    bundle = tmp_path / "demo.wbb"
    made = _workbench_without_psycopg("demo", "--out", str(bundle))
    assert made.returncode == 0, made.stderr
    info = _workbench_without_psycopg("info", str(bundle), "--json")
    assert info.returncode == 0, info.stderr
