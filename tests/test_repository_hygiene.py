"""The committed tree holds no unresolved merge: a conflict marker in a Markdown page or a form
is not caught by ruff or the form compiler, and ships to users as it stands. Nor does its prose
cite an issue number or a guide section, which no reader of the repository can open: a comment,
docstring or page says the fact it needs instead."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(<{7}|>{7})( |$)|^={7}$", re.MULTILINE)
# Built from pieces so that this definition does not cite what it forbids.
_ISSUE = "[Ii]ssue" + "s? [0-9]+"
_GUIDE = "GUIDE" + " ?(§|[0-9])|\\(" + "GUIDE(?![A-Z_])"
CITATION = re.compile(f"{_ISSUE}|{_GUIDE}")
CITATION_SUFFIXES = {".py", ".md", ".sh", ".toml"}
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


def test_no_file_cites_an_issue_number_or_a_guide_section() -> None:
    offenders = []
    for path in _tracked_text_files():
        if path.suffix not in CITATION_SUFFIXES or ".venv" in path.parts or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            offenders.append(f"{path.relative_to(PROJECT)}:{line}: {match.group(0)!r}")
    assert not offenders, "say the fact instead of citing it: " + ", ".join(offenders)


def test_the_citation_pattern_finds_citations_and_spares_plain_words() -> None:
    issue, guide = "issue", "GUIDE"  # pieces, so that this file cites nothing itself
    cited = [f"measured in {issue} 22", f"({issue}s 15 and 22)", f"({issue} 21.4)"]
    cited += [f"{issue.title()} 16: the", f"({guide} 3.7)", f"{guide}§2", f"({guide}, glue)"]
    assert all(CITATION.search(text) for text in cited)
    plain = ["GitHub issue threads", "an issue with the lock", "the issues' target sizes"]
    plain += [f"settings.get({guide}LINES_SETTING)", f"write_text({guide}LINES, encoding)"]
    assert not any(CITATION.search(text) for text in plain)
