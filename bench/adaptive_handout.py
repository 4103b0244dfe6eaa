"""Hand-out cost of an adaptive campaign against a uniform one: a vote and the next task, as the
annotation view asks for them (``AnnotationSession.cast_and_next``), timed at each campaign size.

    python bench/adaptive_handout.py [--tasks 2800 100000] [--steps 100] [--items 2000]

For each size, one synthetic bundle (bench/make_synthetic_bundle.py, ITEMS items, 8 models) in a
temporary folder gets two campaigns with the same tasks (random model pairs, one vote wanted
each) and the same votes already cast on a random 30% of them: one with uniform pairing, one with
adaptive pairing. The adaptive campaign also gets the choice log a campaign that far along would
have, one row per vote cast (each row's ``votes_added`` the vote counted since the previous
choice), so that every hand-out reads what it would read in the field; those rows' digests are
not the rule's, so this campaign's log does not replay (the tests replay real logs). A fresh
annotator then answers STEPS tasks of each campaign, alternating between the two, and each
step's wall clock and calling-thread CPU are recorded. Bundle building is not in the figures.
Printed per size: median and p95 of both, and the adaptive / uniform ratios of the medians.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from annotation_next_task import (  # noqa: E402
    add_random_tasks,
    answered_votes,
    insert_in_batches,
    percentile,
)
from make_synthetic_bundle import make_synthetic_bundle  # noqa: E402
from sqlalchemy import select  # noqa: E402

from workbench.services.campaigns import add_annotator  # noqa: E402
from workbench.services.voting import AnnotationSession  # noqa: E402
from workbench.storage import Bundle  # noqa: E402
from workbench.storage.counters import rebuild_counters  # noqa: E402
from workbench.storage.models import (  # noqa: E402
    Annotator,
    Campaign,
    Model,
    PairChoice,
    Vote,
)

PAIRINGS = ("uniform", "adaptive")


def add_campaign(bundle: Bundle, name: str, pairing: str, tasks: int, items: int) -> int:
    """A campaign of ``tasks`` tasks (the same for every ``pairing``: the generator's seed is
    fixed), 30% of them answered by another annotator; returns the votes cast."""
    rng = random.Random(1)
    with bundle.session() as session:
        models = sorted(session.scalars(select(Model.id)))
        campaign = Campaign(
            name=name,
            protocol="arena-battle",
            seed=1,
            votes_per_pair=1,
            settings={
                "display": "pair",
                "criteria": ["overall"],
                "output_context": "standard",
                "pair_choice": pairing,
            },
        )
        session.add(campaign)
        other = Annotator(handle=f"bench-other-{name}")
        session.add(other)
        session.flush()
        rows = add_random_tasks(session, campaign.id, models, tasks, items, 1, rng)
        votes = answered_votes(campaign.id, rows, [other.id], rng, lambda: rng.choice("aab"))
        insert_in_batches(session, Vote, votes)
        if pairing == "adaptive":
            log = [
                {
                    "campaign_id": campaign.id,
                    "ordinal": ordinal,
                    "draw": rng.random(),
                    "state_sha256": "0" * 64,
                    "probabilities_sha256": "0" * 64,
                    "available": list(range(len(models) * (len(models) - 1) // 2)),
                    "chosen": 0,
                    "pair_id": vote["pair_id"],
                    "annotator_id": other.id,
                    "votes_added": [] if ordinal == 1 else [votes[ordinal - 2]["uuid"]],
                    "votes_removed": [],
                    "origin": "lease",
                }
                for ordinal, vote in enumerate(votes, start=1)
            ]
            insert_in_batches(session, PairChoice, log)
        rebuild_counters(session, [campaign.id])
    return len(votes)


def measure(tasks: int, steps: int, items: int) -> dict[str, dict[str, float]]:
    """Per pairing: median and p95 of wall clock and calling-thread CPU per vote + hand-out."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.wbb"
        built = time.perf_counter()
        make_synthetic_bundle(path, items=items, models=8)
        with Bundle.open(path) as bundle:
            cast = {
                pairing: add_campaign(bundle, pairing, pairing, tasks, items)
                for pairing in PAIRINGS
            }
            add_annotator(bundle, "bench")
            print(
                f"built {tasks} tasks per campaign ({cast['uniform']} votes cast) in "
                f"{time.perf_counter() - built:.1f} s",
                flush=True,
            )
            sessions = {
                pairing: AnnotationSession(bundle, pairing, "bench") for pairing in PAIRINGS
            }
            shown = {pairing: sessions[pairing].next_task() for pairing in PAIRINGS}
            walls: dict[str, list[float]] = {pairing: [] for pairing in PAIRINGS}
            cpus: dict[str, list[float]] = {pairing: [] for pairing in PAIRINGS}
            rng = random.Random(2)
            for _ in range(steps):
                for pairing in PAIRINGS:
                    task = shown[pairing]
                    assert task is not None
                    wall, cpu = time.perf_counter(), time.thread_time()
                    _receipt, shown[pairing] = sessions[pairing].cast_and_next(
                        task.token, rng.choice("ab")
                    )
                    walls[pairing].append((time.perf_counter() - wall) * 1000)
                    cpus[pairing].append((time.thread_time() - cpu) * 1000)
    return {
        pairing: {
            "wall_p50": statistics.median(walls[pairing]),
            "wall_p95": percentile(walls[pairing], 0.95),
            "cpu_p50": statistics.median(cpus[pairing]),
            "cpu_p95": percentile(cpus[pairing], 0.95),
        }
        for pairing in PAIRINGS
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, nargs="+", default=[2800, 100_000])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--items", type=int, default=2000)
    args = parser.parse_args()
    if min(args.tasks) < 2 * args.steps or args.steps < 1:
        parser.error("--tasks must each be at least twice --steps, and --steps at least 1")
    for tasks in args.tasks:
        figures = measure(tasks, args.steps, args.items)
        load = os.getloadavg()[0]
        print(f"tasks {tasks}, steps {args.steps}, load average {load:.1f} (2 cores)")
        print(f"{'vote + hand-out, ms':<24}{'uniform':>10}{'adaptive':>10}{'ratio':>8}")
        for measure_name in ("wall_p50", "wall_p95", "cpu_p50", "cpu_p95"):
            uniform = figures["uniform"][measure_name]
            adaptive = figures["adaptive"][measure_name]
            print(f"{measure_name:<24}{uniform:>10.1f}{adaptive:>10.1f}{adaptive / uniform:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
