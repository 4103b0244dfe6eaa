"""``workbench leaderboard``: ratings of the models from the pairwise outcomes in a bundle.

A plain ``--method bt --json`` board of every judgment or of one campaign's is answered by the
quick path (workbench/services/quick_leaderboard.py), which reads the bundle without pandas or
SQLAlchemy; any other board takes the analysis service's full path in stats_commands.py."""

from __future__ import annotations

import argparse
import json

from workbench.services.analysis_request import AnalysisRequest
from workbench.services.quick_leaderboard import quick_leaderboard


def run_leaderboard(args: argparse.Namespace) -> int:
    request = AnalysisRequest.from_args(args)
    if args.json and not (args.plot or args.heatmap or args.csv):
        document = quick_leaderboard(args.bundle, request)
        if document is not None:
            print(json.dumps(document, indent=2))
            return 0
    # imported here, not at the top: the quick path's whole point is to answer without the
    # statistics stack (pandas, SciPy) and SQLAlchemy that the full path loads
    from workbench.cli.stats_commands import run_full_leaderboard

    return run_full_leaderboard(args, request)
