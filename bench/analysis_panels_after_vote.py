"""Time from a vote saved to the Agreement, Graph and Failures panels' refreshed results, from
the worker's kept judgments (incremental) against a full re-read, in the same run.

    python bench/analysis_panels_after_vote.py [--bundle B.wbb] [--votes 100000]
        [--items 20000] [--models 20] [--runs 5]

Each run casts one vote in a small campaign added for the purpose, then computes what each panel
shows twice: with the :class:`~workbench.services.judgment_cache.JudgmentCache` the panels' worker
keeps (``incremental``: only the rows stored since the last fingerprint are read, and cycles and
losers are looked for again only on the voted item) and without it (``full``: every pairwise
judgment read again, every item examined), and checks that both give the same result. The
panels' questions: Agreement (human vs judge), Graph (the items with cycles, and the voted
item's graph), Failures (preference cycles; a model that loses to all others). Timed in this
process, as the worker's jobs run them (no pickling, no drawing). Medians of --runs votes, the
ratio full/incremental, and the load average.

Without --bundle a synthetic bundle (bench/make_synthetic_bundle.py --votes N) is generated once
into the cache folder and reused (the same as bench/panel_after_vote.py's); the run works on a
temporary copy, so votes never accumulate in it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from workbench.services.analysis import (
    CYCLES,
    LOSES_TO_ALL,
    agreement,
    failure_cases,
    item_graph,
    items_by_cycles,
)
from workbench.services.campaign_items import ItemSpec
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.judgment_cache import JudgmentCache
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle
from workbench.storage.models import Vote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_synthetic_bundle import cached_synthetic_bundle

CAMPAIGN = "bench-analysis-after-vote"
ANNOTATOR = "bench-voter"
CHOICES = ("a", "b", "tie", "a", "b")
LOSER = "synthetic-model-01"

Panel = Callable[[Bundle, JudgmentCache | None, int], Any]


def _graph(bundle: Bundle, cache: JudgmentCache | None, item: int) -> Any:
    cycles = items_by_cycles(bundle, cache=cache)
    edges = sorted(item_graph(bundle, item, cache=cache).edges(data=True))
    return [cycles, edges]


PANELS: dict[str, Panel] = {
    "agreement (human vs judge)": lambda bundle, cache, _: agreement(bundle, cache=cache).to_json(),
    "graph (items with cycles, item graph)": _graph,
    "failures (preference cycles)": lambda bundle, cache, _: failure_cases(
        bundle, CYCLES, cache=cache
    ).to_json(),
    "failures (loses to all)": lambda bundle, cache, _: failure_cases(
        bundle, LOSES_TO_ALL, LOSER, cache=cache
    ).to_json(),
}


def prepare(source: Path, folder: Path, items: int) -> Path:
    """A copy of ``source`` with a small open campaign to vote in (a few items, all pairs)."""
    path = folder / "bench.wbb"
    copy_bundle(source, path)
    chosen = ",".join(f"syn-{number:06d}" for number in range(1, min(items, 5) + 1))
    with Bundle.open(path) as bundle:
        add_annotator(bundle, ANNOTATOR)
        create_campaign(
            bundle, CampaignSpec(CAMPAIGN, "arena-battle", items=ItemSpec(chosen), seed=7)
        )
    return path


def timed(function: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    began = time.perf_counter()
    result = function(*args)
    return (time.perf_counter() - began) * 1000, result


def comparable(result: Any) -> str:
    return json.dumps(result, sort_keys=True, default=str)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--votes", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    source = args.bundle or cached_synthetic_bundle(args.items, args.models, args.votes)

    incremental: dict[str, list[float]] = {name: [] for name in PANELS}
    full: dict[str, list[float]] = {name: [] for name in PANELS}
    with tempfile.TemporaryDirectory(prefix="analysis-after-vote-") as work:
        path = prepare(source, Path(work), args.items)
        with Bundle.open(path) as bundle:
            session = AnnotationSession(bundle, CAMPAIGN, ANNOTATOR)
            cache = JudgmentCache()
            first_ms = {}
            for name, panel in PANELS.items():  # the panels' first refresh: full reads
                first_ms[name], _ = timed(panel, bundle, cache, 0)
            first_reads = cache.full_reads
            for run in range(args.runs):
                task = session.next_task()
                assert task is not None, "the bench campaign ran out of tasks"
                receipt = session.cast(task.token, CHOICES[run % len(CHOICES)])
                with bundle.read_session() as read:
                    item = read.scalars(
                        select(Vote.item_id).where(Vote.uuid == receipt.uuids[0])
                    ).one()
                for name, panel in PANELS.items():
                    kept_ms, kept = timed(panel, bundle, cache, item)
                    full_ms, fresh = timed(panel, bundle, None, item)
                    assert comparable(kept) == comparable(fresh), f"{name} differs"
                    incremental[name].append(kept_ms)
                    full[name].append(full_ms)
            assert cache.full_reads == first_reads, "a vote caused a full read"
            judgments = len(cache.pairwise(bundle))
            reads = (cache.full_reads, cache.incremental_reads, cache.items_computed)

    load = os.getloadavg()
    print(
        f"bundle: {source.name} ({judgments:,} pairwise judgments; {args.models} models), "
        f"median of {args.runs} votes each; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"{'panel':<40}{'incremental':>13}{'full':>10}{'ratio':>8}{'first':>10}")
    for name in PANELS:
        kept_ms, full_ms = statistics.median(incremental[name]), statistics.median(full[name])
        print(
            f"{name:<40}{kept_ms:>11.0f}ms{full_ms:>8.0f}ms{full_ms / kept_ms:>7.1f}x"
            f"{first_ms[name]:>8.0f}ms"
        )
    kept_total = sum(statistics.median(incremental[name]) for name in PANELS)
    full_total = sum(statistics.median(full[name]) for name in PANELS)
    print(
        f"{'all four':<40}{kept_total:>11.0f}ms{full_total:>8.0f}ms{full_total / kept_total:>7.1f}x"
    )
    print(
        f"cache: {reads[0]} full reads (the first refresh), {reads[1]} incremental reads, "
        f"per-item results computed for {reads[2]:,} items in all; results identical to full"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
