"""No default test asserts a duration, and no Qt wait gives up within seconds (docs/design.md,
"Tests"): a static look at every test file, so a timing assertion cannot slip back in. Tests
marked ``budget`` (opt-in, run by bench/) may time things; hang guards (a deadline a wait must
not pass) are not durations."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "thread_time", "process_time", "monotonic_ns"}
QT_WAITS = {"waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed", "waitActive"}
#: a Qt wait's ceiling below this is a budget, not a hang guard (milliseconds)
SHORTEST_CEILING_MS = 60_000


def _is_clock(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCKS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "time"
    )


def _is_elapsed(node: ast.AST) -> bool:
    """``clock() - start`` (or ``start - clock()``): a length of time."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Sub)
        and (_is_clock(node.left) or _is_clock(node.right))
    )


def _marked_budget(decorators: list[ast.expr]) -> bool:
    return any("budget" in ast.unparse(decorator) for decorator in decorators)


def _module_is_budget(tree: ast.Module) -> bool:
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark"
            for target in statement.targets
        ):
            return "budget" in ast.unparse(statement.value)
    return False


def timing_problems(source: str, name: str) -> list[str]:
    """Where ``source`` asserts a duration outside a budget test, or waits for Qt with a
    ceiling of seconds."""
    tree = ast.parse(source)
    if _module_is_budget(tree):
        return []
    problems = []
    functions = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and not _marked_budget(node.decorator_list)
    ]
    for function in functions:
        elapsed_names = {
            target.id
            for node in ast.walk(function)
            if isinstance(node, ast.Assign) and _is_elapsed(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(function):
            if isinstance(node, ast.Assert):
                inside = list(ast.walk(node.test))
                if any(_is_elapsed(part) for part in inside) or any(
                    isinstance(part, ast.Name) and part.id in elapsed_names for part in inside
                ):
                    problems.append(f"{name}:{node.lineno}: asserts a duration")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in QT_WAITS
            ):
                for keyword in node.keywords:
                    value = keyword.value
                    if (
                        keyword.arg == "timeout"
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, int | float)
                        and value.value < SHORTEST_CEILING_MS
                    ):
                        problems.append(f"{name}:{node.lineno}: a Qt wait of {value.value} ms")
    return sorted(set(problems))


def test_no_default_test_asserts_a_duration_or_waits_seconds_for_qt() -> None:
    problems = []
    for path in sorted(TESTS.rglob("*.py")):
        problems += timing_problems(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS)))
    assert problems == []


def test_the_check_finds_what_it_looks_for() -> None:
    timed = """
import time

def test_fast(qtbot):
    started = time.monotonic()
    work()
    assert time.monotonic() - started < 10
    seconds = time.perf_counter() - started
    assert seconds < 2
    qtbot.waitUntil(lambda: done, timeout=5_000)
    deadline = time.monotonic() + 300
    assert time.monotonic() < deadline  # a hang guard: fine
"""
    assert timing_problems(timed, "t.py") == [
        "t.py:10: a Qt wait of 5000 ms",
        "t.py:7: asserts a duration",
        "t.py:9: asserts a duration",
    ]
    budget = "import pytest\n\n@pytest.mark.budget\n" + timed.split("\n", 2)[2]
    assert timing_problems("import time\n" + budget, "b.py") == []
