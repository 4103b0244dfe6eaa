"""Every figure of docs/RELIABILITY.md from one command: the bad-input corpus
(bench/fuzz_inputs.py), the crash harness (bench/kill_harness.py) and the stress run
(bench/stress.py), each as a subprocess, collected into docs/reliability-figures.json.

    python bench/reliability_figures.py [--quick] [--stress-bundle PATH] [--out FILE]

--quick runs the bounded sample CI runs (a few cases per kind of damage, 3 kills per workload,
the stress steps on 2,000 items and 10,000 votes); without it everything runs at full size,
which takes about an hour on two cores, most of it building the 200,000-item stress bundle
(once: it is kept at --stress-bundle, by default in the app's cache folder). A script that is
missing or fails is recorded as such, and the exit status is then 1.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH.parent
FIGURES = PROJECT_ROOT / "docs" / "reliability-figures.json"


def _sections(quick: bool, stress_bundle: Path) -> dict[str, list[str]]:
    if quick:
        stress_sizes = ["--items", "2000", "--models", "30", "--votes", "10000"]
        stress_bundle = stress_bundle.with_name("stress-quick-2000x30-10000.wbb")
    else:
        stress_sizes = []
    return {
        "bad_input": ["fuzz_inputs.py", *(["--per-group", "3", "--texts", "500"] if quick else [])],
        "crashes": ["kill_harness.py", *(["--kills", "3"] if quick else [])],
        "stress": ["stress.py", "--bundle", str(stress_bundle), *stress_sizes],
    }


def run_section(arguments: list[str]) -> dict[str, Any]:
    script = BENCH / arguments[0]
    command = f"python bench/{' '.join(arguments)}"
    if not script.exists():
        return {"command": command, "ok": False, "error": f"{script.name} does not exist yet"}
    began = time.perf_counter()
    finished = subprocess.run(
        [sys.executable, str(script), *arguments[1:]], capture_output=True, text=True
    )
    seconds = round(time.perf_counter() - began, 1)
    try:
        summary = json.loads(finished.stdout)
    except json.JSONDecodeError:
        return {
            "command": command,
            "ok": False,
            "seconds": seconds,
            "error": f"exit {finished.returncode}, no JSON summary: {finished.stderr[-2000:]}",
        }
    result = {
        "command": command,
        "ok": finished.returncode == 0,
        "seconds": seconds,
        "summary": summary,
    }
    if finished.returncode != 0:
        result["error"] = f"exit {finished.returncode}: the script found problems (see summary)"
    return result


def _count(value: Any) -> int | None:
    return len(value) if isinstance(value, list) else value


def headline(sections: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The figures the document's summary quotes (None where a section did not run)."""
    figures: dict[str, Any] = {}
    fuzz = sections["bad_input"].get("summary")
    if fuzz:
        importers = fuzz["importers"]
        texts = sum(
            entry.get("texts", 0)
            for entry in fuzz["verdict_parsers"].values()
            if isinstance(entry, dict)
        )
        figures["bad_inputs_tried"] = importers.get("cases_tried")
        figures["bad_input_imports_run"] = importers.get("imports_run")
        figures["bad_input_crashes"] = _count(importers.get("crashes"))
        figures["bad_input_failures"] = _count(importers.get("failures"))
        figures["judge_answers_parsed"] = texts
    kills = sections["crashes"].get("summary")
    if kills:
        figures["kills"] = kills["total"]["kills"]
        figures["kills_survived"] = kills["total"]["survived"]
        figures["confirmed_writes_checked"] = kills["total"]["confirmed"]
        figures["confirmed_writes_lost"] = kills["total"]["lost"]
    stress = sections["stress"].get("summary")
    if stress:
        figures["largest_bundle"] = {
            "items": stress["items"],
            "models": stress["models"],
            "votes": stress["votes"],
            "megabytes": round(stress["bundle_mb"]),
        }
        figures["stress_peak_mb"] = round(stress["peak_mb"])
        figures["stress_steps_ok"] = stress["ok"]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the bounded sample CI runs")
    parser.add_argument(
        "--stress-bundle",
        type=Path,
        help="where the stress bundle is built once and reused (default: the cache folder)",
    )
    parser.add_argument("--out", type=Path, default=FIGURES, help=f"default {FIGURES}")
    args = parser.parse_args()
    if args.stress_bundle is None:
        from workbench.paths import cache_dir

        args.stress_bundle = cache_dir() / "bench" / "stress-200000x30-1000000.wbb"

    sections: dict[str, dict[str, Any]] = {}
    for name, arguments in _sections(args.quick, args.stress_bundle).items():
        print(f"{name}: python bench/{' '.join(arguments)} …", file=sys.stderr, flush=True)
        sections[name] = run_section(arguments)
        state = "ok" if sections[name]["ok"] else f"FAILED: {sections[name].get('error', '')}"
        print(f"{name}: {state}", file=sys.stderr, flush=True)
    document = {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python bench/reliability_figures.py" + (" --quick" if args.quick else ""),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "headline": headline(sections),
        "sections": sections,
    }
    args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(document["headline"], indent=2))
    return 0 if all(section["ok"] for section in sections.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
