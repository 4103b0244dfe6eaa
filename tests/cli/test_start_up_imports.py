"""A fast start: ``workbench --help`` loads the command registry and nothing of a command,
``workbench --version`` and ``workbench info`` load none of the statistics, plotting, graph or
judge stacks, a command loads its own module and no other command's, and ``workbench open``
paints its first items before loading matplotlib, networkx or openai (they load when a panel is
first shown, or on a worker after the first paint). Each command runs in a fresh interpreter, as
a user starts it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_builds import copy_of
from workbench.cli.registry import COMMANDS, Command

HEAVY_FOR_COMMANDS = ("openai", "matplotlib", "scipy", "networkx")
#: what building the parser must not load: every library a command's module brings
HEAVY_FOR_HELP = (
    *HEAVY_FOR_COMMANDS,
    "pandas",
    "numpy",
    "pyarrow",
    "sqlalchemy",
    "alembic",
    "PIL",
    "PySide6",
    "keyring",
)
#: the modules of workbench.cli every command loads: the entry, the registry and the argument
#: builders (the rest of workbench.cli are command modules, loaded only by their command)
LEAN_CLI_MODULES = {
    "workbench.cli",
    "workbench.cli._startup",
    "workbench.cli.arguments",
    "workbench.cli.display",
    "workbench.cli.registry",
}
HEAVY_BEFORE_FIRST_PAINT = ("openai", "matplotlib", "networkx")
# the interactive open (the path users and bench/first_paint.py time) also defers these
DEFERRED_BY_INTERACTIVE_OPEN = ("pandas", "scipy", "alembic")


@pytest.fixture(scope="module")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory, demo_bundle_template: Path) -> Path:
    return copy_of(demo_bundle_template, tmp_path_factory.mktemp("demo"))


def _imported_modules(*args: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules ``python -X importtime -m workbench.cli ARGS`` imported (its stderr)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "workbench.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            modules.add(line.rsplit("|", 1)[1].strip())
    assert "workbench.cli" in modules  # -X importtime did report
    return modules


def _modules_at_exit(*args: str) -> set[str]:
    """Every module in ``sys.modules`` when ``workbench ARGS`` ends, in a fresh interpreter
    (-X importtime leaves out a module imported through importlib, as the registry imports a
    command's module)."""
    code = (
        "import json, sys\n"
        "from workbench.cli import main\n"
        "try:\n"
        "    code = main(sys.argv[1:])\n"
        "except SystemExit as done:\n"
        "    code = done.code\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stderr.splitlines()[-1]))


def _top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def _command_modules(modules: set[str]) -> set[str]:
    return {name for name in modules if name.startswith("workbench.cli.")} - LEAN_CLI_MODULES


def test_help_loads_the_registry_and_no_command() -> None:
    """The parser of every command is built from the registry alone: no command module, no
    service, storage or GUI module, none of the libraries they use."""
    modules = _modules_at_exit("--help")
    assert not _top_level(modules) & set(HEAVY_FOR_HELP), sorted(
        _top_level(modules) & set(HEAVY_FOR_HELP)
    )
    assert not _command_modules(modules), sorted(_command_modules(modules))
    ours = {name for name in modules if name.startswith("workbench.")}
    below = {name for name in ours if name.split(".")[1] in ("storage", "gui", "judge", "demo")}
    assert not below, f"workbench --help imported {sorted(below)}"


def _registered() -> list[Command]:
    return [
        command
        for entry in COMMANDS
        for command in ((entry,) if isinstance(entry, Command) else entry.actions)
    ]


def test_every_registered_command_names_a_function_of_a_command_module() -> None:
    """Read from the modules' source, not imported (the GUI commands' module imports Qt)."""
    import ast
    import importlib.util

    for command in _registered():
        module, _, function = command.runs.partition(":")
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None, command.runs
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert function in defined, f"{command.name}: {command.runs} names no function"
        assert module not in LEAN_CLI_MODULES, (
            f"{command.name} runs in a module every command loads"
        )


def test_version_loads_no_heavy_stack() -> None:
    loaded = _top_level(_imported_modules("--version")) & set(HEAVY_FOR_COMMANDS)
    assert not loaded, f"workbench --version imported {sorted(loaded)}"


def test_info_loads_no_heavy_stack_and_no_other_command(demo_bundle: Path) -> None:
    modules = _modules_at_exit("info", str(demo_bundle))
    loaded = _top_level(modules) & set(HEAVY_FOR_COMMANDS)
    assert not loaded, f"workbench info imported {sorted(loaded)}"
    assert _command_modules(modules) == {"workbench.cli.bundle_commands"}


#: the screenshot's window exits once its first items are painted (the report is written then):
#: what it loaded before that paint is asked, not the panels it would compute before its picture
#: (on the analysis page, the demo bundle's boards and their worker processes, about 10 CPU s)
_PAINT_AND_EXIT = {"QT_QPA_PLATFORM": "offscreen", "WORKBENCH_FIRST_PAINT_EXIT": "1"}


@pytest.mark.gui
def test_open_paints_items_before_loading_plots_graphs_and_judge(
    demo_bundle: Path, tmp_path: Path
) -> None:
    report = tmp_path / "first-paint.json"
    modules = _imported_modules(
        "open",
        str(demo_bundle),
        "--screenshot",
        str(tmp_path / "items.png"),
        "--page",
        "items",
        env=_PAINT_AND_EXIT | {"WORKBENCH_FIRST_PAINT_REPORT": str(report)},
    )
    assert "PySide6" in _top_level(modules)
    before_paint = _top_level(set(json.loads(report.read_text(encoding="utf-8"))["modules"]))
    assert "workbench.gui.main_window" in json.loads(report.read_text())["modules"]
    loaded = before_paint & set(HEAVY_BEFORE_FIRST_PAINT)
    assert not loaded, f"imported before the first item was painted: {sorted(loaded)}"


@pytest.mark.gui
def test_first_paint_report_sees_a_module_loaded_before_the_paint(
    demo_bundle: Path, tmp_path: Path
) -> None:
    """The report can fail: with the analysis page the leaderboard panel (and matplotlib) is
    built before the window first paints."""
    report = tmp_path / "first-paint.json"
    _imported_modules(
        "open",
        str(demo_bundle),
        "--screenshot",
        str(tmp_path / "analysis.png"),
        "--page",
        "analysis",
        env=_PAINT_AND_EXIT | {"WORKBENCH_FIRST_PAINT_REPORT": str(report)},
    )
    before_paint = _top_level(set(json.loads(report.read_text(encoding="utf-8"))["modules"]))
    assert "matplotlib" in before_paint


@pytest.mark.gui
def test_interactive_open_prepares_the_judge_only_after_the_first_paint(
    demo_bundle: Path, tmp_path: Path
) -> None:
    """Without --screenshot the app prepares the judge's runtime (openai) in a thread; it
    starts once the first items are painted, not with the window. Neither the statistics stack
    (the disagreement flag, the export dialog) nor Alembic (the bundle is at the current
    schema) loads before that paint either."""
    report = tmp_path / "first-paint.json"
    environment = {
        "QT_QPA_PLATFORM": "offscreen",
        "WORKBENCH_FIRST_PAINT_REPORT": str(report),
        "WORKBENCH_FIRST_PAINT_EXIT": "1",  # the app exits at the paint, as bench/first_paint.py
    }
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        environment[variable] = str(tmp_path / variable.lower())  # the user's recents untouched
    _imported_modules("open", str(demo_bundle), env=environment)
    before_paint = _top_level(set(json.loads(report.read_text(encoding="utf-8"))["modules"]))
    loaded = before_paint & {*HEAVY_BEFORE_FIRST_PAINT, *DEFERRED_BY_INTERACTIVE_OPEN}
    assert not loaded, f"imported before the first item was painted: {sorted(loaded)}"


@pytest.mark.gui
def test_the_annotator_window_loads_no_statistics_plotting_or_judge_stack(
    tmp_path: Path, demo_bundle_template: Path
) -> None:
    """`workbench annotate` shows its window without the judge client, matplotlib or
    the statistics stack (pandas, scipy); plugin manifests name their score functions without
    importing them."""
    from workbench.cli import main

    bundle_path = copy_of(demo_bundle_template, tmp_path)
    campaign = ["campaign", "create", str(bundle_path), "--name", "pilot"]
    campaign += ["--protocol", "arena-battle", "--models", "all", "--items", "all", "--seed", "7"]
    assert main(campaign) == 0
    assert main(["annotator", "add", str(bundle_path), "ana"]) == 0
    modules = _imported_modules(
        "annotate",
        str(bundle_path),
        *("--campaign", "pilot", "--annotator", "ana"),
        *("--screenshot", str(tmp_path / "annotate.png")),
        env={"QT_QPA_PLATFORM": "offscreen"},
    )
    assert "workbench.gui.annotation.annotator_window" in modules
    loaded = _top_level(modules) & {"openai", "matplotlib", "pandas", "scipy", "networkx"}
    assert not loaded, f"workbench annotate imported {sorted(loaded)}"


# the judge needs neither file readers (the Arena table reader's pyarrow) nor numerics
NOT_FOR_THE_JUDGE_RUN = ("pyarrow", "numpy", "pandas", "scipy", "matplotlib", "networkx")


def test_a_judge_run_loads_no_file_reader_or_numerics_stack(tmp_path: Path) -> None:
    """A whole `workbench judge` process (against a local fake endpoint) loads the
    registry of plugins, whose importers are named, not imported: no pyarrow or numpy."""
    from tests.judge.fake_openai_server import FakeOpenAIServer
    from tests.judge.helpers import build_bundle

    bundle = build_bundle(tmp_path, 2)
    plugins = Path(__file__).resolve().parents[2] / "plugins"  # this checkout's, not installed
    with FakeOpenAIServer() as server:
        modules = _imported_modules(
            "judge",
            str(bundle),
            *("--base-url", server.base_url, "--model", "judge-model"),
            *("--template", "visit-bench-pairwise", "--price", "0,0", "--yes", "--json"),
            *("--api-key-env", "WORKBENCH_TEST_JUDGE_KEY"),
            env={
                "WORKBENCH_TEST_JUDGE_KEY": "test-key-not-secret",
                "PYTHONPATH": str(plugins),
                "VLM_WORKBENCH_HOME": str(tmp_path / "home"),
            },
        )
        assert server.stats.answered > 0
    assert "workbench.services.judging.runner" in modules
    loaded = _top_level(modules) & set(NOT_FOR_THE_JUDGE_RUN)
    assert not loaded, f"workbench judge imported {sorted(loaded)}"
    assert "workbench_arena.battles" not in modules


def test_the_argument_builders_repeat_the_services_values() -> None:
    """The constants workbench/cli/arguments.py repeats by value, so that building the parser
    loads neither the scheduler nor the statistics, are the services' own."""
    from workbench.cli.arguments import AGREEMENT_CONVENTION_NAMES, PAIRINGS
    from workbench.services.scheduling import Pairing
    from workbench.stats.agreement import AGREEMENT_CONVENTIONS

    assert tuple(pairing.value for pairing in Pairing) == PAIRINGS
    assert tuple(AGREEMENT_CONVENTIONS) == AGREEMENT_CONVENTION_NAMES
