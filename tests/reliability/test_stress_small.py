"""The stress run (bench/stress.py) at a small scale: 2,000 items, 30 models and 10,000 votes go
through every step (open, browse, both leaderboards, export, the GUI's first item) in fresh
processes, and the results are checked against the bundle itself; times are not checked.
``pytest -m long`` runs it at the full 200,000 items and 1,000,000 votes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STRESS = PROJECT_ROOT / "bench" / "stress.py"
SMALL = {"items": 2_000, "models": 30, "votes": 10_000}
FULL = {"items": 200_000, "models": 30, "votes": 1_000_000}


def run_stress(
    bundle: Path, sizes: dict[str, int], *extra: str
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(STRESS), "--bundle", str(bundle)]
    for name, value in sizes.items():
        command += [f"--{name}", str(value)]
    return subprocess.run([*command, *extra], capture_output=True, text=True, timeout=3600)


def stress_summary(tmp_path: Path, sizes: dict[str, int]) -> tuple[Path, dict[str, Any]]:
    bundle = tmp_path / "stress.wbb"
    # one gui run: the step's repeated runs only steady its timing median, and times are not
    # checked here
    finished = run_stress(bundle, sizes, "--steps", "50", "--bootstrap", "20", "--gui-runs", "1")
    assert finished.returncode == 0, finished.stderr
    return bundle, json.loads(finished.stdout)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    return stress_summary(tmp_path_factory.mktemp("stress"), SMALL)


def check_against_bundle(bundle: Path, summary: dict[str, Any], sizes: dict[str, int]) -> None:
    with sqlite3.connect(bundle) as connection:

        def count(sql: str) -> int:
            return cast("int", connection.execute(sql).fetchone()[0])

        items = count("SELECT count(*) FROM items")
        models = count("SELECT count(*) FROM models")
        votes = count("SELECT count(*) FROM votes WHERE retracted_at IS NULL")
        pairs_with_one_voter = count(
            "SELECT count(*) FROM (SELECT pair_id FROM votes GROUP BY pair_id "
            "HAVING count(DISTINCT annotator_id) < 2)"
        )
    assert (items, models, votes) == (sizes["items"], sizes["models"], sizes["votes"])
    assert pairs_with_one_voter == 0

    steps = summary["steps"]
    assert set(steps) == {"open", "browse", "leaderboard-bt", "leaderboard-elo", "export", "gui"}
    assert all(step["ok"] and step["exit_code"] == 0 for step in steps.values()), steps
    assert steps["open"]["items_listed"] == items
    assert steps["open"]["first_item_outputs"] >= models
    assert steps["browse"]["items_visited"] == 50
    assert steps["browse"]["outputs_read"] >= 50 * models
    for method in ("leaderboard-bt", "leaderboard-elo"):
        assert steps[method]["models_rated"] == models
        assert steps[method]["battles"] == votes
        assert steps[method]["rank_correlation_with_truth"] >= 0.9
    assert steps["leaderboard-bt"]["median_ci_width"] > 0
    assert steps["export"]["records"] == votes
    width, height = map(int, steps["gui"]["screenshot"].split("x"))
    assert width >= 400 and height >= 300
    assert all(0 < step["peak_mb"] < 4096 for step in steps.values())
    assert summary["ok"] and summary["peak_mb"] == max(s["peak_mb"] for s in steps.values())
    assert summary["bundle_mb"] == pytest.approx(bundle.stat().st_size / 1e6)


@pytest.mark.gui
def test_every_step_works_on_a_small_bundle(small_run: tuple[Path, dict[str, Any]]) -> None:
    bundle, summary = small_run
    assert summary["build"]["cached"] is False
    check_against_bundle(bundle, summary, SMALL)


def test_a_cached_bundle_of_other_sizes_is_not_reused(
    small_run: tuple[Path, dict[str, Any]],
) -> None:
    bundle, _ = small_run
    finished = run_stress(bundle, {**SMALL, "votes": SMALL["votes"] // 2})
    assert finished.returncode != 0
    assert "remove it or give another --bundle" in finished.stderr
    with sqlite3.connect(bundle) as connection:
        assert connection.execute("SELECT count(*) FROM votes").fetchone()[0] == SMALL["votes"]


@pytest.mark.long
@pytest.mark.gui
def test_every_step_works_on_the_full_stress_bundle(tmp_path: Path) -> None:
    bundle, summary = stress_summary(tmp_path, FULL)
    check_against_bundle(bundle, summary, FULL)
