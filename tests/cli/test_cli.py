"""The command line: exit codes, one-line errors, JSON output."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench import __version__
from workbench.cli import build_parser, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"workbench {__version__}"


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    subparsers = build_parser()._subparsers
    assert subparsers is not None
    commands = subparsers._group_actions[0].choices
    assert isinstance(commands, dict)
    assert {"import", "info", "plugins", "demo", "open"} <= set(commands)
    for name in commands:
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"])
        assert exit_.value.code == 0
        assert "usage: workbench" in capsys.readouterr().out


def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["import", "x.jsonl"])
    assert exit_.value.code == 2
    assert "--format" in capsys.readouterr().err


def test_import_then_info_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_jsonl(tmp_path / "s", [item_line("q1"), item_line("q2")])
    bundle = tmp_path / "b.wbb"
    code, out, _ = run(capsys, "import", str(source), "--format", "jsonl", "--into", str(bundle))
    assert code == 0 and "items_added 2" in out
    code, out, _ = run(capsys, "info", str(bundle), "--json")
    info = json.loads(out)
    assert code == 0
    assert info["totals"]["items"] == 2 and info["totals"]["outputs"] == 4
    assert info["sources"]["tests"]["images_present"] == 2
    code, out, _ = run(capsys, "import", str(source), "--format", "jsonl", "--into", str(bundle))
    assert code == 0 and "already imported" in out


def test_rejected_import_prints_where_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "b.wbb"
    run(
        capsys,
        "import",
        str(write_jsonl(tmp_path / "a", [item_line("q1")])),
        "--format",
        "jsonl",
        "--into",
        str(bundle),
    )
    before = hashlib.sha256(bundle.read_bytes()).hexdigest()
    bad = write_jsonl(tmp_path / "b", [item_line("q2"), '{"format": 1'])
    code, _, err = run(capsys, "import", str(bad), "--format", "jsonl", "--into", str(bundle))
    assert code == 1
    # piped, progress is one plain line per phase; the error follows them
    phases, _rejected = err.split("workbench: import rejected", 1)
    assert all(line.endswith("...") for line in phases.splitlines())
    assert "items.jsonl, row 2: not valid JSON" in err
    assert "Traceback" not in err
    assert hashlib.sha256(bundle.read_bytes()).hexdigest() == before


def test_info_on_a_non_bundle_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.wbb"
    path.write_text("not sqlite")
    code, _, err = run(capsys, "info", str(path))
    assert code == 1
    assert err.strip().count("\n") == 0 and "not a VLM Workbench bundle" in err


def test_plugins_lists_the_builtin_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plugins", "--json")
    listing = json.loads(out)
    formats = {imp["format"] for plugin in listing["plugins"] for imp in plugin["importers"]}
    assert code == 0 and listing["failures"] == []
    assert "jsonl" in formats


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("workbench")
    completed = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0 and completed.stdout.strip() == f"workbench {__version__}"


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`workbench info B | head -1`: the reader leaves before the output is written."""
    bundle = tmp_path / "b.wbb"
    assert (
        main(
            [
                "import",
                str(write_jsonl(tmp_path / "s", [item_line("q1")])),
                "--format",
                "jsonl",
                "--into",
                str(bundle),
            ]
        )
        == 0
    )
    reader, writer = os.pipe()
    os.close(reader)  # nobody will read: every write raises BrokenPipeError
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from workbench.cli import main; sys.exit(main(sys.argv[1:]))",
                "info",
                str(bundle),
            ],
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(writer)
    assert done.returncode == 1
    assert done.stderr == ""


def test_skip_rejected_with_nothing_valid_creates_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(tmp_path / "s", ["{oops", '{"format": 1}'])
    target = tmp_path / "never.wbb"
    code, out, err = run(
        capsys,
        "import",
        str(source),
        "--format",
        "jsonl",
        "--into",
        str(target),
        "--skip-rejected",
    )
    assert code == 1 and out == ""
    assert "nothing to import: all 2 row(s) were rejected" in err
    assert not list(tmp_path.glob("never.wbb*"))
