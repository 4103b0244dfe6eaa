"""The longest event-loop stalls while the analysis panels open a busy bundle and recompute,
against an idle event loop timed in the same run, over several runs.

    QT_QPA_PLATFORM=offscreen python bench/event_loop_stalls.py [--runs 3] [--long]
        [--case synthetic|wildvision] [--tweaks]

Each run is a fresh ``pytest tests/gui/test_panels_responsiveness.py -s``: the synthetic cases
(20 models, 20,000 judgments, 500 bootstrap rounds) and the WildVision-Bench open (the shared
data imported into a bundle, 50,288 judgments, all four panels on screen until each has shown
its result; skipped without ../shared/data). --case keeps one of the two; --long runs only the
1,000,000-vote variant (minutes to build). The test measures the longest wall-clock gap
between ticks of a 10 ms timer while the work runs, the GUI thread's CPU time in that gap,
and the longest gap of the same timer idle (the reference); it fails over 100 ms plus the
idle gap's excess over a quiet machine's 15 ms. Printed: each case's figures per run (the
stall, the GUI thread's CPU and its wait for a core in that gap, the idle gap), the stall's
ratio to the idle gap, the budget, the GUI thread's most CPU between any two ticks ("max
CPU": the app's own longest piece of work on it), the test's verdict, and the load average
before and after each run; for the WildVision-Bench open, the seconds from the open until each
panel showed its result.

--tweaks compares the app's scheduling tweaks (workbench/gui/tweaks.py): each run becomes a
round of runs, one with every tweak on and one with each tweak turned off alone, in that order,
so each setting meets the machine's load of the same moment; the medians per setting and case
over the rounds are printed at the end.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/gui/test_panels_responsiveness.py"
FIGURE = re.compile(
    r"longest stall: the event loop stalled for (\d+) ms of wall-clock time \((\d+) ms of it "
    r"GUI-thread CPU, (-?\d+|nan) ms waiting for a core\).*idle loop's longest gap in this run: "
    r"(\d+) ms, so the budget is (\d+) ms(?:; the GUI thread's most CPU between two ticks: "
    r"(\d+) ms)?"
)
TOKEN = re.compile(
    r"::(?P<name>test_\w+)|longest stall: [^\n]*|\b(?P<verdict>PASSED|FAILED|ERROR|SKIPPED)\b"
)
SHOWN = re.compile(r"results shown \(s after the open\): ([^\n]*)")
#: --case: the tests' name filter (pytest -k)
CASES = {"synthetic": "not wildvision", "wildvision": "wildvision"}


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def one_run(
    long: bool, case: str | None, switches: dict[str, str] | None = None
) -> tuple[list[tuple[str, str, tuple[int, ...]]], str, str, str]:
    before = load()
    command = [sys.executable, "-m", "pytest", TEST, "-s", "-v", "-p", "no:cacheprovider"]
    # budget tests are not in the default run; --long picks the 1,000,000-vote one
    command += ["-m", "budget and long" if long else "budget and not long"]
    command += ["-k", CASES[case]] if case else []
    # this tree's plugins too, not those of another checkout on the interpreter's path
    path = os.pathsep.join((str(ROOT), str(ROOT / "plugins")))
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": path}
    environment.update(switches or {})
    output = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False
    ).stdout
    # pytest -s -v prints the test's name, then its output (the figure), then the verdict;
    # the failures' report and summary after that repeat names and verdicts out of order
    output = re.split(r"\n=+ (?:FAILURES|short test summary info) =+\n", output)[0]
    results: list[tuple[str, str, tuple[int, ...]]] = []
    name, figure = "", ()
    for token in TOKEN.finditer(output):
        if token["name"]:
            name, figure = token["name"], ()
        elif token["verdict"]:
            results.append((name, token["verdict"], figure))
        elif found := FIGURE.search(token[0]):  # not the source line of a failure's traceback
            figure = tuple(
                int(group) if group not in ("nan", None) else -1 for group in found.groups()
            )
    if not results:
        print(output[-3000:], file=sys.stderr)
    shown = SHOWN.search(output)
    return results, before, load(), shown[1] if shown else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--long", action="store_true", help="the 1,000,000-vote variant only")
    parser.add_argument("--case", choices=sorted(CASES), help="only these cases (default: all)")
    parser.add_argument(
        "--tweaks", action="store_true", help="each run: every tweak on, then each one off alone"
    )
    args = parser.parse_args()
    # the tweaks' variables, read from the app's one list of them (this tree's)
    sys.path.insert(0, str(ROOT))
    from workbench.gui.tweaks import TWEAKS

    settings: list[tuple[str, dict[str, str]]] = [("all on", dict.fromkeys(TWEAKS, "1"))]
    if args.tweaks:
        for tweak in TWEAKS:
            settings.append((f"{tweak}=0", {**dict.fromkeys(TWEAKS, "1"), tweak: "0"}))
    stalls: dict[tuple[str, str], list[int]] = defaultdict(list)
    print(
        f"{'run':<5}{'setting':<36}{'case':<62}{'stall':>8}{'GUI CPU':>9}{'queued':>9}"
        f"{'idle':>7}{'ratio':>7}"
        f"{'budget':>8}{'max CPU':>9}  verdict  load before / after"
    )
    for run, (setting, switches) in itertools.product(range(1, args.runs + 1), settings):
        results, before, after, shown = one_run(args.long, args.case, switches)
        for name, verdict, figure in results:
            if not figure:
                print(
                    f"{run:<5}{setting:<36}{name[5:]:<62}{'no figure':>48}  {verdict:<7}  "
                    f"{before} / {after}"
                )
                continue
            stall, cpu, queued, idle, budget, most_cpu = figure
            stalls[setting, name[5:]].append(stall)
            print(
                f"{run:<5}{setting:<36}{name[5:]:<62}{stall:>6}ms{cpu:>7}ms{queued:>7}ms{idle:>5}ms"
                f"{stall / max(idle, 1):>6.1f}x{budget:>6}ms{most_cpu:>7}ms  {verdict:<7}  "
                f"{before} / {after}"
            )
        if shown:
            print(f"{'':<5}  WildVision-Bench panels' results shown (s after the open): {shown}")
    if args.tweaks:
        print(f"\nmedian longest stall over {args.runs} round(s)")
        for (setting, name), values in stalls.items():
            print(f"{setting:<36}{name:<62}{statistics.median(values):>8.0f}ms  {values}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
