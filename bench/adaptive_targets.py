"""Whether a pairing rule could tell, during a campaign, which neighbours the full data
separates: on the replay of the published WildVision-Bench battles (``bench/adaptive_replay.py``),
after a given number of uniformly paired votes, the current z (difference over its standard
error) of each adjacent pair of the full data's order, for the narrowly separated ones (full-data
z below 4) against the ones the full data leaves open.

Printed per number of votes, medians over the seeds: the current z of the narrow targets and of
the open neighbours, how many of the narrow targets are among as many highest current z of the
unsettled neighbours (narrow and open together), and how many open neighbours lie above the
weakest narrow target. A rule that knew no more than the votes so far would have to pick the
targets this way; the adaptive design's shortfall on WildVision-Bench (docs/PERFORMANCE.md) is
measured against a design told the targets (``design-knowing-targets`` in
``bench/sample_efficiency.py``).

    python bench/adaptive_targets.py [--seeds 50] [--votes 3000 6000]
"""

from __future__ import annotations

import argparse
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adaptive_replay import World, wildvision_world
from sample_efficiency import WILDVISION_BATTLES

from workbench.stats.active_sampling import PairChoiceState, draw_pair, fit_with_covariance

#: a separated neighbour whose full-data z is below this is a narrow target
NARROW = 4.0


def _z(strengths: np.ndarray, covariance: np.ndarray, better: int, worse: int) -> float:
    variance = covariance[better, better] + covariance[worse, worse] - 2 * covariance[better, worse]
    return float((strengths[better] - strengths[worse]) / np.sqrt(variance))


def uniform_fit(world: World, votes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The fit after ``votes`` uniformly paired votes, drawn as the replay bench draws them."""
    rng = np.random.default_rng(seed)
    count = len(world.first)
    probabilities = np.full(count, 1 / count)
    tallies = np.zeros((3, count))  # first's wins, second's wins, ties
    for _ in range(votes):
        pair = draw_pair(probabilities, float(rng.random()))
        outcome = world.answer(pair, rng)
        tallies[0 if outcome == 1.0 else 1 if outcome == 0.0 else 2, pair] += 1
    return fit_with_covariance(
        PairChoiceState(len(world.models), world.first, world.second, *tallies)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--votes", type=int, nargs="+", default=[3000, 6000])
    args = parser.parse_args()
    world = wildvision_world(WILDVISION_BATTLES)
    neighbours = list(pairwise(int(model) for model in world.reference_order))
    full = np.array([_z(world.full_strengths, world.full_covariance, *pair) for pair in neighbours])
    separated = set(world.separated)
    narrow = [k for k, pair in enumerate(neighbours) if pair in separated and full[k] < NARROW]
    open_ = [k for k, pair in enumerate(neighbours) if pair not in separated]
    unsettled = np.array(narrow + open_)
    print(f"narrow targets, full-data z: {', '.join(f'{z:.2f}' for z in full[narrow])}")
    print(f"open neighbours, full-data z: {', '.join(f'{z:.2f}' for z in sorted(full[open_]))}")
    for votes in args.votes:
        rows = []
        for seed in range(args.seeds):
            strengths, covariance = uniform_fit(world, votes, seed)
            z = np.array([_z(strengths, covariance, *pair) for pair in neighbours])
            highest = set(unsettled[np.argsort(-z[unsettled], kind="stable")[: len(narrow)]])
            rows.append(
                (
                    np.median(z[narrow]),
                    np.median(z[open_]),
                    len(highest & set(narrow)),
                    int((z[open_] > z[narrow].min()).sum()),
                )
            )
        table = np.array(rows)
        print(
            f"after {votes} uniform votes ({args.seeds} seeds, medians): current z of the narrow "
            f"targets {np.median(table[:, 0]):.2f}, of the open neighbours "
            f"{np.median(table[:, 1]):.2f}; narrow targets among the {len(narrow)} highest z of "
            f"the {len(unsettled)} unsettled neighbours {np.median(table[:, 2]):.0f}; open "
            f"neighbours above the weakest narrow target {np.median(table[:, 3]):.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
