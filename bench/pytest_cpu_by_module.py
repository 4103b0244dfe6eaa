"""A pytest plugin that prints the CPU time (user + system) each test module took, for finding
where the suite's time goes on a machine whose other work makes wall times meaningless.

Each test's setup, call and teardown is measured with ``getrusage``: the pytest process itself
plus the child processes it waited for (so a test that runs the app in a child counts it).
Session fixtures count in the first module that asks for them. Run one folder at a time in one
process, for example (docs/PERFORMANCE.md, "The test suite's time")::

    PYTHONPATH=.:plugins:bench QT_QPA_PLATFORM=offscreen \\
        .venv/bin/python -m pytest -q -p no:cacheprovider -p pytest_cpu_by_module tests/storage
"""

from __future__ import annotations

import resource
from collections.abc import Generator

import pytest

_modules: dict[str, list[float]] = {}


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


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
