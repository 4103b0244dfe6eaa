"""A plugin published as its own distribution, exactly as docs/plugins.md writes it: the files
are copied from the page's code blocks as they stand, the wheel is built and installed with pip
into a folder of its own, and `workbench plugins` finds the plugin with its importer, protocol
and judge template; its importer then imports into a bundle. A plugin written for another
plugin API version is refused, naming it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.plugins import PLUGIN_API_VERSION

PLUGIN_PAGE = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
#: a file of the example: its path on a line of its own, then its code block
FILE_BLOCK = re.compile(r"^`(workbench-toy-plugin/[^`]+)`[^\n]*:\n\n```\w*\n(.*?)^```", re.M | re.S)


def guide_files() -> dict[str, str]:
    """The example plugin's files as docs/plugins.md shows them: path -> text."""
    return dict(FILE_BLOCK.findall(PLUGIN_PAGE.read_text(encoding="utf-8")))


def _pip(*args: str) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            *args,
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",  # vlm-workbench is the environment's own
            "--no-build-isolation",  # hatchling is a test dependency: no index needed
            "--no-index",
        ],
        check=True,
        timeout=300,
    )


def build_and_install(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` under ``root``, build the wheel and install it into a folder of its own,
    which the commands below put on their path (the test environment stays as it was)."""
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    dist, site = root / "dist", root / "site"
    _pip("wheel", "--wheel-dir", str(dist), str(root / "workbench-toy-plugin"))
    (wheel,) = dist.glob("workbench_toy_plugin-*.whl")
    _pip("install", "--target", str(site), str(wheel))
    return site


def test_the_guide_shows_every_file_of_its_example() -> None:
    assert sorted(guide_files()) == [
        "workbench-toy-plugin/pyproject.toml",
        "workbench-toy-plugin/workbench_toy/__init__.py",
    ]


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_and_install(tmp_path_factory.mktemp("toy-plugin"), guide_files())


def _workbench(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run(
        [sys.executable, "-m", "workbench.cli", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def test_a_plugin_installed_as_its_own_distribution_is_listed(installed_plugin: Path) -> None:
    listed = _workbench(installed_plugin, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    plugins = {plugin["name"]: plugin for plugin in json.loads(listed.stdout)["plugins"]}
    toy = plugins["toy"]
    assert [imp["format"] for imp in toy["importers"]] == ["toy-questions"]
    assert [protocol["name"] for protocol in toy["protocols"]] == ["toy-thumbs"]
    assert [template["name"] for template in toy["judge_templates"]] == ["toy-judge"]
    # the built-in plugins are still there beside it
    assert {"arena", "chirp", "convbench", "visit_bench"} <= set(plugins)

    text = _workbench(installed_plugin, "plugins").stdout
    assert "import format toy-questions" in text
    assert "protocol toy-thumbs" in text
    assert "judge template toy-judge" in text


def test_the_installed_importer_imports_into_a_bundle(
    installed_plugin: Path, tmp_path: Path
) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        textwrap.dedent(
            """\
            {"id": 1, "question": "What colour is the sky?"}
            {"id": 2, "question": "How many legs has a spider?"}
            """
        )
    )
    bundle = tmp_path / "toy.wbb"
    imported = _workbench(
        installed_plugin,
        *("import", str(questions), "--format", "toy-questions", "--into", str(bundle)),
    )
    assert imported.returncode == 0, imported.stderr
    info = json.loads(_workbench(installed_plugin, "info", str(bundle), "--json").stdout)
    assert info["sources"]["toy"]["items"] == 2


def test_without_the_plugin_its_format_is_unknown(tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": 1, "question": "?"}\n')
    result = _workbench(
        tmp_path,
        *("import", str(questions), "--format", "toy-questions"),
        *("--into", str(tmp_path / "b.wbb")),
    )
    assert result.returncode != 0
    assert "unknown import format 'toy-questions'" in result.stderr
    assert not (tmp_path / "b.wbb").exists()


@pytest.mark.parametrize(
    ("declared", "reason"),
    [(None, "declares no api_version"), (PLUGIN_API_VERSION + 98, "was written for plugin API")],
    ids=["undeclared", "newer"],
)
def test_a_plugin_for_another_api_version_is_refused_naming_it(
    declared: int | None, reason: str, tmp_path: Path
) -> None:
    files = guide_files()
    module = "workbench-toy-plugin/workbench_toy/__init__.py"
    line = f"    api_version={PLUGIN_API_VERSION},  # the plugin API this plugin was written for\n"
    assert line in files[module]
    files[module] = files[module].replace(
        line, "" if declared is None else f"    api_version={declared},\n"
    )
    site = build_and_install(tmp_path, files)
    listed = _workbench(site, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    assert "toy" not in {plugin["name"] for plugin in document["plugins"]}
    (failure,) = [f for f in document["failures"] if f["entry_point"] == "workbench_toy:plugin"]
    assert failure["error"].startswith("plugin toy 0.1.0 ") and reason in failure["error"]
    assert f"supports {PLUGIN_API_VERSION}" in failure["error"]
    shown = _workbench(site, "plugins")
    assert (
        shown.returncode == 1 and "failed to load workbench_toy:plugin: plugin toy" in shown.stdout
    )
    # the built-in plugins load as before
    assert {"arena", "chirp", "convbench", "visit_bench"} <= {
        p["name"] for p in document["plugins"]
    }
