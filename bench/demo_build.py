"""Time building the demo bundle (goal: within 3 s), from the call to the renamed file,
Python's start-up and imports excluded; there is no reference implementation to compare with.

    python bench/demo_build.py [--runs 3] [--seed 0]

Each run writes a fresh bundle into a temporary folder; the table prints every run, the best
and the median.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from workbench.demo import generate_demo_bundle

GOAL_SECONDS = 3.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    times = []
    with tempfile.TemporaryDirectory(prefix="workbench-bench-demo-") as folder:
        for run in range(args.runs):
            start = time.perf_counter()
            generate_demo_bundle(Path(folder) / f"demo-{run}.wbb", seed=args.seed)
            times.append(time.perf_counter() - start)
    print(f"{'run':>5} {'seconds':>8}")
    for run, seconds in enumerate(times, start=1):
        print(f"{run:>5} {seconds:>8.2f}")
    best, median = min(times), statistics.median(times)
    verdict = "met" if median <= GOAL_SECONDS else "missed"
    print(f"best {best:.2f} s, median {median:.2f} s (goal {GOAL_SECONDS:g} s: {verdict})")


if __name__ == "__main__":
    main()
