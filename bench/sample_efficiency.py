"""Fewer expert votes for the same certainty: how prediction-powered ratings (human votes
corrected judge verdicts, ``workbench.stats.ppi``) compare with the humans' own, over many seeds
of synthetic populations with known ratings (``bench/ppi_population.py``).

For each seed: a population of models, 200 human votes that the judge also judged (in both
orders), 5,000 comparisons only the judge judged. Printed per kind of judge (informative, with a
position bias and a bias per model; uninformative, its verdicts ignoring the answers):

- coverage of the 95% intervals of the prediction-powered ratings, of the humans' own and of the
  judge's own board (the judge used without correction);
- the median ratio of interval widths, prediction-powered over the humans' own;
- the median power-tuning weight.

Goals: coverage >= 93% for the prediction-powered intervals with either judge; width at least
30% narrower than the humans' alone with the informative judge (ratio <= 0.70); the humans'
width (ratio 1.00, not below) with the uninformative one.

    python bench/sample_efficiency.py [--seeds 200] [--humans 200] [--judge-only 5000] [--json]

Adaptive pairing, the other half of the same goal (``--pairing-seeds``, replays of
``bench/adaptive_replay.py``): in two worlds, the published WildVision-Bench battles and a
synthetic 40-model population, the median over seeds of the votes until the order matches the
full data's (Kendall tau >= 0.9) and every adjacent pair the full data separates is separated,
for uniform pairing, the published adaptive rule (``adaptive``, Chatbot Arena's weights), the
plug-in design that adaptive campaigns now use (``design``, ``workbench.stats.active_sampling``),
the same design told which adjacent pairs the full data separates (``design-knowing-targets``,
what no campaign can know: it measures what the design loses by not knowing them) and an
informed fixed schedule that knows the full data's answer (a heuristic; bench/pairing_bound.py
bounds what choosing pairs can save).
Goal: the campaigns' rule (design) at half the votes of uniform or fewer.

    python bench/sample_efficiency.py --pairing-seeds 50 [--ppi-seeds 0] [--jobs 4]
        [--schedules uniform,adaptive,design,informed] [--worlds wildvision,synthetic]

Each replay's result goes to stderr as it ends (world, schedule, seed, votes), seed by seed, so
a long run can be followed and its two worlds run as separate processes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adaptive_replay import SCHEDULES, World, synthetic_world, votes_needed, wildvision_world
from ppi_population import make_population, true_ratings

from workbench.stats.ppi import (
    Comparisons,
    classical_ratings,
    prediction_powered_ratings,
)


def covered(result: object, truth: np.ndarray) -> float:
    lower, upper = result.lower[1:], result.upper[1:]  # type: ignore[attr-defined]
    return float(np.mean((lower <= truth[1:]) & (truth[1:] <= upper)))


def run(seeds: int, humans: int, judge_only: int, informative: bool) -> dict[str, float]:
    ppi_cover, human_cover, judge_cover, ratios, weights = [], [], [], [], []
    for seed in range(seeds):
        population = make_population(seed, informative=informative)
        truth = true_ratings(population, 200_000, seed)
        rng = np.random.default_rng(seed)
        both, verdicts = population.draw(rng, humans)
        only, only_verdicts = population.draw(rng, judge_only)
        judged = Comparisons(only.a, only.b, only_verdicts)
        powered = prediction_powered_ratings(population.models, both, verdicts, judged)
        own = classical_ratings(population.models, both)
        judge = classical_ratings(
            population.models,
            Comparisons(
                np.r_[both.a, only.a], np.r_[both.b, only.b], np.r_[verdicts, only_verdicts]
            ),
        )
        ppi_cover.append(covered(powered, truth))
        human_cover.append(covered(own, truth))
        judge_cover.append(covered(judge, truth))
        ratios.append(
            float(np.median((powered.upper - powered.lower)[1:] / (own.upper - own.lower)[1:]))
        )
        weights.append(powered.lam)
    return {
        "coverage_prediction_powered": float(np.mean(ppi_cover)),
        "coverage_humans_alone": float(np.mean(human_cover)),
        "coverage_judge_alone": float(np.mean(judge_cover)),
        "width_ratio_median": float(np.median(ratios)),
        "weight_median": float(np.median(weights)),
    }


WILDVISION_BATTLES = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "wildvision-bench"
    / "vision_bench_battles.jsonl.gz"
)
PAIRING_BUDGET = 60_000


def _votes_needed(task: tuple[str, str, int, int]) -> float:
    """One replay (a process pool's unit of work): votes to the goal, inf if not reached."""
    name, schedule, seed, refit_every = task
    world = _world(name, seed)
    votes = votes_needed(world, schedule, seed, PAIRING_BUDGET, refit_every=refit_every)
    return np.inf if votes is None else float(votes)


_WORLDS: dict[tuple[str, int], World] = {}


def _world(name: str, seed: int) -> World:
    # WildVision-Bench is one world for every seed; the synthetic one is drawn per seed
    key = (name, 0 if name == "WildVision-Bench" else seed)
    if key not in _WORLDS:
        _WORLDS[key] = (
            wildvision_world(WILDVISION_BATTLES)
            if name == "WildVision-Bench"
            else synthetic_world(seed)
        )
    return _WORLDS[key]


#: every schedule of the replay but ``fixed``, whose probabilities come from bench/pairing_bound.py
PAIRING_SCHEDULES = tuple(name for name in SCHEDULES if name != "fixed")


PAIRING_WORLDS = {"wildvision": ("WildVision-Bench", 25), "synthetic": ("synthetic 40 models", 100)}


def pairing(
    seeds: int,
    jobs: int = 1,
    schedules: tuple[str, ...] = PAIRING_SCHEDULES,
    world_keys: tuple[str, ...] = tuple(PAIRING_WORLDS),
) -> dict[str, dict[str, float | None]]:
    """Median votes to the goal per world and schedule (None: some seed's median run did not
    reach it within the budget), and adaptive's and the informed schedule's ratio to uniform.
    ``jobs`` processes share the seeds (each replay is independent and seeded); uniform is
    always among ``schedules``. Each replay's votes go to stderr as it ends, so that a long
    run's progress (and, if stopped, its finished seeds) can be read."""
    schedules = ("uniform", *(name for name in schedules if name != "uniform"))
    worlds = [PAIRING_WORLDS[key] for key in world_keys]
    tasks = [
        (name, schedule, seed, refit_every)
        for name, refit_every in worlds
        for seed in range(seeds)
        for schedule in schedules
    ]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            needed = [
                _reported(task, votes)
                for task, votes in zip(tasks, pool.map(_votes_needed, tasks), strict=True)
            ]
    else:
        needed = [_reported(task, _votes_needed(task)) for task in tasks]
    by_run = dict(zip(tasks, needed, strict=True))
    results: dict[str, dict[str, float | None]] = {}
    for name, refit_every in worlds:
        medians: dict[str, float | None] = {}
        for schedule in schedules:
            median = float(
                np.median([by_run[(name, schedule, seed, refit_every)] for seed in range(seeds)])
            )
            medians[schedule] = None if np.isinf(median) else median
        uniform = medians["uniform"]
        for schedule in schedules[1:]:
            value = medians[schedule]
            medians[f"{schedule}_over_uniform"] = (
                value / uniform if value is not None and uniform else None
            )
        results[name] = medians
    return results


def _reported(task: tuple[str, str, int, int], votes: float) -> float:
    name, schedule, seed, _ = task
    print(f"{name}\t{schedule}\tseed {seed}\t{votes:.0f}", file=sys.stderr, flush=True)
    return votes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", "--ppi-seeds", dest="seeds", type=int, default=200)
    parser.add_argument("--pairing-seeds", type=int, default=0)
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes sharing the pairing replays (default 1)"
    )
    parser.add_argument(
        "--schedules",
        default=",".join(PAIRING_SCHEDULES),
        help="pairing schedules to replay beside uniform (default: all)",
    )
    parser.add_argument(
        "--worlds",
        default=",".join(PAIRING_WORLDS),
        help=f"pairing worlds to replay (default: {','.join(PAIRING_WORLDS)})",
    )
    parser.add_argument("--humans", type=int, default=200)
    parser.add_argument("--judge-only", type=int, default=5000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.process_time()
    results: dict[str, dict] = {}
    passed = True
    if args.seeds:
        results = {
            kind: run(args.seeds, args.humans, args.judge_only, informative)
            for kind, informative in (
                ("informative judge", True),
                ("uninformative judge", False),
            )
        }
        informative, uninformative = results["informative judge"], results["uninformative judge"]
        passed = (
            informative["coverage_prediction_powered"] >= 0.93
            and uninformative["coverage_prediction_powered"] >= 0.93
            and informative["width_ratio_median"] <= 0.70
            and uninformative["width_ratio_median"] >= 0.99
        )
    if args.pairing_seeds:
        if args.jobs < 1:
            parser.error("--jobs must be at least 1")
        schedules = tuple(name for name in args.schedules.split(",") if name)
        unknown = sorted(set(schedules) - set(PAIRING_SCHEDULES))
        if unknown:
            parser.error(
                f"--schedules: {', '.join(unknown)} not among {', '.join(PAIRING_SCHEDULES)}"
            )
        world_keys = tuple(name for name in args.worlds.split(",") if name)
        if not world_keys or set(world_keys) - set(PAIRING_WORLDS):
            parser.error(f"--worlds: a list of {', '.join(PAIRING_WORLDS)}")
        replayed = pairing(args.pairing_seeds, args.jobs, schedules, world_keys)
        for world, medians in replayed.items():
            results[f"pairing, {world}"] = medians
            ratio = medians.get("design_over_uniform")
            passed = passed and ratio is not None and ratio <= 0.5
    if args.json:
        print(json.dumps({"settings": vars(args), "results": results, "passed": passed}, indent=2))
    else:
        print(
            f"{args.seeds} seeds, {args.humans} human votes, {args.judge_only} judge-only "
            f"verdicts; {args.pairing_seeds} pairing seeds; "
            f"{time.process_time() - started:.0f} CPU s"
        )
        for kind, figures in results.items():
            print(f"{kind}:")
            for name, value in figures.items():
                shown = "not reached" if value is None else f"{value:.3f}"
                print(f"  {name:<30}{shown}")
        print("goals met" if passed else "goals NOT met")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
