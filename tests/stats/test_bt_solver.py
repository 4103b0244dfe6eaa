"""The numpy-only Newton solver against scipy's L-BFGS on the same objective, on the published
WildVision-Bench battles and at the edges where the unpenalised maximum does not exist (a model
that never wins, a comparison graph in two pieces) or where ties carry the information."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, cast

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from workbench.stats.battles import pair_counts
from workbench.stats.bradley_terry import (
    RIDGE,
    SINGLE_THREAD_MODELS,
    pair_totals,
    solve_bradley_terry,
    wins_with_half_ties,
)
from workbench.stats.counted_board import resampled_cells
from workbench.stats.pair_counts import PairCounts


def lbfgs(counts: PairCounts, cells: np.ndarray | None = None) -> np.ndarray:
    """Strengths (natural log-odds, centred) maximising the solver's penalised likelihood,
    found by scipy's L-BFGS-B from zero as FastChat's ``fit_bt`` does, with tolerances tight
    enough to reach the optimum itself."""
    n_pairs = len(counts.first)
    row = counts.cells if cells is None else cells
    wins = row[:n_pairs] + 0.5 * row[2 * n_pairs :]
    totals = row[:n_pairs] + row[n_pairs : 2 * n_pairs] + row[2 * n_pairs :]
    losses = totals - wins
    first, second = counts.first, counts.second

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        logits = theta[first] - theta[second]
        value = -(wins * log_expit(logits) + losses * log_expit(-logits)).sum()
        value += 0.5 * RIDGE * theta @ theta
        pull = wins - totals * expit(logits)
        gradient = RIDGE * theta
        np.add.at(gradient, first, -pull)
        np.add.at(gradient, second, pull)
        return float(value), gradient

    result = minimize(
        loss,
        np.zeros(len(counts.models)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100_000, "gtol": 1e-13, "ftol": 1e-16, "maxcor": 50},
    )
    return cast("np.ndarray", result.x - result.x.mean())


def newton(counts: PairCounts, cells: np.ndarray | None = None) -> np.ndarray:
    return solve_bradley_terry(
        counts.first,
        counts.second,
        wins_with_half_ties(counts, cells),
        pair_totals(counts, cells),
        len(counts.models),
    )


def battles(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model_a", "model_b", "outcome", "weight"])


NEVER_WINS = battles(
    [
        ("a", "b", "a", 5),
        ("a", "b", "b", 3),
        ("b", "c", "b", 4),
        ("c", "b", "a", 2),
        ("a", "c", "tie", 1),
        ("a", "loser", "a", 6),
        ("loser", "c", "b", 2),
        ("b", "loser", "tie", 0),
    ]
)
DISCONNECTED = battles(
    [
        ("a", "b", "a", 5),
        ("a", "b", "b", 2),
        ("b", "c", "b", 3),
        ("c", "b", "b", 4),
        ("x", "y", "a", 1),
        ("x", "y", "b", 3),
        ("y", "z", "tie", 2),
        ("z", "x", "a", 2),
    ]
)
TIES = battles(
    [
        ("a", "b", "tie", 7),
        ("b", "c", "both_bad", 3),
        ("a", "c", "a", 2),
        ("c", "a", "tie", 4),
        ("b", "a", "a", 1),
    ]
)


@pytest.mark.parametrize(
    "frame", [NEVER_WINS, DISCONNECTED, TIES], ids=["never-wins", "disconnected", "ties"]
)
def test_newton_equals_lbfgs_at_the_edges(frame: pd.DataFrame) -> None:
    counts = pair_counts(frame)
    found = newton(counts)[0]
    np.testing.assert_allclose(found, lbfgs(counts), rtol=0, atol=1e-6)


def test_a_model_that_never_wins_ends_far_below_the_others() -> None:
    counts = pair_counts(NEVER_WINS)
    found = newton(counts)[0]
    loser = counts.index_of("loser")
    assert found[loser] < np.delete(found, loser).min() - 5


def test_each_piece_of_a_disconnected_graph_is_centred() -> None:
    counts = pair_counts(DISCONNECTED)
    found = dict(zip(counts.models, newton(counts)[0], strict=True))
    assert abs(found["a"] + found["b"] + found["c"]) < 1e-9
    assert abs(found["x"] + found["y"] + found["z"]) < 1e-9


@pytest.mark.shared_data
def test_newton_equals_lbfgs_on_wildvision_and_its_bootstrap_rounds(
    wildvision_battles: pd.DataFrame,
) -> None:
    counts = pair_counts(wildvision_battles)
    np.testing.assert_allclose(newton(counts)[0], lbfgs(counts), rtol=0, atol=1e-6)
    cells = resampled_cells(counts, 5, seed=3)
    rounds = newton(counts, cells)
    for index in range(len(cells)):
        np.testing.assert_allclose(rounds[index], lbfgs(counts, cells[index]), rtol=0, atol=1e-6)


def test_the_solver_path_imports_neither_scipy_nor_pandas() -> None:
    code = (
        "import sys, workbench.stats.counted_board; "
        "print(sorted(m for m in ('scipy', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_batched_solves_run_on_one_blas_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    from threadpoolctl import threadpool_info, threadpool_limits

    seen: list[int] = []
    solve = np.linalg.solve

    def counting(*args: Any) -> np.ndarray:
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return cast("np.ndarray", solve(*args))

    monkeypatch.setattr(np.linalg, "solve", counting)
    rng = np.random.default_rng(0)
    many = pd.DataFrame(
        {
            "model_a": rng.integers(0, SINGLE_THREAD_MODELS, 2000).astype(str),
            "model_b": rng.integers(0, SINGLE_THREAD_MODELS, 2000).astype(str),
            "outcome": rng.choice(["a", "b", "tie"], 2000),
            "weight": 1.0,
        }
    )
    counts = pair_counts(many)
    assert len(counts.models) == SINGLE_THREAD_MODELS
    with threadpool_limits(limits=2, user_api="blas"):  # as on a two-core machine
        newton(counts)
    assert seen and set(seen) == {1}


@pytest.mark.parametrize("seed", range(5))
def test_first_appearance_codes_number_names_as_pandas_factorize(seed: int) -> None:
    from workbench.stats.pair_counts import first_appearance_codes

    rng = np.random.default_rng(seed)
    names = np.array([f"model-{n}" for n in rng.integers(0, 30, 2_000)], dtype=object)
    codes, order = first_appearance_codes(names)
    expected_codes, expected_names = pd.factorize(pd.Series(names))
    assert codes.dtype == np.int64
    assert codes.tolist() == expected_codes.tolist()
    assert order == tuple(expected_names)
    empty_codes, empty_names = first_appearance_codes(np.array([], dtype=object))
    assert empty_codes.tolist() == [] and empty_names == ()
