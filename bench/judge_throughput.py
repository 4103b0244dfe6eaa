"""Judge throughput against a local OpenAI-compatible server with a fixed latency.

    python bench/judge_throughput.py [--items 400] [--concurrency 16] [--latency 0.2]

Builds a synthetic bundle (ITEMS items, two models: ITEMS pairs, judged in both orders), starts
tests/judge/fake_openai_server.py in its own process, runs the judge through the same API the
CLI and the GUI use, and prints requests per second against the ideal concurrency / latency.
The issue's goal is at least 80% of 16 / 0.2 s = 80 requests per second. It also prints how
long the event loop went without running (wall clock) and the longest stretch it was kept busy
by the judge (its own CPU time), which the GUI needs under 50 ms. The one-off imports a GUI does
at start-up (workbench.services.judging.runner.prepare_runtime) are done before measuring.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from workbench_visit_bench.judge_templates import REFERENCE_FREE  # noqa: E402

from tests.judge.helpers import build_bundle  # noqa: E402
from workbench.judge.secrets import Secret  # noqa: E402
from workbench.services.judging.runner import (  # noqa: E402
    JudgeJob,
    JudgeProgress,
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
            prepare_runtime()  # as the GUI does at start-up: the one-off imports
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
    return 0 if steady >= 0.8 * ideal else 1


async def _measure(
    bundle: Path, plan: object
) -> tuple[int, float, float, float, float, float, str]:
    answered: list[float] = []

    def progress(state: JudgeProgress) -> None:
        while len(answered) < state.done:
            answered.append(time.perf_counter())

    job = JudgeJob(bundle, plan, Secret("bench-key-not-secret"), on_progress=progress)  # type: ignore[arg-type]
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
