"""Run the test suite (or part of it) on a machine kept busy on purpose, and report what failed.

    python bench/suite_under_load.py [--per-core 4] [--runs 2] [--idle-reference]
        [--workers 2] [--no-postgres] [-- PYTEST-ARGS...]

The default tests nowhere assert a duration and wait for events, not for time, so they pass
however busy the machine is; this is the check. It starts ``--per-core`` x cores busy processes
(pure-Python spin loops, the load of compiles or other test runs on a shared machine) pinned to
the same cores as pytest, so the load average is at least that many per core, and runs pytest
under them ``--runs`` times: by default the whole suite as scripts/test runs it (with a
PostgreSQL server started by scripts/postgres.sh unless WORKBENCH_TEST_POSTGRES_URL names one or
--no-postgres is given); after ``--`` any pytest selection instead. Like scripts/test, pytest
runs on ``--workers`` pytest-xdist workers (2; 0 runs it in one process), a whole test file per
worker. Printed for each run: its wall time, the load average sampled during it, the counts and
every failed or erroring test.
--idle-reference first runs the same selection without the load, so the loaded runs' wall time
is also given as a ratio to it. The exit status is 1 if any run had a failure or an error.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SPIN = "while True:\n    pass\n"
#: seconds between two samples of the load average during a run
LOAD_SAMPLE_SECONDS = 5.0


@dataclass
class Outcome:
    """One pytest run: its exit status, wall time, the loads seen and the tests that failed."""

    status: int
    seconds: float
    loads: list[float]
    counts: dict[str, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == 0 and not self.failed


def cores() -> set[int]:
    """The cores this process may run on (all of them unless it was pinned)."""
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    return set(range(os.cpu_count() or 1))


class BusyProcesses:
    """``count`` spinning interpreters pinned to ``pinned``, until the block ends."""

    def __init__(self, count: int, pinned: set[int]) -> None:
        self.count = count
        self.pinned = pinned
        self.processes: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> BusyProcesses:
        for _ in range(self.count):
            process = subprocess.Popen([sys.executable, "-c", SPIN])
            if hasattr(os, "sched_setaffinity"):
                os.sched_setaffinity(process.pid, self.pinned)
            self.processes.append(process)
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait()


def _sample_loads(loads: list[float], stop: threading.Event) -> None:
    while not stop.wait(LOAD_SAMPLE_SECONDS):
        loads.append(os.getloadavg()[0])


def _failures(report: Path) -> tuple[dict[str, int], list[str]]:
    """The counts and the failed or erroring tests of a JUnit XML report."""
    if not report.exists():
        return {}, []
    root = ElementTree.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        for name in counts:
            counts[name] += int(suite.get(name, 0))
    failed = []
    for case in root.iter("testcase"):
        for kind in ("failure", "error"):
            problem = case.find(kind)
            if problem is not None:
                message = (problem.get("message") or "").splitlines()[:1]
                where = f"{case.get('classname', '')}::{case.get('name', '')}"
                failed.append(f"{kind}: {where}: {' '.join(message)[:200]}")
    return counts, failed


def worker_arguments(workers: int) -> list[str]:
    """pytest's options for ``workers`` pytest-xdist workers, as scripts/test passes them."""
    if not workers:
        return []
    return ["-n", str(workers), "--dist", "loadfile", "--no-loadscope-reorder"]


def run_pytest(arguments: list[str], environment: dict[str, str], pinned: set[int]) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="suite-under-load-") as scratch:
        report = Path(scratch) / "report.xml"
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
        command += [f"--junitxml={report}", *arguments]
        loads = [os.getloadavg()[0]]
        stop = threading.Event()
        sampler = threading.Thread(target=_sample_loads, args=(loads, stop), daemon=True)
        sampler.start()
        started = time.perf_counter()
        # a session of its own, so that an interrupt ends pytest and every process it started
        process = subprocess.Popen(command, cwd=PROJECT, env=environment, start_new_session=True)
        try:
            if hasattr(os, "sched_setaffinity"):
                os.sched_setaffinity(process.pid, pinned)  # its children inherit the cores
            status = process.wait()
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
        finally:
            stop.set()
            sampler.join()
        seconds = time.perf_counter() - started
        counts, failed = _failures(report)
    return Outcome(status, seconds, loads, counts, failed)


def _start_postgres(folder: Path) -> str:
    done = subprocess.run(
        ["bash", str(PROJECT / "scripts" / "postgres.sh"), "start", str(folder / "cluster")],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def _stop_postgres(folder: Path) -> None:
    subprocess.run(
        ["bash", str(PROJECT / "scripts" / "postgres.sh"), "stop", str(folder / "cluster")],
        capture_output=True,
        check=False,
    )


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def describe(label: str, outcome: Outcome, idle: Outcome | None) -> str:
    counts = outcome.counts
    passed = counts.get("tests", 0) - sum(counts.get(k, 0) for k in ("failures", "errors"))
    passed -= counts.get("skipped", 0)
    ratio = f" ({outcome.seconds / idle.seconds:.1f}x idle)" if idle and idle.seconds else ""
    line = (
        f"{label}: {'ok' if outcome.ok else 'FAILED'} (pytest exit {outcome.status}), "
        f"{passed} passed, {counts.get('failures', 0)} failed, {counts.get('errors', 0)} "
        f"errors, {counts.get('skipped', 0)} skipped, {outcome.seconds:.0f} s{ratio}, "
        f"load average during the run: mean {statistics.fmean(outcome.loads):.1f}, "
        f"max {max(outcome.loads):.1f}"
    )
    return "\n".join([line, *(f"    {failure}" for failure in outcome.failed)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-core", type=int, default=4, help="busy processes per core")
    parser.add_argument("--runs", type=int, default=1, help="loaded runs, one after another")
    parser.add_argument(
        "--idle-reference", action="store_true", help="first run the selection without load"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="pytest-xdist workers, as scripts/test runs them (0: one process)",
    )
    parser.add_argument(
        "--no-postgres", action="store_true", help="start no PostgreSQL server for the run"
    )
    parser.add_argument("pytest_args", nargs="*", help="after --: what pytest runs")
    args = parser.parse_args()
    # SIGTERM ends a run as Ctrl-C does: the busy processes and pytest are stopped, not left
    signal.signal(signal.SIGTERM, _interrupted)
    if args.per_core < 1 or args.runs < 1:
        parser.error("--per-core and --runs must be at least 1")
    if args.workers < 0:
        parser.error("--workers must be 0 (one process) or more")
    pytest_args = worker_arguments(args.workers) + args.pytest_args
    pinned = cores()
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    environment.setdefault("PYTHONPATH", os.pathsep.join((str(PROJECT), str(PROJECT / "plugins"))))
    busy = args.per_core * len(pinned)
    print(
        f"{busy} busy processes ({args.per_core} per core) on cores {sorted(pinned)}; "
        f"pytest {' '.join(args.pytest_args) or '(the whole suite)'} "
        f"on {args.workers or 'no'} xdist workers",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="suite-under-load-pg-") as pg_folder:
        postgres = (
            not args.no_postgres
            and not environment.get("WORKBENCH_TEST_POSTGRES_URL")
            and environment.get("WORKBENCH_TEST_POSTGRES", "on") != "off"
        )
        if postgres:
            os.chmod(pg_folder, 0o755)
            environment["WORKBENCH_TEST_POSTGRES_URL"] = _start_postgres(Path(pg_folder))
        try:
            idle = None
            if args.idle_reference:
                idle = run_pytest(pytest_args, environment, pinned)
                print(describe("idle reference", idle, None), flush=True)
            outcomes = []
            for number in range(1, args.runs + 1):
                with BusyProcesses(busy, pinned):
                    outcome = run_pytest(pytest_args, environment, pinned)
                outcomes.append(outcome)
                print(describe(f"loaded run {number}", outcome, idle), flush=True)
        finally:
            if postgres:
                _stop_postgres(Path(pg_folder))
    return 0 if all(outcome.ok for outcome in outcomes) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: busy processes and pytest stopped", file=sys.stderr)
        sys.exit(130)
