"""tests/shared_builds.py: an expensive bundle is built by one pytest-xdist worker and read by
the others; without xdist each session builds its own; a failed build fails the waiting
workers instead of leaving them waiting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.shared_builds import FAILED, built_once, copy_of


class WorkerTemp:
    """The part of pytest's TempPathFactory built_once uses, as one xdist worker sees it: its
    base folder ``<run>/popen-<worker>`` inside the run's folder."""

    def __init__(self, run: Path, worker: str) -> None:
        self.base = run / f"popen-{worker}"
        self.base.mkdir(parents=True, exist_ok=True)

    def getbasetemp(self) -> Path:
        return self.base

    def mktemp(self, name: str) -> Path:
        folder = self.base / name
        folder.mkdir()
        return folder


def counting_build(calls: list[str]) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        calls.append(folder.name)
        bundle = folder / "made.wbb"
        bundle.write_text("built", encoding="utf-8")
        return bundle

    return build


def test_the_second_worker_reads_the_first_workers_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    first = built_once(WorkerTemp(tmp_path, "gw0"), "demo", counting_build(calls))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    second = built_once(WorkerTemp(tmp_path, "gw1"), "demo", counting_build(calls))
    assert calls == ["demo"]
    assert second == first and second.read_text(encoding="utf-8") == "built"


def test_without_xdist_each_session_builds_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    built = built_once(WorkerTemp(tmp_path, "main"), "demo", counting_build(calls))
    assert calls == ["demo"] and built.parent.parent == tmp_path / "popen-main"


def test_a_failed_build_fails_the_waiting_worker_with_its_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(folder: Path) -> Path:
        raise ValueError("no shared data")

    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    with pytest.raises(ValueError, match="no shared data"):
        built_once(WorkerTemp(tmp_path, "gw0"), "full", broken)
    assert (tmp_path / "built-once" / f"full{FAILED}").is_file()
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    with pytest.raises(pytest.fail.Exception, match="ValueError: no shared data"):
        built_once(WorkerTemp(tmp_path, "gw1"), "full", counting_build([]))


def test_a_copy_is_private_to_its_folder(tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "demo.wbb"
    shared.parent.mkdir()
    shared.write_bytes(b"bundle")
    mine = copy_of(shared, tmp_path)
    mine.write_bytes(b"changed")
    assert shared.read_bytes() == b"bundle" and mine == tmp_path / "demo.wbb"
