"""bench/suite_under_load.py: the busy processes it starts are pinned to the cores pytest runs
on and gone when it ends, and a run's failures and errors are read from pytest's report."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def under_load() -> Iterator[ModuleType]:
    path = PROJECT_ROOT / "bench" / "suite_under_load.py"
    spec = importlib.util.spec_from_file_location("suite_under_load", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["suite_under_load"] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("suite_under_load", None)


def test_busy_processes_spin_on_the_given_cores_and_end_with_the_block(
    under_load: ModuleType,
) -> None:
    pinned = {min(under_load.cores())}
    with under_load.BusyProcesses(2, pinned) as busy:
        pids = [process.pid for process in busy.processes]
        assert len(pids) == 2 and all(process.poll() is None for process in busy.processes)
        if hasattr(os, "sched_getaffinity"):
            assert all(os.sched_getaffinity(pid) == pinned for pid in pids)
    assert all(process.returncode is not None for process in busy.processes)


REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5">
<testcase classname="tests.a" name="test_ok"/>
<testcase classname="tests.a" name="test_broken"><failure message="assert 13 == 16&#10;more">
</failure></testcase>
<testcase classname="tests.b" name="test_setup"><error message="fixture failed"/></testcase>
<testcase classname="tests.b" name="test_skipped"><skipped message="no server"/></testcase>
<testcase classname="tests.b" name="test_fine"/>
</testsuite></testsuites>
"""


def test_failures_and_errors_are_read_from_the_report(
    under_load: ModuleType, tmp_path: Path
) -> None:
    report = tmp_path / "report.xml"
    report.write_text(REPORT, encoding="utf-8")
    counts, failed = under_load._failures(report)
    assert counts == {"tests": 5, "failures": 1, "errors": 1, "skipped": 1}
    assert failed == [
        "failure: tests.a::test_broken: assert 13 == 16",
        "error: tests.b::test_setup: fixture failed",
    ]
    outcome = under_load.Outcome(1, 10.0, [8.0, 9.0], counts, failed)
    text = under_load.describe("loaded run 1", outcome, None)
    assert "FAILED" in text and "2 passed, 1 failed, 1 errors, 1 skipped" in text
    assert not outcome.ok
    assert under_load._failures(tmp_path / "absent.xml") == ({}, [])


def test_pytest_runs_on_the_workers_scripts_test_uses(under_load: ModuleType) -> None:
    assert under_load.worker_arguments(2) == [
        "-n",
        "2",
        "--dist",
        "loadfile",
        "--no-loadscope-reorder",
    ]
    assert under_load.worker_arguments(0) == []
    script = (PROJECT_ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert "WORKBENCH_TEST_WORKERS:-2" in script
    assert "--dist loadfile --no-loadscope-reorder" in script
