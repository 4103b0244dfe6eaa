"""``workbench report``: one self-contained HTML evaluation report of a bundle (docs/report.md).
The bundle is only read."""

from __future__ import annotations

import argparse

from workbench.cli.progress import TerminalProgress
from workbench.services.analysis_request import AnalysisRequest
from workbench.services.report import ReportRequest
from workbench.services.report_html import write_report


def run_report(args: argparse.Namespace) -> int:
    # the leaderboard's parser: the report's boards answer the request its flags make
    request = ReportRequest(AnalysisRequest.from_args(args))

    progress = TerminalProgress()
    try:
        size = write_report(args.bundle, args.out, request, progress)
    finally:
        progress.finish()
    print(f"report written to {args.out} ({size // 1024} KiB)")
    return 0
