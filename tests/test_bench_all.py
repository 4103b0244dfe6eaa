"""bench/all.py keeps one record per figure: re-running some figures with ``--update`` replaces
their records and rows and keeps the others, each row naming its own commit and size."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import pytest
from pytest import MonkeyPatch

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench_all() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("bench_all", PROJECT_ROOT / "bench" / "all.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_all"] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("bench_all", None)


def _fake_figures(bench_all: ModuleType, tmp_path: Path) -> list[Any]:
    """Two figures whose scripts print one line each, in place of the real bench scripts."""
    (tmp_path / "first.py").write_text("print('first figure')\n")
    (tmp_path / "second.py").write_text("import sys\nprint('second figure')\nsys.exit(3)\n")
    return [
        bench_all.Figure("first", str(tmp_path / "first.py"), "the first"),
        bench_all.Figure("second", str(tmp_path / "second.py"), "the second"),
    ]


def _main(bench_all: ModuleType, monkeypatch: MonkeyPatch, *arguments: str) -> int:
    monkeypatch.setattr(sys, "argv", ["all.py", *arguments])
    return cast("int", bench_all.main())


def test_update_replaces_only_the_figures_run_again(
    bench_all: ModuleType, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    figures = _fake_figures(bench_all, tmp_path)
    monkeypatch.setattr(bench_all, "_figures", lambda work: figures)
    commits = iter(["aaa1111", "bbb2222"])
    monkeypatch.setattr(bench_all, "_commit", lambda: next(commits))
    page = tmp_path / "runs.md"

    assert _main(bench_all, monkeypatch, "--out", str(page)) == 1  # the second exits 3
    first_records = json.loads(page.with_suffix(".json").read_text())["runs"]
    assert [(run["name"], run["commit"], run["status"]) for run in first_records] == [
        ("first", "aaa1111", 0),
        ("second", "aaa1111", 3),
    ]

    (tmp_path / "second.py").write_text("print('second, mended')\n")
    assert _main(bench_all, monkeypatch, "--only", "second", "--update", "--out", str(page)) == 0
    runs = bench_all.read_records(page)
    assert [(run.name, run.commit, run.status) for run in runs] == [
        ("first", "aaa1111", 0),
        ("second", "bbb2222", 0),
    ]
    assert runs[0] == bench_all.Run(**first_records[0])  # kept as it was, output included
    text = page.read_text()
    assert "| first | the first | full |" in text and "| aaa1111 |" in text
    assert "second, mended" in text and "second figure" not in text


def test_without_update_the_page_holds_only_this_run(
    bench_all: ModuleType, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    figures = _fake_figures(bench_all, tmp_path)
    monkeypatch.setattr(bench_all, "_figures", lambda work: figures)
    monkeypatch.setattr(bench_all, "_commit", lambda: "ccc3333")
    page = tmp_path / "runs.md"
    _main(bench_all, monkeypatch, "--out", str(page))
    _main(bench_all, monkeypatch, "--only", "first", "--out", str(page))
    assert [run.name for run in bench_all.read_records(page)] == ["first"]


def test_a_records_file_that_is_not_ours_is_refused_and_left_alone(
    bench_all: ModuleType, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_all, "_figures", lambda work: _fake_figures(bench_all, tmp_path))
    page = tmp_path / "runs.md"
    page.with_suffix(".json").write_text('{"something": "else"}')
    with pytest.raises(SystemExit, match="not a records file"):
        _main(bench_all, monkeypatch, "--only", "first", "--update", "--out", str(page))
    assert page.with_suffix(".json").read_text() == '{"something": "else"}'
    assert not page.exists()
