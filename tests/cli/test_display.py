"""The command line shows names from data without letting the terminal obey them: ESC
sequences (clear screen, retitle), other controls and bidi overrides are printed escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.cli.display import safe_text
from workbench.services.importing import import_files

SOURCE = "src\x1b]0;pwned\x07\x1b[2J"
MODEL = "model-\u202eabc"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    line = item_line(
        "q1",
        source=SOURCE,
        outputs=[{"model": MODEL, "text": "x"}, {"model": "plain", "text": "y"}],
        judgments=[
            {"kind": "human", "model_a": MODEL, "model_b": "plain", "outcome": "a", "rater": "r"}
        ],
    )
    path = tmp_path / "b.wbb"
    import_files(path, [write_jsonl(tmp_path / "src", [line])], "jsonl")
    return path


@pytest.mark.parametrize("command", ["info", "leaderboard"])
def test_names_from_data_are_printed_escaped(
    bundle: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    small = ["--min-battles", "0"] if command == "leaderboard" else []  # one judgment
    assert main([command, str(bundle), *small]) == 0
    out = capsys.readouterr().out
    for dangerous in ("\x1b", "\x07", "\u202e"):
        assert dangerous not in out
    assert ("\\x1b]0;pwned\\x07" in out) or ("\\u202eabc" in out)


def test_errors_naming_data_are_escaped_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", str(tmp_path / "no\x1b[2Jsuch.wbb")]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err and "no\\x1b[2Jsuch.wbb" in err


def test_json_output_stays_valid_and_exact(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", str(bundle), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    # the exact name, recoverable: JSON escapes control characters itself
    assert any(SOURCE in value for value in printed.values() if isinstance(value, dict))


def test_safe_text_keeps_line_breaks_tabs_and_ordinary_unicode() -> None:
    assert safe_text("a\tb\nc é 模型 🙂") == "a\tb\nc é 模型 🙂"
    assert safe_text("\r\x00\x7f\x9b\u2066\u200f") == "\\x0d\\x00\\x7f\\x9b\\u2066\\u200f"
