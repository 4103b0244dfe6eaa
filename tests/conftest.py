"""Fixtures shared by the whole suite.

Tests that read the published benchmark data find it in ../shared/data beside the project
(or in $VLM_WORKBENCH_SHARED_DATA). Where it is absent they skip with the reason, except in CI
(CI=true), where a missing data folder is a failure rather than a silent skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.backends import BACKENDS, BundleBackend, make_backend
from tests.keyrings import memory_keyring, no_keyring

__all__ = ["memory_keyring", "no_keyring"]  # fixtures shared by the judge and GUI tests

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(
    os.environ.get("VLM_WORKBENCH_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data")
)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Keep every test's config, data, cache and logs out of the user's real folders."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("VLM_WORKBENCH_HOME", str(home))
    monkeypatch.setenv("MPLCONFIGDIR", str(home / "mpl"))
    return home


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
    """One bundle holding all of ../shared/data, imported once per test session. Tests must
    treat it as read-only."""
    from workbench.services.importing import import_files

    bundle = tmp_path_factory.mktemp("full") / "all.wbb"
    for folder, format_name in SHARED_IMPORTS:
        import_files(bundle, [shared_data / folder], format_name)
    return bundle


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
