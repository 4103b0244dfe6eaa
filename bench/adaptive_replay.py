"""Adaptive against uniform pairing, replayed: each asked comparison is answered from a world
whose full answer is known, and the votes are counted until the ratings reach the full data's
conclusions.

Two worlds: the published WildVision-Bench battles (an asked pair is answered by one of that
pair's battles, drawn at random with replacement; only pairs with battles can be asked), and a
synthetic population of 40 models with known ratings (an asked pair is answered by the
Bradley-Terry model itself; its "full data" is a uniform sample as large as WildVision's).

A run stops at the first check (every ``check_every`` votes) where both hold: Kendall's tau of
the current order against the full data's is at least 0.9, and every adjacent pair of the full
data's order that the full data separates (its 95% interval of the difference excludes 0) is
separated the same way. Adaptive runs draw each pair with ``workbench.stats.active_sampling``'s
published rule, design runs with its plug-in design (planning for as many votes as the full data
holds, as a campaign plans its tasks' votes), both refitting every ``refit_every`` votes;
design-knowing-targets runs plan the same way for the adjacent differences the full data
separates instead of the current order's (knowledge no campaign has); finish-first runs weigh
each adjacent difference of the current order not yet told apart by the information it still
lacks, cheapest first (:func:`finish_first_probabilities`, a rule tried against the design and
not adopted: docs/PERFORMANCE.md);
uniform runs draw every askable pair alike; informed runs follow a fixed schedule built from
the full data's answer (a heuristic a campaign could not follow, not a bound:
bench/pairing_bound.py computes one); fixed runs follow given probabilities. Shared by
bench/sample_efficiency.py and bench/pairing_bound.py.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from itertools import combinations, pairwise
from pathlib import Path

import numpy as np
from scipy.special import expit
from scipy.stats import kendalltau

from workbench.stats.active_sampling import (
    PairChoiceState,
    design_weights,
    draw_pair,
    fit_with_covariance,
    information_matrix,
    pair_weights,
)

Z95 = 1.959963984540054
TAU_GOAL = 0.9


@dataclass(frozen=True)
class World:
    """Who can be asked (candidate pairs, model indices first < second), how they answer, and
    the full data's conclusions: its order (best first) and the adjacent pairs it separates."""

    name: str
    models: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    reference_order: np.ndarray
    separated: tuple[tuple[int, int], ...]  # (better, worse) adjacent in the full data's order
    # the full data's strengths and their covariance, for the informed schedule
    full_strengths: np.ndarray
    full_covariance: np.ndarray
    # per candidate pair: the outcomes it can answer with, from first's side (1, 0 or 0.5)
    answers: tuple[np.ndarray, ...] | None = None
    skills: np.ndarray | None = None
    #: the votes a campaign over this world plans (the full data's size)
    planned_votes: int = 0

    def answer(self, pair: int, rng: np.random.Generator) -> float:
        if self.answers is not None:
            outcomes = self.answers[pair]
            return float(outcomes[rng.integers(len(outcomes))])
        assert self.skills is not None
        a, b = self.first[pair], self.second[pair]
        return float(rng.random() < expit(self.skills[a] - self.skills[b]))


def _state(world: World, wins_first: np.ndarray, wins_second: np.ndarray, ties: np.ndarray):
    return PairChoiceState(
        len(world.models), world.first, world.second, wins_first, wins_second, ties
    )


def conclusions(
    models: int,
    first: np.ndarray,
    second: np.ndarray,
    wins_first: np.ndarray,
    wins_second: np.ndarray,
    ties: np.ndarray,
) -> tuple[np.ndarray, tuple[tuple[int, int], ...], np.ndarray, np.ndarray]:
    """The order (best first), the separated adjacent pairs, the strengths and their covariance
    of a body of battles."""
    strengths, covariance = fit_with_covariance(
        PairChoiceState(models, first, second, wins_first, wins_second, ties)
    )
    return (*_separation(strengths, covariance), strengths, covariance)


def told_apart(strengths: np.ndarray, covariance: np.ndarray, better: int, worse: int) -> bool:
    """Whether ``better`` is above ``worse`` with 95% confidence: the interval of the difference
    excludes 0 on the side of ``better``."""
    variance = covariance[better, better] + covariance[worse, worse] - 2 * covariance[better, worse]
    return bool(strengths[better] - strengths[worse] > Z95 * np.sqrt(variance))


def _separation(
    strengths: np.ndarray, covariance: np.ndarray
) -> tuple[np.ndarray, tuple[tuple[int, int], ...]]:
    order = np.argsort(-strengths, kind="stable")
    separated = [
        (int(better), int(worse))
        for better, worse in pairwise(order)
        if told_apart(strengths, covariance, better, worse)
    ]
    return order, tuple(separated)


def wildvision_world(path: Path) -> World:
    """The published WildVision-Bench battles (``vision_bench_battles.jsonl.gz``)."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    models = tuple(sorted({row["model_a"] for row in rows} | {row["model_b"] for row in rows}))
    index = {model: position for position, model in enumerate(models)}
    outcomes: dict[tuple[int, int], list[float]] = {}
    for row in rows:
        a, b = index[row["model_a"]], index[row["model_b"]]
        won = {"model_a": 1.0, "model_b": 0.0}.get(row["winner"], 0.5)
        if a > b:
            a, b, won = b, a, 1.0 - won
        outcomes.setdefault((a, b), []).append(won)
    pairs = sorted(outcomes)
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    answers = tuple(np.array(outcomes[pair]) for pair in pairs)
    wins_first = np.array([np.sum(o == 1.0) for o in answers], dtype=float)
    wins_second = np.array([np.sum(o == 0.0) for o in answers], dtype=float)
    ties = np.array([np.sum(o == 0.5) for o in answers], dtype=float)
    order, separated, strengths, covariance = conclusions(
        len(models), first, second, wins_first, wins_second, ties
    )
    return World(
        "WildVision-Bench",
        models,
        first,
        second,
        order,
        separated,
        strengths,
        covariance,
        answers=answers,
        planned_votes=len(rows),
    )


def synthetic_world(seed: int, models: int = 40, full_battles: int = 20_000) -> World:
    """40 models with known skills (natural log-odds, sd 0.7). The full data is what a uniform
    sample of ``full_battles`` over all pairs would conclude in expectation: the known order,
    and the adjacent pairs whose true difference exceeds 1.96 times its standard error at that
    size (the inverse of the expected information), so that the goal is reachable and the same
    for every schedule."""
    rng = np.random.default_rng(20_000 + seed)
    skills = rng.normal(0, 0.7, models)
    skills = skills - skills.mean()
    pairs = list(combinations(range(models), 2))
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    p = expit(skills[first] - skills[second])
    information = information_matrix(models, first, second, full_battles / len(pairs) * p * (1 - p))
    covariance = np.linalg.inv(information)
    order, separated = _separation(skills, covariance)
    names = tuple(f"model-{position:02d}" for position in range(models))
    return World(
        "synthetic 40 models",
        names,
        first,
        second,
        order,
        separated,
        skills,
        covariance,
        skills=skills,
        planned_votes=full_battles,
    )


def reached(
    world: World, wins_first: np.ndarray, wins_second: np.ndarray, ties: np.ndarray
) -> bool:
    """Whether the battles so far reach both goals (see the module docstring)."""
    strengths, covariance = fit_with_covariance(_state(world, wins_first, wins_second, ties))
    reference_rank = np.empty(len(world.models))
    reference_rank[world.reference_order] = np.arange(len(world.models))
    tau = kendalltau(reference_rank, -strengths).statistic
    if not tau >= TAU_GOAL:
        return False
    return all(told_apart(strengths, covariance, *pair) for pair in world.separated)


SCHEDULES = (
    "uniform",
    "adaptive",
    "design",
    "design-knowing-targets",
    "finish-first",
    "informed",
    "fixed",
)

#: finish-first: a difference counts as finished at this much above the 95% edge (so that one
#: just across it, which the next votes on its neighbours may pull back, is not abandoned)
FINISH_MARGIN = 0.3
#: finish-first: the power of a difference's weight, one over the information it still lacks
FINISH_SHARPENING = 2.0


def finish_first_probabilities(state: PairChoiceState, exploration: float = 0.1) -> np.ndarray:
    """Each adjacent difference of the current order below ``Z95 + FINISH_MARGIN`` gets the
    weight ``1 / g^FINISH_SHARPENING``, with ``g`` the information it lacks to reach that edge
    at its current estimate (``(edge / d)^2 - 1 / var(d)``), so differences nearly told apart
    come first and those the votes show to be near ties fall away; each difference spreads its
    weight over the candidate pairs in proportion to how much one vote of each narrows it (the
    rank-one update of the fit's covariance), and ``exploration`` is spread evenly. Unlike the
    design it plans for no horizon: it finishes the cheapest differences one after another."""
    strengths, covariance = fit_with_covariance(state)
    first, second = state.first, state.second
    order = np.argsort(-strengths, kind="stable")
    better, worse = order[:-1], order[1:]
    variance = np.maximum(
        covariance[better, better] + covariance[worse, worse] - 2 * covariance[better, worse],
        1e-12,
    )
    difference = strengths[better] - strengths[worse]
    edge = Z95 + FINISH_MARGIN
    lacking = np.maximum(edge**2 / np.maximum(difference, 1e-6) ** 2 - 1 / variance, 0.0)
    open_ = (difference / np.sqrt(variance) < edge) & (lacking > 0)
    weight = np.zeros_like(lacking)
    weight[open_] = 1.0 / np.maximum(lacking[open_], 1e-9) ** FINISH_SHARPENING
    p = expit(strengths[first] - strengths[second])
    w = p * (1 - p)
    candidates = np.arange(len(first))
    cov_x = covariance[:, first] - covariance[:, second]
    y_cov_x = cov_x[better] - cov_x[worse]
    x_cov_x = cov_x[first, candidates] - cov_x[second, candidates]
    narrowing = w * y_cov_x**2 / (1 + w * x_cov_x)
    share = narrowing / np.maximum(narrowing.sum(axis=1, keepdims=True), 1e-300)
    pair_weight = weight @ share
    count = len(first)
    if not pair_weight.sum() > 0:
        return np.full(count, 1 / count)
    return (1 - exploration) * pair_weight / pair_weight.sum() + exploration / count


def informed_probabilities(world: World, exploration: float = 0.1) -> np.ndarray:
    """A fixed schedule that knows the full data's answer (a heuristic, not a bound): each
    model's share grows with the hardest separation it takes part in (1 / z² of its
    difference in the full data), each candidate pair gets the sum of its two models' shares,
    and ``exploration`` is spread evenly as in the adaptive rule."""
    need = np.zeros(len(world.models))
    strengths, covariance = world.full_strengths, world.full_covariance
    for better, worse in world.separated:
        variance = (
            covariance[better, better] + covariance[worse, worse] - 2 * covariance[better, worse]
        )
        z = (strengths[better] - strengths[worse]) / np.sqrt(variance)
        need[better] = max(need[better], 1 / z**2)
        need[worse] = max(need[worse], 1 / z**2)
    weight = need[world.first] + need[world.second]
    count = len(weight)
    if weight.sum() == 0:
        return np.full(count, 1 / count)
    return (1 - exploration) * weight / weight.sum() + exploration / count


def votes_needed(
    world: World,
    schedule: str,
    seed: int,
    budget: int,
    check_every: int = 100,
    refit_every: int = 25,
    probabilities: np.ndarray | None = None,
) -> int | None:
    """Votes until both goals hold (a multiple of ``check_every``), None within ``budget``.
    ``schedule`` is one of :data:`SCHEDULES`; ``fixed`` draws every vote from the given
    ``probabilities`` over the candidate pairs (``bench/pairing_bound.py``'s optimal
    allocation)."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule is one of {', '.join(SCHEDULES)}")
    if (schedule == "fixed") != (probabilities is not None):
        raise ValueError("probabilities are given with the fixed schedule, and only with it")
    rng = np.random.default_rng(seed)
    count = len(world.first)
    wins_first, wins_second, ties = np.zeros(count), np.zeros(count), np.zeros(count)
    if probabilities is None:
        probabilities = (
            informed_probabilities(world) if schedule == "informed" else np.full(count, 1 / count)
        )
    for vote in range(1, budget + 1):
        if schedule == "adaptive" and vote % refit_every == 1:
            probabilities = pair_weights(_state(world, wins_first, wins_second, ties)).probabilities
        elif schedule == "design" and vote % refit_every == 1:
            state = _state(world, wins_first, wins_second, ties)
            probabilities = design_weights(state, world.planned_votes).probabilities
        elif schedule == "design-knowing-targets" and vote % refit_every == 1:
            state = _state(world, wins_first, wins_second, ties)
            targets = (
                np.array([better for better, _ in world.separated], dtype=int),
                np.array([worse for _, worse in world.separated], dtype=int),
            )
            probabilities = design_weights(
                state, world.planned_votes, targets=targets
            ).probabilities
        elif schedule == "finish-first" and vote % refit_every == 1:
            probabilities = finish_first_probabilities(_state(world, wins_first, wins_second, ties))
        pair = draw_pair(probabilities, float(rng.random()))
        outcome = world.answer(pair, rng)
        if outcome == 1.0:
            wins_first[pair] += 1
        elif outcome == 0.0:
            wins_second[pair] += 1
        else:
            ties[pair] += 1
        if vote % check_every == 0 and reached(world, wins_first, wins_second, ties):
            return vote
    return None
