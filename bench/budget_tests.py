"""Run the opt-in ``budget`` tests: the ones that assert a duration, a stall or a count at a
moment, which the default test run leaves out because they depend on the machine's load.

    QT_QPA_PLATFORM=offscreen python bench/budget_tests.py [--load]

Each is a fresh ``pytest -m "budget and not long"`` over tests/, without the panels' stall tests
(bench/event_loop_stalls.py runs those, with their idle reference). Each test prints its figure
against a reference measured in the same run (the loop's busiest stretch while idle, the GUI
thread's CPU between ticks); printed here: each test's verdict with its figure lines, and the
load average before and after. The exit status is pytest's.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the panels' stall tests: bench/event_loop_stalls.py runs and reports them
STALLS = "tests/gui/test_panels_responsiveness.py"
#: pytest -s -v prints a test's name, then its output (the figure), then the verdict
TOKEN = re.compile(
    r"(?P<name>tests/\S+::\S+)|(?P<figure>[^\n]*\d ms[^\n]*)"
    r"|\b(?P<verdict>PASSED|FAILED|ERROR|SKIPPED)\b"
)


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args()
    command = [sys.executable, "-m", "pytest", "tests", "-m", "budget and not long"]
    command += ["--ignore", STALLS, "-s", "-v", "-p", "no:cacheprovider"]
    path = os.pathsep.join((str(ROOT), str(ROOT / "plugins")))
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": path}
    before = load()
    done = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False
    )
    output = re.split(r"\n=+ (?:FAILURES|short test summary info) =+\n", done.stdout)[0]
    name, figures = "", []
    for token in TOKEN.finditer(output):
        if token["name"]:
            name, figures = token["name"], []
        elif token["figure"]:
            figures.append(token["figure"].strip())
        elif token["verdict"]:
            print(f"{token['verdict']:<8}{name}\n        {'; '.join(figures) or 'no figure'}")
    print(f"load before / after: {before} / {load()}")
    if done.returncode != 0:
        print(done.stdout[-4000:], file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
