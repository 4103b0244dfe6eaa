"""Expensive test bundles built once per test run, however many pytest-xdist workers share it.

``built_once(tmp_path_factory, name, build)`` calls ``build(folder)`` (which writes into the
empty ``folder`` and returns the path of what it built there) at most once per run. Without
xdist that is simply the session's own build. Under xdist every worker's base temporary folder
sits in the controller's (``.../pytest-N/popen-gw0``), so the first worker to claim ``name``
in that common parent builds; the others wait for its end marker, a condition (never a fixed
sleep), with the suite's hang guard as the ceiling, and read the same result. A failed build is
marked too, so the waiting workers fail with its message instead of waiting.

What comes back is shared by every worker: treat it as read-only, and copy it
(``copy_of``) where a test or module writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import pytest

from tests.patience import HANG_GUARD_SECONDS
from workbench.storage.bundle import copy_bundle

DONE = ".built"
FAILED = ".failed"
#: how often a waiting worker looks for the builder's end marker (seconds)
POLL_SECONDS = 0.2


class TempFolders(Protocol):
    """The part of pytest's ``tmp_path_factory`` that a shared build uses."""

    def getbasetemp(self) -> Path: ...

    def mktemp(self, basename: str, /) -> Path: ...


def _shared_root(tmp_path_factory: TempFolders) -> Path | None:
    """The folder every worker of this run sees, or None when not under xdist."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return tmp_path_factory.getbasetemp().parent / "built-once"


def built_once(tmp_path_factory: TempFolders, name: str, build: Callable[[Path], Path]) -> Path:
    """What ``build`` made in a folder of its own, built once for the whole run."""
    root = _shared_root(tmp_path_factory)
    if root is None:
        return build(tmp_path_factory.mktemp(name))
    root.mkdir(exist_ok=True)
    folder = root / name
    try:
        folder.mkdir()  # atomic: exactly one worker claims the build
    except FileExistsError:
        return _wait_for(folder)
    try:
        built = build(folder)
    except BaseException as error:
        (root / f"{name}{FAILED}").write_text(f"{type(error).__name__}: {error}", "utf-8")
        raise
    (folder / DONE).write_text(str(built.relative_to(folder)), encoding="utf-8")
    return built


def _wait_for(folder: Path) -> Path:
    failed = folder.parent / f"{folder.name}{FAILED}"
    deadline = time.monotonic() + 2 * HANG_GUARD_SECONDS  # the build itself may take minutes
    while not (folder / DONE).exists():
        if failed.exists():
            pytest.fail(f"another worker's build of {folder.name} failed: {failed.read_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"no other worker finished building {folder.name} (hang guard)")
        time.sleep(POLL_SECONDS)
    return folder / (folder / DONE).read_text(encoding="utf-8")


def copy_of(bundle: Path, folder: Path) -> Path:
    """A private copy of a shared bundle file (with its WAL sidecars) in ``folder``."""
    target = folder / bundle.name
    copy_bundle(bundle, target)
    return target
