"""The registry names importers without importing them: loading it (as every judge run and
campaign command does) imports no file reader, an importer's module loads when that importer
is asked for, and a manifest that drifted from its class is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.errors import WorkbenchError
from workbench.importers.canonical import CanonicalJsonlImporter
from workbench.plugins import LazyImporter, Plugin, Registry, UnknownFormatError, registry

PROJECT = Path(__file__).resolve().parents[1]
# readers whose modules nothing else in a manifest needs (the Arena table reader brings pyarrow)
IMPORTER_MODULES = (
    "workbench_arena.battles",
    "workbench_arena.wildvision",
    "workbench_arena.arena_hard",
    "workbench.importers.canonical",
    "workbench.importers.tables",
)
HEAVY = ("pyarrow", "numpy", "pandas", "openpyxl")


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (this checkout's plugins
    first on the path, as pytest has them)."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT / "plugins")])}
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        env=environment,
        cwd=PROJECT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_loading_the_registry_imports_no_importer_module() -> None:
    modules = _modules_after(
        "from workbench.plugins import registry\n"
        "r = registry()\n"
        "assert not r.failures, r.failures\n"
        "assert len(r.importer_manifests()) >= 7\n"
        "r.judge_template('visit-bench-pairwise'); r.protocol('arena-battle')"
    )
    loaded = set(IMPORTER_MODULES) & modules
    assert not loaded, f"loading the registry imported {sorted(loaded)}"
    heavy = {name.split(".")[0] for name in modules} & set(HEAVY)
    assert not heavy, f"loading the registry imported {sorted(heavy)}"


def test_asking_for_one_importer_imports_that_importer_alone() -> None:
    modules = _modules_after(
        "from workbench.plugins import registry\n"
        "importer = registry().importer('arena-hard')\n"
        "assert type(importer).__name__ == 'ArenaHardImporter'"
    )
    assert "workbench_arena.arena_hard" in modules
    assert "workbench_arena.battles" not in modules
    assert "pyarrow" not in modules


def test_every_named_importer_loads_as_its_manifest_says() -> None:
    plugins = registry()
    manifests = plugins.importer_manifests()
    assert any(isinstance(named, LazyImporter) for named in manifests)
    for named in manifests:
        loaded = plugins.importer(named.name)
        assert (loaded.name, loaded.version, loaded.description) == (
            named.name,
            named.version,
            named.description,
        )
        assert plugins.importer(named.name) is loaded  # made once
    assert [importer.name for importer in plugins.importers()] == [m.name for m in manifests]


def test_a_manifest_that_drifted_from_its_class_is_refused() -> None:
    target = "workbench.importers.canonical:CanonicalJsonlImporter"
    drifted = LazyImporter("jsonl", "0", CanonicalJsonlImporter.description, target)
    plugins = Registry()
    plugins.add(Plugin(name="drift", version="1", description="", importers=(drifted,)))
    with pytest.raises(WorkbenchError, match="v0"):
        plugins.importer("jsonl")


def test_a_named_importer_that_is_no_importer_is_refused() -> None:
    named = LazyImporter("path", "1", "", "pathlib:PurePosixPath")
    with pytest.raises(TypeError, match="not an Importer"):
        named.load()


def test_unknown_format_still_lists_the_named_ones() -> None:
    with pytest.raises(UnknownFormatError, match="arena-battles"):
        registry().importer("no-such-format")


def test_a_name_clash_with_a_named_importer_is_refused() -> None:
    plugins = Registry()
    target = "workbench.importers.canonical:CanonicalJsonlImporter"
    plugins.add(Plugin("one", "1", "", importers=(LazyImporter("jsonl", "1", "x", target),)))
    with pytest.raises(WorkbenchError, match="already taken: jsonl"):
        plugins.add(Plugin("two", "1", "", importers=(CanonicalJsonlImporter(),)))
    assert [plugin.name for plugin in plugins.plugins] == ["one"]
