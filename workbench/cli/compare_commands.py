"""``workbench compare-rankings``: rank correlation and confidence agreement of two
leaderboards, whatever their items (docs/statistics.md)."""

from __future__ import annotations

import argparse
import json
import shlex
from typing import NoReturn

from workbench.cli.arguments import add_request_flags
from workbench.errors import WorkbenchError
from workbench.services.analysis_request import AnalysisRequest, RequestError
from workbench.services.rank_comparison import compare_rankings


class RequestFlagsError(WorkbenchError):
    """A side's request flags that the leaderboard's parser refuses: bad usage."""

    exit_code = 2


def _number(value: float) -> str:
    return "n/a" if value != value else f"{value:.4f}"


class _SideParser(argparse.ArgumentParser):
    """The leaderboard's request flags; an error names the side's option instead of exiting."""

    def __init__(self, option: str) -> None:
        super().__init__(prog=option, add_help=False)
        self.option = option

    def error(self, message: str) -> NoReturn:
        raise RequestFlagsError(f"{self.option}: {message}")


def parse_side_request(option: str, text: str | None) -> AnalysisRequest | None:
    """A side's request from its flags (``--kind judge --category ocr``), parsed by the
    leaderboard's own parser and :meth:`AnalysisRequest.from_args` (None: no flags given)."""

    if text is None:
        return None
    parser = _SideParser(option)
    add_request_flags(parser)
    parser.add_argument("--answer-tokens", action="store_true")
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise RequestFlagsError(f"{option}: {error}") from None
    args = parser.parse_args(words)
    try:
        return AnalysisRequest.from_args(args)
    except RequestError as error:
        raise RequestFlagsError(f"{option}: {error}") from None


def run_compare_rankings(args: argparse.Namespace) -> int:
    result = compare_rankings(
        args.a,
        args.b,
        request_a=parse_side_request("--a-request", args.a_request),
        request_b=parse_side_request("--b-request", args.b_request),
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    found = result.comparison
    for name, ranking in (("A", result.a), ("B", result.b)):
        print(f"{name}: {ranking.source} ({ranking.kind}, {len(ranking.board)} models)")
        if ranking.request is not None:
            print(f"  request: {ranking.request.describe()}")
    print(f"shared models: {len(found.models)}")
    for side, models in (("A", found.only_a), ("B", found.only_b)):
        if models:
            print(f"  only in {side} (left out): {', '.join(models)}")
    print(f"Spearman: {_number(found.spearman)}")
    print(f"Kendall tau-b: {_number(found.kendall_tau)}")
    print(f"Pearson (ratings): {_number(found.pearson)}")
    order = found.ci_order
    if order is None:
        print("confidence agreement: n/a (a board has no confidence intervals)")
    else:
        print(
            f"confidence agreement: {_number(order.share)} ({order.agree} of {order.pairs} "
            f"model pairs ordered the same way by both boards' 95% intervals; "
            f"{order.contradict} ordered oppositely)"
        )
    print(f"command: {result.command(output='')}")
    return 0
