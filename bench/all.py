"""Re-run every performance figure and write what each script printed into one generated page.

    python bench/all.py [--quick] [--only NAME[,NAME...]] [--update] [--list]
        [--out docs/performance-runs.md]

Each figure of docs/PERFORMANCE.md comes from one script in bench/; this runs them one after
another, each as a fresh process (start-up included, as a user would meet it), and records for
each: the exact command, its wall time, the machine's load average before and after, and the
script's own output (its table, with our time, the reference's time timed in the same run, and
the ratio where the script has a reference). The page starts with the machine and library
versions, so a figure is never quoted without what it was measured on.

--quick runs each script at the reduced size CI-like machines can afford in minutes (the figures
then show the same ratios at smaller sizes, and say so); without it the full sizes of the
issues' targets run, which takes about an hour on two cores. A script that fails is recorded
with its exit status and error output, and the run goes on; the exit status is 1 if any failed.

Each run is also kept as a record beside the page (``performance-runs.json``: the command, its
output, the loads, the date and the commit it ran on), and the page is rendered from the
records. ``--update`` keeps the records of the figures not re-run (``--only``), so one figure
can be measured again after a change without an hour's run; each row of the page names its own
date, commit and size, so a page mixing runs says which is which.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
DEFAULT_OUT = PROJECT / "docs" / "performance-runs.md"
RECORDS_SUFFIX = ".json"


@dataclass(frozen=True)
class Figure:
    """One bench script and the arguments of its full and quick runs."""

    name: str
    script: str
    what: str
    full: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()
    needs_display: bool = False
    reads_shared_data: bool = False


def _figures(work: Path) -> list[Figure]:
    return [
        Figure(
            "import",
            "import_all.py",
            "import of all of ../shared/data into one new bundle",
            reads_shared_data=True,
        ),
        Figure(
            "parquet",
            "import_parquet.py",
            "parquet import of 30,000 arena battles with a 200 KB image each: rate, peak memory",
            quick=("--count", "3000"),
        ),
        Figure(
            "ratings",
            "ratings.py",
            "Bradley-Terry + bootstrap against the FastChat/Arena-Hard way, in one process",
            quick=("--rounds", "20", "--synthetic-battles", "100000", "--synthetic-models", "30"),
            reads_shared_data=True,
        ),
        Figure(
            "judge",
            "judge_throughput.py",
            "judge requests per second against a local server with fixed latency",
            # the whole process's rate is near its goal: a median of three, not one run
            full=("--process-runs", "3"),
            quick=("--items", "100"),
        ),
        Figure(
            "browse",
            "browse.py",
            "open a large bundle to the first item painted, and next-item steps",
            quick=("--items", "5000", "--models", "8", "--steps", "100"),
            needs_display=True,
        ),
        Figure(
            "first-paint",
            "first_paint.py",
            "process start to the first item painted, against a bare PySide6 window",
            quick=("--items", "5000", "--models", "8"),
            needs_display=True,
        ),
        Figure(
            "cancel",
            "cancel_steps.py",
            "cost of the cancel steps (backup, restore, export), stop latency, Estimate time",
            full=("--items", "20000", "--models", "8"),
            quick=("--items", "5000", "--models", "6"),
        ),
        Figure(
            "demo",
            "demo_build.py",
            "the demo bundle built (goal 3 s)",
        ),
        Figure(
            "next-task",
            "annotation_next_task.py",
            "next annotation task at 100,000 tasks, against the old open-task recount",
            quick=("--tasks", "10000", "--steps", "100"),
        ),
        Figure(
            "long-outputs",
            "long_outputs.py",
            "first screen of a 250 KB bullet list and of 10 MB outputs (goal 1 s)",
            needs_display=True,
        ),
        Figure(
            "report",
            "report.py",
            "the HTML report of all shared data + 2,000 votes + a judge run (goal 20 s, 600 MB)",
            quick=("--bootstrap", "20"),
            reads_shared_data=True,
        ),
        Figure(
            "annotators",
            "annotator_load.py",
            "concurrent annotators on one campaign (SQLite; PostgreSQL when a server is given)",
            full=("--backend", "sqlite", "--seconds", "60", "--items", "600"),
            quick=("--backend", "sqlite", "--seconds", "10", "--items", "100"),
        ),
        Figure(
            "after-vote",
            "panel_after_vote.py",
            "a vote saved to the leaderboard panel showing it, against the poll and full refresh",
            quick=("--items", "2000", "--models", "10", "--votes", "20000", "--runs", "5"),
            needs_display=True,
        ),
        Figure(
            "analysis-after-vote",
            "analysis_panels_after_vote.py",
            "a vote to the Agreement, Graph and Failures panels' results, kept judgments "
            "against a full re-read",
            quick=("--items", "2000", "--models", "10", "--votes", "20000", "--runs", "5"),
        ),
        Figure(
            "stress",
            "stress.py",
            "1,000,000 votes over 200,000 items and 100 models: open, browse, rate, export, GUI",
            # the same bundle as leaderboard-1m (1,000,000 votes, 100 models), built once for both
            full=("--bundle", str(work / "stress-100" / "stress.wbb"), "--models", "100"),
            quick=(
                *("--bundle", str(work / "stress-quick" / "stress.wbb")),
                *("--items", "2000", "--models", "10", "--votes", "10000", "--steps", "50"),
            ),
            needs_display=True,
        ),
        Figure(
            "vote-to-paint",
            "vote_to_paint.py",
            "vote key to the next task painted on a 13,500-task campaign (goal p95 50 ms)",
            quick=("--votes", "60"),
            needs_display=True,
        ),
        Figure(
            "markdown",
            "markdown_on_gui_thread.py",
            "a text area's markdown on the GUI thread, against building it on a worker",
            quick=("--texts", "50"),
            needs_display=True,
        ),
        Figure(
            "stalls",
            "event_loop_stalls.py",
            "longest event-loop stall while panels recompute and a bundle opens (goal 100 ms)",
            quick=("--runs", "1"),
            needs_display=True,
        ),
        Figure(
            "budgets",
            "budget_tests.py",
            "the opt-in budget tests (pytest -m budget): the judge's loop and the judge dialog's "
            "GUI thread never busy over 50 ms at a stretch, against the idle loop",
            needs_display=True,
        ),
        Figure(
            "leaderboard-process",
            "leaderboard_process.py",
            "workbench leaderboard as a whole process against FastChat's 2025 script (goal 3x)",
            quick=("--runs", "3"),
            reads_shared_data=True,
        ),
        Figure(
            "leaderboard-1m",
            "leaderboard_stress.py",
            "leaderboard with 100 rounds on 1,000,000 votes x 100 models (goal 5 s, 400 MB)",
            full=("--bundle", str(work / "stress-100" / "stress.wbb")),
            quick=(
                *("--bundle", str(work / "stress-100-quick" / "stress.wbb")),
                *("--items", "20000", "--models", "10", "--votes", "100000", "--runs", "1"),
            ),
        ),
        Figure(
            "first-item-1m",
            "stress.py",
            "1,000,000 votes x 100 models: process start to the first item painted and to the "
            "screenshot, 3 runs against a bare window (goal: within 2 s of it)",
            # the bundle of leaderboard-1m (same sizes), built by whichever runs first
            full=(
                *("--bundle", str(work / "stress-100" / "stress.wbb"), "--models", "100"),
                *("--only", "gui", "--gui-runs", "3"),
            ),
            quick=(
                *("--bundle", str(work / "stress-100-quick" / "stress.wbb")),
                *("--items", "20000", "--models", "10", "--votes", "100000"),
                *("--only", "gui", "--gui-runs", "3"),
            ),
            needs_display=True,
        ),
        Figure(
            "after-vote-1m",
            "panel_after_vote.py",
            "a vote to the leaderboard panel showing it at 1,000,000 votes x 100 models "
            "(goal 200 ms), against the poll and full refresh",
            full=(
                *("--bundle", str(work / "stress-100" / "stress.wbb"), "--models", "100"),
                *("--runs", "5", "--full-runs", "3"),
            ),
            quick=("--items", "2000", "--models", "10", "--votes", "20000", "--runs", "5"),
            needs_display=True,
        ),
        Figure(
            "item-list-pair",
            "item_list_pair.py",
            "the item list filtered to one model pair against the plain query",
            quick=("--items", "5000", "--votes", "5000", "--repeat", "3"),
        ),
    ]


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version(), "machine": platform.machine()}
    for distribution in ("PySide6-Essentials", "numpy", "pandas", "SQLAlchemy", "openai"):
        try:
            versions[distribution] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            versions[distribution] = "not installed"
    return versions


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def _git(*arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], capture_output=True, text=True, cwd=PROJECT, check=True
    ).stdout.strip()


def _commit() -> str:
    """The commit the figures run on, with ``+dirty`` when the tree has changes."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


@dataclass(frozen=True)
class Run:
    """One figure's run, as kept in the records file and shown on the page."""

    name: str
    what: str
    command: str  # as shown: paths relative to the project
    size: str  # "full" or "quick"
    date: str
    commit: str
    seconds: float
    load_before: str
    load_after: str
    status: int
    output: str


def _shown(command: list[str]) -> str:
    return " ".join(
        shlex.quote(os.path.relpath(part, PROJECT) if part.startswith(str(PROJECT)) else part)
        for part in ["python", *command[1:]]
    )


def run_figure(figure: Figure, *, quick: bool, commit: str) -> Run:
    arguments = figure.quick if quick else figure.full
    command = [sys.executable, str(BENCH / figure.script), *arguments]
    shared_data = os.environ.get("VLM_WORKBENCH_SHARED_DATA")
    if figure.reads_shared_data and shared_data:  # as the test suite finds it
        command += ["--data", shared_data]
    environment = dict(os.environ)
    if figure.needs_display:
        environment.setdefault("QT_QPA_PLATFORM", "offscreen")
    load_before = _load()
    started = time.perf_counter()
    finished = subprocess.run(
        command, capture_output=True, text=True, env=environment, cwd=PROJECT, check=False
    )
    seconds = time.perf_counter() - started
    output = finished.stdout
    if finished.returncode != 0:
        output += "\n[stderr]\n" + finished.stderr[-4000:]
    return Run(
        name=figure.name,
        what=figure.what,
        command=_shown(command),
        size="quick" if quick else "full",
        date=f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}",
        commit=commit,
        seconds=round(seconds, 1),
        load_before=load_before,
        load_after=_load(),
        status=finished.returncode,
        output=output,
    )


def records_path(page: Path) -> Path:
    return page.with_suffix(RECORDS_SUFFIX)


def read_records(page: Path) -> list[Run]:
    """The runs kept beside ``page`` (none if it has no records file yet)."""
    path = records_path(page)
    if not path.exists():
        return []
    try:
        return [Run(**record) for record in json.loads(path.read_text())["runs"]]
    except (ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"{path} is not a records file of bench/all.py: {error}") from error


def merged(kept: list[Run], new: list[Run], order: list[str]) -> list[Run]:
    """``kept`` with each figure re-run in ``new`` replaced, in the figures' order."""
    by_name = {run.name: run for run in kept} | {run.name: run for run in new}
    known = [by_name.pop(name) for name in order if name in by_name]
    return known + sorted(by_name.values(), key=lambda run: run.name)


def write(page: Path, runs: list[Run]) -> None:
    records = {"runs": [vars(run) for run in runs]}
    records_path(page).write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n")
    page.write_text(render(runs))


def render(runs: list[Run]) -> str:
    sizes = sorted({run.size for run in runs})
    lines = [
        "# Performance runs (generated)",
        "",
        "Written by `python bench/all.py` from its records (performance-runs.json); do not edit "
        "by hand. docs/PERFORMANCE.md explains each figure and its goal. Each row names the "
        "date, commit and size (`full`: the issues' target sizes; `quick`: reduced sizes) of "
        "its run.",
        "",
        f"- written: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"- sizes: {', '.join(sizes) or 'none'}",
        f"- cores: {os.cpu_count()}",
    ]
    lines += [f"- {name}: {version}" for name, version in _versions().items()]
    lines += [
        "",
        "| figure | what | size | date (UTC) | commit | wall s (whole process) | load before "
        "| load after | status |",
        "|---|---|---|---|---|---:|---|---|---|",
    ]
    for run in runs:
        status = "ok" if run.status == 0 else f"failed ({run.status})"
        lines.append(
            f"| {run.name} | {run.what} | {run.size} | {run.date} | {run.commit} "
            f"| {run.seconds:.1f} | {run.load_before} | {run.load_after} | {status} |"
        )
    for run in runs:
        lines += ["", f"## {run.name}", "", "```", f"$ {run.command}"]
        lines += [run.output.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced sizes (minutes)")
    parser.add_argument("--only", help="comma-separated figure names (see --list)")
    parser.add_argument(
        "--update",
        action="store_true",
        help="keep the recorded runs of the figures not re-run (with --only)",
    )
    parser.add_argument("--list", action="store_true", help="list the figures and exit")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default {DEFAULT_OUT}")
    parser.add_argument("--work", type=Path, help="where bundles built once are kept")
    args = parser.parse_args()
    work = args.work or Path(tempfile.gettempdir()) / "vlm-workbench-bench"
    figures = _figures(work)
    if args.list:
        for figure in figures:
            print(f"{figure.name:<12} bench/{figure.script:<22} {figure.what}")
        return 0
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {figure.name for figure in figures}
        if unknown:
            parser.error(f"unknown figure(s): {', '.join(sorted(unknown))} (see --list)")
        figures = [figure for figure in figures if figure.name in wanted]
    order = [figure.name for figure in _figures(work)]
    kept = read_records(args.out) if args.update else []
    commit = _commit()
    runs = []
    for figure in figures:
        print(f"== {figure.name}: bench/{figure.script}", flush=True)
        run = run_figure(figure, quick=args.quick, commit=commit)
        print(run.output.rstrip(), flush=True)
        print(f"-- {run.seconds:.1f} s, load {run.load_before} -> {run.load_after}", flush=True)
        runs.append(run)
        # written after each figure: an hour's run stopped halfway keeps what it measured
        write(args.out, merged(kept, runs, order))
    print(f"written to {args.out}")
    return 0 if all(run.status == 0 for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
