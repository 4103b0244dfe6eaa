"""A judge run never keeps the event loop it runs on busy for more than 50 ms at a stretch (the
GUI shares its loop with Qt): bundle I/O, image encoding and the final bookkeeping happen in
threads, and per-request work on the loop is small.

The loop thread's own CPU time across each short sleep is what is measured, against the same
loop idle in the same run. Under load more answers arrive between two wake-ups and are handled
in one stretch, so the figure depends on the machine: a ``budget`` test, run by bench/all.py
(figure "budgets"), not by default; bench/judge_throughput.py reports the wall-clock stalls.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from workbench_arena.judge_templates import ANCHORED_FIVE_LEVEL

from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import FAKE_KEY, build_bundle
from tests.judge.judging import settings_for
from workbench.judge.secrets import Secret
from workbench.services.judging.runner import JudgeRunner, plan_run

pytestmark = pytest.mark.budget

TICK = 0.005
#: how long the idle loop is watched for the reference
IDLE_SECONDS = 0.5


async def busiest_idle_stretch() -> float:
    """The loop thread's most CPU across one short sleep with nothing else to do."""
    busiest = 0.0
    deadline = time.monotonic() + IDLE_SECONDS
    while time.monotonic() < deadline:
        before = time.thread_time()
        await asyncio.sleep(TICK)
        busiest = max(busiest, time.thread_time() - before)
    return busiest


def test_the_loop_is_never_busy_for_long_during_a_run(tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path, 100, models=("m-a", "m-b", "m-c"))
    # Latency varies, as real endpoints' does; a constant one would keep the 16 requests in
    # lockstep, all answered in the same instant, which no endpoint does.
    faults = Faults(latency=0.02, latency_jitter=0.5, malformed_share=0.1)
    with FakeOpenAIServer(faults=faults) as server:
        settings = settings_for(server, ANCHORED_FIVE_LEVEL, concurrency=16)
        plan = plan_run(bundle, settings, template=ANCHORED_FIVE_LEVEL)
        assert len(plan.pending) == 600

        async def run_and_watch() -> tuple[float, str]:
            job = JudgeRunner(bundle, plan, Secret(FAKE_KEY))
            task = asyncio.create_task(job.run())
            busiest = 0.0
            while not task.done():
                before = time.thread_time()
                await asyncio.sleep(TICK)
                busiest = max(busiest, time.thread_time() - before)
            return busiest, (await task).status

        idle = asyncio.run(busiest_idle_stretch())
        busiest, status = asyncio.run(run_and_watch())
    assert status == "completed"
    print(
        f"\nloop busiest stretch: {busiest * 1000:.1f} ms during the run, "
        f"{idle * 1000:.1f} ms idle in the same run"
    )
    assert busiest < 0.05, f"the loop was busy for {busiest * 1000:.0f} ms at a stretch"
