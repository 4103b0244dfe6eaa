"""Judge throughput against a local OpenAI-compatible server with a fixed latency.

    python bench/judge_throughput.py [--items 400] [--concurrency 16] [--latency 0.2]
        [--baseline DIR]

Builds a synthetic bundle (ITEMS items, two models: ITEMS pairs, judged in both orders), starts
tests/judge/fake_openai_server.py in its own process, runs the judge through the same API the
CLI and the GUI use, and prints requests per second against the ideal concurrency / latency.
The issue's goal is at least 80% of 16 / 0.2 s = 80 requests per second. It also prints how
long the event loop went without running (wall clock) and the longest stretch it was kept busy
by the judge (its own CPU time), which the GUI needs under 50 ms, and the full garbage
collections during the run: the in-process run uses the GUI's collector thresholds (full
collections wait for an idle user, workbench/gui/collector.py) unless --default-gc.
The one-off imports a GUI does at start-up (workbench.services.judging.runner.prepare_runtime)
are done before measuring. Before that, in the same run against the same server, it times
``workbench judge`` on a bundle of its own as a whole process, interpreter start-up included
(at first 49% of the ideal rate that way): the goal of 80% holds for both. The
process runs with this checkout's plugins first on the path (not whichever are installed);
--baseline DIR times another checkout's ``workbench judge`` the same way against the same
server, right after ours, for a before/after ratio on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from workbench_visit_bench.judge_templates import REFERENCE_FREE  # noqa: E402

from tests.judge.helpers import build_bundle  # noqa: E402
from workbench.judge.secrets import Secret  # noqa: E402
from workbench.services.judging.runner import (  # noqa: E402
    JudgeProgress,
    JudgeRunner,
    JudgeSettings,
    plan_run,
    prepare_runtime,
)
from workbench.services.judging.worklist import JudgeScope  # noqa: E402

TICK = 0.005


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=400, help="pairs (default 400)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds (default 0.2)")
    parser.add_argument(
        "--default-gc",
        action="store_true",
        help="keep CPython's collector thresholds in the in-process run (the GUI defers full "
        "collections to idle moments, workbench/gui/collector.py; the CLI keeps the defaults)",
    )
    parser.add_argument(
        "--process-runs",
        type=int,
        default=1,
        help="whole-process runs (each on a fresh bundle); the median is printed",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (e.g. `git archive main | tar -x -C DIR`) whose whole "
        "`workbench judge` process is timed in the same run",
    )
    args = parser.parse_args()
    os.environ.setdefault("VLM_WORKBENCH_HOME", tempfile.mkdtemp(prefix="judge-bench-"))

    with tempfile.TemporaryDirectory() as scratch:
        bundle = build_bundle(Path(scratch), args.items)
        server = subprocess.Popen(
            [
                sys.executable,
                str(PROJECT / "tests/judge/fake_openai_server.py"),
                "--latency",
                str(args.latency),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            base_url = server.stdout.readline().strip()
            settings = JudgeSettings(
                base_url=base_url,
                judge_model="bench-judge",
                template=REFERENCE_FREE.name,
                selection=JudgeScope(),
                concurrency=args.concurrency,
            )
            plan = plan_run(bundle, settings, template=REFERENCE_FREE)
            if args.baseline is not None:
                import compileall  # as installing it would: no child compiles from source

                for package in ("workbench", "plugins"):
                    compileall.compile_dir(args.baseline / package, quiet=1)
            runs: list[tuple[int, float]] = []
            baseline_runs: list[tuple[int, float]] = []
            for run in range(args.process_runs):  # alternating, so load drifts hit both
                fresh = build_bundle(Path(scratch) / f"cli-{run}", args.items)
                runs.append(_whole_process(fresh, base_url, args.concurrency))
                if args.baseline is not None:
                    fresh = build_bundle(Path(scratch) / f"baseline-{run}", args.items)
                    checkout = args.baseline.resolve()
                    baseline_runs.append(
                        _whole_process(fresh, base_url, args.concurrency, checkout)
                    )
            process = _median_run(runs)
            baseline = _median_run(baseline_runs) if baseline_runs else None
            prepare_runtime()  # as the GUI does at start-up: the one-off imports
            if not args.default_gc:  # the GUI's collector: no automatic full collection
                from workbench.gui.collector import NO_AUTOMATIC_FULL_COLLECTION

                young, middle, _oldest = gc.get_threshold()
                gc.set_threshold(young, middle, NO_AUTOMATIC_FULL_COLLECTION)
            collections: list[float] = []
            gc.callbacks.append(_full_collection_timer(collections))
            result = asyncio.run(_measure(bundle, plan))
        finally:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(10)

    requests, wall, first, last, stall, busy, status = result
    ideal = args.concurrency / args.latency
    steady = (requests - 1) / (last - first) if last > first else float("nan")
    overall = requests / wall
    print(f"{'requests':<34}{requests:>10}")
    print(f"{'status':<34}{status:>10}")
    print(f"{'ideal (concurrency / latency) /s':<34}{ideal:>10.1f}")
    print(
        f"{'measured, first to last answer /s':<34}{steady:>10.1f}   {steady / ideal:6.1%} of ideal"
    )
    print(f"{'measured, whole run /s':<34}{overall:>10.1f}   {overall / ideal:6.1%} of ideal")
    print(f"{'whole run incl. start-up, s':<34}{wall:>10.2f}")
    print(f"{'longest loop stall (wall), ms':<34}{stall * 1000:>10.1f}")
    print(f"{'longest loop busy stretch, ms':<34}{busy * 1000:>10.1f}")
    longest = max(collections, default=0.0) * 1000
    print(f"{'full collections in the run':<34}{len(collections):>10}   longest {longest:.0f} ms")
    cli_requests, cli_wall = process
    cli_rate = cli_requests / cli_wall
    print(
        f"{'workbench judge, whole process, s':<34}{cli_wall:>10.2f}   {cli_requests} requests "
        f"(median of {args.process_runs})"
    )
    print(
        f"{'workbench judge, whole process /s':<34}{cli_rate:>10.1f}   "
        f"{cli_rate / ideal:6.1%} of ideal (interpreter start-up included)"
    )
    if baseline is not None:
        base_requests, base_wall = baseline
        base_rate = base_requests / base_wall
        print(
            f"{'baseline (--baseline), whole s':<34}{base_wall:>10.2f}   {base_requests} requests"
        )
        print(
            f"{'baseline, whole process /s':<34}{base_rate:>10.1f}   {base_rate / ideal:6.1%} of "
            f"ideal; ours / baseline (time) {cli_wall / base_wall:.2f}"
        )
    print(f"load average {' '.join(f'{value:.2f}' for value in os.getloadavg())} (2 cores)")
    return 0 if steady >= 0.8 * ideal and cli_rate >= 0.8 * ideal else 1


def _median_run(runs: list[tuple[int, float]]) -> tuple[int, float]:
    """The run of median time (requests, seconds)."""
    return sorted(runs, key=lambda run: run[1])[len(runs) // 2]


def _full_collection_timer(durations: list[float]) -> Callable[[str, dict[str, int]], None]:
    """A gc callback appending the duration of each full collection to ``durations``."""
    started: list[float] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started[:] = [time.perf_counter()]
        elif started:
            durations.append(time.perf_counter() - started[0])

    return callback


def _whole_process(
    bundle: Path, base_url: str, concurrency: int, checkout: Path = PROJECT
) -> tuple[int, float]:
    """``workbench judge`` of ``checkout`` on ``bundle`` as a user runs it: a fresh
    interpreter, timed from just before it is spawned to its exit. Returns (requests answered,
    seconds)."""
    command = [
        sys.executable,
        *("-m", "workbench.cli", "judge", str(bundle)),
        *("--base-url", base_url, "--model", "bench-judge", "--template", REFERENCE_FREE.name),
        *("--concurrency", str(concurrency), "--price", "0,0", "--max-requests", "0"),
        *("--yes", "--api-key-env", "BENCH_JUDGE_KEY", "--json"),
    ]
    # the checkout's own plugins, ahead of any installed ones (a development venv may have
    # another checkout's on its path)
    plugins = os.pathsep.join(
        filter(None, [str(checkout / "plugins"), os.environ.get("PYTHONPATH")])
    )
    environment = {**os.environ, "BENCH_JUDGE_KEY": "bench-key-not-secret", "PYTHONPATH": plugins}
    started = time.perf_counter()
    done = subprocess.run(
        command, env=environment, capture_output=True, text=True, cwd=checkout, timeout=600
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"workbench judge failed ({done.returncode}):\n{done.stderr[-2000:]}")
    summary = json.loads(done.stdout)
    if summary["status"] != "completed":
        raise SystemExit(f"workbench judge stopped: {summary['status']} {summary['stop_reason']}")
    return int(summary["done"]) - int(summary["cached"]), wall


async def _measure(
    bundle: Path, plan: object
) -> tuple[int, float, float, float, float, float, str]:
    answered: list[float] = []

    def progress(state: JudgeProgress) -> None:
        while len(answered) < state.done:
            answered.append(time.perf_counter())

    job = JudgeRunner(bundle, plan, Secret("bench-key-not-secret"), on_progress=progress)  # type: ignore[arg-type]
    started = time.perf_counter()
    task = asyncio.create_task(job.run())
    stall = busy = 0.0
    while not task.done():
        wall_before, cpu_before = time.perf_counter(), time.thread_time()
        await asyncio.sleep(TICK)
        stall = max(stall, time.perf_counter() - wall_before - TICK)
        busy = max(busy, time.thread_time() - cpu_before)
    summary = await task
    wall = time.perf_counter() - started
    return len(answered), wall, answered[0], answered[-1], stall, busy, summary.status


if __name__ == "__main__":
    sys.exit(main())
