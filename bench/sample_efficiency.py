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

Adaptive pairing (the other half of the same goal) is not measured here yet.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--humans", type=int, default=200)
    parser.add_argument("--judge-only", type=int, default=5000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.process_time()
    results = {
        kind: run(args.seeds, args.humans, args.judge_only, informative)
        for kind, informative in (("informative judge", True), ("uninformative judge", False))
    }
    informative, uninformative = results["informative judge"], results["uninformative judge"]
    passed = (
        informative["coverage_prediction_powered"] >= 0.93
        and uninformative["coverage_prediction_powered"] >= 0.93
        and informative["width_ratio_median"] <= 0.70
        and uninformative["width_ratio_median"] >= 0.99
    )
    if args.json:
        print(json.dumps({"settings": vars(args), "results": results, "passed": passed}, indent=2))
    else:
        print(
            f"{args.seeds} seeds, {args.humans} human votes, {args.judge_only} judge-only "
            f"verdicts, {time.process_time() - started:.0f} CPU s"
        )
        for kind, figures in results.items():
            print(f"{kind}:")
            for name, value in figures.items():
                print(f"  {name:<30}{value:.3f}")
        print("goals met" if passed else "goals NOT met")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
