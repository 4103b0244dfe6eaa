"""The function-local imports outside workbench/cli, and what each would cost at the top.

    python bench/local_imports.py [--all] [MODULE ...]
    python bench/local_imports.py --reasons

A function-local import is kept only where it saves start-up: its module is not yet loaded
when the importing module has been imported (in a fresh interpreter). For each one (imports
under ``if TYPE_CHECKING:`` do not count) this imports the importing module alone, then the
imported module, and prints the milliseconds that second import took: what moving it to the top
would add to every importer's start-up. One already loaded ("free") has no reason to stay in
the function; --all lists every import, not only those. Each importing module is one process.

Each one that stays says why in a comment: on its line, or on the line above the run of import
statements it belongs to (start-up cost, an optional dependency, an import cycle). --reasons
reads the source only and lists the ones without (exit status 1 when there are any).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys, time
import {module}
# what the module's own import loaded, before any of the targets below loads more
loaded = {{target: target in sys.modules for target in {targets!r}}}
costs = {{}}
for target in {targets!r}:
    started = time.perf_counter()
    try:
        __import__(target)
    except ImportError:  # a name imported from a module, not a module: nothing to load
        loaded[target] = True
    # after earlier targets, a cost may be lower than alone (what they share is loaded)
    costs[target] = None if loaded[target] else (time.perf_counter() - started) * 1000
print(json.dumps(costs))
"""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] == "plugins":
        parts = parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports_in_functions(
    node: ast.AST, package: str, in_function: bool = False
) -> list[tuple[int, str, str]]:
    """(line, imported module, statement) of each import inside a function under ``node``."""
    found: list[tuple[int, str, str]] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            continue
        if in_function and isinstance(child, ast.Import):
            found += [(child.lineno, alias.name, ast.unparse(child)) for alias in child.names]
        elif in_function and isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - child.level + 1], *([base] if base else [])])
            for alias in child.names:  # a submodule, or a name (then the module counts)
                for target in (f"{base}.{alias.name}", base):
                    found.append((child.lineno, target, ast.unparse(child)))
        nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
        found += _imports_in_functions(child, package, nested)
    return found


def _checked_files() -> list[tuple[Path, str]]:
    """(path, path relative to the root) of every module whose local imports count."""
    files = [*(ROOT / "workbench").rglob("*.py"), *(ROOT / "plugins").rglob("*.py")]
    checked = []
    for path in sorted(files):
        relative = path.relative_to(ROOT).as_posix()
        skipped = ("workbench/cli/", "workbench/gui/forms/")
        if not relative.startswith(skipped) and "/versions/" not in relative:
            checked.append((path, relative))
    return checked


def _without_reason(node: ast.AST, lines: list[str], in_function: bool = False) -> list[int]:
    """The lines of the imports inside a function under ``node`` that have no reason: no
    comment on their line or above the run of import statements they belong to."""
    found: list[int] = []
    for field in ("body", "orelse", "finalbody", "handlers"):
        statements = getattr(node, field, None)
        if not isinstance(statements, list):
            continue
        explained = False
        for statement in statements:
            if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.unparse(statement.test):
                explained = False
                continue
            if in_function and isinstance(statement, ast.Import | ast.ImportFrom):
                # the line above, or above the ``try:`` it opens (an optional dependency)
                before = [line.strip() for line in lines[: statement.lineno - 1]]
                above = before[-2] if before[-1:] == ["try:"] and len(before) > 1 else ""
                above = above or (before[-1] if before else "")
                last = lines[(statement.end_lineno or statement.lineno) - 1]
                # a trailing comment is a reason unless it is only a linter's pragma
                trailing = last.partition("#")[2].strip()
                own = bool(trailing) and not trailing.startswith(("noqa", "type:"))
                explained = own or above.startswith("#") or explained
                if not explained:
                    found.append(statement.lineno)
                continue
            explained = False
            nested = in_function or isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
            found += _without_reason(statement, lines, nested)
    return found


def unexplained_imports() -> list[str]:
    """``file:line`` of every function-local import without a reason comment."""
    found = []
    for path, relative in _checked_files():
        text = path.read_text()
        for line in _without_reason(ast.parse(text), text.splitlines()):
            found.append(f"{relative}:{line}")
    return found


def local_imports() -> dict[str, list[tuple[str, int, str, str]]]:
    """Per importing module: (file, line, imported module, statement)."""
    found: dict[str, list[tuple[str, int, str, str]]] = defaultdict(list)
    for path, relative in _checked_files():
        module = module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for line, target, text in _imports_in_functions(ast.parse(path.read_text()), package):
            found[module].append((relative, line, target, text))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every local import")
    parser.add_argument(
        "--reasons", action="store_true", help="list the imports without a reason comment"
    )
    parser.add_argument("modules", nargs="*", help="only these importing modules")
    args = parser.parse_args()
    if args.reasons:
        missing = unexplained_imports()
        print("\n".join([*missing, f"{len(missing)} function-local imports without a reason"]))
        return 1 if missing else 0
    path = os.pathsep.join((str(ROOT), str(ROOT / "plugins")))
    environment = {**os.environ, "PYTHONPATH": path, "QT_QPA_PLATFORM": "offscreen"}
    statements: dict[tuple[str, int], tuple[str, list[float | None]]] = {}
    for module, rows in local_imports().items():
        if args.modules and module not in args.modules:
            continue
        targets = sorted({target for _file, _line, target, _text in rows})
        probe = PROBE.format(module=module, targets=targets)
        done = subprocess.run(
            [sys.executable, "-c", probe], env=environment, capture_output=True, text=True
        )
        if done.returncode:
            print(f"{module}: cannot be imported alone: {done.stderr.strip()[-200:]}")
            continue
        costs = json.loads(done.stdout.strip().splitlines()[-1])
        for file, line, target, text in rows:
            key = (file, line)
            statements.setdefault(key, (text, []))[1].append(costs[target])
    free = 0
    print(f"{'place':<58}{'cost ms':>9}  statement")
    for (file, line), (text, costs) in sorted(statements.items()):
        # a `from X import name` costs what loading X costs (name is then an attribute)
        known = [cost for cost in costs if cost is not None]
        cost = max(known) if known else None
        free += cost is None
        if args.all or cost is None:
            shown = "free" if cost is None else f"{cost:.1f}"
            print(f"{file}:{line:<{57 - len(file)}}{shown:>9}  {text}")
    print(f"\n{len(statements)} function-local imports, {free} of modules already loaded (free)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
