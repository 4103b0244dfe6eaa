"""``workbench leaderboard --bootstrap 100 --json`` on 1,000,000 votes over 100 models and
200,000 items, as whole processes: the goal is 5 s and 400 MB each.

    python bench/leaderboard_stress.py --bundle /tmp/stress100.wbb [--runs 3] [--rounds 100]
        [--items 200000] [--models 100] [--votes 1000000]

The bundle is built once with bench/make_synthetic_bundle.py (slow: tens of minutes for these
sizes) and reused while its ``<bundle>.params.json`` matches. Three commands are timed, each
--runs times, alternately: the campaign's votes (``--campaign``, as bench/stress.py runs it)
and every judgment (no filter, which also counts the bundle's imported judgments), both on the
command line's quick path, and the campaign's votes with ``--kind human`` (the same judgments:
votes are human), which takes the full service path, for comparison. Each result is checked as
bench/stress.py checks it: every model rated, the ratings' order close to the hidden strengths
the votes were drawn from, non-empty intervals. Prints wall and CPU seconds (start-up
included), peak memory and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from make_synthetic_bundle import CAMPAIGN  # noqa: E402
from stress import check_leaderboard  # noqa: E402

GOAL_SECONDS = 5.0
GOAL_MB = 400.0


def build_once(args: argparse.Namespace) -> None:
    wanted = {"items": args.items, "models": args.models, "votes": args.votes, "seed": 0}
    params = args.bundle.with_name(args.bundle.name + ".params.json")
    if args.bundle.exists() and params.exists():
        if json.loads(params.read_text()).get("params") == wanted:
            return
        raise SystemExit(f"{args.bundle} was built with other sizes; give another --bundle")
    partial = args.bundle.with_name(args.bundle.name + ".partial")
    command = [sys.executable, str(BENCH / "make_synthetic_bundle.py"), str(partial)]
    for flag, value in wanted.items():
        command += [f"--{flag}", str(value)]
    print(f"building {args.bundle} …", file=sys.stderr, flush=True)
    subprocess.run(command, check=True)
    partial.replace(args.bundle)
    params.write_text(json.dumps({"params": wanted}, indent=2))


def run(command: list[str]) -> dict[str, Any]:
    began = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(BENCH.parent)},
    )
    output = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    errors = process.stderr.read() if process.stderr else b""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{errors.decode()[-2000:]}")
    return {
        "wall": time.perf_counter() - began,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "document": json.loads(output),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--votes", type=int, default=1_000_000)
    args = parser.parse_args()
    build_once(args)
    # a bundle cached by an older app: the read-only leaderboard would refuse it
    subprocess.run(
        [sys.executable, "-m", "workbench.cli", "upgrade", str(args.bundle)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    base = [sys.executable, "-m", "workbench.cli", "leaderboard", str(args.bundle)]
    base += ["--bootstrap", str(args.rounds), "--json"]
    commands = {
        "--campaign": [*base, "--campaign", CAMPAIGN],
        "no filter": base,
        "--campaign --kind (full path)": [*base, "--campaign", CAMPAIGN, "--kind", "human"],
    }
    timings: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            timings[name].append(run(command))
    load = os.getloadavg()
    print(
        f"leaderboard --bootstrap {args.rounds} --json, {args.votes:,} votes, {args.models} "
        f"models, {args.items:,} items; median of {args.runs}; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"{'':30} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}  check")
    for name, runs in timings.items():
        document = runs[-1]["document"]
        votes = args.votes if "--campaign" in name else document["battles"]
        checked = check_leaderboard(document, args.models, votes)
        wall = statistics.median(run["wall"] for run in runs)
        cpu = statistics.median(run["cpu"] for run in runs)
        peak = max(run["peak_mb"] for run in runs)
        met = "met" if wall <= GOAL_SECONDS and peak <= GOAL_MB else "NOT met"
        print(
            f"{name:30} {wall:8.2f} {cpu:8.2f} {peak:8.0f}  rank correlation "
            f"{checked['rank_correlation_with_truth']:.3f}, {document['battles']:,} judgments; "
            f"goal {GOAL_SECONDS:g} s / {GOAL_MB:g} MB {met}"
        )


if __name__ == "__main__":
    main()
