"""``workbench compare-rankings``: rank correlation and confidence agreement of two
leaderboards, whatever their items (docs/statistics.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(commands: Any) -> None:
    compare = commands.add_parser(
        "compare-rankings",
        help="Spearman, Kendall, Pearson and confidence agreement of two leaderboards",
        description="Each of A and B is a `workbench leaderboard --json` output, JSON Lines of "
        "{model: rating} (the first line the fit, the others bootstrap rounds, as "
        "WildVision-Bench's bootstrapping_results.jsonl), or a bundle (its leaderboard under "
        "the default request). Models in only one board are listed and left out.",
    )
    compare.add_argument("a", metavar="A")
    compare.add_argument("b", metavar="B")
    compare.add_argument("--json", action="store_true", help="print the result as JSON")
    compare.set_defaults(handler=run_compare_rankings)


def _number(value: float) -> str:
    return "n/a" if value != value else f"{value:.4f}"


def run_compare_rankings(args: argparse.Namespace) -> int:
    from workbench.services.rank_comparison import compare_rankings

    result = compare_rankings(args.a, args.b)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    found = result.comparison
    print(f"A: {result.a.source} ({result.a.kind}, {len(result.a.board)} models)")
    print(f"B: {result.b.source} ({result.b.kind}, {len(result.b.board)} models)")
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
    return 0
