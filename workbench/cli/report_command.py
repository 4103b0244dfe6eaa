"""``workbench report``: one self-contained HTML evaluation report of a bundle (docs/report.md).
The bundle is only read."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.cli.stats_commands import _add_filters, _filters


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
    report.add_argument(
        "--bootstrap",
        type=int,
        default=100,
        metavar="N",
        help="bootstrap rounds for the 95%% CIs (default 100)",
    )
    report.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed")
    report.add_argument(
        "--anchor",
        metavar="MODEL",
        help="model pinned at 1000, whose win rate the boards show (default: most battles)",
    )
    _add_filters(report)
    report.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    from workbench.services.report import ReportError, ReportRequest
    from workbench.services.report_html import write_report

    if args.bootstrap < 0:
        raise ReportError("--bootstrap cannot be negative")
    request = ReportRequest(
        filters=_filters(args), bootstrap=args.bootstrap, seed=args.seed, anchor=args.anchor
    )
    from workbench.cli.progress import TerminalProgress

    progress = TerminalProgress()
    try:
        size = write_report(args.bundle, args.out, request, progress)
    finally:
        progress.finish()
    print(f"report written to {args.out} ({size // 1024} KiB)")
    return 0
