"""A plugin published as its own distribution: built from a temporary folder, installed with
pip, and found by `workbench plugins` with its importer, protocol and judge template; its
importer then imports into a bundle. This is the path docs/plugins.md tells plugin authors to
take, so the test follows it word for word (pyproject, entry point, Plugin manifest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "workbench-toy-plugin"
version = "0.1.0"
dependencies = ["vlm-workbench"]

[project.entry-points."workbench.plugins"]
toy = "workbench_toy:plugin"

[tool.hatch.build.targets.wheel]
packages = ["workbench_toy"]
"""

PLUGIN = '''\
"""A toy benchmark: one question per line of a JSONL file, answered by thumbs up or down."""

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from workbench.domain import ItemRecord, Origin, TurnRecord
from workbench.domain.protocols import AnnotationProtocol, Choice, Display
from workbench.importers.base import Importer, ImportReport, Record
from workbench.judge.parsing import SentenceParser
from workbench.judge.templates import JudgeMode, JudgeTemplate
from workbench.plugins import Plugin


class ToyQuestions(Importer):
    name = "toy-questions"
    version = "1"
    description = "toy questions, one JSON object with id and question per line"

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        for path in self.files(sources):
            for row, line in enumerate(path.read_text().splitlines(), start=1):
                record = json.loads(line)
                if "question" not in record:
                    report.reject(Origin(path.name, row), "question", "missing")
                    continue
                yield ItemRecord(
                    source="toy",
                    external_id=str(record["id"]),
                    turns=(TurnRecord(index=1, prompt=record["question"]),),
                    origin=Origin(path.name, row),
                )


THUMBS = AnnotationProtocol(
    name="toy-thumbs",
    title="Thumbs up or down",
    description="Is the answer acceptable?",
    display=Display.SINGLE,
    choices=(Choice("up", "Thumbs up", "U"), Choice("down", "Thumbs down", "D")),
)

TOY_JUDGE = JudgeTemplate(
    name="toy-judge",
    version="1",
    title="Toy pairwise judge",
    description="asks which answer is better",
    system="Compare two answers. End with: Winner: A or Winner: B.",
    user="{instruction}\\n\\nA: {response_a}\\n\\nB: {response_b}",
    parse=SentenceParser(
        name="toy-winner",
        description="the last 'Winner: X'",
        pattern=r"Winner:\\s*(?P<choice>[AB])",
    ),
    mode=JudgeMode.PAIR,
)

plugin = Plugin(
    name="toy",
    version="0.1.0",
    description="a toy benchmark published as its own distribution",
    importers=(ToyQuestions(),),
    protocols=(THUMBS,),
    judge_templates=(TOY_JUDGE,),
)
'''


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy plugin installed by pip into a folder that is put on the path of the commands
    run below, so the test environment itself is left as it was."""
    root = tmp_path_factory.mktemp("toy-plugin")
    project = root / "project"
    (project / "workbench_toy").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "workbench_toy" / "__init__.py").write_text(PLUGIN)
    site = root / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",  # vlm-workbench is the environment's own
            "--no-build-isolation",  # hatchling is a test dependency: no index needed
            "--no-index",
            "--target",
            str(site),
            str(project),
        ],
        check=True,
        timeout=300,
    )
    return site


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
