"""Time the item list's model-pair filter (the linked selection's ``ItemQuery.pair``) against the
unfiltered item query on the same synthetic bundle, and check its answer.

    python bench/item_list_pair.py [--items 20000] [--models 10] [--votes 20000] [--repeat 5]

The bundle (bench/make_synthetic_bundle.py, with an Arena-style campaign's votes so that both
imported judgments and votes are read) is generated once into the cache folder and reused. The
reference is the list's plain query (``ItemQuery()``), which every opening of the bundle runs;
the pair query runs on the item list's worker thread when two leaderboard rows are chosen. The
answer is checked against the items found by reading every pairwise judgment in Python.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from workbench.paths import cache_dir
from workbench.services.browse import ItemQuery, matching_item_ids
from workbench.storage import Bundle
from workbench.storage.judgments import read_judgments

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_synthetic_bundle import make_synthetic_bundle


def timed(run, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--votes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    path = cache_dir() / "bench" / f"pair-{args.items}x{args.models}v{args.votes}.wbb"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"generating {path} …", flush=True)
        make_synthetic_bundle(path, args.items, args.models, votes=args.votes)

    with Bundle.open(path) as bundle, bundle.read_session() as session:
        _, rows = read_judgments(session, columns=("item", "model_a", "model_b"), pairwise=True)
        pair = ("synthetic-model-01", "synthetic-model-02")
        expected = {item for item, a, b in rows if {a, b} == set(pair)}
        plain, everything = timed(lambda: matching_item_ids(session, ItemQuery()), args.repeat)
        paired, found = timed(lambda: matching_item_ids(session, ItemQuery(pair=pair)), args.repeat)
    assert isinstance(everything, list) and isinstance(found, list)
    print(f"bundle: {args.items:,} items, {args.models} models, {len(rows):,} pairwise judgments")
    print(f"load average: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    print(f"{'query':<28}{'median ms':>10}{'ratio':>8}{'items':>9}")
    print(f"{'all items (reference)':<28}{1000 * plain:>10.1f}{1.0:>8.2f}{len(everything):>9,}")
    print(
        f"{'pair ' + ' vs '.join(p[-2:] for p in pair):<28}{1000 * paired:>10.1f}"
        f"{paired / plain:>8.2f}{len(found):>9,}"
    )
    agrees = set(found) == expected
    print(f"pair answer matches a full read of the judgments: {agrees}")
    return 0 if agrees else 1


if __name__ == "__main__":
    sys.exit(main())
