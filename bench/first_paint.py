"""Time from process start to the first item painted, against a bare PySide6 window.

    QT_QPA_PLATFORM=offscreen python bench/first_paint.py [--bundle B.wbb] [--items 100000]
        [--models 20] [--runs 3] [--baseline DIR]

"ours" starts ``python -m workbench.cli open BUNDLE`` as a user would (a fresh interpreter,
every import included) and stops the clock when the item list first paints a row (the app's
own hook, workbench/gui/first_paint.py, records the time and exits). The reference starts
``python bench/first_paint.py --bare-window REPORT`` the same way: it shows an empty
QMainWindow and stops the clock at its first paint. Both are timed from just before the process
is spawned, and each child records the CPU it has spent (user + system, every thread) at that
paint; the runs alternate and the medians of --runs each are printed, wall and CPU apart, with
the machine's load before and after. Goal: ours within 1.5 CPU s of the bare window (on a
shared machine the wall clock measures the load as much as the app).

Without --bundle a synthetic bundle (bench/make_synthetic_bundle.py) is generated once into the
cache folder and reused. Each child runs with its own XDG folders (a temporary directory), so
the user's recent bundles and settings are not touched; bundle reading is included (the item
list's first query), the first automatic backup of the day runs on a worker as it would for a
user.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
GOAL_SECONDS = 1.5


def bare_window(report: str) -> None:
    """The reference: an empty QMainWindow, exiting at its first paint."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication, QMainWindow

    class FirstPaint(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                spent = os.times()
                found = {
                    "time": time.time(),
                    "cpu": spent.user + spent.system,
                    "gui_cpu": time.thread_time(),
                }
                Path(report).write_text(json.dumps(found), encoding="utf-8")
                os._exit(0)
            return False

    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    window.resize(1600, 1000)
    probe = FirstPaint(window)
    window.installEventFilter(probe)
    window.show()
    app.exec()


Run = tuple[float, float, float]


def _time_child(command: list[str], report: Path, home: Path, cwd: Path | None = None) -> Run:
    """The wall seconds from just before the child is spawned to its first paint, the CPU
    seconds (user + system) the child had spent by then in all its threads, and in its GUI
    thread alone."""
    environment = dict(os.environ)
    environment.setdefault("QT_QPA_PLATFORM", "offscreen")
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        environment[variable] = str(home / variable.lower())
    environment["WORKBENCH_FIRST_PAINT_REPORT"] = str(report)
    environment["WORKBENCH_FIRST_PAINT_EXIT"] = "1"
    report.unlink(missing_ok=True)
    started = time.time()
    finished = subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=300, cwd=cwd
    )
    if not report.exists():
        raise SystemExit(
            f"no first paint from {' '.join(command)} (exit {finished.returncode}):\n"
            f"{finished.stderr[-2000:]}"
        )
    found = json.loads(report.read_text(encoding="utf-8"))
    return float(found["time"]) - started, float(found["cpu"]), float(found["gui_cpu"])


def _compile_package(package: Path) -> None:
    """Write the package's bytecode first, as installing it does: with
    PYTHONDONTWRITEBYTECODE set every child would otherwise compile each of our modules from
    source, about 0.5 s that no installed app pays."""
    import compileall

    compileall.compile_dir(package, quiet=1)


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (e.g. `git archive main | tar -x -C DIR`) whose `workbench open` "
        "is timed in the same runs, for a before/after ratio on a loaded machine",
    )
    parser.add_argument("--bare-window", metavar="REPORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_window:
        bare_window(args.bare_window)
        return 1  # reached only if the window never painted

    bundle = args.bundle
    if bundle is None:
        sys.path.insert(0, str(BENCH))
        from make_synthetic_bundle import cached_synthetic_bundle

        bundle = cached_synthetic_bundle(args.items, args.models)

    _compile_package(BENCH.parent / "workbench")
    if args.baseline is not None:
        _compile_package(args.baseline / "workbench")
    ours_command = [sys.executable, "-m", "workbench.cli", "open", str(Path(bundle).resolve())]
    bare_command = [sys.executable, str(Path(__file__).resolve()), "--bare-window"]
    ours: list[Run] = []
    bare: list[Run] = []
    baseline: list[Run] = []
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="first-paint-") as folder:
        work = Path(folder)
        report = work / "report.json"
        for run in range(args.runs):
            bare.append(_time_child([*bare_command, str(report)], report, work / f"bare-{run}"))
            ours.append(_time_child(ours_command, report, work / f"ours-{run}", BENCH.parent))
            if args.baseline is not None:
                home = work / f"baseline-{run}"
                baseline.append(_time_child(ours_command, report, home, args.baseline))
    load_after = _load()

    size = "" if args.bundle else f" ({args.items} items x {args.models} models)"
    print(f"bundle: {bundle}{size}")
    print(f"load average before {load_before}, after {load_after}; median of {args.runs} runs")
    print("start-up and bundle reading included; process start to first paint")
    print("CPU: user + system seconds at the first paint, of the process and of its GUI thread")
    print(f"{'':28} {'wall s':>7} {'CPU s':>7} {'GUI CPU':>7}   runs, wall / CPU / GUI CPU s")
    rows = [("workbench open (first item)", ours), ("bare PySide6 window", bare)]
    if baseline:
        rows.append(("baseline (--baseline)", baseline))
    medians = {}
    for label, runs in rows:
        wall, cpu, gui = (statistics.median(run[index] for run in runs) for index in range(3))
        medians[label] = (wall, cpu, gui)
        print(f"{label:28} {wall:7.2f} {cpu:7.2f} {gui:7.2f}   {_runs(runs)}")
    ours_wall, ours_cpu, ours_gui = medians["workbench open (first item)"]
    bare_wall, bare_cpu, bare_gui = medians["bare PySide6 window"]
    if baseline:
        base_wall, base_cpu, _base_gui = medians["baseline (--baseline)"]
        print(
            f"over the bare window, CPU: ours {ours_cpu - bare_cpu:.2f} s, baseline "
            f"{base_cpu - bare_cpu:.2f} s; wall: ours {ours_wall - bare_wall:.2f} s, baseline "
            f"{base_wall - bare_wall:.2f} s"
        )
    gap, gui_gap = ours_cpu - bare_cpu, ours_gui - bare_gui
    verdict = "met" if gap <= GOAL_SECONDS else "NOT met"
    gui_verdict = "met" if gui_gap <= GOAL_SECONDS else "NOT met"
    print(
        f"difference {gap:.2f} CPU s ({verdict}), GUI thread {gui_gap:.2f} CPU s ({gui_verdict}), "
        f"{ours_wall - bare_wall:.2f} wall s (goal: within {GOAL_SECONDS} CPU s of the bare window)"
    )
    return 0


def _runs(values: list[Run]) -> str:
    return " ".join(f"{wall:.2f}/{cpu:.2f}/{gui:.2f}" for wall, cpu, gui in values)


if __name__ == "__main__":
    sys.exit(main())
