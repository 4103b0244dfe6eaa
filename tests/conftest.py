"""Fixtures shared by the whole suite.

Expensive bundles are built once per test run, even under pytest-xdist (scripts/test runs two
workers; tests/shared_builds.py shares one build between them). Reuse them rather than
building your own:

- ``full_bundle``: all of ../shared/data imported (VisIT-Bench, ConvBench, WildVision-Bench and
  its arena battles).
- ``wildvision_bundle``: the WildVision-Bench release imported with the arena plugin
  (``wildvision_import``: the same with the import's report).
- ``demo_bundle_template``: ``workbench demo`` with seed 0.

All three are shared read-only; a module or test that writes takes ``copy_of(bundle, folder)``
(tests/shared_builds.py), a file copy that costs a fraction of a second.

Tests that read the published benchmark data find it in ../shared/data beside the project
(or in $VLM_WORKBENCH_SHARED_DATA). Where it is absent they skip with the reason, except in CI
(CI=true), where a missing data folder is a failure rather than a silent skip.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.backends import BACKENDS, BundleBackend, make_backend
from tests.bundle_template import replaying_the_schema
from tests.keyrings import memory_keyring, no_keyring
from tests.module_order import costliest_files_first
from tests.shared_builds import built_once
from workbench.logging_setup import close_log_file
from workbench.paths import HOME_OVERRIDE

if TYPE_CHECKING:
    from workbench.services.importing import ImportResult

__all__ = ["memory_keyring", "no_keyring"]  # fixtures shared by the judge and GUI tests

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(
    os.environ.get("VLM_WORKBENCH_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data")
)


#: the import report kept beside the shared WildVision-Bench bundle
_IMPORT_RESULT = "import-result.pickle"

#: the variables that move the app's folders (and matplotlib's) out of the user's home
_HOME_VARIABLES = (HOME_OVERRIDE, "MPLCONFIGDIR")
_session_home: dict[str, str | None] = {}


def pytest_configure(config: pytest.Config) -> None:
    """One home for the whole run, set before any fixture or test module runs: session and
    module fixtures (which run before a test's own home is set) and the subprocesses they
    start write there, never into the user's folders."""
    home = tempfile.mkdtemp(prefix="workbench-test-home-")
    _session_home.update({name: os.environ.get(name) for name in _HOME_VARIABLES})
    _session_home["folder"] = home
    os.environ[HOME_OVERRIDE] = home
    os.environ["MPLCONFIGDIR"] = os.path.join(home, "mpl")


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = _session_home.pop("folder", None)
    if folder is None:
        return
    close_log_file()
    for name in _HOME_VARIABLES:
        value = _session_home.pop(name, None)
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the test files costliest first (tests/module_order.py), so that the
    two workers end together instead of one running a costly file alone at the end. Every worker
    collects the same order, which is the one the controller hands out with
    ``--no-loadscope-reorder`` (scripts/test). A run in one process keeps the files' order."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items[:] = costliest_files_first(items)


@pytest.fixture(scope="session", autouse=True)
def new_bundles_replay_the_schema() -> Iterator[None]:
    """A new SQLite bundle made in a test's own process gets the head schema from the SQL dump
    of one the migrations made once per process (tests/bundle_template.py), a seventh of their
    CPU; upgrades, server databases and child processes run the migrations."""
    with replaying_the_schema():
        yield


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Keep every test's config, data, cache and logs out of the user's real folders; the log
    file a CLI command run in-process opened is closed when the test ends. matplotlib's folder
    stays the run's (``pytest_configure``): it holds only the font cache, which every child
    process that draws built again in a folder of its own (about 0.9 CPU s each, 40 a run)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv(HOME_OVERRIDE, str(home))
    yield home
    close_log_file()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "README.md").is_file():
        message = f"the published benchmark data is not at {SHARED_DATA}"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (required in CI)")
        pytest.skip(message)
    return SHARED_DATA


#: (path under shared/data, import format) for everything the project can import from there
SHARED_IMPORTS = (
    ("visit-bench", "visit-bench"),
    ("convbench", "convbench"),
    ("wildvision-bench", "wildvision-bench"),
    ("wildvision-bench/vision_bench_battles.jsonl.gz", "arena-battles"),
)


@pytest.fixture(scope="session")
def full_bundle(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One bundle holding all of ../shared/data, imported once per test run. Tests must
    treat it as read-only."""
    from workbench.services.importing import import_files

    def build(folder: Path) -> Path:
        bundle = folder / "all.wbb"
        for source, format_name in SHARED_IMPORTS:
            import_files(bundle, [shared_data / source], format_name)
        return bundle

    return built_once(tmp_path_factory, "full", build)


@pytest.fixture(scope="session")
def wildvision_import(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, ImportResult]:
    """The WildVision-Bench release imported once per test run with the arena plugin's
    importer, and what that import reported (kept beside the bundle, so the worker that did not
    build it reads the same). Read-only: copy the bundle (``copy_of``) to write."""
    from workbench.plugins import UnknownFormatError, registry
    from workbench.services.importing import ImportResult, import_files

    try:
        registry().importer("wildvision-bench")
    except UnknownFormatError:
        pytest.skip("the wildvision-bench importer (plugin arena) is not installed")

    def build(folder: Path) -> Path:
        bundle = folder / "wildvision.wbb"
        result = import_files(bundle, [shared_data / "wildvision-bench"], "wildvision-bench")
        (folder / _IMPORT_RESULT).write_bytes(pickle.dumps(result))
        return bundle

    bundle = built_once(tmp_path_factory, "wildvision", build)
    result = pickle.loads((bundle.parent / _IMPORT_RESULT).read_bytes())
    assert isinstance(result, ImportResult)
    return bundle, result


@pytest.fixture(scope="session")
def wildvision_bundle(wildvision_import: tuple[Path, ImportResult]) -> Path:
    """The bundle of ``wildvision_import``. Read-only: copy it (``copy_of``) to write."""
    return wildvision_import[0]


@pytest.fixture(scope="session")
def demo_bundle_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo bundle (seed 0, as ``workbench demo`` makes it), generated once per test run.
    Read-only: a module that needs a demo bundle of its own takes ``copy_of`` it."""
    from workbench.demo import generate_demo_bundle

    return built_once(
        tmp_path_factory, "demo", lambda folder: generate_demo_bundle(folder / "demo.wbb", seed=0)
    )


# --- bundles on both backends (tests/backends.py) ----------------------------------------------


@pytest.fixture(scope="module", params=BACKENDS)
def bundle_backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BundleBackend]:
    """SQLite files and, marked ``postgres``, databases on the test server: one backend per
    test module and parameter, so a module can build a template bundle once and copy it."""
    backend = make_backend(request.param, tmp_path_factory.mktemp(f"bundles-{request.param}"))
    yield backend
    backend.close()


@pytest.fixture
def bundle_location(bundle_backend: BundleBackend) -> Iterator[Path | str]:
    """Where a test puts a new bundle: a fresh file path, or a fresh empty database (dropped
    after the test)."""
    location = bundle_backend.new_location()
    yield location
    bundle_backend.discard(location)
