"""scripts/venv.sh installs only when .venv is missing, pyproject.toml changed or new extras are
asked for, and builds without build isolation from a backend installed into .venv.

The script runs on a copy of itself in a scratch project whose .venv/bin/python records pip
calls instead of installing, and runs Python for everything else."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "venv.sh"

FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "$*" >> "{log}"; exit 0; fi
exec "{python}" "$@"
"""

BACKEND = """def get_requires_for_build_editable(config_settings=None):
    return ["editable-helper"]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPT, tmp_path / "scripts" / "venv.sh")
    # named as this project, so the installed project's metadata answers for its extras
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "vlm-workbench"\n'
        '[build-system]\nrequires = ["backend-package>=1"]\nbuild-backend = "fake_backend"\n'
    )
    (tmp_path / "fake_backend.py").write_text(BACKEND)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON.format(log=tmp_path / "pip.log", python=sys.executable))
    python.chmod(0o755)
    return tmp_path


def _run(project: Path, *args: str) -> tuple[int, list[str]]:
    """Run the script; return its exit status and the pip calls it made."""
    log = project / "pip.log"
    log.unlink(missing_ok=True)
    done = subprocess.run(
        ["bash", str(project / "scripts" / "venv.sh"), *args],
        env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr
    calls = log.read_text().splitlines() if log.exists() else []
    return done.returncode, calls


def test_installs_once_then_only_when_pyproject_or_extras_change(project: Path) -> None:
    code, calls = _run(project, "test")
    assert code == 0
    assert any(call.endswith("backend-package>=1") for call in calls)
    assert any(call.endswith("editable-helper") for call in calls)
    assert calls[-1].endswith(f"--no-build-isolation -e {project}[test]")
    assert not any("--upgrade pip" in call for call in calls)  # an existing venv keeps its pip

    assert _run(project, "test") == (0, [])  # nothing changed: no pip, no network
    assert _run(project) == (0, [])  # no extras asked: those installed are enough
    assert _run(project, "--check", "test")[0] == 0

    assert _run(project, "--check", "docs")[0] == 1  # an extra the project does not declare
    code, calls = _run(project, "docs")
    assert code == 0 and calls[-1].endswith(f"-e {project}[docs]")
    assert _run(project, "test") == (0, [])  # both extras are now recorded

    with (project / "pyproject.toml").open("a") as handle:
        handle.write("# a changed dependency\n")
    assert _run(project, "--check")[0] == 1
    code, calls = _run(project)
    assert code == 0 and calls[-1].endswith(f"--no-build-isolation -e {project}")


def test_extras_another_extra_brought_in_need_no_install(project: Path) -> None:
    """[test] includes [server]: after an install with [test], asking for [server] (as
    scripts/start does) finds its requirements installed and installs nothing."""
    from importlib.metadata import distribution

    requires = distribution("vlm-workbench").requires or []
    if not any("server" in text and "extra" in text for text in requires):
        pytest.skip("the installed project has no [server] extra")
    assert _run(project, "test")[0] == 0
    assert _run(project, "server") == (0, [])


def test_the_installed_modules_are_compiled_on_every_core_without_their_tests(
    project: Path,
) -> None:
    site = project / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "package" / "tests").mkdir(parents=True)
    (site / "package" / "module.py").write_text("VALUE = 1\n")
    (site / "package" / "tests" / "test_module.py").write_text("def test(): pass\n")
    code, calls = _run(project, "test")
    assert code == 0
    assert "--no-compile" in calls[-1]  # pip's own compile is one core for every file
    assert list((site / "package" / "__pycache__").glob("module.*.pyc"))
    assert not (site / "package" / "tests" / "__pycache__").exists()
