"""Every function-local import outside workbench/cli says why it is not at the top (start-up
cost, an optional dependency, an import cycle), as bench/local_imports.py --reasons reads it."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _local_imports() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "local_imports", PROJECT_ROOT / "bench" / "local_imports.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _without_reason(source: str) -> list[int]:
    found: list[int] = _local_imports()._without_reason(ast.parse(source), source.splitlines())
    return found


def test_every_function_local_import_has_a_reason() -> None:
    assert _local_imports().unexplained_imports() == []


def test_a_reason_is_a_comment_above_the_run_of_imports_or_on_the_line() -> None:
    source = (
        "import os\n"  # a top-level import needs no reason
        "def f():\n"
        "    # start-up: json is slow\n"
        "    import json\n"
        "    import csv\n"  # the same run as json: its reason covers it
        "    x = 1\n"
        "    import re\n"  # a new run without a reason
        "    import shlex  # noqa: F401\n"  # a linter's pragma is no reason
        "    import ssl  # optional: not everywhere\n"
        "    try:\n"
        "        import zlib\n"  # no comment above the try either
        "    except ImportError:\n"
        "        pass\n"
    )
    assert _without_reason(source) == [7, 8, 11]


def test_a_comment_above_the_try_explains_an_optional_import() -> None:
    source = (
        "def f():\n"
        "    # optional: an extra\n"
        "    try:\n"
        "        import zlib\n"
        "    except ImportError:\n"
        "        pass\n"
    )
    assert _without_reason(source) == []
