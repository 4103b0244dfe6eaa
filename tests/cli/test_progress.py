"""Progress on standard error: redrawn in place with counts and elapsed time on a terminal, one
plain line per phase when piped; the commands that can take long report through it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from workbench.cli.progress import TerminalProgress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_piped_output_gets_one_line_per_phase() -> None:
    stream = io.StringIO()
    progress = TerminalProgress(stream)
    for done in range(5):
        progress("reading", done, 4)
    with progress.waiting("fitting"):
        pass
    progress("writing", 1, 2)
    progress("writing", 2, 2)
    progress.finish()
    assert stream.getvalue() == "reading...\nfitting...\nwriting...\n"


def test_a_terminal_line_shows_phase_counts_and_elapsed_time() -> None:
    stream = Terminal()
    progress = TerminalProgress(stream)
    progress("items", 3, 4)
    drawn = stream.getvalue()
    assert drawn.startswith("\ritems") and "3/4" in drawn and drawn.rstrip().endswith("0 s")
    with progress.waiting("ranking"):
        assert "ranking..." in stream.getvalue()
    progress.finish()
    assert stream.getvalue().endswith("\r")


def test_a_one_step_wait_can_stay_silent_when_piped() -> None:
    stream = io.StringIO()
    with TerminalProgress(stream).waiting("ranking", when_piped=False):
        pass
    assert stream.getvalue() == ""


def test_export_reports_its_phases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.services.campaign_helpers import build_campaign_bundle
    from workbench.cli import main

    bundle = build_campaign_bundle(tmp_path, items=2)
    assert (
        main(["export", str(bundle), "--format", "items", "--out", str(tmp_path / "x.jsonl")]) == 0
    )
    err = capsys.readouterr().err
    assert err.splitlines() and all(line.endswith("...") for line in err.splitlines())
