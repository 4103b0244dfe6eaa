"""The committed tree holds no unresolved merge: a conflict marker in a Markdown page or a form
is not caught by ruff or the form compiler, and ships to users as it stands."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(<{7}|>{7})( |$)|^={7}$", re.MULTILINE)
TEXT_SUFFIXES = {".py", ".md", ".ui", ".toml", ".cfg", ".ini", ".txt", ".sh", ".spec", ".json"}


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True, check=False
    )
    if listed.returncode != 0:  # not a git checkout (e.g. an sdist): walk the tree instead
        return [path for path in PROJECT.rglob("*") if path.suffix in TEXT_SUFFIXES]
    names = [name for name in listed.stdout.decode().split("\0") if name]
    return [PROJECT / name for name in names if Path(name).suffix in TEXT_SUFFIXES]


def test_no_file_holds_a_merge_conflict_marker() -> None:
    offenders = []
    for path in _tracked_text_files():
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in MARKER.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            offenders.append(f"{path.relative_to(PROJECT)}:{line}")
    assert not offenders, "unresolved merge conflict markers: " + ", ".join(offenders)


def test_the_marker_pattern_finds_the_three_kinds_of_marker() -> None:
    conflicted = "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> topic\nd\n"
    assert len(MARKER.findall(conflicted)) == 3
    assert not MARKER.findall("a heading\n=========\nand ======= in a line\n")
