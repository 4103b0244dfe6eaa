"""Start-up of the ``workbench`` command as whole processes: CPU and wall time of short
commands, this tree against a baseline tree in the same run.

    python bench/cli_start_up.py [--runs 5] [--baseline DIR]

Each case is a fresh ``python -m workbench.cli ...`` (interpreter start-up, every import and the
command's own work included), timed from just before the spawn to its exit: wall time, and the
child's CPU (user + system, from the reaped child's rusage). The cases: ``--help``, ``--version``,
``info`` and ``campaign list`` of the demo bundle, ``leaderboard --json`` (the quick path) and
``judge-templates``. With --baseline (a folder holding another tree's ``workbench/`` and
``plugins/``, e.g. ``git archive COMMIT workbench plugins | tar -x -C DIR``) each run times the
baseline's process right after ours, so both meet the same load; the medians of --runs and
the ratio ours / baseline are printed, with the machine's load before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cases(bundle: Path) -> dict[str, list[str]]:
    return {
        "--help": ["--help"],
        "--version": ["--version"],
        "info": ["info", str(bundle)],
        "campaign list": ["campaign", "list", str(bundle)],
        "leaderboard --json": ["leaderboard", str(bundle), "--json", "--bootstrap", "0"],
        "judge-templates": ["judge-templates"],
    }


def _environment(tree: Path, home: Path) -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join((str(tree), str(tree / "plugins")))
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        environment[variable] = str(home / variable.lower())
    return environment


def time_process(arguments: list[str], tree: Path, home: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python -m workbench.cli ARGUMENTS`` run on ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "workbench.cli", *arguments],
        env=_environment(tree, home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(arguments)} on {tree} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _compile(tree: Path) -> None:
    """Bytecode written first, as installing the package does, so no run pays compilation."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(tree / "workbench"), str(tree / "plugins")],
        check=True,
        capture_output=True,
    )


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each case (default 5)")
    parser.add_argument("--baseline", type=Path, help="another tree timed in the same runs")
    args = parser.parse_args()
    trees = {"ours": ROOT}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    for tree in trees.values():
        _compile(tree)
    with tempfile.TemporaryDirectory() as work_folder:
        work = Path(work_folder)
        bundle = work / "demo.wbb"
        subprocess.run(
            [sys.executable, "-m", "workbench.cli", "demo", "--out", str(bundle)],
            env=_environment(ROOT, work / "home"),
            check=True,
            capture_output=True,
        )
        load_before = _load()
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.runs):
            for name, arguments in cases(bundle).items():
                for label, tree in trees.items():
                    figures.setdefault((name, label), []).append(
                        time_process(arguments, tree, work / f"home-{label}")
                    )
        load_after = _load()
    print(f"load average before {load_before}, after {load_after}; median of {args.runs} runs")
    header = f"{'case':<20}{'ours wall s':>12}{'ours CPU s':>12}"
    if len(trees) > 1:
        header += f"{'base wall s':>12}{'base CPU s':>12}{'wall ratio':>11}{'CPU ratio':>10}"
    print(header)
    for name in cases(Path("B")):
        ours = figures[(name, "ours")]
        wall = statistics.median(run[0] for run in ours)
        cpu = statistics.median(run[1] for run in ours)
        line = f"{name:<20}{wall:>12.3f}{cpu:>12.3f}"
        if len(trees) > 1:
            base = figures[(name, "baseline")]
            base_wall = statistics.median(run[0] for run in base)
            base_cpu = statistics.median(run[1] for run in base)
            line += f"{base_wall:>12.3f}{base_cpu:>12.3f}"
            line += f"{wall / base_wall:>11.2f}{cpu / base_cpu:>10.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
