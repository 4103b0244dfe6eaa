"""The statistics commands (workbench/cli/stats_commands.py) end to end: the WildVision-Bench
acceptance through a real import and ``workbench leaderboard --json``, and agreement,
contradictions and scores on small synthetic bundles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest
from workbench_convbench.score_manifest import CONVBENCH_SCORES

from tests.stats.bundle_helpers import add_judge_verdicts, build_bundle, item_line
from tests.stats.conftest import WILDVISION_ANCHOR
from workbench import plugins
from workbench.cli import main
from workbench.stats.bootstrap import confidence_intervals

ANCHOR_FLAG = f"{WILDVISION_ANCHOR.model}={WILDVISION_ANCHOR.rating:g}"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


@pytest.mark.shared_data
def test_leaderboard_of_imported_wildvision_battles_meets_the_published_figures(
    wildvision_bundle: Path,
    published_bootstrap: pd.DataFrame,
    published_leaderboard: pd.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plot = tmp_path / "ratings.svg"
    document = run_json(
        capsys,
        "leaderboard",
        str(wildvision_bundle),
        "--rater",
        "wildvision-battles",
        "--anchor",
        ANCHOR_FLAG,
        "--bootstrap",
        "500",
        "--plot",
        str(plot),
    )
    assert plot.is_file()
    assert document["method"] == "bt"
    assert document["bootstrap"] == 500
    table = pd.DataFrame(document["models"]).set_index("model")
    published = published_bootstrap.iloc[0]
    assert (table["rating"] - published[table.index]).abs().max() < 0.1
    scores = published_leaderboard.loc[table.index, "score"]
    assert (table["win_rate_vs_anchor"] * 100 - scores).abs().max() < 0.05
    theirs = confidence_intervals(published_bootstrap)
    others = [model for model in table.index if model != WILDVISION_ANCHOR.model]
    ratio = (table["ci_upper"] - table["ci_lower"])[others] / (theirs["upper"] - theirs["lower"])[
        others
    ]
    assert ((ratio - 1).abs() < 0.25).all(), ratio.sort_values()


@pytest.mark.shared_data
def test_leaderboard_text_plots_and_style_control(
    wildvision_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot, heatmap = tmp_path / "ratings.png", tmp_path / "heatmap.svg"
    argv = ["leaderboard", str(wildvision_bundle), "--rater", "gpt-4o", "--decisive-weight", "3"]
    assert (
        main([*argv, "--anchor", ANCHOR_FLAG, "--plot", str(plot), "--heatmap", str(heatmap)]) == 0
    )
    out = capsys.readouterr().out
    assert "gpt-4o" in out and "anchor: claude-3-sonnet-20240229 = 1000" in out
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in heatmap.read_bytes()[:400]

    # the style-controlled fit at 10 bootstrap rounds, not the default 100: the fields checked
    # are the same at any rounds (8.6 CPU s at 100, 2.3 at 10)
    styled = run_json(
        capsys, *argv, "--anchor", ANCHOR_FLAG, "--style-control", "--bootstrap", "10"
    )
    assert styled["style_control"] is True
    assert styled["style_coefficients"]["length"] > 0
    first = styled["models"][0]
    assert "rating_without_style_control" in first
    assert styled["battles_without_answers"] == 0

    # the default is 100 bootstrap rounds; none asked here, so no intervals
    elo = run_json(capsys, *argv, "--method", "elo", "--language", "English", "--bootstrap", "0")
    assert elo["method"] == "elo"
    assert elo["models"][0]["ci_lower"] is None


def test_leaderboard_reports_empty_selections_and_bad_anchors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build_bundle(
        tmp_path / "tiny",
        [item_line("q1", [{"kind": "human", "model_a": "x", "model_b": "y", "outcome": "a"}])],
    )
    assert main(["leaderboard", str(bundle), "--source", "nowhere"]) == 1
    assert "no pairwise judgments match source=nowhere" in capsys.readouterr().err
    # a bad request is bad usage (exit 2), one line naming the option
    assert main(["leaderboard", str(bundle), "--anchor", "=5"]) == 2
    assert "MODEL=VALUE" in capsys.readouterr().err
    assert main(["leaderboard", str(bundle), "--anchor", "x"]) == 2  # one battle each
    assert "--min-battles" in capsys.readouterr().err
    rated = ["leaderboard", str(bundle), "--min-battles", "0"]
    assert main([*rated, "--anchor", "x"]) == 0
    assert "anchor: x = 1000" in capsys.readouterr().out
    assert main([*rated, "--anchor", "w=1000"]) == 2
    assert "--anchor w: not a model of this selection (models: x, y)" in capsys.readouterr().err


@pytest.fixture
def judged_bundle(tmp_path: Path) -> Path:
    """Six items judged by three human raters and by a judge run (x-y in both orders); the judge
    prefers x over y, y over z and z over x on item q0 (a cycle)."""
    lines = []
    for index in range(6):
        judgments = []
        for rater in ("r1", "r2", "r3"):
            for a, b in (("x", "y"), ("y", "z"), ("x", "z")):
                outcome = "a" if (rater != "r3" or index % 2) else "b"
                judgments.append(
                    {
                        "kind": "human",
                        "model_a": a,
                        "model_b": b,
                        "outcome": outcome,
                        "rater": rater,
                        "turn": 1,
                    }
                )
        lines.append(item_line(f"q{index}", judgments, category="ocr" if index < 3 else "humor"))
    bundle = build_bundle(tmp_path / "judged", lines)
    verdicts: list[tuple[str, str, str, str | None]] = []
    for index in range(6):
        verdicts += [
            (f"q{index}", "x", "y", "a"),
            # position bias: the first shown wins, except on q0 where x wins both orders
            (f"q{index}", "y", "x", "b" if index == 0 else "a"),
            (f"q{index}", "y", "z", "a"),
            (f"q{index}", "x", "z", "b" if index == 0 else "a"),
        ]
    add_judge_verdicts(bundle, "judge-1", verdicts)
    return cast("Path", bundle)


def test_agreement_between_humans_and_a_judge_run(
    judged_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = run_json(
        capsys,
        "agreement",
        str(judged_bundle),
        "--a",
        "human",
        "--b",
        "run:judge-1",
        "--bootstrap",
        "20",
    )
    agreement = document["agreement"]
    assert agreement["comparisons"] == 18
    # humans: x>y, y>z, x>z by majority everywhere; the judge: y>z and x>z, x-y split by
    # position (a tie) except on q0, where it has x>y, y>z but z>x
    assert agreement["agreement_with_ties"] == pytest.approx(12 / 18)
    assert agreement["comparisons_without_ties"] == 13
    assert agreement["agreement_without_ties"] == pytest.approx(12 / 13)
    assert document["raters"]["a"]["raters"] == 3
    assert document["raters"]["a"]["comparisons"] == 18
    bias = {row["evaluator"]: row for row in document["position_bias"]}
    assert bias["judge-1"]["first_win_share"] == pytest.approx(22 / 24)
    consistency = {row["evaluator"]: row for row in document["swap_consistency"]}
    assert consistency["judge-1"]["favours_first"] == pytest.approx(5 / 6)
    assert consistency["judge-1"]["consistent"] == pytest.approx(1 / 6)
    assert document["ranks"]["models"] == 3

    assert main(["agreement", str(judged_bundle), "--a", "human", "--b", "run:other"]) == 1
    assert "none match 'run:other'" in capsys.readouterr().err
    assert main(["agreement", str(judged_bundle), "--a", "human", "--b", "judge"]) == 0
    assert "Cohen's kappa" in capsys.readouterr().out


def test_contradictions_finds_the_judge_cycle(
    judged_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = run_json(capsys, "contradictions", str(judged_bundle))
    assert document["cycles"] == 1
    (example,) = document["examples"]
    assert example["evaluator"] == "judge-1"
    assert example["item_external_id"] == "q0"
    # edges run from loser to winner: y->x, z->y, x->z
    assert example["cycle"] == ["x", "z", "y"]
    per_evaluator = {row["evaluator"]: row["cycles"] for row in document["per_evaluator"]}
    assert per_evaluator == {"judge-1": 1, "r1": 0, "r2": 0, "r3": 0}
    assert {row["model"] for row in document["per_model"]} <= {"x", "y", "z"}
    assert main(["contradictions", str(judged_bundle), "--kind", "human"]) == 0
    assert "0 preference cycles" in capsys.readouterr().out


def test_scores_use_the_plugin_registered_for_the_benchmark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    grades = [
        {
            "kind": "judge",
            "model_a": "m1",
            "model_b": None,
            "score": score,
            "turn": turn,
            "rater": "conv-eval",
        }
        for turn, score in ((1, 8.0), (2, 6.0), (3, 4.0), (None, 5.0))
    ]
    bundle = build_bundle(tmp_path / "conv", [item_line("c1", grades, source="convbench", turns=3)])
    registry = plugins.Registry()
    registry.add(
        plugins.Plugin(
            name="convbench",
            version="0",
            description="test",
            scores=(CONVBENCH_SCORES,),
        )
    )
    monkeypatch.setattr(plugins, "registry", lambda: registry)
    document = run_json(capsys, "scores", str(bundle), "--benchmark", "convbench")
    (row,) = document["tables"]["scores"]
    assert (row["S1"], row["S2"], row["S3"], row["S0"]) == (8.0, 6.0, 4.0, 5.0)
    assert row["R2"] == pytest.approx(6.0)
    assert row["R1"] == pytest.approx(5.5)
    assert main(["scores", str(bundle), "--benchmark", "convbench"]) == 0
    assert "[scores]" in capsys.readouterr().out
    assert main(["scores", str(bundle), "--benchmark", "mmbench"]) == 1
    assert "available: convbench" in capsys.readouterr().err


@pytest.mark.shared_data
def test_default_view_counts_evidence_once_and_gives_the_published_ratings(
    wildvision_bundle: Path,
    published_bootstrap: pd.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from workbench.services.analysis import LeaderboardRequest, leaderboard
    from workbench.storage import Bundle

    # the panel's default request: the battles derived from GPT-4o's verdicts are left out
    with Bundle.open(wildvision_bundle) as bundle:
        result = leaderboard(bundle, LeaderboardRequest(bootstrap=0))
    assert result.board.anchor is not None
    assert result.board.anchor.model == "claude-3-sonnet-20240229"
    ratings = result.table.set_index("model")["rating"]
    published = published_bootstrap.iloc[0]
    shared = [model for model in published.index if model in ratings.index]
    assert len(shared) == 21  # aria was published after the ratings
    assert (ratings[shared] - published[shared]).abs().max() < 0.1

    # the CLI's default is the same view; --include-derived would count the evidence twice
    csv = tmp_path / "board.csv"
    document = run_json(capsys, "leaderboard", str(wildvision_bundle), "--csv", str(csv))
    assert document["battles"] == result.battles
    # the CSV's first line is the request, with the command that prints the table
    first = csv.read_text(encoding="utf-8").splitlines()[0]
    assert (
        first.startswith("# request: judgments: judge") and document["request"]["command"] in first
    )
    assert pd.read_csv(csv, skiprows=1)["model"].tolist() == result.table["model"].tolist()
    doubled = run_json(capsys, "leaderboard", str(wildvision_bundle), "--include-derived")
    assert doubled["battles"] == result.battles + 19644
