"""What choosing pairs can save at best, in the two worlds of the adaptive-pairing replay
(``bench/adaptive_replay.py``): the optimal allocation of votes over pairs for a designer who
knows the true ratings, against uniform pairing under the same criterion.

The criterion is the goal's second half in expectation: every adjacent pair that the full data
separates, with true difference ``d``, must have a Bradley-Terry variance of its difference of at
most ``(d / 1.96)²``, the variance at which its expected z reaches 1.96. The variance is read off
the information matrix ``P + Σ n_ij w_ij (e_i - e_j)(e_i - e_j)ᵀ`` (``w_ij = p_ij (1 - p_ij)`` at
the true ratings, ``P`` the replay's fit prior), so the votes needed are

    optimal: min Σ n_ij  s.t.  c_kᵀ M(n)⁻¹ c_k <= v_k for every separable adjacent pair k,
    uniform: the least N with n_ij = N / pairs meeting the same constraints,

a convex problem (the matrix-fractional function is convex in ``n``). Its optimum is bracketed:
a feasible allocation from SLSQP gives the upper end, and a Lagrangian certificate the lower end
(for multipliers λ >= 0 and any allocation ``n``, convexity gives every feasible allocation at
least ``(φ(n) + G·n - Σλ) / max G`` votes, where ``φ = Σ λ_k c_kᵀM⁻¹c_k / v_k`` and ``G`` is minus
its gradient). Dropping the Kendall tau half of the goal only lowers the optimum, so the lower end
is a lower bound for every fixed allocation, however it was found.

The ratio optimal / uniform is the most any fixed allocation saves on the separation half. The
Kendall tau half (tau >= 0.9: at most 5% of model pairs ordered against the truth) is added as a
second constraint, the expected number of such pairs Σ Φ(-|d_ij| / sd_ij) at most that limit;
it is not convex, so the allocation meeting both (SLSQP from uniform's) is what a designer who
knows the truth achieves, not a bound, and it is compared with uniform's total under the same
two constraints.

A second designer knows what the full data concludes and no more: the order it leaves open
stays open. Each separable adjacent pair (a, b) is a boundary between the models not separated
from a at or above a and those not separated from b at or below b (separated: the full data's
95% interval of the difference excludes 0), and which of them sits on the boundary is what the
full data cannot tell; this designer must separate every model of the upper group from every one
of the lower, with the same variance limit at each pair's true difference. Its optimum, bracketed
and certified the same way (the multipliers of a trust-region solve give the certificate where
the stationarity fit does not), is what knowing the order within the groups is worth; its
allocation for both halves is found as the first designer's.

Neither designer follows the bench's stopping rule (everything at once, on noisy data), so
``--replay-seeds`` replays both allocations for both halves as fixed schedules (with
``--exploration`` of each spread evenly, as the campaign's rule does) under the bench's own goal,
beside uniform pairing on the same seeds.

    python bench/pairing_bound.py [--synthetic-seeds 20] [--replay-seeds 0]
        [--worlds wildvision,synthetic] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import Bounds, NonlinearConstraint, minimize, nnls
from scipy.special import expit
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adaptive_replay import (
    TAU_GOAL,
    Z95,
    World,
    synthetic_world,
    told_apart,
    votes_needed,
    wildvision_world,
)
from sample_efficiency import WILDVISION_BATTLES

from workbench.stats.active_sampling import PRIOR_PRECISION

REPLAY_BUDGET = 60_000
#: a certificate below this share of the feasible total is refined by a trust-region solve
CERTIFIED_SHARE = 0.999


class Design:
    """The constraints of one world: candidate pairs' information weights at the true ratings,
    and one contrast and variance limit per separable adjacent pair."""

    def __init__(self, world: World, separable: tuple[tuple[int, int], ...] | None = None) -> None:
        self.models = len(world.models)
        self.first, self.second = world.first, world.second
        truth = world.full_strengths
        p = expit(truth[self.first] - truth[self.second])
        self.weight = p * (1 - p)
        contrasts, limits = [], []
        for better, worse in world.separated if separable is None else separable:
            contrast = np.zeros(self.models)
            contrast[better], contrast[worse] = 1.0, -1.0
            contrasts.append(contrast)
            limits.append(((truth[better] - truth[worse]) / Z95) ** 2)
        self.contrasts = np.array(contrasts).T  # models x constraints
        self.limits = np.array(limits)
        # every model pair, for the expected number of pairs ordered against the truth
        self.upper_first, self.upper_second = np.triu_indices(self.models, 1)
        self.gaps = np.abs(truth[self.upper_first] - truth[self.upper_second])
        # Kendall tau >= TAU_GOAL is at most this many discordant pairs (no ties)
        self.discordance_limit = (1 - TAU_GOAL) / 2 * len(self.gaps)

    def information(self, votes: np.ndarray) -> np.ndarray:
        information = np.diag(np.full(self.models, PRIOR_PRECISION))
        w = votes * self.weight
        np.add.at(information, (self.first, self.first), w)
        np.add.at(information, (self.second, self.second), w)
        np.add.at(information, (self.first, self.second), -w)
        np.add.at(information, (self.second, self.first), -w)
        return information

    def variance_ratios(self, votes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each constraint's variance over its limit, and the per-pair sensitivities
        ``w_e (x_eᵀ M⁻¹ c_k)² / v_k`` (pairs x constraints), minus the ratios' gradient."""
        solved = np.linalg.solve(self.information(votes), self.contrasts)
        ratios = np.einsum("mk,mk->k", self.contrasts, solved) / self.limits
        along = solved[self.first] - solved[self.second]
        sensitivity = self.weight[:, None] * along**2 / self.limits[None, :]
        return ratios, sensitivity

    def discordance(self, votes: np.ndarray) -> tuple[float, np.ndarray]:
        """The expected number of model pairs the fit orders against the truth (normal
        approximation, Σ Φ(-|d| / sd)) over its limit, and its gradient in the votes."""
        covariance = np.linalg.inv(self.information(votes))
        a, b = self.upper_first, self.upper_second
        variance = covariance[a, a] + covariance[b, b] - 2 * covariance[a, b]
        z = self.gaps / np.sqrt(variance)
        expected = float(norm.cdf(-z).sum())
        # d/dn_e of Φ(-g / sqrt(V)) = φ(z) z / (2V) dV/dn_e, dV/dn_e = -w_e (x_eᵀ C c)²
        solved = covariance[:, a] - covariance[:, b]  # C c for every model pair
        along = solved[self.first] - solved[self.second]  # pairs x model pairs
        slope = norm.pdf(z) * z / (2 * variance)
        gradient = -self.weight * (along**2 @ slope)
        return expected / self.discordance_limit, gradient / self.discordance_limit

    def uniform_votes(self, with_order: bool = False) -> float:
        """The least total of an even allocation meeting every constraint (bisection); with
        ``with_order``, the expected discordance constraint too."""
        pairs = len(self.first)

        def worst(total: float) -> float:
            votes = np.full(pairs, total / pairs)
            value = float(self.variance_ratios(votes)[0].max()) if len(self.limits) else 0.0
            return max(value, self.discordance(votes)[0]) if with_order else value

        low, high = 1.0, 1.0
        while worst(high) > 1:
            low, high = high, high * 2
        for _ in range(60):
            middle = (low + high) / 2
            low, high = (low, middle) if worst(middle) <= 1 else (middle, high)
        return high

    def lower_bound(self, votes: np.ndarray, multipliers: np.ndarray) -> float:
        """The Lagrangian certificate (module docstring): no allocation meeting every
        constraint has fewer votes."""
        ratios, sensitivity = self.variance_ratios(votes)
        phi = float(multipliers @ ratios)
        g = sensitivity @ multipliers
        value = phi + float(g @ votes) - float(multipliers.sum())
        return max(0.0, value / float(g.max())) if g.max() > 0 else 0.0

    def optimal(self, start_total: float) -> tuple[np.ndarray, float, float]:
        """A feasible allocation near the optimum, its total, and the certified lower bound."""
        pairs = len(self.first)
        scale = start_total / pairs

        def constraints(u: np.ndarray) -> np.ndarray:
            return 1 - self.variance_ratios(u * scale)[0]

        def jacobian(u: np.ndarray) -> np.ndarray:
            return self.variance_ratios(u * scale)[1].T * scale

        constraint = {"type": "ineq", "fun": constraints, "jac": jacobian}
        votes = _fewest_votes(pairs, [constraint], maxiter=500, ftol=1e-10) * scale
        # make it feasible whatever SLSQP's last step left: scale up until every ratio <= 1
        while self.variance_ratios(votes)[0].max() > 1:
            votes = votes * (1 + 1e-4)
        # multipliers from stationarity on the pairs the allocation uses: Σ_k λ_k s_ek = 1
        _, sensitivity = self.variance_ratios(votes)
        used = votes > 1e-6 * votes.max()
        multipliers, _ = nnls(sensitivity[used], np.ones(int(used.sum())))
        certified = self.lower_bound(votes, multipliers)
        if certified < CERTIFIED_SHARE * votes.sum():
            refined = self._solver_multipliers(votes / scale, scale)
            certified = max(certified, self.lower_bound(votes, refined))
        return votes, float(votes.sum()), certified

    def _solver_multipliers(self, start: np.ndarray, scale: float) -> np.ndarray:
        """The constraints' multipliers from a trust-region solve started at ``start`` (in units
        of ``scale`` votes). Any multipliers >= 0 give a valid certificate; these are the tight
        ones where the fit on the used pairs is not (many more constraints than used pairs)."""
        result = minimize(
            lambda u: float(u.sum()),
            start,
            jac=lambda u: np.ones_like(u),
            method="trust-constr",
            bounds=Bounds(0, np.inf),
            constraints=[
                NonlinearConstraint(
                    lambda u: self.variance_ratios(u * scale)[0],
                    -np.inf,
                    1.0,
                    jac=lambda u: -self.variance_ratios(u * scale)[1].T * scale,
                )
            ],
            options={"maxiter": 1000, "gtol": 1e-10, "xtol": 1e-12},
        )
        return np.abs(np.asarray(result.v[0], dtype=float))


def _fewest_votes(
    pairs: int, constraints: list[dict[str, Any]], maxiter: int, ftol: float
) -> np.ndarray:
    """SLSQP's allocation (in units of the caller's scale, from one each) of the fewest votes
    over ``pairs`` pairs under ``constraints``; negative steps left over are cut to 0."""
    result = minimize(
        lambda u: float(u.sum()),
        np.ones(pairs),
        jac=lambda u: np.ones_like(u),
        method="SLSQP",
        bounds=[(0, None)] * pairs,
        constraints=constraints,
        options={"maxiter": maxiter, "ftol": ftol},
    )
    return np.maximum(result.x, 0)


def order_design(design: Design) -> tuple[np.ndarray, float, float]:
    """An allocation meeting the separation constraints and, in expectation, the Kendall tau
    half of the goal, by local optimisation (that constraint is not convex, so this is what a
    designer who knows the truth can achieve, not a bound), and uniform's total under the same
    two constraints."""
    uniform = design.uniform_votes(with_order=True)
    pairs = len(design.first)
    scale = uniform / pairs
    constraints = [
        {
            "type": "ineq",
            "fun": lambda u: 1 - design.discordance(u * scale)[0],
            "jac": lambda u: -design.discordance(u * scale)[1] * scale,
        }
    ]
    if len(design.limits):
        constraints.append(
            {
                "type": "ineq",
                "fun": lambda u: 1 - design.variance_ratios(u * scale)[0],
                "jac": lambda u: design.variance_ratios(u * scale)[1].T * scale,
            }
        )
    votes = _fewest_votes(pairs, constraints, maxiter=300, ftol=1e-9) * scale

    def worst(votes: np.ndarray) -> float:
        value = float(design.variance_ratios(votes)[0].max()) if len(design.limits) else 0.0
        return max(value, design.discordance(votes)[0])

    while worst(votes) > 1:
        votes = votes * 1.001
    return votes, float(votes.sum()), uniform


def boundary_pairs(world: World) -> tuple[tuple[int, int], ...]:
    """The pairs the second designer must separate (module docstring): for each separable
    adjacent pair, every model at or above its better one that the full data does not separate
    from it, against every model at or below its worse one not separated from that."""
    strengths, covariance = world.full_strengths, world.full_covariance
    order = [int(model) for model in world.reference_order]
    position = {model: rank for rank, model in enumerate(order)}
    pairs: set[tuple[int, int]] = set()
    for better, worse in world.separated:
        upper = [
            m
            for m in order[: position[better] + 1]
            if not told_apart(strengths, covariance, m, better)
        ]
        lower = [
            m for m in order[position[worse] :] if not told_apart(strengths, covariance, worse, m)
        ]
        pairs.update((high, low) for high in upper for low in lower)
    return tuple(sorted(pairs))


def bound(world: World) -> tuple[dict[str, float | int], np.ndarray, np.ndarray]:
    """The figures of one world, and the allocations meeting both halves (for the replay): the
    designer's who knows the truth, and the one's who knows what the full data concludes."""
    design = Design(world)
    row: dict[str, float | int] = {
        "models": len(world.models),
        "pairs": len(world.first),
        "separable_adjacent": len(world.separated),
    }
    if len(world.separated):
        uniform = design.uniform_votes()
        votes, feasible, certified = design.optimal(uniform)
        row.update(
            uniform_votes=uniform,
            optimal_votes=feasible,
            optimal_lower_bound=certified,
            optimal_over_uniform=certified / uniform,
            pairs_used=int((votes > 1e-3 * votes.max()).sum()),
        )
    ordered, total, uniform_ordered = order_design(design)
    row.update(
        with_order_uniform_votes=uniform_ordered,
        with_order_designed_votes=total,
        with_order_designed_over_uniform=total / uniform_ordered,
    )
    boundaries = boundary_pairs(world)
    robust = Design(world, boundaries)
    robust_ordered, robust_total, _ = order_design(robust)
    row.update(
        boundary_pairs=len(boundaries),
        with_order_robust_votes=robust_total,
        with_order_robust_over_uniform=robust_total / uniform_ordered,
    )
    if len(world.separated):
        _, _, robust_certified = robust.optimal(robust.uniform_votes())
        # over the goal's uniform total: what the open order costs against the same baseline
        row.update(
            robust_lower_bound=robust_certified,
            robust_over_uniform=robust_certified / row["uniform_votes"],
        )
    return row, ordered, robust_ordered


def replayed(
    world: World, seed: int, allocations: dict[str, np.ndarray], exploration: float
) -> dict[str, int | None]:
    """Votes to the bench's goal for uniform pairing and for each allocation (both halves) as
    a fixed schedule, with ``exploration`` of it spread evenly as the campaign's rule does."""
    refit_every = 25 if world.name == "WildVision-Bench" else 100
    runs: dict[str, int | None] = {
        "uniform": votes_needed(world, "uniform", seed, REPLAY_BUDGET, refit_every=refit_every)
    }
    for name, votes in allocations.items():
        schedule = (1 - exploration) * votes / votes.sum() + exploration / len(votes)
        runs[name] = votes_needed(
            world, "fixed", seed, REPLAY_BUDGET, refit_every=refit_every, probabilities=schedule
        )
    return runs


def median(values: list) -> float | None:
    finite = [np.inf if value is None else value for value in values]
    middle = float(np.median(finite)) if finite else np.inf
    return None if np.isinf(middle) else middle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synthetic-seeds", type=int, default=20)
    parser.add_argument("--replay-seeds", type=int, default=0)
    parser.add_argument("--exploration", type=float, default=0.1)
    parser.add_argument(
        "--worlds",
        default="wildvision,synthetic",
        help="the worlds to bound, of wildvision and synthetic (default: both)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    worlds = set(args.worlds.split(","))
    if not worlds or not worlds <= {"wildvision", "synthetic"}:
        parser.error("--worlds: a list of wildvision, synthetic")
    if args.synthetic_seeds < 1 or args.replay_seeds < 0:
        parser.error("--synthetic-seeds must be at least 1 and --replay-seeds at least 0")
    if not 0 <= args.exploration <= 1:
        parser.error("--exploration is a share between 0 and 1")
    started = time.process_time()
    rows: dict[str, list[dict]] = {}
    if "wildvision" in worlds:
        wildvision = wildvision_world(WILDVISION_BATTLES)
        row, votes, robust = bound(wildvision)
        rows["WildVision-Bench"] = [row]
        allocations = {"designed": votes, "robust": robust}
        for seed in range(args.replay_seeds):
            rows["WildVision-Bench"].append(
                replayed(wildvision, seed, allocations, args.exploration)
            )
    if "synthetic" in worlds:
        rows["synthetic 40 models"] = []
        # the synthetic world differs per seed (its skills are drawn), as in the pairing bench
        for seed in range(max(args.synthetic_seeds, args.replay_seeds)):
            world = synthetic_world(seed)
            row, votes, robust = bound(world)
            if seed < args.replay_seeds:
                allocations = {"designed": votes, "robust": robust}
                row.update(replayed(world, seed, allocations, args.exploration))
            rows["synthetic 40 models"].append(row)
    results: dict[str, dict[str, float | None]] = {}
    keys = (
        "separable_adjacent",
        "uniform_votes",
        "optimal_lower_bound",
        "optimal_over_uniform",
        "with_order_uniform_votes",
        "with_order_designed_votes",
        "with_order_designed_over_uniform",
        "boundary_pairs",
        "robust_lower_bound",
        "robust_over_uniform",
        "with_order_robust_votes",
        "with_order_robust_over_uniform",
    )
    for world_name, world_rows in rows.items():
        summary: dict[str, float | None] = {"worlds": len([r for r in world_rows if "models" in r])}
        for key in keys:
            summary[key] = median([r[key] for r in world_rows if key in r])
        if args.replay_seeds:
            for name in ("uniform", "designed", "robust"):
                summary[f"replayed_{name}"] = median([r[name] for r in world_rows if name in r])
            u = summary["replayed_uniform"]
            for name in ("designed", "robust"):
                o = summary[f"replayed_{name}"]
                summary[f"replayed_{name}_over_uniform"] = o / u if u and o else None
        results[world_name] = summary
    if args.json:
        print(json.dumps({"settings": vars(args), "results": results}, indent=2))
        return 0
    print(
        f"{', '.join(rows)}"
        + (f", {args.synthetic_seeds} synthetic seeds" if "synthetic" in worlds else "")
        + f", {args.replay_seeds} replay seeds; "
        f"{time.process_time() - started:.0f} CPU s"
    )
    for world, figures in results.items():
        print(f"{world}:")
        for name, value in figures.items():  # type: ignore[attr-defined]
            shown = "not reached" if value is None else f"{value:,.3f}"
            print(f"  {name:<32}{shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
