"""What the cancel steps of long jobs cost, how soon a cancel takes effect, and how long the
judge dialog's Estimate (plan_run) takes on a large bundle.

    python bench/cancel_steps.py [--items 5000] [--models 6]

Builds a synthetic bundle (bench/make_synthetic_bundle.py; the quick size by default, add
``--items 100000 --models 20`` for the browsing benchmark's size) and times, in the same run:

* backup: ``make_backup`` (SQLite progress handler, live progress and cancel callbacks)
  against a bare ``VACUUM INTO`` with no handler, the copy it used to make;
* restore's copy: the block-by-block copy with a step per block against ``shutil.copyfile``;
* export (jsonl): with live progress and cancel callbacks against the default no-op ones, and
  the same export against itself, the noise floor of the machine at that moment;
* how long each stops after a cancel is asked half-way (the flag turns true at half the
  reference time): the time from the flag to the WorkCancelledError;
* new campaign (arena-battle, every model pair on every item): the longest stretch between two
  cancel steps, which bounds how long its Cancel can take;
* the judge's Estimate: plan_run over every model pair on every item, against the 50 ms the
  event loop may be held (why the GUI runs it off the GUI thread).

Each time is the best of ``--repeat`` runs. docs/PERFORMANCE.md quotes the figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(PROJECT / "bench"))

from make_synthetic_bundle import make_synthetic_bundle  # noqa: E402
from workbench_visit_bench.judge_templates import REFERENCE_FREE  # noqa: E402

from workbench.export import ExportOptions, export_bundle  # noqa: E402
from workbench.progress import Steps, WorkCancelledError  # noqa: E402
from workbench.services.campaigns import CampaignSpec, create_campaign  # noqa: E402
from workbench.services.judging.runner import JudgeSettings, plan_run  # noqa: E402
from workbench.services.judging.worklist import JudgeScope  # noqa: E402
from workbench.storage import Bundle  # noqa: E402
from workbench.storage import backups as storage_backups  # noqa: E402


def best(repeat: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def compare(
    repeat: int, ours: Callable[[], Any], reference: Callable[[], Any]
) -> tuple[float, float]:
    """The best of ``repeat`` runs of each, taken in turn, so that a change in the machine's
    load (six other engineers share it) falls on both alike."""
    ours_times: list[float] = []
    reference_times: list[float] = []
    for round_ in range(repeat):
        # which goes first alternates too: the first of a pair can pay for the other's garbage
        pairs = [(reference, reference_times), (ours, ours_times)]
        for work, times in pairs if round_ % 2 == 0 else pairs[::-1]:
            times.append(best(1, work))
    return min(ours_times), min(reference_times)


class LateCancel:
    """A cancel flag that turns true ``after`` seconds from the first time it is asked."""

    def __init__(self, after: float) -> None:
        self.after = after
        self.first: float | None = None
        self.flipped: float | None = None

    def __call__(self) -> bool:
        now = time.perf_counter()
        if self.first is None:
            self.first = now
        if now - self.first >= self.after:
            if self.flipped is None:
                self.flipped = self.first + self.after
            return True
        return False


def stop_latency(after: float, work: Callable[[LateCancel], Any]) -> float:
    """Seconds from the flag turning true to the work raising WorkCancelledError."""
    cancel = LateCancel(after)
    try:
        work(cancel)
    except WorkCancelledError:
        assert cancel.flipped is not None
        return time.perf_counter() - cancel.flipped
    raise RuntimeError("the work finished before the cancel: give it more to do")


def stretches(work: Callable[[Any], Any]) -> tuple[Any, float, tuple[str, float]]:
    """Run ``work(progress)``: its result, its time, and the longest stretch between two of
    its steps (or from the last step to the end) with the step that ended it."""
    marks: list[tuple[str, float]] = []
    started = time.perf_counter()
    result = work(lambda phase, _done, _total: marks.append((phase, time.perf_counter())))
    ended = time.perf_counter()
    times = [started, *(moment for _, moment in marks), ended]
    names = [*(phase for phase, _ in marks), "(the end)"]
    gaps = [(names[i], times[i + 1] - times[i]) for i in range(len(names))]
    return result, ended - started, max(gaps, key=lambda gap: gap[1])


def remove_backups(path: Path) -> None:
    for backup in storage_backups.list_backups(path):
        backup.path.unlink()


def bare_vacuum(path: Path, target: Path) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("VACUUM INTO ?", (str(target),))
    target.unlink()


def row(name: str, ours: float, reference: float, note: str = "") -> None:
    print(f"{name:<34} {ours:9.3f} s {reference:9.3f} s {ours / reference:7.2f}  {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--models", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("VLM_WORKBENCH_HOME", tempfile.mkdtemp(prefix="cancel-bench-"))

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        bundle = folder / "synthetic.wbb"
        started = time.perf_counter()
        make_synthetic_bundle(bundle, args.items, args.models)
        size = bundle.stat().st_size
        print(
            f"bundle: {args.items} items, {args.models} models, {size / 2**20:.1f} MiB, built in "
            f"{time.perf_counter() - started:.1f} s; load average "
            + " ".join(f"{load:.2f}" for load in os.getloadavg())
        )
        print(f"{'':<34} {'ours':>11} {'reference':>11} {'ratio':>7}")
        steps: list[tuple[str, int, int]] = []

        def progress(phase: str, done: int, total: int) -> None:
            steps.append((phase, done, total))

        def never() -> bool:
            return False

        # backup
        def backup() -> None:
            storage_backups.make_backup(bundle, progress=progress, cancel_requested=never)
            remove_backups(bundle)

        ours, reference = compare(
            args.repeat, backup, lambda: bare_vacuum(bundle, folder / "bare.wbb")
        )
        row("backup (VACUUM INTO)", ours, reference, "vs bare VACUUM INTO")
        latency = stop_latency(
            reference / 2,
            lambda cancel: storage_backups.make_backup(bundle, cancel_requested=cancel),
        )
        print(f"  backup stops {latency * 1000:.1f} ms after a cancel asked half-way")
        leftovers = [p.name for p in folder.iterdir() if p.name.endswith(".partial")]
        assert not leftovers and not storage_backups.list_backups(bundle), leftovers

        # restore's copy
        copy = folder / "copy.wbb"
        stepped = Steps(progress, never)
        # copied again and again up to 256 MiB, so that a millisecond of scheduling noise on a
        # loaded machine does not make the ratio
        times = max(1, (256 << 20) // size)

        def copies(copy_once: Callable[[], Any]) -> Callable[[], None]:
            return lambda: [copy_once() for _ in range(times)] and None

        ours, reference = compare(
            args.repeat,
            copies(lambda: storage_backups._copy_stepped(bundle, copy, stepped)),
            copies(lambda: shutil.copyfile(bundle, copy)),
        )
        row(f"restore copy ({times} x, 4 MiB blocks)", ours, reference, "vs shutil.copyfile")
        copy.unlink()

        # export
        out = folder / "pairs.jsonl"
        options = ExportOptions(format="jsonl")
        ours, reference = compare(
            args.repeat,
            lambda: export_bundle(bundle, out, options, progress=progress, cancel_requested=never),
            lambda: export_bundle(bundle, out, options),
        )
        row("export jsonl", ours, reference, "vs no-op callbacks")
        # the same call on both sides: how far apart two timings of identical work land here
        same, again = compare(
            args.repeat,
            lambda: export_bundle(bundle, out, options),
            lambda: export_bundle(bundle, out, options),
        )
        row("  noise: export jsonl vs itself", same, again, "(identical work)")
        out.unlink()
        latency = stop_latency(
            reference / 2,
            lambda cancel: export_bundle(bundle, out, options, cancel_requested=cancel),
        )
        print(f"  export stops {latency * 1000:.1f} ms after a cancel asked half-way")
        assert not out.exists()

        # new campaign: the longest stretch between two cancel steps
        with Bundle.open(bundle) as opened:
            summary, total, longest = stretches(
                lambda progress: create_campaign(
                    opened, CampaignSpec("bench", "arena-battle"), progress=progress
                )
            )
        print(
            f"new campaign ({summary.tasks} tasks) {total:.3f} s; longest stretch between two "
            f"cancel steps {longest[1]:.3f} s (before '{longest[0]}', "
            f"{longest[1] / total:.0%} of the whole)"
        )

        # the judge's Estimate
        settings = JudgeSettings(
            base_url="",
            judge_model="bench-judge",
            template=REFERENCE_FREE.name,
            selection=JudgeScope(models=None),
        )
        plan, seconds, longest = stretches(
            lambda progress: plan_run(bundle, settings, template=REFERENCE_FREE, progress=progress)
        )
        print(
            f"judge Estimate (plan_run, {len(plan.pending)} requests) {seconds:.3f} s = "
            f"{seconds / 0.05:.0f} x the 50 ms the event loop may be held; longest stretch "
            f"between two cancel steps {longest[1]:.3f} s (before '{longest[0]}')"
        )
        print("load average " + " ".join(f"{load:.2f}" for load in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
