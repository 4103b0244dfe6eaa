"""The GUI tests in random order, each repeated, to find order and timing dependence (a result
delivered to a widget an earlier test deleted, a fixture that leaks state). Not part of the
default test run: it takes several times as long.

    pip install -e '.[stress]'
    python bench/gui_test_order.py [--count 3] [--seed N] [--bucket module|global] [PATH...]

Prints the seed (rerun with ``--seed`` to reproduce an order), the outcome and the wall time;
exits with pytest's status.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3, help="runs of each test (default 3)")
    parser.add_argument("--seed", type=int, help="the order's seed (default: a new one)")
    parser.add_argument(
        "--bucket",
        default="global",
        choices=["module", "package", "global"],
        help="shuffle within modules, or across all of them (default)",
    )
    parser.add_argument("paths", nargs="*", default=["tests/gui"], help="default: tests/gui")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "--random-order",
        f"--random-order-bucket={args.bucket}",
        f"--random-order-seed={seed}",
        f"--count={args.count}",
        *args.paths,
    ]
    environment = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    print(f"seed {seed}: {' '.join(command[1:])}", flush=True)
    started = time.perf_counter()
    status = subprocess.call(command, cwd=ROOT, env=environment)
    print(f"seed {seed}: exit {status} after {time.perf_counter() - started:.0f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
