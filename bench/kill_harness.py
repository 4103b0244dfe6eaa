"""Crash survival: SIGKILL workers at random (seeded) moments during bundle creation, import,
voting, a judge run, a pack merge and a migration, and count what survived.

    python bench/kill_harness.py [--kills 25] [--seed 0] [--workloads import,voting,...]

After every kill the bundle must pass the header check every open runs, SQLite's
``PRAGMA quick_check``, open, and hold every vote, verdict, import, merge or migration the
worker confirmed; then the work resumes and completes. Prints one JSON object: per workload and
in total, kills, survived, confirmed, lost (docs/RELIABILITY.md quotes it). Exit status 1 when
anything was lost or damaged. The harness is tests/reliability/kill_harness.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from tests.reliability.kill_harness import WORKLOADS, WorkerServer, kill_repeatedly  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=25, help="kills per workload (default 25)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    parser.add_argument(
        "--workloads",
        default=",".join(WORKLOADS),
        help=f"comma-separated, from {', '.join(WORKLOADS)} (default: all)",
    )
    args = parser.parse_args()
    names = [name.strip() for name in args.workloads.split(",") if name.strip()]
    unknown = sorted(set(names) - set(WORKLOADS))
    if unknown:
        parser.error(f"unknown workloads: {', '.join(unknown)}")
    started = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory(prefix="kill-harness-") as scratch, WorkerServer() as server:
        for name in names:
            folder = Path(scratch) / name
            folder.mkdir()
            summary = kill_repeatedly(name, folder, args.kills, server, seed=args.seed)
            results.append(summary.as_dict())
            print(f"{name}: {summary.as_dict()}", file=sys.stderr)
    totals = {
        key: sum(result[key] for result in results)
        for key in ("kills", "survived", "confirmed", "lost", "finished_before_kill")
    }
    report = {
        "kills_per_workload": args.kills,
        "seed": args.seed,
        "seconds": round(time.perf_counter() - started, 1),
        "total": totals,
        "workloads": results,
    }
    print(json.dumps(report, indent=2))
    damaged = any(result["problems"] for result in results)
    return 1 if damaged or totals["lost"] else 0


if __name__ == "__main__":
    sys.exit(main())
