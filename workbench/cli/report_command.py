"""``workbench report``: one self-contained HTML evaluation report of a bundle (docs/report.md).
The bundle is only read."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.cli.stats_commands import add_request_flags


def register(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="write a self-contained HTML evaluation report (leaderboards, agreement, methods)",
        description="Write one HTML file that works offline: leaderboards with CIs, win rates, "
        "per-category boards, human vs judge agreement, cycles, failure cases and the methods. "
        "The bundle is only read.",
    )
    report.add_argument("bundle", metavar="BUNDLE")
    report.add_argument("--out", type=Path, required=True, metavar="FILE", help="HTML to write")
    add_request_flags(report, fitting=False)
    report.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    from workbench.services.analysis_request import AnalysisRequest
    from workbench.services.report import ReportRequest
    from workbench.services.report_html import write_report

    # the leaderboard's parser: the report's boards answer the request its flags make
    request = ReportRequest(AnalysisRequest.from_args(args))
    from workbench.cli.progress import TerminalProgress

    progress = TerminalProgress()
    try:
        size = write_report(args.bundle, args.out, request, progress)
    finally:
        progress.finish()
    print(f"report written to {args.out} ({size // 1024} KiB)")
    return 0
