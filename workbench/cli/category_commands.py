"""``workbench categories``: how battles ended in each category, both-bad and tie shares
(VisionArena's per-category view; docs/statistics.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from workbench.cli.stats_commands import _filters
from workbench.services.category_outcomes import category_outcomes
from workbench.storage import Bundle


def run_categories(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle, read_only=True) as bundle:
        result = category_outcomes(bundle, _filters(args))
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    table = result.table
    print(f"outcomes per category ({result.filters}); an item of several categories counts in each")
    if table.empty:
        print("no judged item has a category")
        _print_refusals(result.refusals)
        return 0
    width = max(8, *(len(str(name)) for name in table["category"]))
    print(
        f"{'category':<{width}}  {'battles':>7}  {'decisive':>8}  {'ties':>6}  "
        f"{'both bad':>8}  {'tie %':>6}  {'both bad %':>10}"
    )
    for row in table.itertuples(index=False):
        print(
            f"{row.category:<{width}}  {row.battles:>7}  {row.decisive:>8}  {row.ties:>6}  "
            f"{row.both_bad:>8}  {100 * row.tie_share:>6.1f}  {100 * row.both_bad_share:>10.1f}"
        )
    _print_refusals(result.refusals)
    return 0


def _print_refusals(refusals: Any) -> None:
    """Each model's refusing answers (the phrase rule of workbench.stats.refusals)."""
    if refusals.empty:
        return
    print()
    print("refusing answers per model (an apology or 'I cannot ...' in an answer's opening)")
    width = max(5, *(len(str(name)) for name in refusals["model"]))
    print(f"{'model':<{width}}  {'answers':>7}  {'refusals':>8}  {'refusal %':>9}")
    for row in refusals.itertuples(index=False):
        print(
            f"{row.model:<{width}}  {row.answers:>7}  {row.refusals:>8}  "
            f"{100 * row.refusal_share:>9.1f}"
        )
