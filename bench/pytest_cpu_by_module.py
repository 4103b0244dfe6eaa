"""A pytest plugin that prints the CPU time (user + system) each test module took, for finding
where the suite's time goes on a machine whose other work makes wall times meaningless.

Each test's setup, call and teardown is measured with ``getrusage``: the pytest process itself
plus the child processes it waited for (so a test that runs the app in a child counts it), plus
the CPU of its descendants still running, read from ``/proc`` (the analysis panels' worker is a
long-lived process reaped only at exit: without this, every board a panel computes went
uncounted). Session fixtures count in the first module that asks for them. Run one folder at a
time in one process, for example (docs/PERFORMANCE.md, "The test suite's time")::

    PYTHONPATH=.:plugins:bench QT_QPA_PLATFORM=offscreen \\
        .venv/bin/python -m pytest -q -p no:cacheprovider -p pytest_cpu_by_module tests/storage

A file found to cost several CPU seconds goes into ``tests/module_order.py``, the table the
pytest-xdist workers' file order is taken from (costliest first).
"""

from __future__ import annotations

import os
import resource
from collections.abc import Generator
from pathlib import Path

import pytest

_modules: dict[str, list[float]] = {}


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _running_descendants() -> float:
    """CPU seconds of this process's live descendants, each with the children it has reaped
    (utime, stime, cutime and cstime of /proc/PID/stat): every second counted once, since a
    process's own reaped children are no longer live. 0 where there is no /proc."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir() if Path("/proc/self/stat").exists() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(value) for value in fields[11:15]) / _TICKS
    ours, found = {os.getpid()}, True
    while found:
        found = False
        for pid, parent in parents.items():
            if parent in ours and pid not in ours:
                ours.add(pid)
                found = True
    return sum(times[pid] for pid in ours if pid != os.getpid())


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = children.ru_utime + children.ru_stime
    return own.ru_utime + own.ru_stime, reaped + _running_descendants()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator:
    own_before, children_before = _cpu()
    yield
    own_after, children_after = _cpu()
    totals = _modules.setdefault(item.nodeid.split("::")[0], [0.0, 0.0, 0])
    totals[0] += own_after - own_before
    totals[1] += children_after - children_before
    totals[2] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _modules:
        return
    terminalreporter.section("CPU by test module (user + system, seconds)")
    ranked = sorted(_modules.items(), key=lambda entry: -(entry[1][0] + entry[1][1]))
    for module, (own, children, tests) in ranked:
        terminalreporter.write_line(
            f"{own + children:8.1f}  ({own:6.1f} pytest, {children:6.1f} children)"
            f"  {int(tests):4d} tests  {module}"
        )
    total = sum(own + children for own, children, _ in _modules.values())
    terminalreporter.write_line(f"{total:8.1f}  in all")
