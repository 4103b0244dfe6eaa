"""Stress run: a 200,000-item, 30-model synthetic bundle with 1,000,000 campaign
votes, opened, browsed, rated, exported and shown in the GUI, each step in a fresh process whose
peak memory is recorded.

    python bench/stress.py --bundle /tmp/stress/stress.wbb [--items 200000] [--models 30]
        [--votes 1000000] [--steps 200] [--bootstrap 100] [--json-out FILE]

The bundle is built once (bench/make_synthetic_bundle.py) at --bundle and reused by later runs;
a file beside it (``<bundle>.params.json``) records what it holds, so a run with other sizes
refuses to reuse it. Steps:

- open: ``Bundle.open`` and the first item of the inspector's list (``matching_item_ids``,
  ``item_detail``), timed inside the process;
- browse: the detail of the next item, ``--steps`` times (p50 and p95);
- leaderboard-bt / leaderboard-elo: ``workbench leaderboard BUNDLE --campaign ... --json``
  (Bradley-Terry with ``--bootstrap`` rounds, then Elo) over the campaign's votes;
- export: ``workbench export BUNDLE --campaign ... --format jsonl`` (one record per vote);
- gui: ``workbench open BUNDLE --screenshot FILE`` offscreen, --gui-runs times (median), with
  the time from the process's spawn to the item list's first painted row (the app's hook,
  workbench/gui/first_paint.py) as well as to the screenshot, taken once nothing is left to
  read (the deferred disagreement flags included); the reference, a bare PySide6 window
  (bench/first_paint.py --bare-window) from spawn to its first paint, runs alternately in the
  same run. The goal: the first item within 2 s of the bare window.

Every step also checks its result (rows seen, the ratings' order against the hidden strengths
the votes were drawn from, records written, a screenshot of the window's size); a failed check
fails the run. Peak memory is the child's maximum resident set (``wait4``'s ``ru_maxrss``).
The table goes to stderr, the JSON summary to stdout (and --json-out).
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
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from make_synthetic_bundle import CAMPAIGN, model_strengths  # noqa: E402

#: a step whose process holds more than this is a fault to find, not a figure to report
MEMORY_LIMIT_MB = 4096
#: goal: the first item painted within this many seconds of a bare window's first paint
FIRST_ITEM_GOAL_S = 2.0
#: the checks' bound on Spearman's rank correlation of the ratings with the hidden strengths
MIN_RANK_CORRELATION = 0.9
WORKBENCH_CLI = "import sys; from workbench.cli import main; sys.exit(main(sys.argv[1:]))"
STEPS = ("open", "browse", "leaderboard-bt", "leaderboard-elo", "export", "gui")


class StepFailed(RuntimeError):
    pass


# --- inside a step's own process ---------------------------------------------------------------


def _peak_mb_self() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def step_open(bundle_path: Path) -> dict[str, Any]:
    from workbench.services.browse import ItemQuery, item_detail, matching_item_ids
    from workbench.storage import Bundle

    began = time.perf_counter()
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        ids = matching_item_ids(session, ItemQuery())
        detail = item_detail(session, ids[0])
        seconds = time.perf_counter() - began
    if detail is None or not detail.turns or not detail.turns[0].outputs:
        raise StepFailed("the first item came back without its turns and outputs")
    return {
        "inner_seconds": seconds,
        "items_listed": len(ids),
        "first_item": detail.external_id,
        "first_item_outputs": sum(len(turn.outputs) for turn in detail.turns),
    }


def step_browse(bundle_path: Path, steps: int) -> dict[str, Any]:
    from workbench.services.browse import ItemQuery, item_detail, matching_item_ids
    from workbench.storage import Bundle

    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        ids = matching_item_ids(session, ItemQuery())
        item_detail(session, ids[0])
        timings, outputs = [], 0
        for item_id in ids[1 : steps + 1]:
            began = time.perf_counter()
            detail = item_detail(session, item_id)
            timings.append((time.perf_counter() - began) * 1000)
            if detail is None:
                raise StepFailed(f"item {item_id} of the list has no detail")
            outputs += sum(len(turn.outputs) for turn in detail.turns)
    return {
        "items_visited": len(timings),
        "outputs_read": outputs,
        "next_p50_ms": statistics.median(timings),
        "next_p95_ms": _percentile(timings, 0.95),
        "next_max_ms": max(timings),
    }


def run_step_here(name: str, bundle_path: Path, steps: int) -> int:
    """Run an in-process step (open, browse) and print its result as one JSON line."""
    result = step_open(bundle_path) if name == "open" else step_browse(bundle_path, steps)
    result["peak_mb_self"] = _peak_mb_self()
    print(json.dumps(result))
    return 0


# --- the parent: one child process per step ---------------------------------------------------


def run_child(command: list[str], stdout_path: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run ``command`` with stdout to a file; its wall time, exit status and peak RSS, and the
    ``time.time()`` it was spawned at (``spawned``)."""
    spawned = time.time()
    began = time.perf_counter()
    with stdout_path.open("wb") as stdout:
        process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, env=env)
        # wait4 reaps this child alone and gives its own rusage (RUSAGE_CHILDREN would give
        # the largest of all children so far)
        assert process.stderr is not None
        error = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - began
    return {
        "seconds": seconds,
        "spawned": spawned,
        "peak_mb": usage.ru_maxrss / 1024,  # kilobytes on Linux
        "exit_code": process.returncode,
        "stderr": error.decode("utf-8", "replace")[-2000:],
    }


def _spearman(order: list[str], expected: list[str]) -> float:
    rank = {name: position for position, name in enumerate(expected)}
    n = len(order)
    moved = sum((position - rank[name]) ** 2 for position, name in enumerate(order))
    return 1 - 6 * moved / (n * (n * n - 1))


def check_leaderboard(document: dict[str, Any], models: int, votes: int) -> dict[str, Any]:
    rated = [entry["model"] for entry in document["models"]]
    if len(rated) != models:
        raise StepFailed(f"{len(rated)} models rated, {models} expected")
    if document["battles"] != votes:
        raise StepFailed(f"{document['battles']} battles counted, {votes} votes cast")
    strengths = model_strengths(models)
    expected = sorted(
        (f"synthetic-model-{n:02d}" for n in range(1, models + 1)),
        key=lambda name: -strengths[int(name.rsplit("-", 1)[1]) - 1],
    )
    correlation = _spearman(rated, expected)
    if correlation < MIN_RANK_CORRELATION:
        raise StepFailed(f"ratings' rank correlation with the true strengths is {correlation:.3f}")
    result: dict[str, Any] = {"models_rated": len(rated), "battles": document["battles"]}
    result["rank_correlation_with_truth"] = correlation
    result["top_model"] = rated[0]
    if document.get("bootstrap"):
        # the anchor is pinned: its rating has no interval
        anchor = (document.get("anchor") or {}).get("model")
        widths = [
            entry["ci_upper"] - entry["ci_lower"]
            for entry in document["models"]
            if entry["model"] != anchor
        ]
        if any(width is None or width <= 0 for width in widths):
            raise StepFailed("a bootstrap interval is missing or empty")
        result["median_ci_width"] = statistics.median(widths)
    return result


def check_export(path: Path, summary: dict[str, Any], votes: int) -> dict[str, Any]:
    if summary["records"] != votes:
        raise StepFailed(f"{summary['records']} records exported, {votes} votes cast")
    lines = 0
    uuids = set()
    with path.open("rb") as exported:
        for line in exported:
            lines += 1
            uuids.add(json.loads(line)["metadata"]["vote_uuid"])
    if lines != votes or len(uuids) != votes:
        raise StepFailed(f"{lines} lines with {len(uuids)} distinct votes, {votes} expected")
    return {"records": lines, "file_mb": path.stat().st_size / 1e6}


def check_screenshot(path: Path) -> dict[str, Any]:
    from PIL import Image

    with Image.open(path) as image:
        width, height = image.size
        colours = image.convert("L").getextrema()
    if width < 400 or height < 300 or colours[0] == colours[1]:
        raise StepFailed(f"the screenshot is {width}x{height} with extrema {colours}")
    return {"screenshot": f"{width}x{height}"}


def ensure_bundle(args: argparse.Namespace) -> dict[str, Any]:
    """Build the bundle unless a build with the same sizes is there already."""
    wanted = {"items": args.items, "models": args.models, "votes": args.votes, "seed": args.seed}
    params_path = args.bundle.with_name(args.bundle.name + ".params.json")
    if args.bundle.exists():
        recorded = json.loads(params_path.read_text()) if params_path.exists() else None
        if recorded is None or recorded["params"] != wanted:
            raise SystemExit(
                f"{args.bundle} exists but was not built with {wanted}; remove it or give "
                "another --bundle"
            )
        # a bundle cached by an older version is upgraded here, not inside a measured step
        from workbench.storage import Bundle

        Bundle.open(args.bundle).close()
        # bench/leaderboard_stress.py records the same params without the build's figures
        return {**recorded.get("build", {}), "cached": True}
    args.bundle.parent.mkdir(parents=True, exist_ok=True)
    partial = args.bundle.with_name(args.bundle.name + ".partial")
    for leftover in partial.parent.glob(partial.name + "*"):
        leftover.unlink()
    command = [sys.executable, str(BENCH / "make_synthetic_bundle.py"), str(partial)]
    for flag in ("items", "models", "votes", "seed"):
        command += [f"--{flag}", str(wanted[flag])]
    print(f"building {args.bundle} …", file=sys.stderr, flush=True)
    measured = run_child(command, args.work / "build.out", os.environ.copy())
    if measured["exit_code"] != 0:
        raise SystemExit(f"building the bundle failed:\n{measured['stderr']}")
    partial.replace(args.bundle)
    build = {
        "seconds": measured["seconds"],
        "peak_mb": measured["peak_mb"],
        "log": (args.work / "build.out").read_text().strip(),
    }
    params_path.write_text(json.dumps({"params": wanted, "build": build}, indent=2))
    return {**build, "cached": False}


def run_steps(args: argparse.Namespace) -> dict[str, Any]:
    env = os.environ.copy()
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    # the app's own folders (settings, logs, recent files) stay out of the user's
    env["VLM_WORKBENCH_HOME"] = str(args.work / "home")
    env["MPLCONFIGDIR"] = str(args.work / "home" / "mpl")
    # the installed ``workbench`` command, run by this interpreter
    workbench = [sys.executable, "-c", WORKBENCH_CLI]
    here = [sys.executable, str(Path(__file__).resolve())]
    bundle = str(args.bundle)
    votes_file = args.work / "votes.jsonl"
    screenshot = args.work / "first-item.png"
    leaderboard = [*workbench, "leaderboard", bundle, "--campaign", CAMPAIGN, "--json"]
    commands = {
        "open": [*here, "--run-step", "open", "--bundle", bundle],
        "browse": [*here, "--run-step", "browse", "--bundle", bundle, "--steps", str(args.steps)],
        "leaderboard-bt": [*leaderboard, "--bootstrap", str(args.bootstrap)],
        "leaderboard-elo": [*leaderboard, "--method", "elo"],
        "export": [
            *workbench,
            *("export", bundle, "--campaign", CAMPAIGN, "--format", "jsonl"),
            *("--out", str(votes_file), "--json"),
        ],
        "gui": [*workbench, "open", bundle, "--screenshot", str(screenshot)],
    }
    results: dict[str, Any] = {}
    for name in args.only or STEPS:
        print(f"step {name} …", file=sys.stderr, flush=True)
        stdout_path = args.work / f"{name}.out"
        if name == "gui":
            results[name] = run_gui(commands[name], screenshot, args, env)
            continue
        measured = run_child(commands[name], stdout_path, env)
        result = {key: measured[key] for key in ("seconds", "peak_mb", "exit_code")}
        results[name] = result
        try:
            if measured["exit_code"] != 0:
                raise StepFailed(f"exit code {measured['exit_code']}: {measured['stderr']}")
            output = stdout_path.read_text()
            if name in ("open", "browse"):
                result.update(json.loads(output))
            elif name.startswith("leaderboard"):
                result.update(check_leaderboard(json.loads(output), args.models, args.votes))
            else:
                result.update(check_export(votes_file, json.loads(output), args.votes))
            if result["peak_mb"] > MEMORY_LIMIT_MB:
                raise StepFailed(f"peak memory {result['peak_mb']:.0f} MB over {MEMORY_LIMIT_MB}")
            result["ok"] = True
        except (StepFailed, ValueError, KeyError) as problem:
            result["ok"] = False
            result["error"] = str(problem)
        if name == "export" and votes_file.exists() and not args.keep_export:
            votes_file.unlink()
    return results


def _paint_time(report: Path, spawned: float) -> float:
    """Seconds from a child's spawn to the paint its report records."""
    if not report.exists():
        raise StepFailed("the window never painted an item (no first-paint report)")
    return float(json.loads(report.read_text(encoding="utf-8"))["time"]) - spawned


def run_gui(
    command: list[str], screenshot: Path, args: argparse.Namespace, env: dict[str, str]
) -> dict[str, Any]:
    """The gui step, --gui-runs times alternating with the bare window: medians of the time to
    the first item painted, to the screenshot (the whole process) and to the bare window's
    first paint."""
    import compileall

    # installed, the package has its bytecode; without it every child compiles our modules
    for package in ("workbench", "plugins"):
        compileall.compile_dir(BENCH.parent / package, quiet=1)
    report = args.work / "first-paint.json"
    bare = [sys.executable, str(BENCH / "first_paint.py"), "--bare-window", str(report)]
    # the app's hook records the first painted row (workbench/gui/first_paint.py)
    app_env = {**env, "WORKBENCH_FIRST_PAINT_REPORT": str(report)}
    runs: dict[str, list[float]] = {"first_item_s": [], "seconds": [], "bare_window_s": []}
    peak = 0.0
    try:
        for _run in range(args.gui_runs):
            report.unlink(missing_ok=True)
            measured = run_child(bare, args.work / "bare.out", env)
            runs["bare_window_s"].append(_paint_time(report, measured["spawned"]))
            report.unlink(missing_ok=True)
            measured = run_child(command, args.work / "gui.out", app_env)
            if measured["exit_code"] != 0:
                raise StepFailed(f"exit code {measured['exit_code']}: {measured['stderr']}")
            check_screenshot(screenshot)
            runs["first_item_s"].append(_paint_time(report, measured["spawned"]))
            runs["seconds"].append(measured["seconds"])
            peak = max(peak, measured["peak_mb"])
    except (StepFailed, ValueError, KeyError) as problem:
        return {"seconds": 0.0, "peak_mb": peak, "exit_code": 1, "ok": False, "error": str(problem)}
    result: dict[str, Any] = {key: statistics.median(values) for key, values in runs.items()}
    result.update(peak_mb=peak, exit_code=0, **check_screenshot(screenshot))
    result["first_item_after_bare_s"] = result["first_item_s"] - result["bare_window_s"]
    result["runs"] = len(runs["seconds"])
    goal = result["first_item_after_bare_s"] <= FIRST_ITEM_GOAL_S
    result["first_item_goal"] = f"within {FIRST_ITEM_GOAL_S:.0f} s of the bare window: " + (
        "met" if goal else "NOT met"
    )
    result["ok"] = peak <= MEMORY_LIMIT_MB
    if not result["ok"]:
        result["error"] = f"peak memory {peak:.0f} MB over {MEMORY_LIMIT_MB}"
    return result


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def print_table(summary: dict[str, Any]) -> None:
    out = sys.stderr
    print(
        f"bundle: {summary['bundle']} ({summary['bundle_mb']:,.0f} MB; "
        f"{summary['items']:,} items, {summary['models']} models, {summary['votes']:,} votes)",
        file=out,
    )
    build = summary["build"]
    state = "cached" if build["cached"] else "built now"
    if "seconds" in build:
        built = f"{build['seconds']:.0f} s, peak {build['peak_mb']:,.0f} MB"
        print(f"build: {built} ({state})", file=out)
    else:  # cached by bench/leaderboard_stress.py, which keeps no build figures
        print(f"build: {state}, no build figures recorded", file=out)
    load = summary["load_average"]
    print(f"load average before {load['before']}, after {load['after']}", file=out)
    print(f"{'step':<17}{'seconds':>9}{'peak MB':>9}  result", file=out)
    for name, result in summary["steps"].items():
        detail = result.get("error") or ", ".join(
            f"{key}={value:.4g}" if isinstance(value, float) else f"{key}={value}"
            for key, value in result.items()
            if key not in ("seconds", "peak_mb", "exit_code", "ok", "peak_mb_self")
        )
        mark = "ok" if result["ok"] else "FAILED"
        print(
            f"{name:<17}{result['seconds']:>9.2f}{result['peak_mb']:>9,.0f}  {mark}: {detail}",
            file=out,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True, help="built here once, then reused")
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--votes", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=200, help="next-item steps to time")
    parser.add_argument("--bootstrap", type=int, default=100, help="Bradley-Terry rounds")
    parser.add_argument("--gui-runs", type=int, default=3, help="gui step runs (median)")
    parser.add_argument("--only", nargs="+", choices=STEPS, help="run these steps alone")
    parser.add_argument("--work", type=Path, help="folder for step outputs (default: a temp one)")
    parser.add_argument("--keep-export", action="store_true", help="keep the exported JSONL")
    parser.add_argument("--json-out", type=Path, help="also write the JSON summary here")
    parser.add_argument("--run-step", choices=("open", "browse"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_step:
        return run_step_here(args.run_step, args.bundle, args.steps)

    with tempfile.TemporaryDirectory(prefix="wb-stress-") as scratch:
        args.work = args.work or Path(scratch)
        args.work.mkdir(parents=True, exist_ok=True)
        build = ensure_bundle(args)
        load_before = _load()
        steps = run_steps(args)
        load_after = _load()
    summary = {
        "bundle": str(args.bundle),
        "bundle_mb": args.bundle.stat().st_size / 1e6,
        "items": args.items,
        "models": args.models,
        "votes": args.votes,
        "build": build,
        "load_average": {"before": load_before, "after": load_after},
        "steps": steps,
        "peak_mb": max(result["peak_mb"] for result in steps.values()),
        "ok": all(result["ok"] for result in steps.values()),
    }
    print_table(summary)
    document = json.dumps(summary, indent=2)
    print(document)
    if args.json_out:
        args.json_out.write_text(document + "\n")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
