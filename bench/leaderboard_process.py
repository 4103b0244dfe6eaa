"""``workbench leaderboard --method bt --bootstrap N --json`` as a whole process, against a
plain script doing the same with the fastest published method, also as a whole process.

The reference is FastChat's 2025 rating code (``fastchat/serve/monitor/rating_systems.py``:
``preprocess_for_bt``, ``fit_bt``, ``compute_bootstrap_bt``), written out here (not copied):
each unique (model_a, model_b, winner) counted once, Bradley-Terry fitted by L-BFGS
(``scipy.optimize.minimize``) on the counts, the bootstrap a multinomial draw of the counts, one
L-BFGS fit per round. FastChat spreads the rounds over a process pool; the reference runs them
in one process, since this machine is shared and a pool's start-up would only add to its time.
It runs with ``OPENBLAS_NUM_THREADS=1``: on this loaded 2-core machine OpenBLAS's idle threads
tripled its CPU time (3.3 s against 0.95 s), which is no fault of the method. It reads the
battles from the JSON file ``workbench export --format arena`` writes (or, given a folder, its
parquet files' ``model_a``, ``model_b`` and ``winner`` columns: bench/scale.py's input where the
JSON would not fit in memory).

    python bench/leaderboard_process.py [--data ../shared/data] [--rounds 100] [--runs 5]
        [--work /tmp/leaderboard-process]

The WildVision-Bench release is imported into a bundle once (kept in --work and reused), its
battles are exported once, and the two commands then run alternately, --runs times each. Both
count from Python's start to exit: start-up, imports and reading the input are included. The
reference reads only the battles the leaderboard counts (GPT-4o's verdicts, "much better" as 3
battles; the export also holds WildVision-Bench's derived battle file, which the leaderboard
leaves out so nothing counts twice), and both fits are compared: the largest difference between
the two sets of ratings, each centred, must stay below 0.1 Elo points (FastChat's
L-BFGS stops at gtol=1e-6, a few hundredths of a point short of the optimum).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: the judge of WildVision-Bench's derived battles in the arena export (the leaderboard leaves
#: derived judgments out unless asked)
DERIVED_JUDGE = "wildvision-battles"
#: FastChat's fit stops at gtol=1e-6 (100 iterations at most), a few hundredths of an Elo point
#: short of the optimum; a larger gap means the two read different battles
MAX_RATING_DIFFERENCE = 0.1

REFERENCE = r"""
import json, math, sys
import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit

def preprocess_for_bt(df):
    n_rows = len(df)
    model_indices, models = pd.factorize(pd.concat([df["model_a"], df["model_b"]]))
    schedule = np.full((n_rows, 3), fill_value=1, dtype=np.int32)
    schedule[:, 0] = model_indices[:n_rows]
    schedule[:, 1] = model_indices[n_rows:]
    schedule[(df["winner"] == "model_a").to_numpy(), 2] = 2
    schedule[(df["winner"] == "model_b").to_numpy(), 2] = 0
    cells, weights = np.unique(schedule, return_counts=True, axis=0)
    outcomes = cells[:, 2].astype(np.float64) / 2.0
    return cells[:, :2], outcomes, models.to_list(), weights.astype(np.float64)

def loss_and_grad(ratings, matchups, outcomes, weights, alpha):
    rated = ratings[matchups]
    probs = expit(alpha * (rated[:, 0] - rated[:, 1]))
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    grads = -alpha * (outcomes - probs) * weights
    model_grad = np.zeros_like(ratings)
    np.add.at(model_grad, matchups, grads[:, None] * np.array([1.0, -1.0]))
    return loss, model_grad

def fit_bt(matchups, outcomes, weights, n_models, alpha, tol=1e-6):
    result = minimize(
        loss_and_grad, np.zeros(n_models), args=(matchups, outcomes, weights, alpha), jac=True,
        method="L-BFGS-B", options={"disp": False, "maxiter": 100, "gtol": tol},
    )
    return result["x"]

path, rounds = sys.argv[1], int(sys.argv[2])
if path.endswith(".json"):
    with open(path) as handle:
        battles = pd.DataFrame(json.load(handle))
else:  # a folder of parquet files: the three columns, the names dictionary-decoded
    import pyarrow.parquet as pq
    columns = ["model_a", "model_b", "winner"]
    battles = pq.read_table(path, columns=columns, read_dictionary=columns).to_pandas()
matchups, outcomes, models, weights = preprocess_for_bt(battles)
alpha = math.log(10.0)
ratings = fit_bt(matchups, outcomes, weights, len(models), alpha) * 400 + 1000
rng = np.random.default_rng(seed=0)
draws = rng.multinomial(n=len(battles), pvals=weights / weights.sum(), size=rounds)
boot = np.array([fit_bt(matchups, outcomes, w, len(models), alpha) for w in draws / len(battles)])
boot = boot * 400 + 1000
table = pd.DataFrame({"model": models, "rating": ratings,
                      "ci_lower": np.quantile(boot, 0.025, axis=0),
                      "ci_upper": np.quantile(boot, 0.975, axis=0)})
table = table.sort_values("rating", ascending=False)
print(json.dumps({"battles": len(battles), "models": table.to_dict(orient="records")}))
"""


def _high_water_kb(pid: int) -> int:
    """The process's peak resident set since its exec (``VmHWM``), in KiB; 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def run(command: list[str], env: dict[str, str], cwd: Path = ROOT) -> dict[str, Any]:
    """Run ``command`` in ``cwd``; its wall time, CPU time (user + system) and peak RSS, and its
    output. (``python -m`` puts ``cwd`` first on the path, before PYTHONPATH.)

    The peak is the child's own ``VmHWM``, read every 20 ms while it runs (a high-water mark, so
    the last read misses at most the last 20 ms): ``wait4``'s ``ru_maxrss`` also counts the
    memory the process had before its exec, which for a child spawned by ``subprocess`` (vfork)
    is this bench process's own peak, and a bench that has generated a million battles is
    larger than the command it times. Where ``/proc`` cannot be read, ``ru_maxrss`` is used."""
    import threading

    began = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    peak_kb = 0
    reaped = threading.Event()

    def sample() -> None:
        nonlocal peak_kb
        while not reaped.wait(0.02):
            peak_kb = max(peak_kb, _high_water_kb(process.pid))

    sampler = threading.Thread(target=sample, name="peak-sampler", daemon=True)
    sampler.start()
    # wait4 gives this child's own rusage, not the largest of all children so far
    output = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    reaped.set()
    sampler.join()
    seconds = time.perf_counter() - began
    errors = process.stderr.read() if process.stderr else b""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{errors.decode()}")
    return {
        "wall": seconds,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": (peak_kb or usage.ru_maxrss) / 1024,
        "output": output,
    }


def prepare(data: Path, work: Path, env: dict[str, str]) -> tuple[Path, Path]:
    """The WildVision-Bench bundle (built once) and the battles the leaderboard counts, as an
    arena JSON file."""
    work.mkdir(parents=True, exist_ok=True)
    bundle = work / "wildvision.wbb"
    cli = [sys.executable, "-m", "workbench.cli"]
    if not bundle.exists():
        print(f"importing WildVision-Bench into {bundle} …", file=sys.stderr, flush=True)
        partial = work / "wildvision.partial.wbb"
        partial.unlink(missing_ok=True)
        source = str(data / "wildvision-bench")
        run([*cli, "import", source, "--format", "wildvision-bench", "--into", str(partial)], env)
        partial.replace(bundle)
    else:  # kept from an older app: the read-only export below would refuse it
        run([*cli, "upgrade", str(bundle)], env)
    exported = work / "arena-all.json"
    run([*cli, "export", str(bundle), "--format", "arena", "--out", str(exported)], env)
    records = json.loads(exported.read_text())
    counted = [record for record in records if record.get("judge") != [DERIVED_JUDGE]]
    battles = work / "arena-battles.json"
    battles.write_text(json.dumps(counted))
    return bundle, battles


def centred(models: list[dict[str, Any]]) -> dict[str, float]:
    mean = statistics.fmean(entry["rating"] for entry in models)
    return {entry["model"]: entry["rating"] - mean for entry in models}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", type=Path, default=Path("/tmp/leaderboard-process"))
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    bundle, battles = prepare(args.data, args.work, env)
    script = args.work / "reference_bt.py"
    script.write_text(REFERENCE)
    ours_command = [sys.executable, "-m", "workbench.cli", "leaderboard", str(bundle)]
    ours_command += ["--method", "bt", "--bootstrap", str(args.rounds), "--json"]
    reference_command = [sys.executable, str(script), str(battles), str(args.rounds)]
    reference_env = {**env, "OPENBLAS_NUM_THREADS": "1"}
    # one untimed run each warms the page cache, so neither pays for the first read
    ours_last = run(ours_command, env)
    reference_last = run(reference_command, reference_env)
    ours, reference = [], []
    for _ in range(args.runs):
        ours_last = run(ours_command, env)
        ours.append(ours_last)
        reference_last = run(reference_command, reference_env)
        reference.append(reference_last)
    load = os.getloadavg()
    ours_json = json.loads(ours_last["output"])
    reference_json = json.loads(reference_last["output"])
    ours_ratings, reference_ratings = (
        centred(ours_json["models"]),
        centred(reference_json["models"]),
    )
    if set(ours_ratings) != set(reference_ratings):
        raise SystemExit("the two leaderboards rate different models")
    difference = max(abs(ours_ratings[m] - reference_ratings[m]) for m in ours_ratings)

    def median(runs: list[dict[str, Any]], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    print(
        f"leaderboard --method bt --bootstrap {args.rounds} --json, WildVision-Bench "
        f"({reference_json['battles']} battles, {len(ours_ratings)} models), median of "
        f"{args.runs} alternating runs; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"{'':12} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
    for name, runs in (("ours", ours), ("reference", reference)):
        print(
            f"{name:12} {median(runs, 'wall'):8.3f} {median(runs, 'cpu'):8.3f} "
            f"{median(runs, 'peak_mb'):8.0f}"
        )
    print(
        f"ratio (reference / ours): wall {median(reference, 'wall') / median(ours, 'wall'):.2f}x, "
        f"CPU {median(reference, 'cpu') / median(ours, 'cpu'):.2f}x; largest rating difference "
        f"{difference:.2g} Elo points"
    )
    if difference > MAX_RATING_DIFFERENCE:
        raise SystemExit(f"the ratings differ by {difference} Elo points")


if __name__ == "__main__":
    main()
