"""SIGKILL at random moments during bundle creation, import, voting, a judge run, a pack merge
and a migration: after every kill the bundle is sound, opens, and holds everything that was
confirmed; then the work resumes and completes. CI kills each workload a few times; ``pytest -m
long`` many more (``python bench/kill_harness.py --kills N`` prints the figures docs/RELIABILITY.md
quotes)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.kill_harness import WORKLOADS, WorkerServer, kill_repeatedly

CI_KILLS = 3
LONG_KILLS = 25


@pytest.fixture(scope="module")
def server() -> Iterator[WorkerServer]:
    with WorkerServer() as running:
        yield running


def seed() -> int:
    # a different moment every run, printed so a failure can be replayed
    return int(os.environ.get("KILL_SEED", os.getpid()))


@pytest.mark.parametrize("workload", WORKLOADS)
def test_a_killed_worker_loses_nothing_it_confirmed(
    workload: str, tmp_path: Path, server: WorkerServer
) -> None:
    run_seed = seed()
    summary = kill_repeatedly(workload, tmp_path, CI_KILLS, server, seed=run_seed)
    assert summary.problems == [], f"KILL_SEED={run_seed}: {summary.problems}"
    assert summary.lost == 0
    assert summary.survived == summary.kills


@pytest.mark.long
@pytest.mark.parametrize("workload", WORKLOADS)
def test_many_kills(workload: str, tmp_path: Path, server: WorkerServer) -> None:
    run_seed = seed()
    summary = kill_repeatedly(workload, tmp_path, LONG_KILLS, server, seed=run_seed)
    assert summary.problems == [], f"KILL_SEED={run_seed}: {summary.problems}"
    assert summary.kills >= LONG_KILLS // 2, summary
    assert summary.confirmed > 0
