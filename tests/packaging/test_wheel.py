"""The wheel holds what an installed app needs: the workbench package, the built-in plugins,
resources/ as workbench/_resources, the Alembic migrations as .py files, both scripts and the
plugin entry points."""

from __future__ import annotations

import configparser
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ("workbench_visit_bench", "workbench_convbench", "workbench_arena", "workbench_chirp")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("hatchling", reason="building the wheel needs hatchling")
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (found,) = out.glob("vlm_workbench-*.whl")
    return found


def test_wheel_contains_plugins_resources_and_migrations(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for plugin in PLUGINS:
        assert f"{plugin}/__init__.py" in names, plugin
    for source in (ROOT / "resources").rglob("*"):
        if source.is_file():
            assert f"workbench/_resources/{source.relative_to(ROOT / 'resources')}" in names
    migrations = ROOT / "workbench" / "storage" / "migrations"
    for source in migrations.rglob("*.py"):
        assert f"workbench/storage/migrations/{source.relative_to(migrations)}" in names
    assert "workbench/export/__init__.py" in names
    assert "workbench/judge/prices.toml" in names  # the judge's dated price list
    templates = ROOT / "workbench" / "services" / "report_templates"
    for source in templates.rglob("*"):
        if source.is_file():  # the report's Jinja2 templates
            assert f"workbench/services/report_templates/{source.relative_to(templates)}" in names
    assert not any(name.startswith(("tests/", "bench/")) for name in names)


def test_wheel_declares_scripts_and_plugin_entry_points(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    (entry_file,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
    entry_points = configparser.ConfigParser()
    entry_points.read_string(archive.read(entry_file).decode("utf-8"))
    assert entry_points["console_scripts"]["workbench"] == "workbench.cli:console_main"
    assert entry_points["gui_scripts"]["workbench-gui"] == "workbench.cli:gui_main"
    assert set(entry_points["workbench.plugins"]) == {
        "core",
        "visit_bench",
        "convbench",
        "arena",
        "chirp",
    }
