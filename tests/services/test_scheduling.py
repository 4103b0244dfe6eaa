"""The schedule as pure functions: which comparisons are drawn, counterbalanced positions
(property-tested over model counts, eligibility and seeds), and reproducibility."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.services.scheduling import (
    REFERENCE,
    Comparison,
    Contestant,
    PlannedTask,
    Slot,
    all_pairs,
    anchored_pairs,
    balanced_pairs,
    contestant_key,
    counterbalance,
    position_counts,
    shuffled,
    single_tasks,
)


def slots(count: int, turns: int | None = None) -> list[Slot]:
    return [Slot("src", f"item{n:03d}", turns) for n in range(count)]


def ordered_pair(first: Contestant | None, second: Contestant | None) -> tuple[Contestant, ...]:
    """A pairwise task's or comparison's two contestants, in the scheduler's order."""
    assert first is not None and second is not None
    return tuple(sorted((first, second), key=contestant_key))


def pair_balance(tasks: list[PlannedTask]) -> dict[tuple[Any, ...], Counter[Any]]:
    """Per unordered pair: how often each member was shown left."""
    balance: dict[tuple[Any, ...], Counter[Any]] = {}
    for task in tasks:
        pair = ordered_pair(task.left, task.right)
        balance.setdefault(pair, Counter())[task.left] += 1
    return balance


@st.composite
def eligibility(draw: st.DrawFn) -> dict[Slot, list[Contestant]]:
    model_count = draw(st.integers(min_value=2, max_value=8))
    models: list[Contestant] = [f"model-{n}" for n in range(model_count)]
    if draw(st.booleans()):
        models.append(REFERENCE)
    slot_count = draw(st.integers(min_value=1, max_value=25))
    return {
        slot: draw(st.lists(st.sampled_from(models), unique=True, max_size=len(models)))
        for slot in slots(slot_count)
    }


@settings(max_examples=150, deadline=None)
@given(eligible=eligibility(), seed=st.integers(min_value=0, max_value=2**32))
def test_counterbalancing_per_pair_and_per_model(
    eligible: dict[Slot, list[Contestant]], seed: int
) -> None:
    comparisons = all_pairs(eligible)
    tasks = counterbalance(comparisons, random.Random(seed))
    assert len(tasks) == len(comparisons)
    for pair, lefts in pair_balance(tasks).items():
        first, second = pair
        assert abs(lefts[first] - lefts[second]) <= 1, pair
    # the Euler orientation of the odd pairs keeps every contestant within one overall too
    for contestant, (left, right) in position_counts(tasks).items():
        assert abs(left - right) <= 1, contestant
    assert counterbalance(comparisons, random.Random(seed)) == tasks


@settings(max_examples=60, deadline=None)
@given(
    model_count=st.integers(min_value=2, max_value=7),
    per_pair=st.integers(min_value=1, max_value=9),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_balanced_sampling_hits_the_target_per_pair(
    model_count: int, per_pair: int, seed: int
) -> None:
    models = [f"m{n}" for n in range(model_count)]
    eligible = {slot: models for slot in slots(6)}
    comparisons, shortfalls = balanced_pairs(eligible, per_pair, random.Random(seed))
    counts = Counter(ordered_pair(c.first, c.second) for c in comparisons)
    expected = min(per_pair, 6)
    assert set(counts) == set(combinations(models, 2))
    assert set(counts.values()) == {expected}
    assert shortfalls == ({} if per_pair <= 6 else {pair: per_pair - 6 for pair in counts})
    # no slot is used twice by one pair, and slots are spread as evenly as the draw allows
    assert len(set(comparisons)) == len(comparisons)
    usage = Counter(c.slot for c in comparisons)
    assert max(usage.values()) - min(usage.values()) <= 1 or len(usage) < 6
    tasks = counterbalance(comparisons, random.Random(seed))
    for pair, lefts in pair_balance(tasks).items():
        assert abs(lefts[pair[0]] - lefts[pair[1]]) <= 1


def test_all_pairs_only_where_both_are_eligible() -> None:
    item_a, item_b = slots(2)
    eligible = {item_a: ["x", "y", "z"], item_b: ["x", "z"]}
    drawn = {(c.slot, c.first, c.second) for c in all_pairs(eligible)}
    assert drawn == {
        (item_a, "x", "y"),
        (item_a, "x", "z"),
        (item_a, "y", "z"),
        (item_b, "x", "z"),
    }


def test_anchored_pairs_with_the_reference() -> None:
    item_a, item_b = slots(2)
    eligible: dict[Slot, list[Contestant]] = {item_a: [REFERENCE, "x", "y"], item_b: ["x", "y"]}
    drawn = anchored_pairs(eligible, REFERENCE)
    assert {(c.slot, c.first, c.second) for c in drawn} == {
        (item_a, REFERENCE, "x"),
        (item_a, REFERENCE, "y"),
    }


def test_balanced_sampling_reports_shortfalls() -> None:
    eligible = {slot: ["x", "y"] for slot in slots(3)} | {Slot("src", "solo"): ["x", "z"]}
    comparisons, shortfalls = balanced_pairs(eligible, 2, random.Random(0))
    counts = Counter((c.first, c.second) for c in comparisons)
    assert counts == {("x", "y"): 2, ("x", "z"): 1}
    assert shortfalls == {("x", "z"): 1, ("y", "z"): 2}


def test_single_tasks_every_slot_or_a_sample_per_model() -> None:
    eligible = {slot: ["x", "y"] for slot in slots(5, turns=1)}
    every, none_missing = single_tasks(eligible, random.Random(1))
    assert len(every) == 10 and none_missing == {}
    assert all(task.right is None for task in every)
    sample, missing = single_tasks(eligible, random.Random(1), per_contestant=3)
    assert Counter(task.left for task in sample) == {"x": 3, "y": 3}
    assert missing == {}
    _, missing = single_tasks(eligible, random.Random(1), per_contestant=7)
    assert missing == {"x": 2, "y": 2}


def test_gold_answers_turn_with_the_positions() -> None:
    slot = Slot("src", "gold")
    comparisons = [Comparison(slot, "x", "y", "a")] * 5 + [Comparison(slot, "y", "x", "tie")]
    tasks = counterbalance(comparisons, random.Random(3))
    for task in tasks:
        if task.gold == "tie":
            continue
        better = task.left if task.gold == "a" else task.right
        assert better == "x"
    assert {task.left for task in tasks} == {"x", "y"}


def test_same_seed_same_order_other_seed_other_order() -> None:
    eligible = {slot: ["a", "b", "c", "d"] for slot in slots(12)}

    def schedule(seed: int) -> list[PlannedTask]:
        rng = random.Random(seed)
        return shuffled(counterbalance(all_pairs(eligible), rng), rng)

    assert schedule(7) == schedule(7)
    assert schedule(7) != schedule(8)
    assert sorted(map(repr, schedule(7))) != sorted(map(repr, schedule(8)))  # positions differ too


def _sparse_eligibility(trial: int) -> dict[Slot, list[Any]]:
    """Few contestants per slot, so the odd pairs fall into several components (where
    networkx's subgraph views iterate a hash-ordered set)."""
    draw = random.Random(trial)
    models: list[Contestant] = [f"model-{n}" for n in range(draw.randint(2, 8))]
    if draw.random() < 0.5:
        models.append(REFERENCE)
    return {
        slot: draw.sample(models, draw.randint(0, min(3, len(models))))
        for slot in slots(draw.randint(1, 25))
    }


def test_the_same_seed_gives_the_same_schedule_every_time() -> None:
    for trial in range(1500):
        comparisons = all_pairs(_sparse_eligibility(trial))
        schedules = [counterbalance(comparisons, random.Random(trial)) for _ in range(3)]
        assert schedules[0] == schedules[1] == schedules[2], trial


_SCHEDULES_IN_A_FRESH_PROCESS = """
import hashlib, random
from workbench.services.scheduling import all_pairs, counterbalance
from tests.services.test_scheduling import _sparse_eligibility

digest = hashlib.sha256()
for trial in range(300):
    for task in counterbalance(all_pairs(_sparse_eligibility(trial)), random.Random(trial)):
        digest.update(repr((task.slot, str(task.left), str(task.right))).encode())
print(digest.hexdigest())
"""


def test_the_same_seed_gives_the_same_schedule_in_every_process() -> None:
    """String hashes differ between processes (PYTHONHASHSEED): nothing in the schedule may
    depend on them, or a campaign could not be re-derived from its seed elsewhere."""
    root = Path(__file__).resolve().parents[2]
    schedules = {
        subprocess.run(
            [sys.executable, "-c", _SCHEDULES_IN_A_FRESH_PROCESS],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": str(hash_seed)},
        ).stdout
        for hash_seed in (1, 2, 3, 4)
    }
    assert len(schedules) == 1
