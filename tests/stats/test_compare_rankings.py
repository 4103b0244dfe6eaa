"""``workbench compare-rankings``: two leaderboards over different items and battles compared
by rank correlation and confidence agreement, checked against scipy.stats and a count of model
pairs written here, on the published WildVision-Bench rounds and leaderboards of its import."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from scipy import stats

from workbench.cli import main

PUBLISHED = "bootstrapping_results.jsonl"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def published_board(wildvision_dir: Path) -> pd.DataFrame:
    """The published fit (line 1) with the percentile interval over every line, as
    WildVision-Bench's show_results.py takes it."""
    lines = (wildvision_dir / PUBLISHED).read_text().splitlines()
    rounds = pd.DataFrame([json.loads(line) for line in lines if line.strip()])
    return pd.DataFrame(
        {
            "rating": rounds.iloc[0],
            "lower": rounds.quantile(0.025),
            "upper": rounds.quantile(0.975),
        }
    )


def leaderboard_board(document: dict[str, Any]) -> pd.DataFrame:
    rows = document["models"]
    return pd.DataFrame(
        {
            "rating": [row["rating"] for row in rows],
            "lower": [row["ci_lower"] for row in rows],
            "upper": [row["ci_upper"] for row in rows],
        },
        index=[row["model"] for row in rows],
    )


def confidence_agreement(a: pd.DataFrame, b: pd.DataFrame, models: list[str]) -> tuple[int, int]:
    """Pairs both boards separate (disjoint intervals) in the same order, and oppositely."""

    def order(board: pd.DataFrame, x: str, y: str) -> int:
        if board.at[x, "lower"] > board.at[y, "upper"]:
            return 1
        if board.at[y, "lower"] > board.at[x, "upper"]:
            return -1
        return 0

    same = opposite = 0
    for x, y in combinations(models, 2):
        first, second = order(a, x, y), order(b, x, y)
        same += bool(first and second and first == second)
        opposite += bool(first and second and first != second)
    return same, opposite


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "flags", [("--method", "elo"), ("--decisive-weight", "1")], ids=["online-elo", "weight-1"]
)
def test_published_rounds_against_a_leaderboard_of_the_import(
    wildvision_bundle: Path,
    wildvision_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: tuple[str, ...],
) -> None:
    status, out, _ = run(
        capsys, "leaderboard", str(wildvision_bundle), *flags, "--bootstrap", "100", "--json"
    )
    assert status == 0
    board_file = tmp_path / "board.json"
    board_file.write_text(out, "utf-8")
    status, out, _ = run(
        capsys, "compare-rankings", str(wildvision_dir / PUBLISHED), str(board_file), "--json"
    )
    assert status == 0
    found = json.loads(out)

    theirs, ours = (
        published_board(wildvision_dir),
        leaderboard_board(json.loads(board_file.read_text())),
    )
    models = sorted(set(theirs.index) & set(ours.index))
    assert found["shared_models"] == len(models) == 21
    assert found["only_b"] == ["aria"] and found["only_a"] == []
    a, b = theirs.loc[models, "rating"], ours.loc[models, "rating"]
    assert found["spearman"] == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert found["kendall_tau"] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    assert found["pearson"] == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
    assert found["spearman"] < 0.999  # different rankings, so the numbers say something
    same, opposite = confidence_agreement(theirs, ours, models)
    agreement = found["confidence_agreement"]
    assert (agreement["agree"], agreement["contradict"]) == (same, opposite)
    assert agreement["pairs"] == 21 * 20 // 2
    assert agreement["share"] == pytest.approx(same / agreement["pairs"])
    ranks = pd.DataFrame(found["ranks"]).set_index("model")
    assert ranks["rank_a"].to_dict() == a.rank(ascending=False).to_dict()


@pytest.mark.shared_data
def test_a_bundle_side_uses_the_default_leaderboard(
    wildvision_bundle: Path, wildvision_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(
        capsys, "compare-rankings", str(wildvision_dir / PUBLISHED), str(wildvision_bundle)
    )
    assert status == 0
    # the import's Bradley-Terry fit is the published one, so the orders are the same
    assert "Spearman: 1.0000" in out and "Kendall tau-b: 1.0000" in out
    assert "only in B (left out): aria" in out
    assert "confidence agreement: " in out


def test_unreadable_sides_are_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    battles = tmp_path / "battles.json"
    battles.write_text('[{"model_a": "x", "model_b": "y", "winner": "tie"}]', "utf-8")
    lonely = tmp_path / "one.json"
    lonely.write_text(json.dumps({"models": [{"model": "x", "rating": 1000.0}]}), "utf-8")
    status, _, err = run(capsys, "compare-rankings", str(battles), str(lonely))
    assert status == 1 and "battles.json is a JSON list" in err
    status, _, err = run(capsys, "compare-rankings", str(lonely), str(lonely))
    assert status == 1 and "one.json" in err and "fewer than two models" in err
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"models": [{"name": "x"}]}), "utf-8")
    status, _, err = run(capsys, "compare-rankings", str(broken), str(lonely))
    assert status == 1 and "broken.json" in err and "'rating'" in err
